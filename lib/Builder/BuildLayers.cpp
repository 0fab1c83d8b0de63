//===- BuildLayers.cpp - a network's layers as kiln ops ---------*- C++ -*-===//
//
// Each layer becomes kiln ops through a checked builder (as the ONNX
// importer's NodeContext::create): result types come from the ops' own
// inference and every op is verified, so a bad shape is an error naming the
// layer, never an abort. Weights become kiln.constant ops that point at the
// network's copy (a resource blob that does not own it).
//
//===----------------------------------------------------------------------===//

#include "NetworkState.h"

#include "kiln/Dialect/Kiln/IR/CheckedBuild.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kiln;
using ::kiln::ActivationType;
using ::kiln::DataType;
using ::kiln::Dims;

namespace kiln::detail {

Type getElementType(MLIRContext &context, DataType type) {
  Builder b(&context);
  switch (type) {
  case DataType::F32:
    return b.getF32Type();
  case DataType::F16:
    return b.getF16Type();
  case DataType::BF16:
    return b.getBF16Type();
  case DataType::I8:
    return b.getI8Type();
  case DataType::I32:
    return b.getI32Type();
  case DataType::I64:
    return b.getI64Type();
  case DataType::Bool:
    return b.getI1Type();
  default:
    return Type();
  }
}

namespace {

/// Builds one layer.
class LayerBuilder {
public:
  LayerBuilder(const NetworkState &state, const LayerDesc &layer, OpBuilder &b,
               std::vector<Value> &values)
      : state(state), layer(layer), b(b), values(values),
        loc(NameLoc::get(b.getStringAttr(layer.name))) {}

  FailureOr<Value> build();
  /// Every output of the layer (a plugin's several).
  FailureOr<SmallVector<Value>> buildAll() {
    if (layer.kind == LayerKind::Plugin) {
      SmallVector<Value> inputs;
      for (int64_t id : layer.inputs)
        inputs.push_back(values[id]);
      FailureOr<SmallVector<Value>> outputs =
          mlir::kiln::buildPluginLayer(b, loc, *layer.plugin, inputs, message);
      if (succeeded(outputs) && int64_t(outputs->size()) != layer.numOutputs)
        return fail("the plugin now gives " + Twine(outputs->size()) +
                    " outputs, it gave " + Twine(layer.numOutputs));
      return outputs;
    }
    FailureOr<Value> result = build();
    if (failed(result))
      return failure();
    return SmallVector<Value>{*result};
  }
  std::string message;

private:
  LogicalResult fail(const Twine &why) {
    if (message.empty())
      message = why.str();
    return failure();
  }
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          ArrayRef<NamedAttribute> attributes = {}) {
    return buildChecked<OpTy>(b, loc, operands, attributes);
  }
  template <typename OpTy>
  FailureOr<Value> createTyped(Type type, ValueRange operands) {
    return buildCheckedTyped<OpTy>(b, loc, type, operands);
  }
  NamedAttribute named(StringRef name, Attribute a) {
    return b.getNamedAttr(name, a);
  }
  DenseI64ArrayAttr i64s(ArrayRef<int64_t> v) {
    return b.getDenseI64ArrayAttr(v);
  }

  /// Input `i`'s value and type.
  Value input(size_t i) const { return values[layer.inputs[i]]; }
  RankedTensorType inputType(size_t i) const {
    return cast<RankedTensorType>(input(i).getType());
  }
  /// Weights `i` as a constant of `shape` (null for none, when allowed).
  FailureOr<Value> weightsConstant(size_t i, ArrayRef<int64_t> shape,
                                   const char *what, bool optional = false);
  /// The windowed layers' settings for `rank` spatial dimensions.
  LogicalResult window(size_t rank, SmallVector<int64_t> &strides,
                       SmallVector<int64_t> &pads,
                       SmallVector<int64_t> &dilations);

