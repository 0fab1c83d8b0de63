//===- ExpandBuiltinPlugins.cpp - cheap built-in plugins as layers -*- C++
//-*-===//
//
// kiln-expand-builtin-plugins: rewrites LReLU_TRT, Clip_TRT, Reorg_TRT,
// Normalize_TRT and Region_TRT (version "1", the empty namespace) as the kiln
// layers that compute them, so that the CPU reference executor runs networks
// with them. The semantics are those of runtime/plugins/<Name>.cu; the fields
// are checked as the plugins check them, with errors naming the plugin and
// the field.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/CheckedBuild.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEXPANDBUILTINPLUGINSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// One plugin op being rewritten: its fields, checked, and the builders of
/// its replacement. Every failure is emitted on the op, naming the plugin.
class Expansion {
public:
  Expansion(PluginOp op) : op(op), b(op), loc(op.getLoc()) {}

  /// Fails unless the fields are exactly `names`.
  LogicalResult expectFields(ArrayRef<StringRef> names) {
    for (NamedAttribute field : op.getFields())
      if (!llvm::is_contained(names, field.getName().strref()))
        return fail("'" + field.getName().strref() +
                    "' is not one of its fields (" + llvm::join(names, ", ") +
                    ")");
    for (StringRef name : names)
      if (!op.getFields().get(name))
        return fail("field '" + name + "' is missing");
    return success();
  }

  /// The finite floats of field `name` (`count` of them unless 0).
  FailureOr<SmallVector<float>> floats(StringRef name, size_t count) {
    auto attr = dyn_cast_or_null<DenseF64ArrayAttr>(op.getFields().get(name));
    if (!attr)
      return fail("field '" + name + "' must be floats");
    if (attr.empty() || (count && attr.size() != int64_t(count)))
      return fail("field '" + name + "' must have " +
                  (count ? Twine(count) : Twine("one or more")) +
                  " floats, got " + Twine(attr.size()));
    SmallVector<float> values;
    for (double v : attr.asArrayRef()) {
      if (!std::isfinite(float(v)))
        return fail("field '" + name + "' holds a value that is not finite");
      values.push_back(float(v));
    }
    return values;
  }

  FailureOr<float> oneFloat(StringRef name) {
    FailureOr<SmallVector<float>> v = floats(name, 1);
    if (failed(v))
      return failure();
    return (*v)[0];
  }

  /// The one integer of field `name`, in [lo, hi].
  FailureOr<int64_t> oneInt(StringRef name, int64_t lo, int64_t hi) {
    auto attr = dyn_cast_or_null<DenseI64ArrayAttr>(op.getFields().get(name));
    if (!attr || attr.size() != 1)
      return fail("field '" + name + "' must be one integer");
    int64_t v = attr[0];
    if (v < lo || v > hi)
      return fail("field '" + name + "' must be in [" + Twine(lo) + ", " +
                  Twine(hi) + "], got " + Twine(v));
    return v;
  }

  LogicalResult fail(const Twine &message) {
    op.emitError("plugin ") << op.getPlugin() << ": " << message;
    return failure();
  }

  RankedTensorType inputType() {
    return cast<RankedTensorType>(op.getInputs()[0].getType());
  }

  FailureOr<Value> activation(ActivationKind kind, Value x,
                              std::optional<float> alpha = std::nullopt,
                              std::optional<float> beta = std::nullopt) {
    SmallVector<NamedAttribute> attrs = {
        named("kind", ActivationKindAttr::get(b.getContext(), kind))};
    if (alpha)
      attrs.push_back(named("alpha", b.getF32FloatAttr(*alpha)));
    if (beta)
      attrs.push_back(named("beta", b.getF32FloatAttr(*beta)));
    return buildChecked<ActivationOp>(b, loc, x, attrs);
  }
  FailureOr<Value> binary(BinaryKind kind, Value lhs, Value rhs) {
    return buildChecked<BinaryOp>(
        b, loc, {lhs, rhs},
        {named("kind", BinaryKindAttr::get(b.getContext(), kind))});
  }
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape) {
    return buildCheckedTyped<ReshapeOp>(
        b, loc, RankedTensorType::get(shape, b.getF32Type()), v);
  }
  /// Dimension 2 of a rank-5 `v`, [start, start + size).
  FailureOr<Value> sliceDim2(Value v, int64_t start, int64_t size) {
    SmallVector<int64_t> sizes(cast<RankedTensorType>(v.getType()).getShape());
    sizes[2] = size;
    return buildChecked<SliceOp>(
        b, loc, v,
        {named("start", b.getDenseI64ArrayAttr({0, 0, start, 0, 0})),
         named("size", b.getDenseI64ArrayAttr(sizes)),
         named("stride", b.getDenseI64ArrayAttr({1, 1, 1, 1, 1}))});
  }
  Value constant(ArrayRef<int64_t> shape, ArrayRef<float> values) {
    auto type = RankedTensorType::get(shape, b.getF32Type());
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  }
  NamedAttribute named(StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }

  PluginOp op;
  OpBuilder b;
  Location loc;
};

