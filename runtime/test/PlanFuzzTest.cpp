//===- PlanFuzzTest.cpp - readPlan on damaged bytes -------------*- C++ -*-===//
//
// A small plan (2 kernels, 1 image, weights, 6 steps, one of them a library
// call), damaged every way one byte can be: every truncation and every
// single-byte flip (xor 0x01, 0x80, 0xFF at each position) must be refused,
// without a crash. Then random
// multi-byte mutations from a fixed seed, half of them with the checksums
// repaired so that they reach the manifest verifier and the semantic checks:
// those may be accepted, but never crash, and whatever readPlan accepts,
// writePlan must accept too. Run under AddressSanitizer to catch any
// out-of-bounds read: every input is a heap buffer of exactly its size.
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>

using namespace kiln::rt;
using namespace kiln::rt::test;

namespace {

/// readPlan on a copy of `bytes` in a buffer of exactly that size.
StatusOr<PlanContents> readExact(const std::string &bytes) {
  std::unique_ptr<char[]> buffer(new char[bytes.size() ? bytes.size() : 1]);
  std::copy(bytes.begin(), bytes.end(), buffer.get());
  return readPlan(buffer.get(), bytes.size());
}

/// The plan to damage: the file KILN_FUZZ_PLAN names (a lit test points it at
/// a plan kiln-compile wrote), else a small plan built here.
std::string smallPlanFile() {
  if (const char *path = std::getenv("KILN_FUZZ_PLAN")) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "cannot read KILN_FUZZ_PLAN=" << path;
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // With a library call, so that its table is damaged too.
  PlanContents plan = makeSmallPlan();
  plan.steps.push_back(libraryCallStep(
      "test.call", {{arena(0), 64}, {tensor(1, 0), 64}}, "\x05payload"));
  auto file = writePlan(plan);
  EXPECT_TRUE(file.isOk()) << file.status().toString();
  return file.isOk() ? *file : std::string();
}

TEST(PlanFuzz, EveryTruncationIsRefused) {
  const std::string file = smallPlanFile();
  ASSERT_TRUE(readExact(file).isOk());
  size_t cases = 0;
  for (size_t length = 0; length < file.size(); ++length, ++cases) {
    auto plan = readExact(file.substr(0, length));
    ASSERT_FALSE(plan.isOk())
        << "a plan truncated to " << length << " bytes was accepted";
    ASSERT_NE(plan.status().code(), StatusCode::Ok);
  }
  std::printf("[ fuzz     ] %zu truncations of a %zu-byte plan, all refused\n",
              cases, file.size());
}

TEST(PlanFuzz, EverySingleByteFlipIsRefused) {
  const std::string file = smallPlanFile();
  size_t cases = 0;
  for (unsigned char mask : {0x01, 0x80, 0xFF}) {
    for (size_t i = 0; i < file.size(); ++i, ++cases) {
      std::string damaged = file;
      damaged[i] = static_cast<char>(damaged[i] ^ mask);
      auto plan = readExact(damaged);
      ASSERT_FALSE(plan.isOk()) << "byte " << i << " xor 0x" << std::hex
                                << int(mask) << " was accepted";
    }
  }
  std::printf(
      "[ fuzz     ] %zu single-byte flips of a %zu-byte plan, all refused\n",
      cases, file.size());
}

/// readPlan on `damaged` must not crash; whatever it accepts, writePlan must
/// accept too. Returns whether it was accepted.
bool readAndCheck(const std::string &damaged) {
  auto plan = readExact(damaged);
  if (!plan.isOk())
    return false;
  auto rewritten = writePlan(*plan);
  EXPECT_TRUE(rewritten.isOk()) << "readPlan accepted what writePlan refuses: "
                                << rewritten.status().toString();
  return true;
}

TEST(PlanFuzz, RandomMutationsDoNotCrash) {
  const std::string file = smallPlanFile();
  const uint64_t manifestSize = readLE64(file, 32);
  std::mt19937 random(20261201);
  size_t cases = 0, accepted = 0, repaired = 0;
  // Random bytes at 1 to 8 random places; half of the time inside the
  // manifest, half of the time with the checksums repaired.
  for (int iteration = 0; iteration < 6000; ++iteration, ++cases) {
    std::string damaged = file;
    int changes = 1 + static_cast<int>(random() % 8);
    bool manifestOnly = iteration % 2 == 0;
    for (int c = 0; c < changes; ++c) {
      size_t at = manifestOnly ? 64 + random() % manifestSize
                               : random() % damaged.size();
      damaged[at] = static_cast<char>(random() & 0xFF);
    }
    if (iteration % 4 < 2) {
      fixCrcs(damaged);
      ++repaired;
    }
    accepted += readAndCheck(damaged);
  }
  // Boundary values in aligned manifest words (offsets, sizes, counts,
  // indices), checksums repaired: these reach the verifier and the checks.
  const uint32_t interesting[] = {
      0,          1,          2,          7,
      0xFF,       0x100,      0xFFFF,     0x7FFFFFFF,
      0x80000000, 0xFFFFFFFF, 0xFFFFFFF8, uint32_t(file.size())};
  for (int iteration = 0; iteration < 4000; ++iteration, ++cases) {
    std::string damaged = file;
    int changes = 1 + static_cast<int>(random() % 3);
    for (int c = 0; c < changes; ++c) {
      size_t at = 64 + (random() % (manifestSize / 4)) * 4;
      uint32_t value = iteration % 5 == 0
                           ? static_cast<uint32_t>(random())
                           : interesting[random() % std::size(interesting)];
      writeLE32(damaged, at, value);
    }
    fixCrcs(damaged);
    ++repaired;
    accepted += readAndCheck(damaged);
  }
  std::printf("[ fuzz     ] %zu random mutations (%zu with repaired "
              "checksums): %zu accepted, none crashed\n",
              cases, repaired, accepted);
}

} // namespace
