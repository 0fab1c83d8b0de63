//===- ShapeLayers.cpp - Caffe's layers that move data --------------------===//
//
// Concat (axis, or the older concat_dim), Slice (slice_point or equal parts,
// axis or slice_dim), Split (fan-out), Flatten (axis to end_axis), Reshape
// (0 copies a dimension, -1 infers one; axis and num_axes), Permute (SSD's
// order, the axes not listed following in order), Eltwise (SUM with coeff,
// PROD, MAX) and Silence (consumes its bottoms).
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

namespace {

LogicalResult concat(LayerContext &lc) {
  if (failed(lc.requireArity(1, ~0u)))
    return failure();
  const caffe::ConcatParameter &p = lc.layer.concat_param();
  int64_t rank = lc.bottomType(0).getRank();
  FailureOr<int64_t> axis = p.has_concat_dim()
                                ? lc.axis(p.concat_dim(), rank, "concat_dim")
                                : lc.axis(p.axis(), rank, "axis");
  if (failed(axis))
    return failure();
  if (lc.numBottoms() == 1) {
    lc.setTop(0, lc.bottom(0));
    return success();
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < lc.numBottoms(); ++i)
    inputs.push_back(lc.bottom(i));
  return lc.result(lc.create<ConcatOp>(
      inputs, {lc.named("axis", lc.b.getI64IntegerAttr(*axis))}));
}

LogicalResult slice(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1, -1)))
    return failure();
  const caffe::SliceParameter &p = lc.layer.slice_param();
  auto type = lc.bottomType(0);
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = p.has_slice_dim()
                                ? lc.axis(p.slice_dim(), rank, "slice_dim")
                                : lc.axis(p.axis(), rank, "axis");
  if (failed(axis))
    return failure();
  int64_t tops = lc.numTops(), extent = type.getDimSize(*axis);
  if (tops < 1)
    return lc.fail("has no tops");
  SmallVector<int64_t> bounds = {0};
  if (!p.slice_point().empty()) {
    if (p.slice_point_size() != tops - 1)
      return lc.fail("has " + Twine(p.slice_point_size()) +
                     " slice_point(s) for " + Twine(tops) +
                     " tops; give one fewer than the tops");
    for (uint32_t point : p.slice_point()) {
      if (point <= bounds.back() || point >= extent)
        return lc.fail("slice_point " + Twine(point) +
                       " must increase and lie inside (0, " + Twine(extent) +
                       ") along axis " + Twine(*axis));
      bounds.push_back(point);
    }
  } else {
    if (extent % tops != 0)
      return lc.fail("cannot slice " + Twine(extent) + " along axis " +
                     Twine(*axis) + " into " + Twine(tops) +
                     " equal parts (give slice_point)");
    for (int64_t i = 1; i < tops; ++i)
      bounds.push_back(i * (extent / tops));
  }
  bounds.push_back(extent);
  for (int64_t i = 0; i < tops; ++i) {
    SmallVector<int64_t> start(rank, 0), size(type.getShape()), stride(rank, 1);
    start[*axis] = bounds[i];
    size[*axis] = bounds[i + 1] - bounds[i];
    if (failed(
            lc.result(lc.create<SliceOp>({lc.bottom(0)},
                                         {lc.named("start", lc.i64s(start)),
                                          lc.named("size", lc.i64s(size)),
                                          lc.named("stride", lc.i64s(stride))}),
                      i)))
      return failure();
  }
  return success();
}

LogicalResult split(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1, -1)))
    return failure();
  for (unsigned i = 0; i < lc.numTops(); ++i)
    lc.setTop(i, lc.bottom(0));
  return success();
}

LogicalResult silence(LayerContext &lc) { return lc.requireArity(1, ~0u, 0); }

LogicalResult flatten(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::FlattenParameter &p = lc.layer.flatten_param();
  auto type = lc.bottomType(0);
  int64_t rank = type.getRank();
  FailureOr<int64_t> start = lc.axis(p.axis(), rank, "axis");
  FailureOr<int64_t> end =
      failed(start) ? start : lc.axis(p.end_axis(), rank, "end_axis");
  if (failed(end))
    return failure();
  if (*end < *start)
    return lc.fail("end_axis " + Twine(p.end_axis()) + " comes before axis " +
                   Twine(p.axis()));
  ArrayRef<int64_t> dims = type.getShape();
  SmallVector<int64_t> shape(dims.take_front(*start));
  shape.push_back(checkedProduct(dims.slice(*start, *end - *start + 1)));
  shape.append(dims.begin() + *end + 1, dims.end());
  return lc.result(lc.reshape(lc.bottom(0), shape));
}

