//===- CopyStep.cpp - the copy step kind ------------------------*- C++ -*-===//
//
// Step::Kind::Copy: cuMemcpyDtoDAsync(dst, src, bytes) between two resolved
// addresses; a copy of zero bytes does nothing.
//
//===----------------------------------------------------------------------===//

#include "engine/StepKinds.h"

namespace kiln::rt::detail {

namespace {

class PreparedCopy : public PreparedStep {
public:
  PreparedCopy(ProgramBuilder &builder, const CopyStep &c) : bytes_(c.bytes) {
    builder.bindAddress(c.dst, dst_);
    builder.bindAddress(c.src, src_);
    builder.bindShapeExpr(c.bytesExpr, bytes_);
  }

  Status enqueue(const Driver::Api &api, CUstream stream) override {
    if (bytes_ == 0)
      return Status::ok();
    CUresult result = api.memcpyDtoDAsync(dst_, src_, bytes_, stream);
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    api.describe("cuMemcpyDtoDAsync", result));
    return Status::ok();
  }

private:
  uint64_t dst_ = 0, src_ = 0, bytes_;
};

std::unique_ptr<PreparedStep> prepare(ProgramBuilder &builder, const Step &step,
                                      size_t) {
  return std::make_unique<PreparedCopy>(builder, step.copy);
}

} // namespace

const StepKind kCopyStepKind = {
    Step::Kind::Copy,  "copy",           /*subject=*/nullptr,
    /*check=*/nullptr, /*load=*/nullptr, prepare};

} // namespace kiln::rt::detail
