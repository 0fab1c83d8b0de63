//===- ChannelsLast.cpp - convolutions and pools in NHWC --------*- C++ -*-===//
//
// kiln-channels-last (Passes.td shows the IR): each channels-first
// convolution, pool and global pool becomes the same layer channels last,
// between a conversion of its input to channels last and one of its result
// back. Constant filters are re-laid out on the host (Weights.h).
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

/// Builds `op` channels last on its input converted to channels last, and
/// replaces it with the result converted back.
void convert(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  Value input = transpose(b, loc, op->getOperand(0), getToChannelsLast(rank));
  auto layout = LayoutAttr::get(b.getContext(), Layout::ChannelsLast);
  Value result;
  if (auto conv = dyn_cast<ConvolutionOp>(op)) {
    result = ConvolutionOp::create(
        b, loc, input, filterChannelsLast(b, loc, conv.getFilter()),
        conv.getBias(), conv.getStridesAttr(), conv.getPadsAttr(),
        conv.getDilationsAttr(), conv.getGroupsAttr(), layout);
  } else if (auto pool = dyn_cast<PoolOp>(op)) {
    result = PoolOp::create(
        b, loc, pool.getKindAttr(), input, pool.getWindowAttr(),
        pool.getStridesAttr(), pool.getPadsAttr(), pool.getDilationsAttr(),
        pool.getCeilModeAttr(), pool.getCountIncludePadAttr(), layout);
  } else {
    auto global = cast<GlobalPoolOp>(op);
    result = GlobalPoolOp::create(b, loc, global.getKindAttr(), input, layout);
  }
  op->getResult(0).replaceAllUsesWith(
      transpose(b, loc, result, getToChannelsFirst(rank)));
  op->erase();
}

struct ChannelsLastPass
    : mlir::kiln::impl::KilnChannelsLastPassBase<ChannelsLastPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> layers;
    getOperation().walk([&](Operation *op) {
      if (auto conv = dyn_cast<ConvolutionOp>(op))
        if (conv.getLayout() == Layout::ChannelsFirst)
          layers.push_back(op);
      if (auto pool = dyn_cast<PoolOp>(op))
        if (pool.getLayout() == Layout::ChannelsFirst)
          layers.push_back(op);
      if (auto global = dyn_cast<GlobalPoolOp>(op))
        if (global.getLayout() == Layout::ChannelsFirst)
          layers.push_back(op);
    });
    for (Operation *op : layers)
      convert(op);
    numLayers += layers.size();
  }
};

} // namespace
