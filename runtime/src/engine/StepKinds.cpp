//===- StepKinds.cpp - the table of step kinds ------------------*- C++ -*-===//
//
// The one list of step kinds the engine knows, and what all kinds share:
// their descriptions and how an address becomes a slot of a prepared step.
//
//===----------------------------------------------------------------------===//

#include "engine/StepKinds.h"

namespace kiln::rt::detail {

namespace {
/// Every kind, in any order. A new kind is one line here.
const StepKind *const kStepKinds[] = {
    &kLaunchStepKind,
    &kCopyStepKind,
    &kFillStepKind,
    &kLibraryCallStepKind,
};
} // namespace

EngineStepState::~EngineStepState() = default;
PreparedStep::~PreparedStep() = default;

const StepKind *findStepKind(Step::Kind kind) {
  for (const StepKind *k : kStepKinds)
    if (k->kind == kind)
      return k;
  return nullptr;
}

namespace {
std::string describe(const PlanContents &plan, const Step &step,
                     const char *before, const char *after) {
  const StepKind *k = findStepKind(step.kind);
  if (!k)
    return "step kind " + std::to_string(static_cast<int>(step.kind));
  const std::string *subject = k->subject ? k->subject(plan, step) : nullptr;
  return subject ? std::string(k->verb) + before + *subject + after : k->verb;
}
} // namespace

std::string describeStep(const PlanContents &plan, const Step &step) {
  return describe(plan, step, " '", "'");
}

std::string stepProfileName(const PlanContents &plan, const Step &step) {
  return describe(plan, step, " ", "");
}

void ProgramBuilder::bindAddress(const Address &address, uint64_t &slot) {
  switch (address.space) {
  case MemorySpace::Arena:
    program_.arenaFixups.push_back({&slot, address.offset});
    break;
  case MemorySpace::Weights:
    slot = weights_ + address.offset;
    break;
  case MemorySpace::Tensor:
    program_.tensorFixups[address.index].push_back({&slot, address.offset});
    break;
  }
}

} // namespace kiln::rt::detail