/// `v` as printf's %g writes it.
std::string text(float v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%g", double(v));
  return s;
}

FailureOr<Value> expandLeakyRelu(Expansion &e) {
  FailureOr<float> slope;
  if (failed(e.expectFields({"negSlope"})) ||
      failed(slope = e.oneFloat("negSlope")))
    return failure();
  return e.activation(ActivationKind::LeakyRelu, e.op.getInputs()[0], *slope);
}

FailureOr<Value> expandClip(Expansion &e) {
  FailureOr<float> lo, hi;
  if (failed(e.expectFields({"clipMin", "clipMax"})) ||
      failed(lo = e.oneFloat("clipMin")) || failed(hi = e.oneFloat("clipMax")))
    return failure();
  if (*lo > *hi)
    return e.fail("clipMin " + text(*lo) + " > clipMax " + text(*hi));
  return e.activation(ActivationKind::Clip, e.op.getInputs()[0], *lo, *hi);
}

/// Darknet's reorg: [N, C, H, W] read as [N, C/s^2, H, s, W, s], transposed
/// to [N, s, s, C/s^2, H, W], is [N, C*s^2, H/s, W/s] (Reorg.cu's indexing).
FailureOr<Value> expandReorg(Expansion &e) {
  FailureOr<int64_t> stride;
  if (failed(e.expectFields({"stride"})) ||
      failed(stride = e.oneInt("stride", 1, 1 << 15)))
    return failure();
  int64_t s = *stride;
  ArrayRef<int64_t> d = e.inputType().getShape();
  if (d.size() != 4 || d[2] % s || d[3] % s || d[1] % (s * s))
    return e.fail("the input must be [N, C, H, W] with H and W divisible by "
                  "stride " +
                  Twine(s) + " and C by stride * stride");
  FailureOr<Value> v =
      e.reshape(e.op.getInputs()[0], {d[0], d[1] / (s * s), d[2], s, d[3], s});
  if (failed(v))
    return failure();
  v = buildChecked<TransposeOp>(
      e.b, e.loc, *v,
      {e.named("permutation", e.b.getDenseI64ArrayAttr({0, 3, 5, 1, 2, 4}))});
  if (failed(v))
    return failure();
  return e.reshape(*v, {d[0], d[1] * s * s, d[2] / s, d[3] / s});
}

/// x / sqrt(sum of x^2 over channels, or channels and space, + eps), times
/// one weight or a weight per channel. The norm is computed in f64, as the
/// plugin does: an f32 sum over a whole SSD feature map (740,000 squares)
/// is off by 1e-4.
FailureOr<Value> expandNormalize(Expansion &e) {
  if (failed(e.expectFields(
          {"weights", "nbWeights", "acrossSpatial", "channelShared", "eps"})))
    return failure();
  FailureOr<SmallVector<float>> weights = e.floats("weights", 0);
  FailureOr<int64_t> count, acrossSpatial, channelShared;
  FailureOr<float> eps;
  if (failed(weights) || failed(count = e.oneInt("nbWeights", 1, 2048)) ||
      failed(acrossSpatial = e.oneInt("acrossSpatial", 0, 1)) ||
      failed(channelShared = e.oneInt("channelShared", 0, 1)) ||
      failed(eps = e.oneFloat("eps")))
    return failure();
  ArrayRef<int64_t> d = e.inputType().getShape();
  int64_t expected = *channelShared ? 1 : (d.size() == 4 ? d[1] : -1);
  if (d.size() != 4 || *count != int64_t(weights->size()) ||
      *count != expected || !(*eps >= 0.0f))
    return e.fail("expects a [N, C, H, W] input, nbWeights equal to the "
                  "number of weights, 1 with channelShared = 1 and C "
                  "without, and eps >= 0");
  Value x = e.op.getInputs()[0];
  Type f64 = e.b.getF64Type();
  FailureOr<Value> v =
      buildCheckedTyped<CastOp>(e.b, e.loc, RankedTensorType::get(d, f64), x);
  if (failed(v) || failed(v = e.binary(BinaryKind::Mul, *v, *v)))
    return failure();
  SmallVector<int64_t> axes = {1}, normShape = {d[0], 1, d[2], d[3]};
  if (*acrossSpatial) {
    axes = {1, 2, 3};
    normShape = {d[0], 1, 1, 1};
  }
  v = buildChecked<ReduceOp>(
      e.b, e.loc, *v,
      {e.named("kind", ReduceKindAttr::get(e.b.getContext(), ReduceKind::Sum)),
       e.named("axes", e.b.getDenseI64ArrayAttr(axes)),
       e.named("keep_dims", e.b.getBoolAttr(true))});
  auto epsType = RankedTensorType::get({}, f64);
  Value epsValue = ConstantOp::create(
      e.b, e.loc, DenseElementsAttr::get(epsType, double(*eps)));
  if (failed(v) || failed(v = e.binary(BinaryKind::Add, *v, epsValue)))
    return failure();
  v = buildChecked<UnaryOp>(
      e.b, e.loc, *v,
      {e.named("kind", UnaryKindAttr::get(e.b.getContext(), UnaryKind::Sqrt))});
  if (failed(v) ||
      failed(v = buildCheckedTyped<CastOp>(
                 e.b, e.loc, RankedTensorType::get(normShape, e.b.getF32Type()),
                 *v)) ||
      failed(v = e.binary(BinaryKind::Div, x, *v)))
    return failure();
  SmallVector<int64_t> shape = {1, *count, 1, 1};
  return e.binary(BinaryKind::Mul, *v, e.constant(shape, *weights));
}

