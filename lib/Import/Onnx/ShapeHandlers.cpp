//===- ShapeHandlers.cpp - ONNX shape and data movement ops -----*- C++ -*-===//
//
// Handlers for Constant, Shape, Size, ConstantOfShape (folded to constants,
// since shapes are static), Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Concat, Split, Slice, Gather, DepthToSpace, SpaceToDepth, CumSum,
// CumProd and the Reduce* family.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"
#include "SymbolicDims.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

LogicalResult constant(NodeContext &nc) {
  if (nc.node.attribute_size() != 1)
    return nc.fail("expects exactly one value attribute");
  const onnx::AttributeProto &a = nc.node.attribute(0);
  MLIRContext *ctx = nc.b.getContext();
  if (a.name() == "value") {
    onnx::TensorProto tensor = a.t();
    std::string why;
    FailureOr<ElementsAttr> attr = convertTensor(
        ctx, tensor, nc.modelDir(),
        nc.node.output_size() ? nc.node.output(0) : "constant", why);
    if (failed(attr))
      return nc.unsupported(why);
    nc.setOutput(0, nc.constant(*attr));
    return success();
  }
  if (a.name() == "value_float" || a.name() == "value_floats") {
    SmallVector<float> values;
    if (a.name() == "value_float")
      values.push_back(a.f());
    else
      values.append(a.floats().begin(), a.floats().end());
    SmallVector<int64_t> shape;
    if (a.name() == "value_floats")
      shape.push_back(values.size());
    auto type = RankedTensorType::get(shape, nc.b.getF32Type());
    nc.setOutput(
        0, nc.constant(DenseElementsAttr::get(type, ArrayRef<float>(values))));
    return success();
  }
  if (a.name() == "value_int" || a.name() == "value_ints") {
    SmallVector<int64_t> values;
    if (a.name() == "value_int")
      values.push_back(a.i());
    else
      values.append(a.ints().begin(), a.ints().end());
    SmallVector<int64_t> shape;
    if (a.name() == "value_ints")
      shape.push_back(values.size());
    nc.setOutput(0, nc.i64Constant(shape, values));
    return success();
  }
  return nc.unsupported("constant attribute '" + a.name() +
                        "' is not supported");
}

/// Shape-15 takes start and end; the result is a constant.
/// "1x?x4" (`sep` "x") or "0, -1" of a shape or a Reshape's entries.
std::string dimsText(ArrayRef<int64_t> dims, StringRef sep) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? sep.str() : "") +
            (ShapedType::isDynamic(d) ? "?" : std::to_string(d));
  return text;
}

LogicalResult shape(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  ArrayRef<int64_t> dims = nc.inputType(0).getShape();
  int64_t rank = dims.size();
  int64_t start = nc.getInt("start", 0), end = nc.getInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> values(dims.begin() + start, dims.begin() + end);
  if (llvm::any_of(values, ShapedType::isDynamic))
    return shapeOfDynamic(nc, start, end);
  nc.setOutput(0,
               nc.i64Constant({static_cast<int64_t>(values.size())}, values));
  return success();
}

LogicalResult size(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (!type.hasStaticShape())
    return shapeOfDynamic(nc, 0, type.getRank());
  nc.setOutput(0, nc.i64Constant({}, {type.getNumElements()}));
  return success();
}

LogicalResult constantOfShape(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  Type element = nc.b.getF32Type();
  double value = 0;
  if (const onnx::AttributeProto *a = nc.attr("value")) {
    onnx::TensorProto tensor = a->t();
    std::string why;
    FailureOr<ElementsAttr> attr =
        convertTensor(nc.b.getContext(), tensor, "", "value", why);
    if (failed(attr))
      return nc.unsupported(why);
    if (attr->getNumElements() != 1)
      return nc.fail("expects a one-element 'value'");
    element = attr->getElementType();
    auto dense = cast<DenseElementsAttr>(*attr);
    value = isa<FloatType>(element)
                ? (*dense.getValues<APFloat>().begin()).convertToDouble()
                : double((*dense.getValues<APInt>().begin()).getSExtValue());
  }
  if (nc.symbolic().shapeValue(nc.input(0)))
    return constantOfShapeDynamic(nc, element, value);
  FailureOr<SmallVector<int64_t>> dims = nc.intInput(0);
  if (failed(dims))
    return failure();
  for (int64_t d : *dims)
    if (d < 0)
      return nc.fail("expects non-negative dimensions");
  nc.setOutput(0, nc.splat(RankedTensorType::get(*dims, element), value));
  return success();
}

