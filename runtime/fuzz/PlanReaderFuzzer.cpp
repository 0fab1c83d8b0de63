//===- PlanReaderFuzzer.cpp - libFuzzer target for readPlan ---------------===//
//
// Feeds every input to readPlan and checks what PlanReaderCheck.h says: no
// crash, no out-of-bounds read (AddressSanitizer), no undefined behaviour
// (UndefinedBehaviorSanitizer), and a plan that reads writes back and reads
// again to equal contents. A failed check aborts, which libFuzzer reports as
// a crash with the input that caused it.
//
// Random bytes almost never get past the checksums, so the mutator repairs
// them most of the time: after libFuzzer's mutation it sets the header's
// file size to the input's size and recomputes the body and header
// checksums, so that mutations reach the manifest verifier, the section
// table and the consistency checks. scripts/fuzz-plan-reader.sh builds and
// runs it (KILN_RUNTIME_FUZZERS=ON, clang).
//
//===----------------------------------------------------------------------===//

#include "PlanReaderCheck.h"

#include "plan/Crc32.h"
#include "plan/PlanFormat.h"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string failure = kiln::rt::fuzz::checkPlanBytes(data, size);
  if (!failure.empty()) {
    std::fprintf(stderr, "plan-reader fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  using namespace kiln::rt::detail;
  size = LLVMFuzzerMutate(data, size, maxSize);
  // One mutation in eight keeps its damaged header, for the first checks.
  if (size < kPlanHeaderSize || seed % 8 == 0)
    return size;
  storeLE64(data + kFileSizeOffset, size);
  storeLE32(data + kBodyCrcOffset,
            crc32(data + kPlanHeaderSize, size - kPlanHeaderSize));
  storeLE32(data + kHeaderCrcOffset, crc32(data, kHeaderCrcOffset));
  return size;
}
