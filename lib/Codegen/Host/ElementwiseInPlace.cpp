//===- ElementwiseInPlace.cpp - results over dead inputs --------*- C++ -*-===//
//
// kiln-elementwise-in-place: an elementwise linalg.generic writes its result
// over an input of its type that nothing else reads, so that one-shot
// bufferization reuses the input's buffer (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNELEMENTWISEINPLACEPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The input of `op` that its result can be written over, or null.
static OpOperand *findDeadInput(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumLoops() != op.getNumParallelLoops())
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init))
    return nullptr;
  AffineMap map = op.getMatchingIndexingMap(init);
  if (!map.isPermutation())
    return nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    auto producer = value.getDefiningOp<linalg::LinalgOp>();
    if (producer && producer->getBlock() == op->getBlock() &&
        value.getType() == init->get().getType() && value.hasOneUse() &&
        op.getMatchingIndexingMap(input) == map)
      return input;
  }
  return nullptr;
}

/// Makes `input` the init of `op`, read through the init's block argument,
/// and drops it from the inputs.
static void writeOver(linalg::GenericOp op, OpOperand *input) {
  OpOperand *init = op.getDpsInitOperand(0);
  Block &payload = op.getRegion().front();
  op.getMatchingBlockArgument(input).replaceAllUsesWith(
      op.getMatchingBlockArgument(init));
  unsigned index = input->getOperandNumber();
  init->set(input->get());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.erase(maps.begin() + index);
  op.setIndexingMapsAttr(Builder(op.getContext()).getAffineMapArrayAttr(maps));
  op.getInputsMutable().erase(index);
  payload.eraseArgument(index);
}

namespace {
struct ElementwiseInPlace
    : public kiln::impl::KilnElementwiseInPlacePassBase<ElementwiseInPlace> {
  using Base::Base;

  void runOnOperation() override {
    // How many layers before a result wrote over the same buffer. A chain
    // longer than `max-chain` starts a new buffer: one-shot bufferization
    // checks each in-place write against every alias of its buffer, so an
    // unbounded chain would make that analysis quadratic in the chain.
    DenseMap<Value, unsigned> depth;
    getOperation().walk([&](linalg::GenericOp op) {
      OpOperand *input = findDeadInput(op);
      if (!input)
        return;
      unsigned next = depth.lookup(input->get()) + 1;
      if (next > maxChain)
        return;
      writeOver(op, input);
      depth[op->getResult(0)] = next;
    });
  }
};
} // namespace
