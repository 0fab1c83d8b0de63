//===- ChannelsLast.cpp - convolutions and pools in NHWC --------*- C++ -*-===//
//
// kiln-channels-last (Passes.td shows the IR): each channels-first layer
// that has a layout (LayoutOpInterface: convolution, pool and global pool)
// becomes the same layer channels last, between a conversion of its input
// to channels last and one of its result back. Constant filters are re-laid
// out on the host (Weights.h).
// kiln-sink-transposes removes the conversions that meet.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "Weights.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/Layout.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHANNELSLASTPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// `v` transposed by `perm` (a kiln.transpose).
Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  return TransposeOp::create(b, loc, v, b.getDenseI64ArrayAttr(perm));
}

/// The filter R1..Rk x C/g x K: constants re-laid out on the host, other
/// filters transposed when the network runs.
Value filterChannelsLast(OpBuilder &b, Location loc, Value filter) {
  int64_t rank = cast<RankedTensorType>(filter.getType()).getRank();
  SmallVector<int64_t> perm = getFilterToChannelsLast(rank);
  if (Value v = weights::transposeConstant(b, loc, filter, perm, ".hwcf"))
    return v;
  return transpose(b, loc, filter, perm);
}

/// Builds `layer` channels last on its input (operand 0) converted to
/// channels last, and replaces it with the result converted back. A
/// convolution's filter is re-laid out too; the other operands stay.
void convert(LayoutOpInterface layer) {
  Operation *op = layer;
  OpBuilder b(op);
  Location loc = op->getLoc();
  int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  Value input = transpose(b, loc, op->getOperand(0), getToChannelsLast(rank));
  Value filter;
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    filter = filterChannelsLast(b, loc, conv.getFilter());
  auto last = cast<LayoutOpInterface>(b.clone(*op));
  last->setOperand(0, input);
  if (filter)
    cast<ConvolutionOp>(last).getFilterMutable().assign(filter);
  last.setLayout(Layout::ChannelsLast);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value result = last->getResult(0);
  result.setType(
      RankedTensorType::get(permute(type.getShape(), getToChannelsLast(rank)),
                            type.getElementType()));
  op->getResult(0).replaceAllUsesWith(
      transpose(b, loc, result, getToChannelsFirst(rank)));
  op->erase();
}

struct ChannelsLastPass
    : mlir::kiln::impl::KilnChannelsLastPassBase<ChannelsLastPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<LayoutOpInterface> layers;
    getOperation().walk([&](LayoutOpInterface op) {
      if (op.getLayout() == Layout::ChannelsFirst)
        layers.push_back(op);
    });
    for (LayoutOpInterface op : layers)
      convert(op);
    numLayers += layers.size();
  }
};

} // namespace
