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
  // Run-time shapes: what a context does with an accepted plan (sizes at
  // the largest shapes, the per-shape checks at each profile's ends) must
  // not crash, whatever it answers.
  std::vector<std::vector<int64_t>> largest = largestShapes(*plan);
  if (largest.size() != plan->tensors.size())
    return "largestShapes refused an accepted plan";
  for (size_t i = 0; i < plan->tensors.size(); ++i)
    if (largest[i].size() != plan->tensors[i].shape.size())
      return "largestShapes lost the rank of tensor " + std::to_string(i) +
             " of an accepted plan";
  for (size_t p = 0; p < numProfiles(*plan) && p < 4; ++p)
    for (bool high : {false, true}) {
      std::vector<int64_t> symbols;
      for (const ShapeSymbol &symbol : plan->symbols) {
        const DimRef &d = symbol.dims.front();
        const ShapeRange &r = plan->tensors[d.tensor].profiles[p];
        symbols.push_back(high ? r.max[d.dim] : r.min[d.dim]);
      }
      (void)verifyPlanAtShapes(*plan, symbols);
    }
  return "";
}

} // namespace kiln::rt::fuzz
