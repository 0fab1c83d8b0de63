//===- FillStep.cpp - the fill step kind ------------------------*- C++ -*-===//
//
// Step::Kind::Fill: cuMemsetD8Async(dst, value, bytes) at a resolved
// address; a fill of zero bytes does nothing.
//
//===----------------------------------------------------------------------===//

#include "engine/StepKinds.h"

namespace kiln::rt::detail {

namespace {

class PreparedFill : public PreparedStep {
public:
  PreparedFill(ProgramBuilder &builder, const FillStep &f)
      : bytes_(f.bytes), value_(f.value) {
    builder.bindAddress(f.dst, dst_);
    builder.bindShapeExpr(f.bytesExpr, bytes_);
  }

  Status enqueue(const Driver::Api &api, CUstream stream) override {
    if (bytes_ == 0)
      return Status::ok();
    CUresult result = api.memsetD8Async(dst_, value_, bytes_, stream);
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    api.describe("cuMemsetD8Async", result));
    return Status::ok();
  }

private:
  uint64_t dst_ = 0, bytes_;
  uint8_t value_;
};

std::unique_ptr<PreparedStep> prepare(ProgramBuilder &builder, const Step &step,
                                      size_t) {
  return std::make_unique<PreparedFill>(builder, step.fill);
}

} // namespace

const StepKind kFillStepKind = {
    Step::Kind::Fill,  "fill",           /*subject=*/nullptr,
    /*check=*/nullptr, /*load=*/nullptr, prepare};

} // namespace kiln::rt::detail
