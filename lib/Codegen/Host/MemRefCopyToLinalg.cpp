//===- MemRefCopyToLinalg.cpp - memref.copy as linalg.copy ------*- C++ -*-===//
//
// kiln-memref-copy-to-linalg: every memref.copy becomes a linalg.copy, which
// lowers to loops (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMEMREFCOPYTOLINALGPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {
struct MemRefCopyToLinalg
    : public kiln::impl::KilnMemRefCopyToLinalgPassBase<MemRefCopyToLinalg> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto result = getOperation().walk([&](memref::CopyOp copy) {
      // linalg.copy needs ranked buffers.
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType())) {
        copy.emitError("kiln-memref-copy-to-linalg: cannot copy unranked "
                       "memrefs with linalg.copy");
        return WalkResult::interrupt();
      }
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