/// Reshape: 0 copies the input dimension (unless allowzero), -1 is inferred.
LogicalResult reshape(NodeContext &nc) {
  if (failed(nc.requireInputs(nc.opset < 5 ? 1 : 2)))
    return failure();
  FailureOr<SmallVector<int64_t>> spec =
      nc.opset < 5 ? FailureOr<SmallVector<int64_t>>(nc.getInts("shape"))
                   : nc.intInput(1);
  if (failed(spec))
    return failure();
  auto type = nc.inputType(0);
  bool allowZero = nc.getInt("allowzero", 0) != 0;
  // The entries as the model gives them (the loop below resolves copies in
  // place).
  SmallVector<int64_t> entries(*spec);
  SmallVector<int64_t> shape;
  int64_t known = 1, inferred = -1;
  // Run-time shapes: a dynamic input dimension that an entry 0 copies
  // cancels against itself, so -1 is what the static ones leave; a -1 with
  // a dynamic dimension not copied stays dynamic (kiln.reshape resolves its
  // one `?` from the element count when the shape is known).
  SmallVector<bool> copied(type.getRank(), false);
  for (auto [i, d] : llvm::enumerate(*spec)) {
    if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= type.getRank())
        return nc.fail("shape entry " + Twine(i) +
                       " is 0 (copy) past the input's rank");
      d = type.getDimSize(i);
      if (ShapedType::isDynamic(d)) {
        copied[i] = true;
        shape.push_back(d);
        continue;
      }
    }
    if (d == -1) {
      if (inferred >= 0)
        return nc.fail("shape has more than one -1");
      inferred = i;
      shape.push_back(1);
      continue;
    }
    if (d < 0)
      return nc.fail("shape entry " + Twine(d) + " is invalid");
    if (llvm::MulOverflow(known, d, known))
      return nc.fail("the shape's entries multiply to more than 64 bits "
                     "can count (entry " +
                     Twine(i) + " is " + Twine(d) + ")");
    shape.push_back(d);
  }
  if (!type.hasStaticShape()) {
    int64_t total = 1;
    bool dynamicLeft = false;
    for (auto [i, d] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(d))
        dynamicLeft |= !copied[i];
      else if (llvm::MulOverflow(total, d, total))
        return nc.fail("the input has more elements than 64 bits can count");
    if (inferred < 0 || dynamicLeft) {
      if (inferred >= 0)
        shape[inferred] = ShapedType::kDynamic;
      // Several dimensions that vary, or a copied one without a -1 (whose
      // size is the copy's, not what the element count leaves: [8, 0, 0] of
      // ?x?x8 holds only for a batch of 8): followed as expressions, which
      // are checked against the element count when the shape is known.
      int64_t varying = llvm::count_if(shape, ShapedType::isDynamic);
      if (varying > 1 || (varying == 1 && inferred < 0))
        return reshapeDynamic(nc, entries);
      if (varying != 1)
        return nc.fail("cannot reshape " + dimsText(type.getShape(), "x") +
                       " to [" + dimsText(*spec, ", ") + "]" +
                       ": with run-time shapes the result must have a "
                       "dimension that varies (a -1 or a copied dynamic one)");
      return nc.result(nc.reshape(nc.input(0), shape));
    }
    if (known == 0 || total % known != 0)
      return nc.fail("cannot infer the -1 dimension: the input's static "
                     "dimensions (" +
                     Twine(total) + " elements) do not divide by " +
                     Twine(known));
    shape[inferred] = total / known;
    return nc.result(nc.reshape(nc.input(0), shape));
  }
  int64_t total = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return nc.fail("cannot infer the -1 dimension: " + Twine(total) +
                     " elements do not divide by " + Twine(known));
    shape[inferred] = total / known;
  }
  return nc.result(nc.reshape(nc.input(0), shape));
}

LogicalResult flatten(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  int64_t rank = nc.inputType(0).getRank();
  int64_t axis = nc.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return nc.fail("axis " + Twine(nc.getInt("axis", 1)) +
                   " is out of range for rank " + Twine(rank));
  return nc.result(nc.create<FlattenOp>(
      {nc.input(0)}, {nc.named("axis", nc.b.getI64IntegerAttr(axis))}));
}

/// Axes from the attribute (before `inputSince`) or the optional input 1.
FailureOr<SmallVector<int64_t>> axesOf(NodeContext &nc, int64_t inputSince) {
  if (nc.opset < inputSince)
    return nc.getInts("axes");
  if (!nc.hasInput(1))
    return SmallVector<int64_t>();
  return nc.intInput(1);
}

FailureOr<SmallVector<int64_t>>
normalizeAxes(NodeContext &nc, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = nc.axis(a, rank, "axis");
    if (failed(n))
      return failure();
    out.push_back(*n);
  }
  llvm::sort(out);
  return out;
}

LogicalResult squeeze(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  FailureOr<SmallVector<int64_t>> axes = axesOf(nc, 13);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> list;
  if (axes->empty()) {
    // Which dimensions are 1 would be known only at run time.
    if (!type.hasStaticShape())
      return nc.unsupported("Squeeze without axes over " +
                            dimsText(type.getShape(), "x") +
                            ", whose dynamic dimensions may be 1 or not");
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.getDimSize(i) == 1)
        list.push_back(i);
  } else {
    FailureOr<SmallVector<int64_t>> n =
        normalizeAxes(nc, *axes, type.getRank());
    if (failed(n))
      return failure();
    list = *n;
  }
  return nc.result(
      nc.create<SqueezeOp>({nc.input(0)}, {nc.named("axes", nc.i64s(list))}));
}

LogicalResult unsqueeze(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  FailureOr<SmallVector<int64_t>> axes = axesOf(nc, 13);
  if (failed(axes))
    return failure();
  int64_t rank = nc.inputType(0).getRank() + axes->size();
  FailureOr<SmallVector<int64_t>> n = normalizeAxes(nc, *axes, rank);
  if (failed(n))
    return failure();
  return nc.result(
      nc.create<UnsqueezeOp>({nc.input(0)}, {nc.named("axes", nc.i64s(*n))}));
}

LogicalResult transpose(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  SmallVector<int64_t> perm = nc.getInts("perm");
  int64_t rank = nc.inputType(0).getRank();
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  return nc.result(nc.create<TransposeOp>(
      {nc.input(0)}, {nc.named("permutation", nc.i64s(perm))}));
}