  FailureOr<Value> convolution(bool transposed);
  FailureOr<Value> pooling();
  FailureOr<Value> fullyConnected();
  FailureOr<Value> activation();
  FailureOr<Value> shuffle();
  FailureOr<Value> normalization();
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getShape() == shape)
      return v;
    return createTyped<ReshapeOp>(
        RankedTensorType::get(shape, type.getElementType()), {v});
  }

  const NetworkState &state;
  const LayerDesc &layer;
  OpBuilder &b;
  std::vector<Value> &values;
  Location loc;
};

FailureOr<Value> LayerBuilder::weightsConstant(size_t i,
                                               ArrayRef<int64_t> shape,
                                               const char *what,
                                               bool optional) {
  int64_t id = i < layer.weights.size() ? layer.weights[i] : -1;
  if (id < 0) {
    if (optional)
      return Value();
    return fail(Twine("no ") + what + " weights");
  }
  const WeightsDesc &w = state.weights[id];
  int64_t expected = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                     std::multiplies<int64_t>());
  if (w.count != expected) {
    std::string dims;
    for (int64_t d : shape)
      dims += (dims.empty() ? "" : "x") + std::to_string(d);
    return fail(Twine(what) + " weights have " + Twine(w.count) +
                " values, expected " + Twine(expected) + " (" + dims + ")");
  }
  Type element = getElementType(*b.getContext(), w.type);
  if (!element)
    return fail(Twine(what) + " weights of type " + rt::dataTypeName(w.type) +
                " (expected f32, f16, bf16, i8, "
                "i32, i64 or bool)");
  auto type = RankedTensorType::get(shape, element);
  ArrayRef<char> bytes(w.bytes.data(), w.bytes.size());
  ElementsAttr attr;
  if (expected <= 64 || element.isInteger(1))
    attr = DenseElementsAttr::getFromRawBuffer(type, bytes);
  else
    attr = DenseResourceElementsAttr::get(
        type, layer.name + "." + what,
        UnmanagedAsmResourceBlob::allocateInferAlign(bytes));
  return Value(ConstantOp::create(b, loc, attr));
}

LogicalResult LayerBuilder::window(size_t rank, SmallVector<int64_t> &strides,
                                   SmallVector<int64_t> &pads,
                                   SmallVector<int64_t> &dilations) {
  auto get = [&](const Dims &given, int64_t fallback, const char *what,
                 SmallVector<int64_t> &out) -> LogicalResult {
    if (given.empty()) {
      out.assign(rank, fallback);
      return success();
    }
    if (given.size() != rank)
      return fail(Twine(what) + " has " + Twine(given.size()) + " values for " +
                  Twine(rank) + " spatial dimensions");
    out.assign(given.begin(), given.end());
    return success();
  };
  SmallVector<int64_t> pre, post;
  bool pooling = layer.kind == LayerKind::Pooling;
  if (failed(get(layer.stride, pooling ? 0 : 1, "the stride", strides)) ||
      failed(get(layer.prePadding, 0, "the padding", pre)) ||
      failed(get(layer.postPadding, 0, "the padding", post)) ||
      failed(get(layer.dilation, 1, "the dilation", dilations)))
    return failure();
  if (pooling && layer.stride.empty())
    strides.assign(layer.kernel.begin(), layer.kernel.end());
  pads.assign(pre.begin(), pre.end());
  pads.append(post.begin(), post.end());
  return success();
}

FailureOr<Value> LayerBuilder::convolution(bool transposed) {
  RankedTensorType in = inputType(0);
  size_t rank = layer.kernel.size();
  if (in.getRank() != int64_t(rank) + 2)
    return fail("the input has " + Twine(in.getRank()) + " dimensions, a " +
                Twine(rank) + "-D kernel needs " + Twine(rank + 2));
  if (layer.groups < 1 || layer.count < 1)
    return fail("groups and output maps must be positive");
  int64_t channels = in.getDimSize(1);
  SmallVector<int64_t> filterShape =
      transposed ? SmallVector<int64_t>{channels, layer.count / layer.groups}
                 : SmallVector<int64_t>{layer.count, channels / layer.groups};
  filterShape.append(layer.kernel.begin(), layer.kernel.end());
  FailureOr<Value> filter = weightsConstant(0, filterShape, "kernel");
  FailureOr<Value> bias = failed(filter)
                              ? FailureOr<Value>(failure())
                              : weightsConstant(1, {layer.count}, "bias",
                                                /*optional=*/true);
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(bias) || failed(window(rank, strides, pads, dilations)))
    return failure();
  SmallVector<Value> operands = {input(0), *filter};
  if (*bias)
    operands.push_back(*bias);
  SmallVector<NamedAttribute> attrs = {
      named("strides", i64s(strides)), named("pads", i64s(pads)),
      named("dilations", i64s(dilations)),
      named("groups", b.getI64IntegerAttr(layer.groups))};
  if (!transposed)
    return create<ConvolutionOp>(operands, attrs);
  attrs.push_back(named("output_padding", i64s(SmallVector<int64_t>(rank, 0))));
  return create<DeconvolutionOp>(operands, attrs);
}

