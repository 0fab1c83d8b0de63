/*===- CApiTestPlans.h - plans for the C API's C test -------------*- C -*-===*
 *
 * The C test (CApiFlowTest.c) cannot call writePlan, which is C++: these
 * functions, built from PlanTestUtil, give it the bytes of test plans.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RUNTIME_TEST_CAPITESTPLANS_H
#define KILN_RUNTIME_TEST_CAPITESTPLANS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plan file of addPlan(n, weights) (PlanTestUtil.h): out = (a + w) + b
 * with the fake driver's fake_add_f32 kernel. Returns 0 and sets *bytes
 * (free it with kiln_test_free_plan) and *size, or returns 1. */
int kiln_test_add_plan(int64_t n, const float *weights, void **bytes,
                       size_t *size);
void kiln_test_free_plan(void *bytes);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_TEST_CAPITESTPLANS_H */
