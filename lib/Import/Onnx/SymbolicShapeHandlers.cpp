//===- SymbolicShapeHandlers.cpp - shape subgraphs with symbols -*- C++ -*-===//
//
// Run-time shapes (issue 32): the shape subgraphs that exporters write
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Expand,
// ConstantOfShape, Range) evaluated on expressions of the model's symbols
// (SymbolicDims.h) instead of constants. A node with such an input is
// imported here; an op not listed is refused, naming the input.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"
#include "SymbolicDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

using ShapeValue = SymbolicDims::ShapeValue;

namespace {

std::string elementsText(ArrayRef<DimExpr> elements) {
  std::string text = "[";
  for (auto [i, e] : llvm::enumerate(elements))
    text += (i ? ", " : "") + e.str();
  return text + "]";
}

/// Fails when an expression overflowed (SymbolicDims.h).
LogicalResult checkFollowed(NodeContext &nc, ArrayRef<DimExpr> elements) {
  if (llvm::any_of(elements, [](const DimExpr &e) { return e.overflowed(); }))
    return nc.fail("the shape arithmetic overflows 64 bits or grows past "
                   "what kiln follows (" +
                   Twine(DimExpr::kMaxTerms) + " terms of " +
                   Twine(DimExpr::kMaxDegree) + " factors)");
  return success();
}

/// Input `i` as a shape value: a placeholder's elements, or an integer
/// constant's.
FailureOr<ShapeValue> shapeInput(NodeContext &nc, unsigned i) {
  if (!nc.hasInput(i)) {
    (void)nc.fail("expects input " + Twine(i));
    return failure();
  }
  if (const ShapeValue *v = nc.symbolic().shapeValue(nc.input(i)))
    return *v;
  RankedTensorType type = nc.inputType(i);
  if (type.getRank() > 1 || !isa<IntegerType>(type.getElementType())) {
    (void)nc.unsupported("input " + Twine(i) + " ('" + nc.node.input(i) +
                         "') is not an integer scalar or list, and another "
                         "input is computed from dimensions that vary at "
                         "run time");
    return failure();
  }
  FailureOr<SmallVector<int64_t>> values = nc.intInput(i);
  if (failed(values))
    return failure();
  ShapeValue v;
  v.scalar = type.getRank() == 0;
  for (int64_t x : *values)
    v.elements.push_back(DimExpr(x));
  return v;
}

/// Output `i` is `v`: a constant when every element is one, else a
/// placeholder.
LogicalResult shapeResult(NodeContext &nc, const ShapeValue &v, Type element,
                          unsigned i = 0) {
  if (failed(checkFollowed(nc, v.elements)))
    return failure();
  SmallVector<int64_t> shape;
  if (!v.scalar)
    shape.push_back(v.elements.size());
  auto type = RankedTensorType::get(shape, element);
  if (llvm::all_of(v.elements,
                   [](const DimExpr &e) { return e.constant().has_value(); })) {
    SmallVector<APInt> values;
    for (const DimExpr &e : v.elements)
      values.push_back(APInt(element.getIntOrFloatBitWidth(), *e.constant(),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    nc.setOutput(i, nc.constant(DenseElementsAttr::get(type, values)));
    return success();
  }
  Value placeholder = UnrealizedConversionCastOp::create(
                          nc.b, nc.loc, TypeRange{type}, ValueRange{})
                          .getResult(0);
  nc.symbolic().shapeValues[placeholder] = v;
  nc.setOutput(i, placeholder);
  return success();
}

/// numpy broadcasting of two shape values.
FailureOr<ShapeValue> broadcast(
    NodeContext &nc, const ShapeValue &a, const ShapeValue &b,
    llvm::function_ref<std::optional<DimExpr>(const DimExpr &, const DimExpr &)>
        op) {
  size_t n = std::max(a.elements.size(), b.elements.size());
  if ((a.elements.size() != n && a.elements.size() != 1) ||
      (b.elements.size() != n && b.elements.size() != 1)) {
    (void)nc.fail("cannot broadcast " + elementsText(a.elements) + " with " +
                  elementsText(b.elements));
    return failure();
  }
  ShapeValue out;
  out.scalar = a.scalar && b.scalar;
  for (size_t k = 0; k < n; ++k) {
    const DimExpr &x = a.elements[a.elements.size() == 1 ? 0 : k];
    const DimExpr &y = b.elements[b.elements.size() == 1 ? 0 : k];
    std::optional<DimExpr> r = op(x, y);
    if (!r) {
      (void)nc.unsupported("cannot compute " + nc.node.op_type() + " of " +
                           x.str() + " and " + y.str() +
                           " for dimensions that vary at run time");
      return failure();
    }
    out.elements.push_back(*r);
  }
  return out;
}

/// The result shape of a reshape of `input` to `spec` (0 copies unless
/// `allowZero`, -1 is inferred), as expressions.
FailureOr<SmallVector<DimExpr>> reshapeDims(NodeContext &nc, Value input,
                                            ArrayRef<DimExpr> spec,
                                            bool allowZero) {
  SmallVector<std::optional<DimExpr>> in = nc.symbolic().dims(input);
  auto known = [&](size_t i) -> FailureOr<DimExpr> {
    if (!in[i]) {
      (void)nc.unsupported(
          "dimension " + Twine(i) + " of the input (" +
          formatDims(cast<RankedTensorType>(input.getType()).getShape()) +
          ") varies at run time in a way kiln cannot follow (neither a "
          "product of the inputs' dimensions nor a + b * one of them)");
      return failure();
    }
    return *in[i];
  };
  SmallVector<DimExpr> out;
  int inferred = -1;
  DimExpr product(1);
  for (auto [i, e] : llvm::enumerate(spec)) {
    std::optional<int64_t> c = e.constant();
    if (c && *c == 0 && !allowZero) {
      if (i >= in.size()) {
        (void)nc.fail("shape entry " + Twine(i) +
                      " is 0 (copy) past the input's rank");
        return failure();
      }
      FailureOr<DimExpr> d = known(i);
      if (failed(d))
        return failure();
      out.push_back(*d);
    } else if (c && *c == -1) {
      if (inferred >= 0) {
        (void)nc.fail("shape has more than one -1");
        return failure();
      }
      inferred = i;
      out.push_back(DimExpr(1));
      continue;
    } else if (c && *c < 0) {
      (void)nc.fail("shape entry " + Twine(*c) + " is invalid");
      return failure();
    } else {
      out.push_back(e);
    }
    product = product * out.back();
  }
  if (inferred >= 0) {
    DimExpr total(1);
    for (size_t i = 0; i < in.size(); ++i) {
      FailureOr<DimExpr> d = known(i);
      if (failed(d))
        return failure();
      total = total * *d;
    }
    std::optional<DimExpr> q = total.divideExactly(product);
    if (!q) {
      (void)nc.fail("cannot infer the -1 dimension: " + total.str() +
                    " elements do not divide by " + product.str());
      return failure();
    }
    out[inferred] = *q;
  }
  return out;
}

/// A tensor of `element` whose shape is `dims`, all `value`: a splat when
/// static, else a kiln.iota with step 0 and a shape map.
FailureOr<Value> filled(NodeContext &nc, ArrayRef<DimExpr> dims, Type element,
                        double value) {
  if (failed(checkFollowed(nc, dims)))
    return failure();
  for (const DimExpr &d : dims)
    if (d.constant() && *d.constant() < 0)
      return nc.fail("expects non-negative dimensions, got " +
                     elementsText(dims));
  SmallVector<int64_t> shape;
  for (const DimExpr &d : dims)
    shape.push_back(d.constant().value_or(ShapedType::kDynamic));
  auto type = RankedTensorType::get(shape, element);
  if (type.hasStaticShape()) {
    if (failed(nc.checkBudget("the filled tensor", shape, element)))
      return failure();
    return nc.splat(type, value);
  }
  if (element.isInteger(1)) {
    // i1 is a comparison of an integer tensor with 0.
    FailureOr<Value> zeros =
        filled(nc, dims, nc.b.getI64Type(), value != 0 ? 0 : 1);
    if (failed(zeros))
      return failure();
    return nc.binary(BinaryKind::Equal, *zeros,
                     nc.i64Constant({}, {static_cast<int64_t>(0)}));
  }
  return nc.iota(type, 0, value, 0,
                 nc.symbolic().shapeMap(nc.b.getContext(), dims));
}

LogicalResult reshapeTo(NodeContext &nc, ArrayRef<DimExpr> spec) {
  FailureOr<SmallVector<DimExpr>> dims =
      reshapeDims(nc, nc.input(0), spec, nc.getInt("allowzero", 0) != 0);
  if (failed(dims) || failed(checkFollowed(nc, *dims)))
    return failure();
  SmallVector<int64_t> shape;
  for (const DimExpr &d : *dims)
    shape.push_back(d.constant().value_or(ShapedType::kDynamic));
  RankedTensorType in = nc.inputType(0);
  auto type = RankedTensorType::get(shape, in.getElementType());
  if (type.hasStaticShape())
    return nc.result(nc.reshape(nc.input(0), shape));
  return nc.result(nc.createTyped<ReshapeOp>(
      type, {nc.input(0)},
      {nc.named("shape", AffineMapAttr::get(nc.symbolic().shapeMap(
                             nc.b.getContext(), *dims)))}));
}

LogicalResult expandTo(NodeContext &nc, ArrayRef<DimExpr> target) {
  Value x = nc.input(0);
  SmallVector<std::optional<DimExpr>> in = nc.symbolic().dims(x);
  size_t rank = std::max(in.size(), target.size());
  SmallVector<DimExpr> out;
  bool same = in.size() == rank;
  for (size_t k = 0; k < rank; ++k) {
    std::optional<DimExpr> d = k + in.size() >= rank
                                   ? in[k + in.size() - rank]
                                   : std::optional<DimExpr>(DimExpr(1));
    const DimExpr t = k + target.size() >= rank
                          ? target[k + target.size() - rank]
                          : DimExpr(1);
    if (d && (t == DimExpr(1) || *d == t)) {
      out.push_back(*d);
      continue;
    }
    if (d && *d == DimExpr(1)) {
      out.push_back(t);
      same = false;
      continue;
    }
    return nc.unsupported("cannot expand dimension " + Twine(k) + " (" +
                          (d ? d->str() : std::string("?")) + ") to " +
                          t.str() + " with dimensions that vary at run time");
  }
  if (same)
    return nc.result(FailureOr<Value>(x));
  // A select whose (all true) condition has the result's shape.
  FailureOr<Value> cond = filled(nc, out, nc.b.getI1Type(), 1);
  if (failed(cond))
    return failure();
  return nc.result(nc.create<SelectOp>({*cond, x, x}));
}

/// Gather of a shape value by constant indices, along axis 0.
LogicalResult gather(NodeContext &nc, const ShapeValue &data) {
  if (data.scalar || nc.getInt("axis", 0) != 0)
    return nc.unsupported("Gather of a shape value takes a list along axis "
                          "0");
  FailureOr<SmallVector<int64_t>> indices = nc.intInput(1);
  if (failed(indices))
    return failure();
  ShapeValue out;
  out.scalar = nc.inputType(1).getRank() == 0;
  if (nc.inputType(1).getRank() > 1)
    return nc.unsupported("Gather of a shape value takes indices of rank 0 "
                          "or 1");
  int64_t n = data.elements.size();
  for (int64_t i : *indices) {
    if (i < -n || i >= n)
      return nc.fail("index " + Twine(i) + " is out of range for a shape of " +
                     Twine(n) + " dimensions");
    out.elements.push_back(data.elements[i < 0 ? i + n : i]);
  }
  return shapeResult(nc, out, nc.inputType(0).getElementType());
}

/// Slice of a 1-D shape value by constant starts, ends and steps.
LogicalResult slice(NodeContext &nc, const ShapeValue &data) {
  int64_t n = data.elements.size();
  auto one = [&](unsigned i, int64_t dflt) -> FailureOr<int64_t> {
    if (!nc.hasInput(i))
      return dflt;
    FailureOr<SmallVector<int64_t>> v = nc.intInput(i);
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return nc.unsupported("Slice of a shape value takes one axis");
    return (*v)[0];
  };
  if (nc.opset < 10) {
    // Slice-1: starts, ends and axes are attributes.
    SmallVector<int64_t> starts = nc.getInts("starts"),
                         ends = nc.getInts("ends"), axes = nc.getInts("axes");
    if (starts.size() != 1 || ends.size() != 1 || axes.size() > 1)
      return nc.unsupported("Slice of a shape value takes one axis");
    SmallVector<DimExpr> picked;
    int64_t s = std::clamp<int64_t>(starts[0] < 0 ? starts[0] + n : starts[0],
                                    0, n),
            e = std::clamp<int64_t>(ends[0] < 0 ? ends[0] + n : ends[0], 0, n);
    if (!axes.empty() && axes[0] != 0 && axes[0] != -1)
      return nc.unsupported("Slice of a shape value takes axis 0");
    ShapeValue out;
    for (int64_t i = s; i < e; ++i)
      out.elements.push_back(data.elements[i]);
    return shapeResult(nc, out, nc.inputType(0).getElementType());
  }
  FailureOr<int64_t> start = one(1, 0), end = one(2, n), axis = one(3, 0),
                     step = one(4, 1);
  if (failed(start) || failed(end) || failed(axis) || failed(step))
    return failure();
  if ((*axis != 0 && *axis != -1) || *step == 0)
    return nc.unsupported("Slice of a shape value takes axis 0 and a "
                          "non-zero step");
  auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0)
      v += n;
    return std::clamp(v, lo, hi);
  };
  // A step past the list takes one element; clamped, `i += step` stays in
  // range.
  int64_t stride = std::clamp<int64_t>(*step, -n - 1, n + 1);
  ShapeValue out;
  if (n == 0)
    return shapeResult(nc, out, nc.inputType(0).getElementType());
  if (stride > 0) {
    for (int64_t i = clampIndex(*start, 0, n), e = clampIndex(*end, 0, n);
         i < e; i += stride)
      out.elements.push_back(data.elements[i]);
  } else {
    for (int64_t i = clampIndex(*start, 0, n - 1),
                 e = clampIndex(*end, -1, n - 1);
         i > e; i += stride)
      out.elements.push_back(data.elements[i]);
  }
  return shapeResult(nc, out, nc.inputType(0).getElementType());
}

LogicalResult range(NodeContext &nc) {
  FailureOr<ShapeValue> start = shapeInput(nc, 0), limit = shapeInput(nc, 1),
                        delta = shapeInput(nc, 2);
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if (start->elements.size() != 1 || limit->elements.size() != 1 ||
      delta->elements.size() != 1)
    return nc.fail("expects scalar start, limit and delta");
  std::optional<int64_t> first = start->elements[0].constant(),
                         step = delta->elements[0].constant();
  // The start goes through a double (NodeContext::iota): exactly, below
  // 2^53.
  if (!first || !step || (*step != 1 && *step != -1) ||
      *first > (int64_t(1) << 53) || *first < -(int64_t(1) << 53))
    return nc.unsupported("a Range whose limit varies at run time takes a "
                          "constant start and a delta of 1 or -1");
  DimExpr count = *step == 1 ? limit->elements[0] - DimExpr(*first)
                             : DimExpr(*first) - limit->elements[0];
  if (failed(checkFollowed(nc, {count})))
    return failure();
  Type element = nc.inputType(0).getElementType();
  auto type = RankedTensorType::get({ShapedType::kDynamic}, element);
  nc.setOutput(0, nc.iota(type, 0, double(*first), double(*step),
                          nc.symbolic().shapeMap(nc.b.getContext(), {count})));
  return success();
}

/// The shape value `v` as a tensor computed at run time: each element that
/// varies is the sum of a generated tensor of ones of that length (the
/// length is the value), so it takes no new op. An element that may be
/// negative cannot be computed so.
FailureOr<Value> materialize(NodeContext &nc, Value v) {
  if (Value done = nc.symbolic().materialized.lookup(v))
    return done;
  const ShapeValue &sv = *nc.symbolic().shapeValue(v);
  Type i64 = nc.b.getI64Type();
  SmallVector<Value> parts;
  for (const DimExpr &e : sv.elements) {
    if (std::optional<int64_t> c = e.constant()) {
      parts.push_back(nc.i64Constant({1}, {*c}));
      continue;
    }
    if (!e.isMonotone())
      return nc.unsupported("the shape value " + e.str() +
                            " may be negative, and kiln computes only "
                            "sizes at run time");
    FailureOr<Value> ones = filled(nc, {e}, i64, 1);
    if (failed(ones))
      return failure();
    FailureOr<Value> sum = nc.create<ReduceOp>(
        {*ones}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(),
                                                       ReduceKind::Sum)),
                  nc.named("axes", nc.i64s({0})),
                  nc.named("keep_dims", nc.b.getBoolAttr(true))});
    if (failed(sum))
      return failure();
    parts.push_back(*sum);
  }
  FailureOr<Value> joined =
      parts.size() == 1
          ? FailureOr<Value>(parts.front())
          : nc.create<ConcatOp>(parts,
                                {nc.named("axis", nc.b.getI64IntegerAttr(0))});
  if (failed(joined))
    return failure();
  if (sv.scalar) {
    joined = nc.reshape(*joined, {});
    if (failed(joined))
      return failure();
  }
  FailureOr<Value> typed =
      nc.castTo(*joined, cast<RankedTensorType>(v.getType()).getElementType());
  if (succeeded(typed)) {
    nc.symbolic().materialized[v] = *typed;
    nc.symbolic().materializedValues.insert(*typed);
  }
  return typed;
}

