//===- StepKinds.h - how each kind of plan step runs ------------*- C++ -*-===//
//
// Every Step::Kind has one implementation, a StepKind: how the step is
// described ("launch 'k0'", "copy"), what it needs once per engine (a library
// call's prepared instance), how it is prepared into an execution context's
// Program, and, through the PreparedStep it prepares, how it is enqueued.
// StepKinds.cpp lists them in one table; each kind lives in its own file
// (LaunchStep.cpp, CopyStep.cpp, FillStep.cpp, LibraryCallStep.cpp).
// docs/runtime.md, "Adding a step kind", lists every file a new kind touches.
//
// A context prepares its steps once: every kernel parameter and every address
// gets an 8-byte slot in its PreparedStep, immediates and weights addresses
// are filled in at once, and arena and tensor addresses are patched into
// their slots whenever they are bound. Enqueueing then only walks the
// prepared steps and calls the driver. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_ENGINE_STEPKINDS_H
#define KILN_RUNTIME_SRC_ENGINE_STEPKINDS_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include "cuda/DriverApi.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {
class Runtime;
namespace detail {

/// What a step kind keeps per engine (StepKind::load), for example a library
/// call's prepared instance; shared by the engine's contexts.
class EngineStepState {
public:
  virtual ~EngineStepState();
};

/// One step ready for the driver, owned by one execution context.
class PreparedStep {
public:
  virtual ~PreparedStep();
  /// Enqueues the step on `stream`. A failure names the call that failed
  /// ("cuLaunchKernel failed with ..."); the context adds the step.
  virtual Status enqueue(const Driver::Api &api, CUstream stream) = 0;
};

/// The steps of a plan prepared for one execution context, and where the
/// arena and tensor addresses go when they are bound.
struct Program {
  /// A slot that holds base(space) + offset.
  struct Fixup {
    uint64_t *slot;
    uint64_t offset;
  };
  /// One per plan step, in plan order.
  std::vector<std::unique_ptr<PreparedStep>> steps;
  std::vector<Fixup> arenaFixups;
  /// Indexed by tensor.
  std::vector<std::vector<Fixup>> tensorFixups;
  /// A slot that holds the value of a shape expression (format 1.4): a
  /// grid dimension, an integer argument, an extent, a byte count.
  struct ShapeFixup {
    uint64_t *slot;
    int32_t expr;
  };
  /// Written whenever the shapes change.
  std::vector<ShapeFixup> shapeFixups;
};

/// What StepKind::prepare may use: the engine's loaded code and state, and
/// the program's address fixups.
class ProgramBuilder {
public:
  ProgramBuilder(Program &program, const PlanContents &plan,
                 const std::vector<void *> &functions, uint64_t weights,
                 const std::vector<std::unique_ptr<EngineStepState>> &states)
      : program_(program), plan_(plan), functions_(functions),
        weights_(weights), states_(states) {}

  const PlanContents &plan() const { return plan_; }
  /// The CUfunction of plan kernel `kernel`.
  CUfunction function(uint32_t kernel) const {
    return static_cast<CUfunction>(functions_[kernel]);
  }
  /// What StepKind::load made for step `step`, or null.
  EngineStepState *engineState(size_t step) const {
    return step < states_.size() ? states_[step].get() : nullptr;
  }
  /// Makes `slot` hold the device address of `address`: the weights' at
  /// once, the arena's and the tensors' whenever they are bound. `slot` must
  /// not move for the life of the context: a member of the PreparedStep or
  /// an element of a vector it sized before this call.
  void bindAddress(const Address &address, uint64_t &slot);
  /// Makes `slot` hold the value of shape expression `expr` at the bound
  /// shapes, whenever they are bound; nothing for kNoShapeExpr (the slot
  /// keeps the plan's value). `slot` as for bindAddress.
  void bindShapeExpr(int32_t expr, uint64_t &slot) {
    if (expr != kNoShapeExpr)
      program_.shapeFixups.push_back({&slot, expr});
  }

private:
  Program &program_;
  const PlanContents &plan_;
  const std::vector<void *> &functions_;
  uint64_t weights_;
  const std::vector<std::unique_ptr<EngineStepState>> &states_;
};

/// The implementation of one Step::Kind.
struct StepKind {
  Step::Kind kind;
  /// The first word of the step's description: "launch", "copy", "fill",
  /// "call".
  const char *verb;
  /// What the step acts on, named in its description (the kernel of a
  /// launch, the callee of a call); null when the verb says it all.
  const std::string *(*subject)(const PlanContents &plan, const Step &step);
  /// Optional: checks, before anything is loaded on the device, that this
  /// runtime can run the step (UnsupportedPlan otherwise).
  Status (*check)(const Step &step, size_t index);
  /// Optional: makes what the step needs once per engine, after every
  /// step's check and before the module is loaded, with the device's context
  /// current. May return null.
  StatusOr<std::unique_ptr<EngineStepState>> (*load)(Runtime &runtime,
                                                     const Step &step,
                                                     size_t index);
  /// Prepares the step for one execution context.
  std::unique_ptr<PreparedStep> (*prepare)(ProgramBuilder &builder,
                                           const Step &step, size_t index);
};

/// The kinds, one per file.
extern const StepKind kLaunchStepKind;
extern const StepKind kCopyStepKind;
extern const StepKind kFillStepKind;
extern const StepKind kLibraryCallStepKind;

/// The implementation of `kind`, or null for a value that is not a kind
/// (verified plans have none).
const StepKind *findStepKind(Step::Kind kind);

/// "launch 'k0'", "copy", "call 'cublaslt.matmul'": for messages ("step 3
/// (launch 'k0'): ...").
std::string describeStep(const PlanContents &plan, const Step &step);
/// "launch k0", "copy", "call cublaslt.matmul": the names the Profiler
/// reports.
std::string stepProfileName(const PlanContents &plan, const Step &step);

} // namespace detail
} // namespace kiln::rt

#endif // KILN_RUNTIME_SRC_ENGINE_STEPKINDS_H