/// Per anchor of [N, num * (coords + 1 + classes), H, W]: the sigmoid of x,
/// y and the objectness, the other box channels, the classes' softmax.
FailureOr<Value> expandRegion(Expansion &e) {
  FailureOr<int64_t> num, coords, classes;
  if (failed(e.expectFields({"num", "coords", "classes"})) ||
      failed(num = e.oneInt("num", 1, 1 << 16)) ||
      failed(coords = e.oneInt("coords", 2, 1 << 16)) ||
      failed(classes = e.oneInt("classes", 1, 1 << 16)))
    return failure();
  ArrayRef<int64_t> d = e.inputType().getShape();
  int64_t perAnchor = *coords + 1 + *classes;
  if (d.size() != 4 || d[1] != *num * perAnchor)
    return e.fail("expects a [N, C, H, W] input with C = num * (coords + 1 "
                  "+ classes) = " +
                  Twine(*num * perAnchor));
  FailureOr<Value> v =
      e.reshape(e.op.getInputs()[0], {d[0], *num, perAnchor, d[2], d[3]});
  if (failed(v))
    return failure();
  auto sigmoid = [&](FailureOr<Value> x) -> FailureOr<Value> {
    return failed(x) ? x : e.activation(ActivationKind::Sigmoid, *x);
  };
  SmallVector<FailureOr<Value>> parts = {sigmoid(e.sliceDim2(*v, 0, 2))};
  if (*coords > 2)
    parts.push_back(e.sliceDim2(*v, 2, *coords - 2));
  parts.push_back(sigmoid(e.sliceDim2(*v, *coords, 1)));
  FailureOr<Value> scores = e.sliceDim2(*v, *coords + 1, *classes);
  parts.push_back(failed(scores)
                      ? scores
                      : buildChecked<SoftmaxOp>(
                            e.b, e.loc, *scores,
                            {e.named("axis", e.b.getI64IntegerAttr(2))}));
  SmallVector<Value> values;
  for (FailureOr<Value> part : parts) {
    if (failed(part))
      return failure();
    values.push_back(*part);
  }
  v = buildChecked<ConcatOp>(e.b, e.loc, values,
                             {e.named("axis", e.b.getI64IntegerAttr(2))});
  if (failed(v))
    return failure();
  return e.reshape(*v, d);
}

using Expander = FailureOr<Value> (*)(Expansion &);

/// The expander of a built-in plugin, or null.
Expander expanderFor(PluginOp op) {
  if (op.getVersion() != "1" || !op.getPluginNamespace().empty())
    return nullptr;
  return llvm::StringSwitch<Expander>(op.getPlugin())
      .Case("LReLU_TRT", expandLeakyRelu)
      .Case("Clip_TRT", expandClip)
      .Case("Reorg_TRT", expandReorg)
      .Case("Normalize_TRT", expandNormalize)
      .Case("Region_TRT", expandRegion)
      .Default(nullptr);
}

/// One f32 input and one f32 output, of static shapes.
bool isStaticF32Unary(PluginOp op) {
  if (op.getInputs().size() != 1 || op.getNumResults() != 1)
    return false;
  for (Type type : {op.getInputs()[0].getType(), op.getResult(0).getType()}) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32())
      return false;
  }
  return true;
}

struct ExpandBuiltinPluginsPass
    : mlir::kiln::impl::KilnExpandBuiltinPluginsPassBase<
          ExpandBuiltinPluginsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PluginOp> plugins;
    getOperation().walk([&](PluginOp op) { plugins.push_back(op); });
    for (PluginOp op : plugins) {
      Expander expand = expanderFor(op);
      if (!expand || !isStaticF32Unary(op))
        continue;
      Expansion e(op);
      FailureOr<Value> y = expand(e);
      if (failed(y))
        return signalPassFailure();
      if (y->getType() != op.getResult(0).getType()) {
        op.emitError("plugin ") << op.getPlugin() << ": its result type "
                                << op.getResult(0).getType()
                                << " is not the layer's, " << y->getType();
        return signalPassFailure();
      }
      op.getResult(0).replaceAllUsesWith(*y);
      op.erase();
      ++numExpanded;
    }
  }
};

} // namespace
