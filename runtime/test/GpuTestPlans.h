//===- GpuTestPlans.h - plans of hand-written PTX for real GPUs -*- C++ -*-===//
//
// Plans whose kernels are hand-written PTX for sm_80 (the driver JIT-compiles
// them for any newer device), for the tests and benchmarks that run on a real
// GPU: GpuTest.cpp and kiln-bench-shapes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TEST_GPUTESTPLANS_H
#define KILN_RUNTIME_TEST_GPUTESTPLANS_H

#include "kiln/runtime/Plan.h"

#include <cstdint>
#include <vector>

namespace kiln::rt::test {

/// The PTX of kiln_test_add_f32 (y = x + w) and kiln_test_axpb (out =
/// alpha * x + beta), for i < n.
extern const char *const kGpuTestPtx;
/// y = fma(0.5, x + w, -3) over n floats through every memory space and
/// step kind (tensors x and y, the weights w).
PlanContents axpbPlan(int64_t n, const std::vector<float> &w);
/// axpbPlan over ? x `cols` floats, 1 to `maxRows` rows (format 1.4; profile
/// min 1, opt 8, max maxRows), w of maxRows * cols floats.
PlanContents dynamicAxpbPlan(int64_t maxRows, int64_t cols,
                             const std::vector<float> &w);

} // namespace kiln::rt::test

#endif // KILN_RUNTIME_TEST_GPUTESTPLANS_H
