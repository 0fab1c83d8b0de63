//===- LaunchStep.cpp - the launch step kind --------------------*- C++ -*-===//
//
// Step::Kind::Launch: cuLaunchKernel of one of the plan's kernels with its
// grid, block, shared memory and arguments. Every argument gets an 8-byte
// slot: pointers are resolved addresses, immediates their bits (a 4-byte I32
// or F32 is the slot's low half, its first 4 bytes on the little-endian hosts
// CUDA supports).
//
//===----------------------------------------------------------------------===//

#include "engine/StepKinds.h"

namespace kiln::rt::detail {

namespace {

class PreparedLaunch : public PreparedStep {
public:
  PreparedLaunch(ProgramBuilder &builder, const LaunchStep &l)
      : function_(builder.function(l.kernel)),
        sharedMemoryBytes_(l.sharedMemoryBytes), slots_(l.args.size(), 0),
        params_(l.args.size(), nullptr) {
    for (int d = 0; d < 3; ++d) {
      grid_[d] = l.grid[d];
      block_[d] = l.block[d];
      builder.bindShapeExpr(l.gridExprs[d], grid_[d]);
    }
    for (size_t i = 0; i < l.args.size(); ++i) {
      const KernelArg &arg = l.args[i];
      switch (arg.kind) {
      case KernelArg::Kind::Pointer:
        builder.bindAddress(arg.address, slots_[i]);
        break;
      case KernelArg::Kind::I32:
      case KernelArg::Kind::F32:
        slots_[i] = arg.bits & 0xFFFFFFFFu;
        break;
      case KernelArg::Kind::I64:
        slots_[i] = arg.bits;
        break;
      }
      // A 4-byte I32 read from a slot of its value: verified plans keep it
      // within [0, 2^31).
      if (arg.kind != KernelArg::Kind::Pointer)
        builder.bindShapeExpr(arg.valueExpr, slots_[i]);
      params_[i] = &slots_[i];
    }
  }

  Status enqueue(const Driver::Api &api, CUstream stream) override {
    CUresult result = api.launchKernel(
        function_, static_cast<unsigned>(grid_[0]),
        static_cast<unsigned>(grid_[1]), static_cast<unsigned>(grid_[2]),
        block_[0], block_[1], block_[2], sharedMemoryBytes_, stream,
        params_.empty() ? nullptr : params_.data(), nullptr);
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    api.describe("cuLaunchKernel", result));
    return Status::ok();
  }

private:
  CUfunction function_;
  /// The grid in slots, as its dimensions may vary with the shapes.
  uint64_t grid_[3];
  unsigned block_[3], sharedMemoryBytes_;
  /// Argument values; params_ (cuLaunchKernel's kernelParams) points at them.
  std::vector<uint64_t> slots_;
  std::vector<void *> params_;
};

const std::string *subject(const PlanContents &plan, const Step &step) {
  return &plan.kernels[step.launch.kernel].name;
}

std::unique_ptr<PreparedStep> prepare(ProgramBuilder &builder, const Step &step,
                                      size_t) {
  return std::make_unique<PreparedLaunch>(builder, step.launch);
}

} // namespace

const StepKind kLaunchStepKind = {
    Step::Kind::Launch, "launch",         subject,
    /*check=*/nullptr,  /*load=*/nullptr, prepare};

} // namespace kiln::rt::detail
