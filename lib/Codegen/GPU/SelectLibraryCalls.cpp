//===- SelectLibraryCalls.cpp - products that cuBLASLt computes -*- C++ -*-===//
//
// kiln-gpu-select-library-calls: every matrix product (Products.h) whose
// accumulator starts at zero gets `kiln_gpu.library = "cublaslt.matmul"`, so
// that fusion leaves it alone and kiln-gpu-form-library-calls makes it a
// cuBLASLt call once it is on buffers.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Codegen/GPU/Products.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUSELECTLIBRARYCALLSPASS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct SelectLibraryCalls
    : public mlir::kiln::impl::KilnGpuSelectLibraryCallsPassBase<
          SelectLibraryCalls> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](linalg::GenericOp op) {
      std::optional<Product> p = matchProduct(op);
      if (!p)
        return;
      // The product's operations: 2 m n k for each iteration of the batch.
      int64_t flops = 2;
      for (int64_t range : op.getStaticLoopRanges())
        flops *= range;
      if (flops < minFlops)
        return;
      auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      if (!fill || !matchPattern(fill.value(), m_AnyZeroFloat()))
        return;
      op->setAttr(KilnGPUDialect::getLibraryAttrName(),
                  b.getStringAttr(::kiln::rt::CublasLtMatmulParams::kCallee));
      ++numSelected;
    });
  }
};
} // namespace