/// Whether `nc` can be evaluated on expressions: `list` inputs must be shape
/// values or integer constants of rank 0 or 1.
bool symbolicOperands(NodeContext &nc, ArrayRef<unsigned> list) {
  for (unsigned i : list) {
    if (!nc.hasInput(i) || nc.symbolic().shapeValue(nc.input(i)))
      continue;
    RankedTensorType type = nc.inputType(i);
    if (type.getRank() > 1 || !isa<IntegerType>(type.getElementType()) ||
        !nc.isConstantInput(i))
      return false;
  }
  return true;
}

} // namespace

LogicalResult mlir::kiln::onnx_import::shapeOfDynamic(NodeContext &nc,
                                                      int64_t start,
                                                      int64_t end) {
  SmallVector<std::optional<DimExpr>> dims = nc.symbolic().dims(nc.input(0));
  ShapeValue v;
  for (int64_t d = start; d < end; ++d) {
    if (!dims[d])
      return nc.unsupported(
          "dimension " + Twine(d) + " of " +
          formatDims(nc.inputType(0).getShape()) +
          " varies at run time in a way kiln cannot follow (neither a product "
          "of the inputs' dimensions nor a + b * one of them), so its Shape "
          "cannot be computed");
    v.elements.push_back(*dims[d]);
  }
  if (nc.node.op_type() == "Size") {
    DimExpr product(1);
    for (const DimExpr &e : v.elements)
      product = product * e;
    v.elements = {product};
    v.scalar = true;
  }
  return shapeResult(nc, v, nc.b.getI64Type());
}

