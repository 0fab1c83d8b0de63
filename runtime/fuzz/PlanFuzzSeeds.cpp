//===- PlanFuzzSeeds.cpp - real plans to start fuzzing from ---------------===//
//
// See PlanFuzzSeeds.h.
//
//===----------------------------------------------------------------------===//

#include "PlanFuzzSeeds.h"

#include "PlanTestUtil.h"

namespace kiln::rt::fuzz {

std::vector<std::pair<std::string, std::string>> planFuzzSeeds() {
  std::vector<std::pair<std::string, PlanContents>> plans;
  plans.emplace_back("full.kplan", test::makeFullPlan());
  PlanContents small = test::makeSmallPlan();
  small.steps.push_back(test::libraryCallStep(
      "test.call", {{test::arena(0), 64}, {test::tensor(1, 0), 64}},
      "\x05payload"));
  plans.emplace_back("small-call.kplan", small);
  plans.emplace_back("add.kplan", test::addPlan(64, test::randomFloats(64, 1)));
  // Format 1.4: profiles, symbols and shape expressions.
  plans.emplace_back("dynamic-add.kplan",
                     test::dynamicAddPlan(16, test::randomFloats(64, 2)));
  plans.emplace_back("empty.kplan", PlanContents());
  PlanContents noLaunches = test::makeFullPlan();
  std::vector<Step> steps;
  for (const Step &step : noLaunches.steps)
    if (step.kind != Step::Kind::Launch)
      steps.push_back(step);
  noLaunches.steps = steps;
  for (KernelDesc &k : noLaunches.kernels) {
    k.params.clear(); // what a writer of format 1.1 wrote
    k.bounds.clear();
  }
  plans.emplace_back("no-launches-1.1.kplan", noLaunches);

  std::vector<std::pair<std::string, std::string>> seeds;
  for (auto &[name, plan] : plans) {
    auto bytes = writePlan(plan);
    if (!bytes)
      continue; // the regression test sees the seed missing
    seeds.emplace_back(name, std::move(*bytes));
  }
  // A file of format 1.1: the minor version patched, the header checksum
  // repaired.
  for (auto &[name, bytes] : seeds)
    if (name == "no-launches-1.1.kplan") {
      test::writeLE32(bytes, 12, 1);
      test::fixHeaderCrc(bytes);
    }
  return seeds;
}

} // namespace kiln::rt::fuzz
