//===- LibraryCallStep.cpp - the library-call step kind ---------*- C++ -*-===//
//
// Step::Kind::LibraryCall: a call into the handler registered for the step's
// callee (LibraryCall.h). Before anything is loaded every callee must have a
// handler; each handler then prepares an instance for its step, once per
// engine; a context gives every buffer a slot and calls the instance with
// the resolved addresses. Exceptions from handlers are caught here: every
// failure is a Status.
//
//===----------------------------------------------------------------------===//

#include "engine/LibraryCallRegistry.h"
#include "engine/StepKinds.h"

#include <exception>

namespace kiln::rt::detail {

namespace {

/// The instance of one step, kept by the engine.
class LibraryCallState : public EngineStepState {
public:
  explicit LibraryCallState(std::unique_ptr<LibraryCallInstance> instance)
      : instance(std::move(instance)) {}
  std::unique_ptr<LibraryCallInstance> instance;
};

class PreparedLibraryCall : public PreparedStep {
public:
  PreparedLibraryCall(ProgramBuilder &builder, const LibraryCallStep &call,
                      LibraryCallInstance *instance)
      : instance_(instance), buffers_(call.buffers.size(), 0) {
    for (size_t i = 0; i < call.buffers.size(); ++i)
      builder.bindAddress(call.buffers[i].address, buffers_[i]);
  }

  Status enqueue(const Driver::Api &, CUstream stream) override {
    try {
      return instance_->enqueue(stream, buffers_.data(), buffers_.size());
    } catch (const std::exception &e) {
      return Status(StatusCode::Internal,
                    std::string("the handler threw an exception: ") + e.what());
    } catch (...) {
      return Status(StatusCode::Internal, "the handler threw an exception");
    }
  }

private:
  LibraryCallInstance *instance_;
  /// The buffers' device addresses, in the step's order.
  std::vector<uint64_t> buffers_;
};

/// "step 3 (call 'cublaslt.matmul')".
std::string where(const Step &step, size_t index) {
  return "step " + std::to_string(index) + " (call '" +
         step.libraryCall.callee + "')";
}

Status noHandler(const Step &step, size_t index) {
  std::string handlers;
  for (const std::string &callee : registeredLibraryCalls())
    handlers += (handlers.empty() ? "'" : ", '") + callee + "'";
  return Status(StatusCode::UnsupportedPlan,
                "step " + std::to_string(index) + " calls '" +
                    step.libraryCall.callee +
                    "', which has no handler in this runtime (handlers: " +
                    (handlers.empty() ? "none" : handlers) + ")");
}

const std::string *subject(const PlanContents &, const Step &step) {
  return &step.libraryCall.callee;
}

Status check(const Step &step, size_t index) {
  return hasLibraryCallHandler(step.libraryCall.callee)
             ? Status::ok()
             : noHandler(step, index);
}

StatusOr<std::unique_ptr<EngineStepState>>
load(Runtime &runtime, const Step &step, size_t index) {
  LibraryCallHandler handler = findLibraryCallHandler(step.libraryCall.callee);
  if (!handler) // unregistered since check()
    return noHandler(step, index);
  LibraryCallSetup setup{runtime, index, step.libraryCall};
  try {
    auto instance = handler(setup);
    if (!instance)
      return Status(instance.status().code(),
                    where(step, index) + ": " + instance.status().message());
    if (!*instance)
      return Status(StatusCode::Internal,
                    where(step, index) + ": the handler returned no instance");
    return std::unique_ptr<EngineStepState>(
        new LibraryCallState(std::move(*instance)));
  } catch (const std::exception &e) {
    return Status(StatusCode::Internal,
                  where(step, index) +
                      ": the handler threw an exception: " + e.what());
  } catch (...) {
    return Status(StatusCode::Internal,
                  where(step, index) + ": the handler threw an exception");
  }
}

std::unique_ptr<PreparedStep> prepare(ProgramBuilder &builder, const Step &step,
                                      size_t index) {
  auto *state = static_cast<LibraryCallState *>(builder.engineState(index));
  return std::make_unique<PreparedLibraryCall>(builder, step.libraryCall,
                                               state->instance.get());
}

} // namespace

const StepKind kLibraryCallStepKind = {
    Step::Kind::LibraryCall, "call", subject, check, load, prepare};

} // namespace kiln::rt::detail
