//===- PlanReaderCheck.cpp - what the plan-reader fuzzer checks -----------===//
//
// See PlanReaderCheck.h.
//
//===----------------------------------------------------------------------===//

#include "PlanReaderCheck.h"

#include "PlanTestUtil.h"
#include "kiln/runtime/Plan.h"

namespace kiln::rt::fuzz {

std::string checkPlanBytes(const uint8_t *data, size_t size) {
  auto plan = readPlan(data, size);
  if (!plan) {
    if (plan.status().code() == StatusCode::Ok ||
        plan.status().message().empty())
      return "readPlan refused the input without a message";
    return "";
  }
  if (Status s = verifyPlan(*plan); !s)
    return "readPlan accepted a plan that verifyPlan refuses: " + s.toString();
  auto written = writePlan(*plan);
  if (!written)
    return "readPlan accepted a plan that writePlan refuses: " +
           written.status().toString();
  auto reread = readPlan(written->data(), written->size());
  if (!reread)
    return "readPlan refuses what writePlan wrote of an accepted plan: " +
           reread.status().toString();
  std::string difference;
  if (!test::plansEqual(*plan, *reread, difference))
    return "an accepted plan changed when written and read again: " +
           difference;
  auto rewritten = writePlan(*reread);
  if (!rewritten || *rewritten != *written)
    return "writing the same plan twice gave different bytes";
  return "";
}

} // namespace kiln::rt::fuzz