FailureOr<Value> LayerBuilder::pooling() {
  size_t rank = layer.kernel.size();
  if (inputType(0).getRank() != int64_t(rank) + 2)
    return fail("the input has " + Twine(inputType(0).getRank()) +
                " dimensions, a " + Twine(rank) + "-D window needs " +
                Twine(rank + 2));
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(window(rank, strides, pads, dilations)))
    return failure();
  auto kind =
      static_cast<::kiln::PoolingType>(layer.type) == ::kiln::PoolingType::Max
          ? PoolKind::Max
          : PoolKind::Average;
  SmallVector<NamedAttribute> attrs = {
      named("kind", PoolKindAttr::get(b.getContext(), kind)),
      named("window", i64s(layer.kernel)), named("strides", i64s(strides)),
      named("pads", i64s(pads)), named("dilations", i64s(dilations))};
  bool anyPadding = llvm::any_of(pads, [](int64_t p) { return p != 0; });
  if (kind == PoolKind::Average && !layer.flag && anyPadding)
    attrs.push_back(named("count_include_pad", b.getBoolAttr(true)));
  return create<PoolOp>({input(0)}, attrs);
}

FailureOr<Value> LayerBuilder::fullyConnected() {
  RankedTensorType in = inputType(0);
  if (in.getRank() < 2)
    return fail("the input has " + Twine(in.getRank()) +
                " dimensions, at least 2 (N x C ...) expected");
  int64_t features = 1;
  for (int64_t d : in.getShape().drop_front())
    features *= d;
  FailureOr<Value> weights =
      weightsConstant(0, {layer.count, features}, "kernel");
  FailureOr<Value> bias = failed(weights)
                              ? FailureOr<Value>(failure())
                              : weightsConstant(1, {layer.count}, "bias", true);
  if (failed(bias))
    return failure();
  SmallVector<Value> operands = {input(0), *weights};
  if (*bias)
    operands.push_back(*bias);
  return create<FullyConnectedOp>(operands,
                                  {named("axis", b.getI64IntegerAttr(1))});
}

FailureOr<Value> LayerBuilder::activation() {
  struct Kind {
    ActivationKind kind;
    int params; // 0, 1 (alpha) or 2 (alpha, beta)
    float alpha, beta;
  };
  static const Kind kinds[] = {
      {ActivationKind::Relu, 0, 0, 0},
      {ActivationKind::Sigmoid, 0, 0, 0},
      {ActivationKind::Tanh, 0, 0, 0},
      {ActivationKind::LeakyRelu, 1, 0.01f, 0},
      {ActivationKind::Elu, 1, 1.0f, 0},
      {ActivationKind::Selu, 2, 1.67326319f, 1.05070102f},
      {ActivationKind::Softsign, 0, 0, 0},
      {ActivationKind::Softplus, 0, 0, 0},
      {ActivationKind::Clip, 2, 0.0f, 6.0f},
      {ActivationKind::HardSigmoid, 2, 0.2f, 0.5f},
      {ActivationKind::ScaledTanh, 2, 1.0f, 1.0f},
      {ActivationKind::ThresholdedRelu, 1, 1.0f, 0},
      {ActivationKind::GeluErf, 0, 0, 0},
      {ActivationKind::GeluTanh, 0, 0, 0},
      {ActivationKind::HardSwish, 0, 0, 0},
  };
  if (layer.type < 0 || layer.type >= int(std::size(kinds)))
    return fail("activation type " + Twine(layer.type));
  const Kind &k = kinds[layer.type];
  if ((layer.alpha && k.params < 1) || (layer.beta && k.params < 2))
    return fail(Twine("activation ") + stringifyActivationKind(k.kind) +
                " takes " + (k.params ? "only alpha" : "no alpha or beta"));
  SmallVector<NamedAttribute> attrs = {
      named("kind", ActivationKindAttr::get(b.getContext(), k.kind))};
  if (k.params >= 1)
    attrs.push_back(
        named("alpha", b.getF32FloatAttr(layer.alpha.value_or(k.alpha))));
  if (k.params >= 2)
    attrs.push_back(
        named("beta", b.getF32FloatAttr(layer.beta.value_or(k.beta))));
  return create<ActivationOp>({input(0)}, attrs);
}

