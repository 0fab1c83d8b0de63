//===- PadHandlers.cpp - ONNX Pad and CenterCropPad -------------*- C++ -*-===//
//
// Pad (constant, reflect, edge: kiln.pad; Pad-19's wrap: a Gather of
// positions modulo the extent per axis) and CenterCropPad (one kiln.pad
// whose negative amounts crop).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// Pad-19's "wrap" mode: along each padded axis, a Gather of the positions
/// (i - begin) mod extent, which also crops where a pad is negative.
FailureOr<Value> wrapPad(NodeContext &nc, Value x, ArrayRef<int64_t> pads) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  for (int64_t a = 0; a < rank; ++a) {
    int64_t begin = pads[a], end = pads[rank + a], dim = type.getDimSize(a);
    if (!begin && !end)
      continue;
    if (ShapedType::isDynamic(dim))
      return nc.fail("cannot wrap-pad axis " + Twine(a) +
                     ", which varies at run time");
    // At most 2^20 positions (an 8 MiB index constant): wider wrap pads
    // are refused, not built.
    int64_t size = 0;
    if (dim == 0 || begin < -dim || end < -dim ||
        llvm::AddOverflow(dim, begin, size) ||
        llvm::AddOverflow(size, end, size) || size < 0 ||
        size > (int64_t(1) << 20))
      return nc.fail("wrap pads " + Twine(begin) + ", " + Twine(end) +
                     " do not fit axis " + Twine(a) + " of extent " +
                     Twine(dim));
    SmallVector<int64_t> positions;
    for (int64_t i = 0; i < size; ++i)
      positions.push_back(((i - begin) % dim + dim) % dim);
    FailureOr<Value> gathered =
        nc.create<GatherOp>({x, nc.i64Constant({size}, positions)},
                            {nc.named("axis", nc.b.getI64IntegerAttr(a))});
    if (failed(gathered))
      return failure();
    x = *gathered;
  }
  return x;
}

/// CenterCropPad-18: each listed axis cropped or zero-padded to its target
/// extent around the center (the extra element of an odd difference at the
/// end): one kiln.pad, negative amounts cropping.
LogicalResult centerCropPad(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  FailureOr<SmallVector<int64_t>> shape = nc.intInput(1);
  if (failed(shape))
    return failure();
  SmallVector<int64_t> axes = nc.getInts("axes");
  if (!nc.hasAttr("axes"))
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  if (axes.size() != shape->size())
    return nc.fail(
        "expects one target extent per axis: " + Twine(shape->size()) +
        " extents for " + Twine(axes.size()) + " axes");
  SmallVector<int64_t> pads(2 * rank, 0);
  SmallVector<bool> seen(rank, false);
  for (auto [i, value] : llvm::enumerate(axes)) {
    FailureOr<int64_t> a = nc.axis(value, rank, "axes");
    if (failed(a))
      return failure();
    if (seen[*a])
      return nc.fail("axis " + Twine(*a) + " is listed twice");
    seen[*a] = true;
    int64_t target = (*shape)[i];
    if (target < 0)
      return nc.fail("target extent " + Twine(target) + " is negative");
    int64_t diff = target - type.getDimSize(*a);
    int64_t half = diff >= 0 ? diff / 2 : -((-diff) / 2);
    pads[*a] = half;
    pads[rank + *a] = diff - half;
  }
  return nc.result(nc.create<PadOp>(
      {nc.input(0)},
      {nc.named("mode", PadModeAttr::get(nc.b.getContext(), PadMode::Constant)),
       nc.named("pads", nc.i64s(pads))}));
}

LogicalResult pad(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  SmallVector<int64_t> pads;
  double value = 0;
  if (nc.opset < 11) {
    pads = nc.getInts("pads");
    value = nc.getFloat("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> p = nc.intInput(1);
    if (failed(p))
      return failure();
    pads = *p;
    if (nc.hasInput(2)) {
      FailureOr<SmallVector<double>> v = nc.floatInput(2);
      if (failed(v))
        return failure();
      if (v->size() != 1)
        return nc.fail("expects a scalar constant_value");
      value = (*v)[0];
    }
  }
  if (nc.opset >= 18 && nc.hasInput(3)) {
    // Pad-18: the pads are for the listed axes only.
    FailureOr<SmallVector<int64_t>> a = nc.intInput(3);
    if (failed(a))
      return failure();
    int64_t rank = type.getRank(), n = a->size();
    if (static_cast<int64_t>(pads.size()) != 2 * n)
      return nc.fail("expects " + Twine(2 * n) + " pads for " + Twine(n) +
                     " axes, got " + Twine(pads.size()));
    SmallVector<int64_t> full(2 * rank, 0);
    SmallVector<bool> seen(rank, false);
    for (int64_t i = 0; i < n; ++i) {
      FailureOr<int64_t> ax = nc.axis((*a)[i], rank, "axes");
      if (failed(ax))
        return failure();
      if (seen[*ax])
        return nc.fail("axis " + Twine(*ax) + " is listed twice");
      seen[*ax] = true;
      full[*ax] = pads[i];
      full[rank + *ax] = pads[n + i];
    }
    pads = full;
  }
  std::string mode = nc.getString("mode", "constant");
  if (static_cast<int64_t>(pads.size()) != 2 * type.getRank())
    return nc.fail("expects " + Twine(2 * type.getRank()) + " pads, got " +
                   Twine(pads.size()));
  if (mode == "wrap")
    return nc.result(wrapPad(nc, nc.input(0), pads));
  PadMode kind;
  if (mode == "constant")
    kind = PadMode::Constant;
  else if (mode == "reflect")
    kind = PadMode::Reflect;
  else if (mode == "edge")
    kind = PadMode::Edge;
  else
    return nc.unsupported("pad mode '" + mode + "' is not supported");
  return nc.result(nc.create<PadOp>(
      {nc.input(0)},
      {nc.named("mode", PadModeAttr::get(nc.b.getContext(), kind)),
       nc.named("pads", nc.i64s(pads)),
       nc.named("value", nc.b.getF64FloatAttr(value))}));
}

} // namespace

void mlir::kiln::onnx_import::appendPadHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Pad", 2, pad},
      {"CenterCropPad", 18, centerCropPad},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
