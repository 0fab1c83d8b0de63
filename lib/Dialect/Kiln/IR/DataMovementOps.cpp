//===- DataMovementOps.cpp - shape and data movement ops --------*- C++ -*-===//
//
// Verification, shape inference and folding of kiln.concat, kiln.slice,
// kiln.reshape, kiln.flatten, kiln.squeeze, kiln.unsqueeze, kiln.transpose,
// kiln.pad, kiln.resize, kiln.gather and kiln.gather_elements.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return s.fail("expects at least one input");
  FailureOr<RankedTensorType> first = s.rankedTensor(inputs.front(), "inputs");
  if (failed(first))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(s.checkAxis("axis", axis, first->getRank())))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  __int128 total = 0;
  bool dynamicAxis = false;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    FailureOr<RankedTensorType> type = s.rankedTensor(input, "inputs");
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return s.fail("expects inputs of one element type");
    // A dynamic dimension matches any (checked when shapes are known); the
    // result keeps the static one.
    bool match = type->getRank() == first->getRank();
    for (int64_t d = 0; match && d < first->getRank(); ++d) {
      int64_t size = type->getDimSize(d);
      if (d == axis || ShapedType::isDynamic(size))
        continue;
      match = ShapedType::isDynamic(shape[d]) || size == shape[d];
      shape[d] = size;
    }
    if (!match)
      return s.fail("expects input " + Twine(i) + " (" +
                    formatShape(type->getShape()) + ") to match input 0 (" +
                    formatShape(first->getShape()) +
                    ") in every dimension but " + Twine(axis));
    dynamicAxis |= type->isDynamicDim(axis);
    if (!dynamicAxis)
      total += type->getDimSize(axis);
  }
  if (dynamicAxis) {
    shape[axis] = ShapedType::kDynamic;
    return s.result(shape, first->getElementType());
  }
  FailureOr<int64_t> extent = s.checkedExtent(total, "concatenated extent");
  if (failed(extent))
    return failure();
  shape[axis] = *extent;
  return s.result(shape, first->getElementType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  size_t rank = in->getRank();
  ArrayRef<int64_t> start = adaptor.getStart(), size = adaptor.getSize(),
                    stride = adaptor.getStride();
  if (failed(s.checkSize("start", start, rank)) ||
      failed(s.checkSize("size", size, rank)) ||
      failed(s.checkSize("stride", stride, rank)))
    return failure();
  SmallVector<int64_t> shape(size);
  for (size_t i = 0; i < rank; ++i) {
    // A dimension that varies at run time is taken whole (size `?`, which
    // takes the input's dimension when it is known).
    if (in->isDynamicDim(i) || ShapedType::isDynamic(size[i])) {
      if (!ShapedType::isDynamic(size[i]) || start[i] != 0 || stride[i] != 1)
        return s.fail("expects dimension " + Twine(i) +
                      ", which varies at run time, to be taken whole "
                      "(start 0, size ?, stride 1)");
      shape[i] = in->getDimSize(i);
      continue;
    }
    if (size[i] < 0)
      return s.fail("expects 'size' entries to be non-negative, got " +
                    Twine(size[i]) + " at index " + Twine(i));
    if (stride[i] == 0)
      return s.fail("expects non-zero 'stride' entries, got 0 at index " +
                    Twine(i));
    if (size[i] == 0)
      continue;
    int64_t dim = in->getDimSize(i);
    __int128 last = (__int128)start[i] + (__int128)(size[i] - 1) * stride[i];
    if (start[i] < 0 || start[i] >= dim || last < 0 || last >= dim)
      return s.fail("expects dimension " + Twine(i) +
                    " to read indices in [0, " + Twine(dim) + "), but start " +
                    Twine(start[i]) + ", size " + Twine(size[i]) + ", stride " +
                    Twine(stride[i]) + " leave it");
  }
  return s.result(shape, in->getElementType());
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getType() != getInput().getType())
    return {};
  if (llvm::all_of(getStart(), [](int64_t v) { return v == 0; }) &&
      llvm::all_of(getStride(), [](int64_t v) { return v == 1; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects the result to have the input's element type");
  if (in.hasStaticShape() && out.hasStaticShape()) {
    if (elementCount(in.getShape()) != elementCount(out.getShape()))
      return emitOpError() << "expects the same number of elements, but "
                           << formatShape(in.getShape()) << " and "
                           << formatShape(out.getShape()) << " differ";
    return success();
  }
  // Run-time shapes: a shape map gives every dimension; without one, the
  // one `?` of the result is what the input's element count leaves (ONNX's
  // -1), resolved when the shape is known.
  if (std::optional<AffineMap> shape = getShape())
    return verifyShapeMap(*this, *shape, out);
  if (in.hasStaticShape() || out.getNumDynamicDims() != 1)
    return emitOpError() << "expects a result with one dynamic dimension "
                            "when the input has dynamic ones, got "
                         << formatShape(in.getShape()) << " to "
                         << formatShape(out.getShape());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // Equal dynamic types may still be a reshape ([?, ?] to [s1, s0]).
  if (getInput().getType() == getType() &&
      (getType().hasStaticShape() || !getShape()))
    return getInput();
  // reshape(reshape(x)) -> reshape(x)
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// FlattenOp, SqueezeOp, UnsqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(in) ||
      failed(s.checkAxis("axis", axis, in->getRank(), /*allowRank=*/true)))
    return failure();
  // A product with a dynamic factor is dynamic.
  auto product = [](ArrayRef<int64_t> dims) -> std::optional<int64_t> {
    if (llvm::any_of(dims, ShapedType::isDynamic))
      return ShapedType::kDynamic;
    return elementCount(dims);
  };
  std::optional<int64_t> outer = product(in->getShape().take_front(axis));
  std::optional<int64_t> inner = product(in->getShape().drop_front(axis));
  if (!outer || !inner)
    return s.fail("expects fewer than 2^63 elements");
  return s.result({*outer, *inner}, in->getElementType());
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (failed(in) || failed(s.checkAxes("axes", axes, in->getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = in->getRank(); i < e; ++i) {
    if (!llvm::is_contained(axes, i)) {
      shape.push_back(in->getDimSize(i));
      continue;
    }
    if (in->getDimSize(i) != 1)
      return s.fail("expects squeezed dimension " + Twine(i) +
                    " to have size 1, got " + formatShape(in->getDimSize(i)));
  }
  return s.result(shape, in->getElementType());
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = in->getRank() + static_cast<int64_t>(axes.size());
  if (failed(s.checkAxes("axes", axes, rank)))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> rest = in->getShape();
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(axes, i)) {
      shape.push_back(1);
    } else {
      shape.push_back(rest.front());
      rest = rest.drop_front();
    }
  }
  return s.result(shape, in->getElementType());
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (failed(s.checkSize("permutation", perm, in->getRank())) ||
      failed(s.checkAxes("permutation", perm, in->getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in->getDimSize(p));
  return s.result(shape, in->getElementType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  int64_t rank = in->getRank();
  ArrayRef<int64_t> pads = adaptor.getPads();
  if (failed(s.checkSize("pads", pads, 2 * rank)))
    return failure();
  Type element = in->getElementType();
  double value = adaptor.getValue().convertToDouble();
  if (!isKilnFloat(element) &&
      (std::trunc(value) != value ||
       (element.isInteger(1) && value != 0 && value != 1)))
    return s.fail("expects a pad value representable in the element type, "
                  "got " +
                  formatNumber(value));
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = in->getDimSize(i), begin = pads[i], end = pads[rank + i];
    if (ShapedType::isDynamic(dim)) {
      if (begin != 0 || end != 0)
        return s.fail("cannot pad dimension " + Twine(i) +
                      ", which varies at run time (pads " + Twine(begin) +
                      ", " + Twine(end) + ")");
      shape.push_back(dim);
      continue;
    }
    if (adaptor.getMode() == PadMode::Reflect && (begin >= dim || end >= dim))
      return s.fail("expects reflect pads smaller than the dimension (" +
                    Twine(dim) + ") in dimension " + Twine(i));
    if (adaptor.getMode() == PadMode::Edge && dim == 0 &&
        (begin > 0 || end > 0))
      return s.fail("cannot edge-pad the empty dimension " + Twine(i));
    __int128 extent = (__int128)dim + begin + end;
    if (extent < 0)
      return s.fail("expects pads to leave a non-negative extent in "
                    "dimension " +
                    Twine(i));
    FailureOr<int64_t> checked = s.checkedExtent(extent, "padded extent");
    if (failed(checked))
      return failure();
    shape.push_back(*checked);
  }
  return s.result(shape, element);
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPads(), [](int64_t v) { return v == 0; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getRank() != out.getRank())
    return emitOpError() << "expects a result of the input's rank "
                         << in.getRank() << ", got " << out.getRank();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects the result to have the input's element type");
  for (int64_t i = 0, e = in.getRank(); i < e; ++i)
    if (in.getDimSize(i) > 0 && out.getDimSize(i) == 0)
      return emitOpError() << "expects a non-empty result dimension " << i;
  if (std::optional<ArrayRef<float>> scales = getScales()) {
    if (static_cast<int64_t>(scales->size()) != in.getRank())
      return emitOpError() << "expects 'scales' to have " << in.getRank()
                           << " entries, got " << scales->size();
    for (int64_t i = 0, e = in.getRank(); i < e; ++i) {
      float scale = (*scales)[i];
      if (!(scale > 0))
        return emitOpError() << "expects positive 'scales', got " << scale
                             << " at index " << i;
      // floor(in * scale), as ONNX Resize computes sizes from scales, or
      // that product rounded (keep_aspect_ratio_policy rounds the product
      // of the double factor that `scale` holds as f32): within one of it,
      // give or take f32's precision.
      double product = static_cast<double>(in.getDimSize(i)) * scale;
      double expected = std::floor(product);
      double got = static_cast<double>(out.getDimSize(i));
      if (got != expected &&
          !(std::fabs(got - product) <= 1.0 + product * 0x1p-23))
        return emitOpError()
               << "expects result dimension " << i << " to be floor("
               << in.getDimSize(i) << " * " << formatNumber(scale)
               << ") = " << formatNumber(expected)
               << " (or that product rounded), got " << out.getDimSize(i);
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> data = s.rankedTensor(adaptor.getData(), "data");
  FailureOr<RankedTensorType> indices =
      failed(data) ? FailureOr<RankedTensorType>(failure())
                   : s.rankedTensor(adaptor.getIndices(), "indices");
  if (failed(indices))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(s.checkAxis("axis", axis, data->getRank())))
    return failure();
  SmallVector<int64_t> shape(data->getShape().take_front(axis));
  llvm::append_range(shape, indices->getShape());
  llvm::append_range(shape, data->getShape().drop_front(axis + 1));
  return s.result(shape, data->getElementType());
}

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> data = s.tensor(adaptor.getData(), "data");
  FailureOr<RankedTensorType> indices =
      failed(data) ? FailureOr<RankedTensorType>(failure())
                   : s.tensor(adaptor.getIndices(), "indices");
  if (failed(indices))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(s.checkAxis("axis", axis, data->getRank())))
    return failure();
  if (indices->getRank() != data->getRank())
    return s.fail("expects indices of the data's rank " +
                  Twine(data->getRank()) + ", got " +
                  formatShape(indices->getShape()));
  for (int64_t i = 0; i < data->getRank(); ++i)
    if (i != axis && indices->getDimSize(i) > data->getDimSize(i))
      return s.fail("expects indices dimension " + Twine(i) + " (" +
                    Twine(indices->getDimSize(i)) +
                    ") not to exceed the data's (" +
                    Twine(data->getDimSize(i)) + ")");
  return s.result(indices->getShape(), data->getElementType());
}
