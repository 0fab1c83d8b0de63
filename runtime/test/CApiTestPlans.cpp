//===- CApiTestPlans.cpp - plans for the C API's C test ---------*- C++ -*-===//
//
// See CApiTestPlans.h.
//
//===----------------------------------------------------------------------===//

#include "CApiTestPlans.h"

#include "PlanTestUtil.h"

#include <cstdlib>
#include <cstring>

extern "C" int kiln_test_add_plan(int64_t n, const float *weights, void **bytes,
                                  size_t *size) {
  std::vector<float> w(weights, weights + n);
  auto file = kiln::rt::writePlan(kiln::rt::test::addPlan(n, w));
  if (!file)
    return 1;
  *bytes = std::malloc(file->size());
  if (!*bytes)
    return 1;
  std::memcpy(*bytes, file->data(), file->size());
  *size = file->size();
  return 0;
}

extern "C" void kiln_test_free_plan(void *bytes) { std::free(bytes); }