/// Caffe's ReshapeLayer: the dimensions [axis, axis + num_axes) of the
/// bottom are replaced by `shape`, where 0 copies the bottom's dimension at
/// that place and one -1 takes what the element count leaves.
LogicalResult reshape(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::ReshapeParameter &p = lc.layer.reshape_param();
  auto type = lc.bottomType(0);
  int64_t rank = type.getRank();
  ArrayRef<int64_t> dims = type.getShape();
  int64_t start = p.axis() >= 0 ? p.axis() : rank + p.axis() + 1;
  if (start < 0 || start > rank)
    return lc.fail("axis " + Twine(p.axis()) +
                   " is out of range for a bottom of rank " + Twine(rank));
  if (p.num_axes() < -1)
    return lc.fail("num_axes must be -1 (all) or at least 0, got " +
                   Twine(p.num_axes()));
  int64_t end = p.num_axes() == -1 ? rank : start + p.num_axes();
  if (end > rank)
    return lc.fail("axis " + Twine(p.axis()) + " and num_axes " +
                   Twine(p.num_axes()) + " reach past the bottom's rank " +
                   Twine(rank));
  SmallVector<int64_t> middle;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(p.shape().dim())) {
    if (d == 0) {
      if (start + int64_t(i) >= rank)
        return lc.fail("shape dimension " + Twine(i) +
                       " is 0 (copy), but the bottom has no dimension " +
                       Twine(start + i));
      middle.push_back(dims[start + i]);
    } else if (d == -1) {
      if (inferred >= 0)
        return lc.fail("shape has more than one -1 (inferred) dimension");
      inferred = middle.size();
      middle.push_back(1);
    } else if (d < -1) {
      return lc.fail("shape dimension " + Twine(i) + " is " + Twine(d) +
                     "; dimensions are positive, 0 (copy) or -1 (infer)");
    } else {
      middle.push_back(d);
    }
  }
  SmallVector<int64_t> shape(dims.take_front(start));
  shape.append(middle);
  shape.append(dims.begin() + end, dims.end());
  int64_t known = checkedProduct(shape), count = type.getNumElements();
  if (known <= 0)
    return lc.fail("the shape " + formatDims(shape) +
                   " has no elements or more than 64 bits count");
  if (inferred >= 0) {
    if (count % known != 0)
      return lc.fail("cannot infer the -1 dimension: " + Twine(count) +
                     " elements are not a multiple of " + Twine(known));
    shape[start + inferred] = count / known;
  }
  if (checkedProduct(shape) != count)
    return lc.fail("cannot reshape " + formatDims(dims) + " (" + Twine(count) +
                   " elements) to " + formatDims(shape));
  return lc.result(lc.reshape(lc.bottom(0), shape));
}

LogicalResult permute(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  int64_t rank = lc.bottomType(0).getRank();
  SmallVector<int64_t> order;
  for (uint32_t axis : lc.layer.permute_param().order()) {
    if (axis >= rank)
      return lc.fail("order " + Twine(axis) +
                     " is out of range for a bottom of rank " + Twine(rank));
    if (llvm::is_contained(order, int64_t(axis)))
      return lc.fail("order lists axis " + Twine(axis) + " twice");
    order.push_back(axis);
  }
  for (int64_t axis = 0; axis < rank; ++axis)
    if (!llvm::is_contained(order, axis))
      order.push_back(axis);
  return lc.result(lc.transpose(lc.bottom(0), order));
}

LogicalResult eltwise(LayerContext &lc) {
  if (failed(lc.requireArity(2, ~0u)))
    return failure();
  const caffe::EltwiseParameter &p = lc.layer.eltwise_param();
  auto operation = p.operation();
  if (p.coeff_size() && operation != caffe::EltwiseParameter::SUM)
    return lc.fail("coeff applies to operation SUM only");
  if (p.coeff_size() && p.coeff_size() != int(lc.numBottoms()))
    return lc.fail("has " + Twine(p.coeff_size()) + " coeff for " +
                   Twine(lc.numBottoms()) + " bottoms; give one per bottom");
  ArrayRef<int64_t> shape = lc.bottomType(0).getShape();
  for (unsigned i = 1; i < lc.numBottoms(); ++i)
    if (lc.bottomType(i).getShape() != shape)
      return lc.fail("bottom " + Twine(i) + " has shape " +
                     formatDims(lc.bottomType(i).getShape()) +
                     ", bottom 0 has " + formatDims(shape) +
                     " (Eltwise takes bottoms of one shape)");
  BinaryKind kind = operation == caffe::EltwiseParameter::PROD ? BinaryKind::Mul
                    : operation == caffe::EltwiseParameter::MAX
                        ? BinaryKind::Max
                        : BinaryKind::Add;
  auto term = [&](unsigned i) -> FailureOr<Value> {
    if (!p.coeff_size() || p.coeff(i) == 1.0f)
      return lc.bottom(i);
    return lc.binary(BinaryKind::Mul, lc.bottom(i), lc.scalar(p.coeff(i)));
  };
  FailureOr<Value> acc = term(0);
  for (unsigned i = 1; succeeded(acc) && i < lc.numBottoms(); ++i) {
    FailureOr<Value> next = term(i);
    acc = failed(next) ? next : lc.binary(kind, *acc, *next);
  }
  return lc.result(acc);
}

} // namespace

void mlir::kiln::caffe_import::appendShapeHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Concat", concat},   {"Slice", slice},     {"Split", split},
      {"Silence", silence}, {"Flatten", flatten}, {"Reshape", reshape},
      {"Permute", permute}, {"Eltwise", eltwise},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