FailureOr<Value> LayerBuilder::shuffle() {
  Value v = input(0);
  auto transpose = [&](const std::optional<Dims> &perm) -> FailureOr<Value> {
    if (!perm)
      return v;
    return create<TransposeOp>({v}, {named("permutation", i64s(*perm))});
  };
  FailureOr<Value> first = transpose(layer.firstTranspose);
  if (failed(first))
    return failure();
  v = *first;
  if (layer.reshape) {
    ArrayRef<int64_t> from = cast<RankedTensorType>(v.getType()).getShape();
    SmallVector<int64_t> shape;
    int64_t known = 1, total = 1, infer = -1;
    for (int64_t d : from)
      total *= d;
    for (auto [i, given] : llvm::enumerate(*layer.reshape)) {
      int64_t d = given;
      if (d == 0 && i < from.size())
        d = from[i];
      if (d == -1 && infer < 0) {
        infer = int64_t(i);
        shape.push_back(1);
        continue;
      }
      if (d < 0)
        return fail("reshape dimension " + Twine(d) +
                    " (0 copies, one -1 infers)");
      known *= d;
      shape.push_back(d);
    }
    if (infer >= 0 && known > 0)
      shape[infer] = total / known;
    FailureOr<Value> reshaped = reshape(v, shape);
    if (failed(reshaped))
      return failure();
    v = *reshaped;
  }
  return transpose(layer.secondTranspose);
}

FailureOr<Value> LayerBuilder::normalization() {
  RankedTensorType in = inputType(0);
  int64_t rank = in.getRank();
  uint32_t trailingFrom = 0;
  while (trailingFrom < rank && !(layer.axes >> trailingFrom & 1))
    ++trailingFrom;
  uint32_t expected =
      rank >= 32 ? 0 : ((1u << rank) - 1) & ~((1u << trailingFrom) - 1);
  if (layer.axes == 0 || layer.axes != expected)
    return fail("normalization over axes mask " + Twine(layer.axes) +
                ": only trailing axes (layer or instance normalization) are "
                "supported");
  Value scale = input(1), bias = input(2);
  auto eps = named("epsilon", b.getF32FloatAttr(layer.epsilon));
  auto count = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getNumElements();
  };
  SmallVector<int64_t> normalized(in.getShape().drop_front(trailingFrom));
  int64_t size = 1;
  for (int64_t d : normalized)
    size *= d;
  if (count(scale) == size && count(bias) == size) {
    // Layer normalization: scale and bias of the normalized dimensions.
    FailureOr<Value> s = reshape(scale, normalized);
    FailureOr<Value> t =
        failed(s) ? FailureOr<Value>(failure()) : reshape(bias, normalized);
    if (failed(t))
      return failure();
    return create<LayerNormOp>(
        {input(0), *s, *t},
        {named("axis", b.getI64IntegerAttr(trailingFrom)), eps});
  }
  int64_t channels = rank >= 3 ? in.getDimSize(1) : -1;
  if (trailingFrom != 2 || count(scale) != channels || count(bias) != channels)
    return fail("scale and bias of " + Twine(count(scale)) + " and " +
                Twine(count(bias)) + " values: expected " + Twine(size) +
                " (the normalized dimensions)" +
                (trailingFrom == 2 && rank >= 3
                     ? " or " + Twine(in.getDimSize(1)) + " (the channels)"
                     : Twine("")));
  // Instance normalization: statistics per sample and channel, the scale
  // and bias per channel.
  FailureOr<Value> s = reshape(scale, {channels});
  FailureOr<Value> t =
      failed(s) ? FailureOr<Value>(failure()) : reshape(bias, {channels});
  if (failed(t))
    return failure();
  return create<InstanceNormOp>({input(0), *s, *t}, {eps});
}