LogicalResult concat(NodeContext &nc) {
  if (nc.numInputs() == 0 || failed(nc.requireInputs(nc.numInputs())))
    return nc.fail("expects at least one input");
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < nc.numInputs(); ++i)
    inputs.push_back(nc.input(i));
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", 0), nc.inputType(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  return nc.result(nc.create<ConcatOp>(
      inputs, {nc.named("axis", nc.b.getI64IntegerAttr(*axis))}));
}

FailureOr<Value> sliceOf(NodeContext &nc, Value x, ArrayRef<int64_t> start,
                         ArrayRef<int64_t> size, ArrayRef<int64_t> stride) {
  return nc.create<SliceOp>({x}, {nc.named("start", nc.i64s(start)),
                                  nc.named("size", nc.i64s(size)),
                                  nc.named("stride", nc.i64s(stride))});
}

LogicalResult split(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes;
  if (nc.opset < 13) {
    sizes = nc.getInts("split");
  } else if (nc.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> s = nc.intInput(1);
    if (failed(s))
      return failure();
    sizes = *s;
  }
  int64_t dim = type.getDimSize(*axis), parts = nc.numOutputs();
  if (sizes.empty() && nc.opset >= 18 && nc.hasAttr("num_outputs")) {
    // Split-18: equal parts, the last one smaller when they do not divide.
    int64_t n = nc.getInt("num_outputs", 0);
    if (n != parts || n <= 0 || n > std::max<int64_t>(dim, 1))
      return nc.fail("num_outputs " + Twine(n) + " does not fit " +
                     Twine(parts) + " outputs of a dimension of " + Twine(dim));
    int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if (sizes.empty()) {
    if (parts == 0 || dim % parts != 0)
      return nc.fail("dimension " + Twine(dim) +
                     " does not split evenly into " + Twine(parts) +
                     " outputs");
    sizes.assign(parts, dim / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    return nc.fail("expects one split size per output");
  int64_t offset = 0;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    if (s < 0 || offset + s > dim)
      return nc.fail("split sizes exceed the dimension " + Twine(dim));
    SmallVector<int64_t> start(type.getRank(), 0), size(type.getShape()),
        stride(type.getRank(), 1);
    start[*axis] = offset;
    size[*axis] = s;
    FailureOr<Value> part = sliceOf(nc, nc.input(0), start, size, stride);
    if (failed(part))
      return failure();
    nc.setOutput(i, *part);
    offset += s;
  }
  if (offset != dim)
    return nc.fail("split sizes add up to " + Twine(offset) + ", not " +
                   Twine(dim));
  return success();
}

/// Slice with ONNX clamping: starts/ends clamp into the dimension, negative
/// values count from the end, negative steps walk backwards.
LogicalResult slice(NodeContext &nc) {
  if (failed(nc.requireInputs(nc.opset < 10 ? 1 : 3)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (nc.opset < 10) {
    starts = nc.getInts("starts");
    ends = nc.getInts("ends");
    axes = nc.getInts("axes");
  } else {
    for (unsigned i = 1; i <= 4; ++i) {
      if (!nc.hasInput(i))
        continue;
      FailureOr<SmallVector<int64_t>> v = nc.intInput(i);
      if (failed(v))
        return failure();
      (i == 1 ? starts : i == 2 ? ends : i == 3 ? axes : steps) = *v;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < static_cast<int64_t>(starts.size()); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return nc.fail("expects starts, ends, axes and steps of one length");
  SmallVector<int64_t> start(rank, 0), size(type.getShape()), stride(rank, 1);
  for (size_t j = 0; j < starts.size(); ++j) {
    FailureOr<int64_t> a = nc.axis(axes[j], rank, "axis");
    if (failed(a))
      return failure();
    int64_t dim = type.getDimSize(*a), step = steps[j];
    if (step == 0)
      return nc.fail("expects non-zero steps");
    // Run-time shapes: a dimension that varies is taken whole (an
    // exporter's "begin/end masked" slice).
    if (ShapedType::isDynamic(dim)) {
      std::optional<DimExpr> e = nc.symbolic().dims(nc.input(0))[*a];
      std::optional<int64_t> most =
          e ? nc.symbolic().maximum(*e) : std::nullopt;
      if (step != 1 || starts[j] != 0 || !most || ends[j] < *most)
        return nc.unsupported(
            "dimension " + Twine(*a) + " of " + dimsText(type.getShape(), "x") +
            " varies at run time (up to " +
            (most ? std::to_string(*most) : std::string("?")) +
            "), and kiln slices such a dimension only whole (start 0, step "
            "1, end at least its largest value), not from " +
            Twine(starts[j]) + " to " + Twine(ends[j]) + " by " + Twine(step));
      continue;
    }
    // Clamp in 128 bits: starts and ends are often INT64_MAX/MIN.
    __int128 s = starts[j], e = ends[j];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = std::clamp<__int128>(s, 0, dim);
      e = std::clamp<__int128>(e, 0, dim);
    } else {
      s = std::clamp<__int128>(s, 0, dim - 1);
      e = std::clamp<__int128>(e, -1, dim - 1);
    }
    __int128 count =
        step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
    count = std::max<__int128>(count, 0);
    start[*a] = count > 0 ? static_cast<int64_t>(s) : 0;
    size[*a] = static_cast<int64_t>(count);
    stride[*a] = step;
  }
  return nc.result(sliceOf(nc, nc.input(0), start, size, stride));
}

/// Gather and GatherElements: data, indices and a (normalized) axis.
template <typename OpTy> LogicalResult gather(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", 0), nc.inputType(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  // Constant indices are checked here: out of range, ONNX has no meaning
  // for them (the kernels would clamp).
  DenseIntElementsAttr indices;
  if (matchPattern(nc.input(1), m_Constant(&indices))) {
    int64_t size = nc.inputType(0).getDimSize(*axis);
    if (ShapedType::isDynamic(size)) {
      // Run-time shapes: an index must lie inside the dimension's smallest
      // size in the profile (a CLS token's 0), and may not count from its
      // end.
      std::optional<DimExpr> dim = nc.symbolic().dims(nc.input(0))[*axis];
      std::optional<int64_t> least =
          dim ? nc.symbolic().minimum(*dim) : std::nullopt;
      for (const APInt &index : indices.getValues<APInt>()) {
        int64_t i = index.getSExtValue();
        if (!least || i < 0 || i >= *least)
          return nc.unsupported(
              "constant index " + std::to_string(i) + " into axis " +
              std::to_string(*axis) + ", which varies at run time (at least " +
              (least ? std::to_string(*least) : std::string("?")) +
              "): kiln takes an index below the smallest size only");
      }
      size = INT64_MAX;
    }
    for (const APInt &index : indices.getValues<APInt>()) {
      int64_t i = index.getSExtValue();
      if ((size != INT64_MAX && i < -size) || i >= size)
        return nc.fail("constant index " + std::to_string(i) +
                       " is out of range [" + std::to_string(-size) + ", " +
                       std::to_string(size - 1) + "] of axis " +
                       std::to_string(*axis));
    }
  }
  return nc.result(
      nc.create<OpTy>({nc.input(0), nc.input(1)},
                      {nc.named("axis", nc.b.getI64IntegerAttr(*axis))}));
}

/// GatherND (11, 12's batch_dims): as a Gather along one axis. The indexed
/// dimensions data.shape[b : b+k] (b = batch_dims, k = indices' last dim)
/// are flattened into one, with the batch dimensions before them; each index
/// tuple becomes a linear index into it: negative entries wrap, entries are
/// weighted by the flattened strides and summed, and the batch's offset is
/// added (a constant). The result has shape
/// indices.shape[:-1] + data.shape[b+k:].
LogicalResult gatherND(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto data = nc.inputType(0), indices = nc.inputType(1);
  int64_t r = data.getRank(), q = indices.getRank();
  int64_t b = nc.getInt("batch_dims", 0);
  if (q < 1 || r < 1)
    return nc.fail("expects data and indices of rank >= 1");
  int64_t k = indices.getDimSize(q - 1);
  if (b < 0 || b >= std::min(q, r))
    return nc.fail("batch_dims " + Twine(b) + " must be in [0, min(" +
                   Twine(q) + ", " + Twine(r) + "))");
  if (k < 1 || k > r - b)
    return nc.fail("indices' last dimension " + Twine(k) +
                   " must be in [1, data rank - batch_dims = " + Twine(r - b) +
                   "]");
  for (int64_t i = 0; i < b; ++i)
    if (indices.getDimSize(i) != data.getDimSize(i))
      return nc.fail("batch dimension " + Twine(i) + " differs: indices " +
                     Twine(indices.getDimSize(i)) + ", data " +
                     Twine(data.getDimSize(i)));
  MLIRContext *ctx = nc.b.getContext();
  Value idx = nc.input(1);
  if (!indices.getElementType().isInteger(64)) {
    FailureOr<Value> wide = nc.createTyped<CastOp>(
        RankedTensorType::get(indices.getShape(), nc.b.getI64Type()), {idx});
    if (failed(wide))
      return failure();
    idx = *wide;
  }
  SmallVector<int64_t> dims, strides(k, 1);
  for (int64_t j = 0; j < k; ++j)
    dims.push_back(data.getDimSize(b + j));
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * dims[j + 1];
  int64_t inner = strides[0] * dims[0];
  FailureOr<Value> negative =
      nc.binary(BinaryKind::Less, idx, nc.i64Constant({}, {0}));
  FailureOr<Value> wrapped =
      nc.binary(BinaryKind::Add, idx, nc.i64Constant({k}, dims));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> positive = nc.create<SelectOp>({*negative, *wrapped, idx});
  if (failed(positive))
    return failure();
  FailureOr<Value> weighted =
      nc.binary(BinaryKind::Mul, *positive, nc.i64Constant({k}, strides));
  if (failed(weighted))
    return failure();
  FailureOr<Value> linear = nc.create<ReduceOp>(
      {*weighted}, {nc.named("kind", ReduceKindAttr::get(ctx, ReduceKind::Sum)),
                    nc.named("axes", nc.i64s({q - 1})),
                    nc.named("keep_dims", nc.b.getBoolAttr(false))});
  if (failed(linear))
    return failure();
  int64_t batches = 1;
  for (int64_t i = 0; i < b; ++i)
    batches *= data.getDimSize(i);
  if (b > 0) {
    SmallVector<int64_t> shape(indices.getShape().take_front(b));
    shape.append(q - 1 - b, 1);
    // Batch i starts at i * inner of the flattened data.
    FailureOr<Value> offsets =
        nc.ramp("the batch offsets",
                RankedTensorType::get({batches}, nc.b.getI64Type()), 0, 0,
                double(inner));
    if (failed(offsets) || failed(offsets = nc.reshape(*offsets, shape)))
      return failure();
    linear = nc.binary(BinaryKind::Add, *linear, *offsets);
    if (failed(linear))
      return failure();
  }
  SmallVector<int64_t> flat = {batches * inner};
  llvm::append_range(flat, data.getShape().drop_front(b + k));
  FailureOr<Value> table = nc.reshape(nc.input(0), flat);
  if (failed(table))
    return failure();
  return nc.result(nc.create<GatherOp>(
      {*table, *linear}, {nc.named("axis", nc.b.getI64IntegerAttr(0))}));
}

/// Compress with a constant condition: a Gather of the positions where it
/// holds, along `axis` (of the flattened input when there is none). The
/// result's shape depends on the condition's values, so it must be known.
LogicalResult compress(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<SmallVector<double>> condition = nc.floatInput(1);
  if (failed(condition))
    return failure();
  auto type = nc.inputType(0);
  Value x = nc.input(0);
  int64_t axis = 0;
  if (nc.hasAttr("axis")) {
    FailureOr<int64_t> a =
        nc.axis(nc.getInt("axis", 0), type.getRank(), "axis");
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    FailureOr<Value> flat = nc.reshape(x, {type.getNumElements()});
    if (failed(flat))
      return failure();
    x = *flat;
  }
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(axis);
  if (static_cast<int64_t>(condition->size()) > size)
    return nc.fail("condition has " + Twine(condition->size()) +
                   " entries, more than the " + Twine(size) + " along axis " +
                   Twine(axis));
  SmallVector<int64_t> kept;
  for (auto [i, c] : llvm::enumerate(*condition))
    if (c != 0)
      kept.push_back(static_cast<int64_t>(i));
  if (kept.empty())
    return nc.unsupported("the condition selects nothing (an empty result)");
  return nc.result(nc.create<GatherOp>(
      {x, nc.i64Constant({static_cast<int64_t>(kept.size())}, kept)},
      {nc.named("axis", nc.b.getI64IntegerAttr(axis))}));
}

/// Expand: broadcast to the constant shape, as a select whose (all true)
/// condition has that shape.
LogicalResult expand(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<SmallVector<int64_t>> dims = nc.intInput(1);
  if (failed(dims))
    return failure();
  for (int64_t d : *dims)
    if (d < 0)
      return nc.fail("expects non-negative dimensions");
  auto condType = RankedTensorType::get(*dims, nc.b.getI1Type());
  Value cond = nc.constant(DenseElementsAttr::get(condType, true));
  return nc.result(nc.create<SelectOp>({cond, nc.input(0), nc.input(0)}));
}

/// Trilu: x where the band mask of the last two dimensions holds, else 0.
/// upper keeps j - i >= k, lower keeps j - i <= k. The mask is a constant up
/// to kMaxGeneratedConstantBytes, else computed at run time (j against
/// i + k).
LogicalResult trilu(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (type.getRank() < 2)
    return nc.fail("expects an input of rank >= 2");
  int64_t k = 0;
  if (nc.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> v = nc.intInput(1);
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return nc.fail("expects a scalar k");
    k = (*v)[0];
  }
  bool upper = nc.getInt("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2),
          cols = type.getDimSize(type.getRank() - 1);
  auto maskType = RankedTensorType::get({rows, cols}, nc.b.getI1Type());
  // The mask takes no more bytes than the input.
  Value cond;
  if (NodeContext::isSmallGenerated(maskType)) {
    cond = nc.generatedConstant(maskType, [&](int64_t e) {
      int64_t i = e / cols, j = e % cols;
      return (upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0;
    });
  } else {
    // k beyond the matrix keeps all or nothing; clamped, i + k fits.
    k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
    Type i64 = nc.b.getI64Type();
    Value shifted = nc.iota(RankedTensorType::get({rows, 1}, i64), 0, k, 1);
    Value columns = nc.iota(RankedTensorType::get({1, cols}, i64), 1, 0, 1);
    FailureOr<Value> c =
        nc.binary(upper ? BinaryKind::GreaterEqual : BinaryKind::LessEqual,
                  columns, shifted);
    if (failed(c))
      return failure();
    cond = *c;
  }
  Value zero = nc.splat(RankedTensorType::get({}, type.getElementType()), 0);
  return nc.result(nc.create<SelectOp>({cond, nc.input(0), zero}));
}

/// Tile with constant repeats: copies concatenated along each axis.
LogicalResult tile(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<SmallVector<int64_t>> repeats = nc.intInput(1);
  if (failed(repeats))
    return failure();
  int64_t rank = nc.inputType(0).getRank();
  if (static_cast<int64_t>(repeats->size()) != rank)
    return nc.fail("expects one repeat per dimension");
  Value x = nc.input(0);
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t r = (*repeats)[axis];
    if (r < 1 || r > 4096)
      return r == 0 ? nc.unsupported(
                          "repeats of 0 (empty results) are not supported")
                    : nc.fail("repeat " + Twine(r) + " is out of range");
    if (r == 1)
      continue;
    SmallVector<Value> copies(r, x);
    FailureOr<Value> c = nc.create<ConcatOp>(
        copies, {nc.named("axis", nc.b.getI64IntegerAttr(axis))});
    if (failed(c))
      return failure();
    x = *c;
  }
  nc.setOutput(0, x);
  return success();
}

/// Range with constant start, limit and delta: a constant up to
/// kMaxGeneratedConstantBytes, else a kiln.iota computed at run time. The
/// values are start + i * delta, computed in double (rounded once) for
/// floats and in int64 for integers.
LogicalResult range(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  SmallVector<double> v;
  for (unsigned i = 0; i < 3; ++i) {
    FailureOr<SmallVector<double>> x = nc.floatInput(i);
    if (failed(x))
      return failure();
    if (x->size() != 1)
      return nc.fail("expects scalar start, limit and delta");
    v.push_back((*x)[0]);
  }
  double start = v[0], limit = v[1], delta = v[2];
  if (delta == 0)
    return nc.fail("delta is 0");
  double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!(count < 0x1p62)) // NaN too
    return nc.fail("the range has more than 2^62 elements");
  Type element = nc.inputType(0).getElementType();
  int64_t n = static_cast<int64_t>(count);
  if (failed(nc.checkOutputBudget(0, {n}, element)))
    return failure();
  bool isFloat = isa<FloatType>(element);
  // Both ends of an integer range fit in int64 (and so every value).
  if (!isFloat && n > 0 &&
      (!(std::fabs(start) < 9.2e18) ||
       !(std::fabs(start + double(n - 1) * delta) < 9.2e18)))
    return nc.fail("the range's values do not fit in 64-bit integers");
  auto type = RankedTensorType::get({n}, element);
  if (NodeContext::isSmallGenerated(type)) {
    nc.setOutput(0, nc.generatedConstant(type, [&](int64_t i) {
      return start + double(i) * delta;
    }));
    return success();
  }
  nc.setOutput(0, nc.iota(type, 0, start, delta));
  return success();
}

/// DepthToSpace / SpaceToDepth as reshape, transpose, reshape; mode DCR
/// (depth, column, row) or CRD.
template <bool toSpace> LogicalResult depthSpace(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (type.getRank() != 4)
    return nc.fail("expects a rank-4 input");
  int64_t bs = nc.getInt("blocksize", 0);
  if (bs <= 0)
    return nc.fail("expects a positive blocksize");
  // SpaceToDepth takes a mode from version 28.
  std::string mode = nc.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return nc.fail("mode '" + mode +
                   "' is not supported (expected DCR or CRD)");
  bool crd = mode == "CRD";
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  SmallVector<int64_t> first, perm, last;
  // Bounded by the input before bs * bs is formed: it would wrap around.
  if (toSpace && bs > c / bs)
    return nc.fail("blocksize " + Twine(bs) + " squared is more than the " +
                   Twine(c) + " channels");
  if (!toSpace && (bs > h || bs > w))
    return nc.fail("blocksize " + Twine(bs) +
                   " is more than the spatial extent " + Twine(h) + "x" +
                   Twine(w));
  if (toSpace) {
    if (c % (bs * bs))
      return nc.fail("channels are not divisible by blocksize^2");
    if (crd) {
      first = {n, c / (bs * bs), bs, bs, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      first = {n, bs, bs, c / (bs * bs), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    }
    last = {n, c / (bs * bs), h * bs, w * bs};
  } else {
    if (h % bs || w % bs)
      return nc.fail("spatial dimensions are not divisible by blocksize");
    first = {n, c, h / bs, bs, w / bs, bs};
    perm = crd ? SmallVector<int64_t>{0, 1, 3, 5, 2, 4}
               : SmallVector<int64_t>{0, 3, 5, 1, 2, 4};
    last = {n, c * bs * bs, h / bs, w / bs};
  }
  FailureOr<Value> a = nc.reshape(nc.input(0), first);
  FailureOr<Value> t =
      failed(a) ? FailureOr<Value>(failure())
                : nc.create<TransposeOp>(
                      {*a}, {nc.named("permutation", nc.i64s(perm))});
  if (failed(t))
    return failure();
  return nc.result(nc.reshape(*t, last));
}

/// Reduce*: axes from the attribute, or from input 1 (ReduceSum from 13, the
/// others from 18); no axes means all (or, with noop_with_empty_axes, the
/// identity).
template <ReduceKind kind, bool axesInput13 = false>
LogicalResult reduce(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  SmallVector<int64_t> axes;
  if (nc.opset >= (axesInput13 ? 13 : 18)) {
    if (nc.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> a = nc.intInput(1);
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else {
    axes = nc.getInts("axes");
  }
  if (axes.empty()) {
    if (nc.getInt("noop_with_empty_axes", 0)) {
      nc.setOutput(0, nc.input(0));
      return success();
    }
    for (int64_t i = 0; i < type.getRank(); ++i)
      axes.push_back(i);
  }
  FailureOr<SmallVector<int64_t>> n = normalizeAxes(nc, axes, type.getRank());
  if (failed(n))
    return failure();
  if (n->empty()) {
    nc.setOutput(0, nc.input(0));
    return success();
  }
  // ReduceMax/ReduceMin-20 take booleans: any/all, reduced as ui8.
  Value x = nc.input(0);
  bool isBool = type.getElementType().isInteger(1);
  if (isBool && (kind == ReduceKind::Max || kind == ReduceKind::Min)) {
    FailureOr<Value> wide = nc.castTo(
        x, IntegerType::get(nc.b.getContext(), 8, IntegerType::Unsigned));
    if (failed(wide))
      return failure();
    x = *wide;
  }
  FailureOr<Value> r = nc.create<ReduceOp>(
      {x},
      {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(), kind)),
       nc.named("axes", nc.i64s(*n)),
       nc.named("keep_dims", nc.b.getBoolAttr(nc.getInt("keepdims", 1) != 0))});
  if (failed(r) || x == nc.input(0))
    return nc.result(r);
  return nc.result(nc.castTo(*r, type.getElementType()));
}

/// Resize (10, 11, 13, 18's axes) and Upsample (9): constant scales or
/// sizes; the coordinate transforms half_pixel, pytorch_half_pixel,
/// align_corners, asymmetric, tf_half_pixel_for_nn and half_pixel_symmetric.
LogicalResult resize(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  bool legacy = nc.opset < 11 || nc.node.op_type() == "Upsample";
  unsigned scalesInput = legacy ? 1 : 2, sizesInput = 3;
  std::string mode = nc.getString("mode", "nearest");
  ResizeMode kind;
  if (mode == "nearest")
    kind = ResizeMode::Nearest;
  else if (mode == "linear" || mode == "bilinear")
    kind = ResizeMode::Linear;
  else if (mode == "cubic")
    kind = ResizeMode::Cubic;
  else
    return nc.fail("unknown mode '" + mode + "'");
  std::string coord = nc.getString("coordinate_transformation_mode",
                                   legacy ? "asymmetric" : "half_pixel");
  CoordinateTransform transform;
  if (coord == "half_pixel")
    transform = CoordinateTransform::HalfPixel;
  else if (coord == "pytorch_half_pixel")
    transform = CoordinateTransform::PytorchHalfPixel;
  else if (coord == "align_corners")
    transform = CoordinateTransform::AlignCorners;
  else if (coord == "asymmetric")
    transform = CoordinateTransform::Asymmetric;
  else if (coord == "tf_half_pixel_for_nn")
    transform = CoordinateTransform::TfHalfPixelForNn;
  else if (coord == "half_pixel_symmetric")
    transform = CoordinateTransform::HalfPixelSymmetric;
  else
    return nc.unsupported("coordinate_transformation_mode '" + coord +
                          "' is not supported");
  std::string nearest =
      nc.getString("nearest_mode", legacy ? "floor" : "round_prefer_floor");
  NearestRounding rounding;
  if (nearest == "round_prefer_floor")
    rounding = NearestRounding::RoundPreferFloor;
  else if (nearest == "round_prefer_ceil")
    rounding = NearestRounding::RoundPreferCeil;
  else if (nearest == "floor")
    rounding = NearestRounding::Floor;
  else if (nearest == "ceil")
    rounding = NearestRounding::Ceil;
  else
    return nc.fail("unknown nearest_mode '" + nearest + "'");
  if (nc.getInt("exclude_outside", 0))
    return nc.unsupported("exclude_outside = 1 is not supported");
  if (nc.getInt("antialias", 0))
    return nc.unsupported("antialias = 1 is not supported");
  std::string policy = nc.getString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return nc.fail("unknown keep_aspect_ratio_policy '" + policy + "'");

  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  if (!legacy && nc.hasInput(sizesInput)) {
    FailureOr<SmallVector<int64_t>> v = nc.intInput(sizesInput);
    if (failed(v))
      return failure();
    sizes = *v;
  }
  if (sizes.empty() && nc.hasInput(scalesInput)) {
    FailureOr<SmallVector<double>> v = nc.floatInput(scalesInput);
    if (failed(v))
      return failure();
    scales = *v;
  }
  if (sizes.empty() && scales.empty())
    return nc.fail("expects scales or sizes");
  // Resize-18's axes: the scales or sizes are for these dimensions; the
  // others keep their size.
  if (nc.hasAttr("axes")) {
    SmallVector<int64_t> axes = nc.getInts("axes");
    size_t given = sizes.empty() ? scales.size() : sizes.size();
    if (axes.size() != given)
      return nc.fail("expects as many scales or sizes as axes (" +
                     Twine(axes.size()) + ")");
    SmallVector<double> allScales(rank, 1.0);
    SmallVector<int64_t> allSizes(type.getShape());
    for (auto [i, a] : llvm::enumerate(axes)) {
      FailureOr<int64_t> axis = nc.axis(a, rank, "axes");
      if (failed(axis))
        return failure();
      if (sizes.empty())
        allScales[*axis] = scales[i];
      else
        allSizes[*axis] = sizes[i];
    }
    if (sizes.empty())
      scales = allScales;
    else
      sizes = allSizes;
  }
  // keep_aspect_ratio_policy (Resize-18) with sizes: the listed axes share
  // the smallest (not_larger) or largest (not_smaller) of their factors,
  // and their sizes are that factor times the input's, rounded half up.
  SmallVector<float> policyScales;
  if (policy != "stretch" && !sizes.empty()) {
    if (static_cast<int64_t>(sizes.size()) != rank)
      return nc.fail("expects " + Twine(rank) + " sizes");
    SmallVector<bool> listed(rank, !nc.hasAttr("axes"));
    for (int64_t a : nc.getInts("axes"))
      listed[a < 0 ? a + rank : a] = true; // checked above
    std::optional<double> shared;
    for (int64_t i = 0; i < rank; ++i) {
      if (!listed[i] || type.getDimSize(i) == 0)
        continue;
      double f = double(sizes[i]) / double(type.getDimSize(i));
      shared = !shared                  ? f
               : policy == "not_larger" ? std::min(*shared, f)
                                        : std::max(*shared, f);
    }
    for (int64_t i = 0; i < rank; ++i) {
      double f = listed[i] && shared ? *shared : 1.0;
      double size = f * double(type.getDimSize(i)) + 0.5;
      if (!(f > 0) || !(size < 9.2e18) ||
          (listed[i] && type.getDimSize(i) > 0 && size < 1))
        return nc.fail("keep_aspect_ratio_policy '" + policy +
                       "' gives dimension " + Twine(i) + " a factor of " +
                       std::to_string(f) + ", expected a positive size");
      policyScales.push_back(static_cast<float>(f));
      if (listed[i] && shared)
        sizes[i] = static_cast<int64_t>(size);
    }
  }
  SmallVector<int64_t> shape;
  SmallVector<NamedAttribute> attrs = {
      nc.named("mode", ResizeModeAttr::get(nc.b.getContext(), kind)),
      nc.named("coordinate_transform",
               CoordinateTransformAttr::get(nc.b.getContext(), transform)),
      nc.named("nearest_rounding",
               NearestRoundingAttr::get(nc.b.getContext(), rounding)),
      nc.named("cubic_coeff_a",
               nc.b.getF32FloatAttr(nc.getFloat("cubic_coeff_a", -0.75f)))};
  if (!sizes.empty()) {
    if (static_cast<int64_t>(sizes.size()) != rank)
      return nc.fail("expects " + Twine(rank) + " sizes");
    shape = sizes;
    if (!policyScales.empty())
      attrs.push_back(
          nc.named("scales", nc.b.getDenseF32ArrayAttr(policyScales)));
  } else {
    if (static_cast<int64_t>(scales.size()) != rank)
      return nc.fail("expects " + Twine(rank) + " scales");
    SmallVector<float> f;
    for (int64_t i = 0; i < rank; ++i) {
      if (!(scales[i] > 0) || !(scales[i] < 3.4e38))
        return nc.fail("expects positive finite scales");
      f.push_back(static_cast<float>(scales[i]));
      double size = std::floor(double(type.getDimSize(i)) * f.back());
      if (!(size < 9.2e18)) // also infinite scales
        return nc.fail("scale " + std::to_string(scales[i]) + " of dimension " +
                       Twine(i) + " gives more elements than 64 bits count");
      shape.push_back(static_cast<int64_t>(size));
    }
    attrs.push_back(nc.named("scales", nc.b.getDenseF32ArrayAttr(f)));
  }
  return nc.result(nc.createTyped<ResizeOp>(
      RankedTensorType::get(shape, type.getElementType()), {nc.input(0)},
      attrs));
}

/// CumSum-11 and CumProd-26: the axis is a constant input.
template <typename CumOp> LogicalResult cumulative(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<SmallVector<int64_t>> a = nc.intInput(1);
  if (failed(a))
    return failure();
  if (a->size() != 1)
    return nc.fail("expects one axis");
  FailureOr<int64_t> axis = nc.axis((*a)[0], nc.inputType(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  return nc.result(nc.create<CumOp>(
      {nc.input(0)},
      {nc.named("axis", nc.b.getI64IntegerAttr(*axis)),
       nc.named("exclusive", nc.b.getBoolAttr(nc.getInt("exclusive", 0))),
       nc.named("reverse", nc.b.getBoolAttr(nc.getInt("reverse", 0)))}));
}

template <ArgReduceKind kind> LogicalResult argReduce(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", 0), nc.inputType(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  return nc.result(nc.create<ArgReduceOp>(
      {nc.input(0)},
      {nc.named("kind", ArgReduceKindAttr::get(nc.b.getContext(), kind)),
       nc.named("axis", nc.b.getI64IntegerAttr(*axis)),
       nc.named("keep_dims", nc.b.getBoolAttr(nc.getInt("keepdims", 1) != 0)),
       nc.named("select_last_index",
                nc.b.getBoolAttr(nc.getInt("select_last_index", 0) != 0))}));
}

} // namespace

void mlir::kiln::onnx_import::appendShapeHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Constant", 1, constant},
      {"Shape", 1, shape},
      {"Size", 1, size},
      {"ConstantOfShape", 9, constantOfShape},
      {"Reshape", 1, reshape},
      {"Flatten", 1, flatten},
      {"Squeeze", 1, squeeze},
      {"Unsqueeze", 1, unsqueeze},
      {"Transpose", 1, transpose},
      {"Concat", 4, concat},
      {"Split", 2, split},
      {"Slice", 1, slice},
      {"Gather", 1, gather<GatherOp>},
      {"GatherElements", 11, gather<GatherElementsOp>},
      {"GatherND", 11, gatherND},
      {"Compress", 9, compress},
      {"Resize", 10, resize},
      {"Upsample", 9, resize},
      {"Expand", 8, expand},
      {"Range", 11, range},
      {"Trilu", 14, trilu},
      {"Tile", 6, tile},
      {"DepthToSpace", 1, depthSpace<true>},
      {"SpaceToDepth", 1, depthSpace<false>},
      {"CumSum", 11, cumulative<CumSumOp>},
      {"CumProd", 26, cumulative<CumProdOp>},
      {"ArgMax", 1, argReduce<ArgReduceKind::Max>},
      {"ArgMin", 1, argReduce<ArgReduceKind::Min>},
      {"ReduceSum", 1, reduce<ReduceKind::Sum, true>},
      {"ReduceMean", 1, reduce<ReduceKind::Mean>},
      {"ReduceMax", 1, reduce<ReduceKind::Max>},
      {"ReduceMin", 1, reduce<ReduceKind::Min>},
      {"ReduceProd", 1, reduce<ReduceKind::Prod>},
      {"ReduceL1", 1, reduce<ReduceKind::L1>},
      {"ReduceL2", 1, reduce<ReduceKind::L2>},
      {"ReduceLogSum", 1, reduce<ReduceKind::LogSum>},
      {"ReduceLogSumExp", 1, reduce<ReduceKind::LogSumExp>},
      {"ReduceSumSquare", 1, reduce<ReduceKind::SumSquare>},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