LogicalResult mlir::kiln::onnx_import::constantOfShapeDynamic(NodeContext &nc,
                                                              Type element,
                                                              double value) {
  return nc.result(filled(nc, nc.symbolic().shapeValue(nc.input(0))->elements,
                          element, value));
}

LogicalResult mlir::kiln::onnx_import::reshapeDynamic(NodeContext &nc,
                                                      ArrayRef<int64_t> spec) {
  SmallVector<DimExpr> entries;
  for (int64_t e : spec)
    entries.push_back(DimExpr(e));
  return reshapeTo(nc, entries);
}

/// The node evaluated on expressions, or nullopt where it cannot be.
static std::optional<LogicalResult> evaluate(NodeContext &nc) {
  StringRef op = nc.node.op_type();
  SmallVector<unsigned> all;
  for (unsigned i = 0; i < nc.numInputs(); ++i)
    all.push_back(i);
  bool dataInput = op == "Reshape" || op == "Expand";
  if (dataInput && failed(nc.requireInputs(2)))
    return failure();
  if (dataInput
          ? nc.symbolic().shapeValue(nc.input(0)) || !symbolicOperands(nc, {1})
          : !symbolicOperands(nc, all))
    return std::nullopt;
  auto input = [&](unsigned i) { return shapeInput(nc, i); };
  auto elementOf = [&](unsigned i) { return nc.inputType(i).getElementType(); };
  if (op == "Identity") {
    FailureOr<ShapeValue> x = input(0);
    return failed(x) ? failure() : shapeResult(nc, *x, elementOf(0));
  }
  if (op == "Cast") {
    FailureOr<ShapeValue> x = input(0);
    if (failed(x))
      return failure();
    Type to = convertElementType(nc.b.getContext(), nc.getInt("to", 0));
    auto integer = dyn_cast_if_present<IntegerType>(to);
    if (!integer || integer.getWidth() < 32)
      return std::nullopt; // computed at run time, then cast
    return shapeResult(nc, *x, to);
  }
  if (op == "Gather" || op == "Slice") {
    FailureOr<ShapeValue> x = input(0);
    if (failed(x))
      return failure();
    if (nc.symbolic().shapeValue(nc.input(0)) == nullptr)
      return nc.unsupported("the indices of a " + op + " vary at run time");
    return op == "Gather" ? gather(nc, *x) : slice(nc, *x);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    FailureOr<ShapeValue> x = input(0);
    if (failed(x))
      return failure();
    // Of a scalar, to a list of one, and back.
    if (op == "Unsqueeze" ? !x->scalar : x->elements.size() != 1)
      return std::nullopt;
    x->scalar = op == "Squeeze";
    return shapeResult(nc, *x, elementOf(0));
  }
  if (op == "Concat") {
    ShapeValue out;
    for (unsigned i = 0; i < nc.numInputs(); ++i) {
      FailureOr<ShapeValue> x = input(i);
      if (failed(x))
        return failure();
      if (x->scalar)
        return nc.fail("Concat takes lists, not scalars");
      llvm::append_range(out.elements, x->elements);
    }
    return shapeResult(nc, out, elementOf(0));
  }
  if (op == "ReduceProd" || op == "ReduceSum") {
    FailureOr<ShapeValue> x = input(0);
    if (failed(x))
      return failure();
    if (nc.hasAttr("axes") || nc.hasInput(1))
      return std::nullopt;
    DimExpr acc(op == "ReduceProd" ? 1 : 0);
    for (const DimExpr &e : x->elements)
      acc = op == "ReduceProd" ? acc * e : acc + e;
    ShapeValue out;
    out.elements = {acc};
    out.scalar = x->scalar || nc.getInt("keepdims", 1) == 0;
    return shapeResult(nc, out, elementOf(0));
  }
  if (op == "Neg") {
    FailureOr<ShapeValue> x = input(0);
    if (failed(x))
      return failure();
    for (DimExpr &e : x->elements)
      e = DimExpr(0) - e;
    return shapeResult(nc, *x, elementOf(0));
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Max" ||
      op == "Min" || op == "Equal") {
    if (nc.numInputs() != 2)
      return nc.unsupported(op + " of shape values takes two inputs");
    FailureOr<ShapeValue> a = input(0), b = input(1);
    if (failed(a) || failed(b))
      return failure();
    FailureOr<ShapeValue> out = broadcast(
        nc, *a, *b,
        [&](const DimExpr &x, const DimExpr &y) -> std::optional<DimExpr> {
          if (op == "Add")
            return x + y;
          if (op == "Sub")
            return x - y;
          if (op == "Mul")
            return x * y;
          if (op == "Div")
            return x.divideExactly(y);
          // Max, Min and Equal: known when equal or both constant, and
          // Equal where a size (never negative) meets a negative constant
          // (exporters test shapes against -1 before an Expand).
          std::optional<int64_t> cx = x.constant(), cy = y.constant();
          if (op == "Equal") {
            if (x == y || (cx && cy))
              return DimExpr(x == y);
            if ((cx && *cx < 0 && y.isMonotone()) ||
                (cy && *cy < 0 && x.isMonotone()))
              return DimExpr(0);
            return std::nullopt;
          }
          if (x == y)
            return x;
          if (cx && cy)
            return DimExpr(op == "Max" ? std::max(*cx, *cy)
                                       : std::min(*cx, *cy));
          return std::nullopt;
        });
    if (failed(out))
      return failure();
    return shapeResult(nc, *out,
                       op == "Equal" ? nc.b.getI1Type() : elementOf(0));
  }
  if (op == "Where") {
    FailureOr<ShapeValue> c = input(0), x = input(1), y = input(2);
    if (failed(c) || failed(x) || failed(y))
      return failure();
    size_t n =
        std::max({c->elements.size(), x->elements.size(), y->elements.size()});
    ShapeValue out;
    out.scalar = c->scalar && x->scalar && y->scalar;
    for (size_t k = 0; k < n; ++k) {
      auto at = [&](const ShapeValue &v) -> const DimExpr * {
        size_t size = v.elements.size();
        return size == n   ? &v.elements[k]
               : size == 1 ? &v.elements[0]
                           : nullptr;
      };
      const DimExpr *ck = at(*c), *xk = at(*x), *yk = at(*y);
      if (!ck || !xk || !yk)
        return nc.fail("cannot broadcast the inputs of Where");
      std::optional<int64_t> known = ck->constant();
      if (!known)
        return std::nullopt; // a condition computed at run time
      out.elements.push_back(*known ? *xk : *yk);
    }
    return shapeResult(nc, out, elementOf(1));
  }
  if (op == "Reshape" || op == "Expand") {
    if (nc.symbolic().shapeValue(nc.input(0)))
      return nc.unsupported(op + " of a shape value");
    FailureOr<ShapeValue> target = input(1);
    if (failed(target))
      return failure();
    return op == "Reshape" ? reshapeTo(nc, target->elements)
                           : expandTo(nc, target->elements);
  }
  if (op == "Range")
    return range(nc);
  return std::nullopt;
}

LogicalResult mlir::kiln::onnx_import::importSymbolic(
    NodeContext &nc, llvm::function_ref<LogicalResult(NodeContext &)> handler) {
  if (std::optional<LogicalResult> done = evaluate(nc))
    return *done;
  // Computed at run time, for the op's own handler.
  for (unsigned i = 0; i < nc.numInputs(); ++i)
    if (nc.hasInput(i) && nc.symbolic().shapeValue(nc.input(i))) {
      FailureOr<Value> value = materialize(nc, nc.input(i));
      if (failed(value))
        return failure();
      nc.overrideInput(i, *value);
    }
  return handler(nc);
}
