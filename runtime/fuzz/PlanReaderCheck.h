//===- PlanReaderCheck.h - what the plan-reader fuzzer checks ---*- C++ -*-===//
//
// The property the libFuzzer target (PlanReaderFuzzer.cpp) checks of every
// input, shared with the GoogleTest test that replays the committed
// regression inputs (runtime/test/PlanFuzzRegressionTest.cpp), so that both
// check the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_FUZZ_PLANREADERCHECK_H
#define KILN_RUNTIME_FUZZ_PLANREADERCHECK_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::rt::fuzz {

/// readPlan on `size` bytes at `data` must not crash or read outside them
/// (the sanitizers see to that), and must return a status with a message
/// when it refuses them. A plan it accepts must pass verifyPlan, write back
/// (writePlan), read again to equal contents, and write again to the same
/// bytes. Returns "" when all of that holds, else what did not.
std::string checkPlanBytes(const uint8_t *data, size_t size);

} // namespace kiln::rt::fuzz

#endif // KILN_RUNTIME_FUZZ_PLANREADERCHECK_H