FailureOr<Value> LayerBuilder::build() {
  for (int64_t t : layer.inputs)
    if (!values[t])
      return fail("input tensor '" + state.tensors[t].name +
                  "' comes from a layer that failed");
  auto defaultAxis = [&](size_t i) -> int64_t {
    return layer.axis.value_or(inputType(i).getRank() > 1 ? 1 : 0);
  };
  switch (layer.kind) {
  case LayerKind::Convolution:
    return convolution(false);
  case LayerKind::Deconvolution:
    return convolution(true);
  case LayerKind::Pooling:
    return pooling();
  case LayerKind::FullyConnected:
    return fullyConnected();
  case LayerKind::MatrixMultiply:
    return create<MatmulOp>(
        {input(0), input(1)},
        {named("transpose_lhs", b.getBoolAttr(layer.flag)),
         named("transpose_rhs", b.getBoolAttr(layer.flagB))});
  case LayerKind::Activation:
    return activation();
  case LayerKind::SoftMax: {
    int64_t axis = defaultAxis(0);
    if (layer.axes) {
      if (llvm::popcount(layer.axes) != 1)
        return fail("softmax axes " + Twine(layer.axes) + ": one bit expected");
      axis = llvm::countr_zero(layer.axes);
    }
    return create<SoftmaxOp>({input(0)},
                             {named("axis", b.getI64IntegerAttr(axis))});
  }
  case LayerKind::Scale: {
    RankedTensorType in = inputType(0);
    int64_t axis = layer.axis.value_or(1);
    if (axis < 0 || axis >= in.getRank())
      return fail("channel axis " + Twine(axis) + " of a tensor of " +
                  Twine(in.getRank()) + " dimensions");
    auto mode = static_cast<::kiln::ScaleMode>(layer.type);
    int64_t n = 1;
    if (mode == ::kiln::ScaleMode::Channel)
      n = in.getDimSize(axis);
    if (mode == ::kiln::ScaleMode::Elementwise)
      for (int64_t d : in.getShape().drop_front(axis))
        n *= d;
    const char *names[] = {"shift", "scale", "power"};
    SmallVector<Value> operands = {input(0)};
    SmallVector<int32_t> segments = {1};
    for (size_t i = 0; i < 3; ++i) {
      FailureOr<Value> w = weightsConstant(i, {n}, names[i], true);
      if (failed(w))
        return failure();
      if (*w)
        operands.push_back(*w);
      segments.push_back(*w ? 1 : 0);
    }
    mlir::kiln::ScaleMode kind = mode == ::kiln::ScaleMode::Uniform
                                     ? mlir::kiln::ScaleMode::Uniform
                                 : mode == ::kiln::ScaleMode::Channel
                                     ? mlir::kiln::ScaleMode::Channel
                                     : mlir::kiln::ScaleMode::Elementwise;
    return create<ScaleOp>(
        operands,
        {named("mode", ScaleModeAttr::get(b.getContext(), kind)),
         named("channel_axis", b.getI64IntegerAttr(axis)),
         named("operandSegmentSizes", b.getDenseI32ArrayAttr(segments))});
  }
  case LayerKind::ElementWise: {
    static const BinaryKind kinds[] = {
        BinaryKind::Add, BinaryKind::Mul, BinaryKind::Max, BinaryKind::Min,
        BinaryKind::Sub, BinaryKind::Div, BinaryKind::Pow};
    return create<BinaryOp>(
        {input(0), input(1)},
        {named("kind",
               BinaryKindAttr::get(b.getContext(), kinds[layer.type]))});
  }
  case LayerKind::Concatenation: {
    SmallVector<Value> operands;
    for (size_t i = 0; i < layer.inputs.size(); ++i)
      operands.push_back(input(i));
    return create<ConcatOp>(
        operands, {named("axis", b.getI64IntegerAttr(defaultAxis(0)))});
  }
  case LayerKind::LRN:
    return create<LrnOp>({input(0)},
                         {named("size", b.getI64IntegerAttr(layer.count)),
                          named("alpha", b.getF32FloatAttr(*layer.alpha)),
                          named("beta", b.getF32FloatAttr(*layer.beta)),
                          named("bias", b.getF32FloatAttr(layer.k))});
  case LayerKind::Shuffle:
    return shuffle();
  case LayerKind::Unary: {
    auto kind = symbolizeUnaryKind(layer.type);
    if (!kind)
      return fail("unary operation " + Twine(layer.type));
    return create<UnaryOp>(
        {input(0)}, {named("kind", UnaryKindAttr::get(b.getContext(), *kind))});
  }
  case LayerKind::Reduce: {
    static const ReduceKind kinds[] = {ReduceKind::Sum, ReduceKind::Prod,
                                       ReduceKind::Max, ReduceKind::Min,
                                       ReduceKind::Mean};
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < 32; ++i)
      if (layer.axes >> i & 1)
        axes.push_back(i);
    return create<ReduceOp>(
        {input(0)},
        {named("kind", ReduceKindAttr::get(b.getContext(), kinds[layer.type])),
         named("axes", i64s(axes)),
         named("keep_dims", b.getBoolAttr(layer.flag))});
  }
  case LayerKind::Padding: {
    int64_t rank = inputType(0).getRank();
    if (layer.prePadding.size() != layer.postPadding.size() ||
        int64_t(layer.prePadding.size()) > rank)
      return fail("padding of " + Twine(layer.prePadding.size()) + " and " +
                  Twine(layer.postPadding.size()) +
                  " dimensions for a tensor of " + Twine(rank));
    SmallVector<int64_t> pads(2 * rank, 0);
    int64_t skip = rank - int64_t(layer.prePadding.size());
    for (size_t i = 0; i < layer.prePadding.size(); ++i) {
      pads[skip + i] = layer.prePadding[i];
      pads[rank + skip + i] = layer.postPadding[i];
    }
    return create<PadOp>(
        {input(0)},
        {named("mode", PadModeAttr::get(b.getContext(), PadMode::Constant)),
         named("pads", i64s(pads)), named("value", b.getF64FloatAttr(0.0))});
  }
  case LayerKind::Constant:
    return weightsConstant(0, layer.kernel, "constant");
  case LayerKind::Gather:
    return create<GatherOp>({input(0), input(1)},
                            {named("axis", b.getI64IntegerAttr(*layer.axis))});
  case LayerKind::Normalization:
    return normalization();
  case LayerKind::Plugin:
    break; // buildAll
  }
  return fail("unknown layer kind");
}

} // namespace

bool buildLayers(const NetworkState &state, Block &body, size_t from, size_t to,
                 std::vector<Value> &values, std::vector<std::string> &errors) {
  MLIRContext *context = body.getParentOp()->getContext();
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  bool ok = true;
  for (size_t i = from; i < to; ++i) {
    const LayerDesc &layer = state.layers[i];
    LayerBuilder builder(state, layer, b, values);
    // The ops' own diagnostics (a verifier's, an inference's) say why.
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error &&
          builder.message.empty())
        builder.message = diag.str();
      return success();
    });
    FailureOr<SmallVector<Value>> result = builder.buildAll();
    if (failed(result)) {
      errors.push_back(
          "layer '" + layer.name + "' (" + layerKindName(layer.kind) + "): " +
          (builder.message.empty() ? "it cannot be built" : builder.message));
      ok = false;
      continue;
    }
    values[layer.output] = result->front();
    for (auto [id, value] :
         llvm::zip(layer.moreOutputs, ArrayRef<Value>(*result).drop_front()))
      values[id] = value;
  }
  return ok;
}

} // namespace kiln::detail
