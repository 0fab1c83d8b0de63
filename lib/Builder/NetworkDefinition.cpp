//===- NetworkDefinition.cpp - the network definition API -------*- C++ -*-===//
//
// Handles name entries of a NetworkState through a weak pointer, so that a
// handle of a destroyed network, or of another one, is an error. Each add*
// checks its handles and weights, records the layer, and builds it into the
// network's module at once (NetworkState::update), so that shape errors name
// the layer that makes them.
//
//===----------------------------------------------------------------------===//

#include "NetworkState.h"

#include "kiln/Support/DataType.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstdio>
#include <cstring>

namespace kiln {

using detail::Field;
using detail::LayerDesc;
using detail::LayerKind;
using detail::NetworkState;
using detail::TensorDesc;

namespace detail {
/// What the handles keep private.
struct HandleAccess {
  static Tensor tensor(const std::shared_ptr<NetworkState> &s, int64_t id) {
    return Tensor(s, id);
  }
  static Layer layer(const std::shared_ptr<NetworkState> &s, int64_t id) {
    return id < 0 ? Layer() : Layer(s, id);
  }
  /// `t`'s id when it is a tensor of `self`; -1, with an error, otherwise.
  static int64_t id(const std::shared_ptr<NetworkState> &self, const Tensor &t,
                    const std::string &what) {
    if (t.network.lock() != self || t.id < 0 ||
        t.id >= int64_t(self->tensors.size())) {
      self->error(what + ": the tensor is not one of this network (an "
                         "invalid handle, or one of another network)");
      return -1;
    }
    return t.id;
  }
};
} // namespace detail

using detail::HandleAccess;

namespace {
/// The state behind a handle, or null after logging why to `logger`-less
/// stderr (a handle whose network is gone has no logger left).
std::shared_ptr<NetworkState>
stateOf(const std::weak_ptr<NetworkState> &network, const char *what) {
  std::shared_ptr<NetworkState> state = network.lock();
  if (!state)
    std::fprintf(stderr,
                 "kiln: error: %s: the handle's network does not exist (never "
                 "made, or destroyed)\n",
                 what);
  return state;
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Tensor::operator bool() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->tensors.size());
}

Tensor &Tensor::setName(const std::string &name) {
  auto state = stateOf(network, "Tensor::setName");
  if (!state || !state->tensor(id, "Tensor::setName"))
    return *this;
  if (name.empty()) {
    state->error("Tensor::setName: an empty name");
    return *this;
  }
  for (const TensorDesc &t : state->tensors)
    if (t.name == name && &t != &state->tensors[id]) {
      state->error("Tensor::setName: another tensor is named '" + name + "'");
      return *this;
    }
  state->tensors[id].name = name;
  state->stale = true;
  return *this;
}

std::string Tensor::getName() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->tensors.size())
             ? state->tensors[id].name
             : std::string();
}

Dims Tensor::getDimensions() const {
  auto state = stateOf(network, "Tensor::getDimensions");
  if (!state || !state->tensor(id, "Tensor::getDimensions"))
    return {};
  state->update();
  mlir::Value v =
      id < int64_t(state->values.size()) ? state->values[id] : mlir::Value();
  if (!v)
    return {};
  auto shape = mlir::cast<mlir::RankedTensorType>(v.getType()).getShape();
  return Dims(shape.begin(), shape.end());
}

DataType Tensor::getType() const {
  auto state = stateOf(network, "Tensor::getType");
  if (!state || !state->tensor(id, "Tensor::getType"))
    return DataType::F32;
  const TensorDesc &t = state->tensors[id];
  if (t.layer < 0)
    return t.type;
  state->update();
  mlir::Value v = state->values[id];
  if (!v)
    return DataType::F32;
  mlir::Type e =
      mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType();
  for (DataType d : {DataType::F32, DataType::F16, DataType::BF16, DataType::I8,
                     DataType::I32, DataType::I64, DataType::Bool})
    if (detail::getElementType(*state->context, d) == e)
      return d;
  return DataType::F32;
}

bool Tensor::isNetworkInput() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->tensors.size()) &&
         state->tensors[id].layer < 0;
}

bool Tensor::isNetworkOutput() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->tensors.size()) &&
         state->tensors[id].isOutput;
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

Layer::operator bool() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->layers.size());
}

Layer &Layer::setName(const std::string &name) {
  auto state = stateOf(network, "Layer::setName");
  if (!state || !state->layer(id, "Layer::setName"))
    return *this;
  if (name.empty()) {
    state->error("Layer::setName: an empty name");
    return *this;
  }
  state->layers[id].name = name;
  state->stale = true;
  return *this;
}

std::string Layer::getName() const {
  auto state = network.lock();
  return state && id >= 0 && id < int64_t(state->layers.size())
             ? state->layers[id].name
             : std::string();
}

int Layer::getNbOutputs() const {
  auto state = network.lock();
  if (!state || id < 0 || id >= int64_t(state->layers.size()))
    return 0;
  return int(state->layers[id].numOutputs);
}

Tensor Layer::getOutput(int i) const {
  auto state = stateOf(network, "Layer::getOutput");
  if (!state || !state->layer(id, "Layer::getOutput"))
    return Tensor();
  const LayerDesc &layer = state->layers[id];
  if (i < 0 || i >= layer.numOutputs) {
    state->error("Layer::getOutput(" + std::to_string(i) + "): layer '" +
                 layer.name + "' has " +
                 (layer.numOutputs == 1
                      ? std::string("one output")
                      : std::to_string(layer.numOutputs) + " outputs"));
    return Tensor();
  }
  return HandleAccess::tensor(state,
                              i == 0 ? layer.output : layer.moreOutputs[i - 1]);
}

void Layer::set(const char *setter, int field, const Dims &v) const {
  auto state = stateOf(network, setter);
  LayerDesc *layer = state ? state->layer(id, setter) : nullptr;
  if (!layer)
    return;
  switch (field) {
  case Field::Stride:
    layer->stride = v;
    break;
  case Field::PrePadding:
    layer->prePadding = v;
    break;
  case Field::PostPadding:
    layer->postPadding = v;
    break;
  case Field::Dilation:
    layer->dilation = v;
    break;
  case Field::FirstTranspose:
    layer->firstTranspose = v;
    break;
  case Field::ReshapeDimensions:
    layer->reshape = v;
    break;
  case Field::SecondTranspose:
    layer->secondTranspose = v;
    break;
  default:
    state->error(std::string(setter) + ": internal error: field " +
                 std::to_string(field));
    return;
  }
  state->stale = true;
  state->update();
}

void Layer::set(const char *setter, int field, double v) const {
  auto state = stateOf(network, setter);
  LayerDesc *layer = state ? state->layer(id, setter) : nullptr;
  if (!layer)
    return;
  switch (field) {
  case Field::Groups:
    layer->groups = int64_t(v);
    break;
  case Field::CountExcludesPadding:
    layer->flag = v != 0;
    break;
  case Field::Alpha:
    layer->alpha = float(v);
    break;
  case Field::Beta:
    layer->beta = float(v);
    break;
  case Field::Axes:
    layer->axes = uint32_t(v);
    break;
  case Field::Axis:
    layer->axis = int64_t(v);
    break;
  case Field::Epsilon:
    layer->epsilon = float(v);
    break;
  default:
    state->error(std::string(setter) + ": internal error: field " +
                 std::to_string(field));
    return;
  }
  state->stale = true;
  state->update();
}

template <typename Self> Self &WindowedLayer<Self>::setStride(const Dims &v) {
  set("setStride", Field::Stride, v);
  return static_cast<Self &>(*this);
}
template <typename Self> Self &WindowedLayer<Self>::setPadding(const Dims &v) {
  set("setPadding", Field::PrePadding, v);
  set("setPadding", Field::PostPadding, v);
  return static_cast<Self &>(*this);
}
template <typename Self>
Self &WindowedLayer<Self>::setPrePadding(const Dims &v) {
  set("setPrePadding", Field::PrePadding, v);
  return static_cast<Self &>(*this);
}
template <typename Self>
Self &WindowedLayer<Self>::setPostPadding(const Dims &v) {
  set("setPostPadding", Field::PostPadding, v);
  return static_cast<Self &>(*this);
}
template class WindowedLayer<ConvolutionLayer>;
template class WindowedLayer<PoolingLayer>;

ConvolutionLayer &ConvolutionLayer::setDilation(const Dims &v) {
  set("ConvolutionLayer::setDilation", Field::Dilation, v);
  return *this;
}
ConvolutionLayer &ConvolutionLayer::setNbGroups(int64_t groups) {
  set("ConvolutionLayer::setNbGroups", Field::Groups, double(groups));
  return *this;
}

PoolingLayer &PoolingLayer::setAverageCountExcludesPadding(bool excludes) {
  set("PoolingLayer::setAverageCountExcludesPadding",
      Field::CountExcludesPadding, excludes ? 1.0 : 0.0);
  return *this;
}

ActivationLayer &ActivationLayer::setAlpha(float alpha) {
  set("ActivationLayer::setAlpha", Field::Alpha, alpha);
  return *this;
}
ActivationLayer &ActivationLayer::setBeta(float beta) {
  set("ActivationLayer::setBeta", Field::Beta, beta);
  return *this;
}

SoftMaxLayer &SoftMaxLayer::setAxes(uint32_t axes) {
  set("SoftMaxLayer::setAxes", Field::Axes, double(axes));
  return *this;
}

ConcatenationLayer &ConcatenationLayer::setAxis(int64_t axis) {
  set("ConcatenationLayer::setAxis", Field::Axis, double(axis));
  return *this;
}

ShuffleLayer &ShuffleLayer::setFirstTranspose(const Dims &v) {
  set("ShuffleLayer::setFirstTranspose", Field::FirstTranspose, v);
  return *this;
}
ShuffleLayer &ShuffleLayer::setReshapeDimensions(const Dims &v) {
  set("ShuffleLayer::setReshapeDimensions", Field::ReshapeDimensions, v);
  return *this;
}
ShuffleLayer &ShuffleLayer::setSecondTranspose(const Dims &v) {
  set("ShuffleLayer::setSecondTranspose", Field::SecondTranspose, v);
  return *this;
}

NormalizationLayer &NormalizationLayer::setEpsilon(float epsilon) {
  set("NormalizationLayer::setEpsilon", Field::Epsilon, epsilon);
  return *this;
}

//===----------------------------------------------------------------------===//
// NetworkDefinition
//===----------------------------------------------------------------------===//

NetworkDefinition::NetworkDefinition(rt::Logger &logger)
    : state_(std::make_shared<NetworkState>(logger)) {}

NetworkDefinition::~NetworkDefinition() = default;

namespace {

/// A copy of `w` (its id), -1 for none, -2 with an error for bad weights.
int64_t copyWeights(NetworkState &state, const Weights &w,
                    const std::string &what, bool optional) {
  if (w.count == 0 && !w.values) {
    if (optional)
      return -1;
    state.error(what + ": no weights");
    return -2;
  }
  int64_t size = rt::dataTypeBytes(w.type);
  if (w.count <= 0 || !w.values || size <= 0 ||
      w.count > (int64_t(1) << 40) / size) {
    state.error(what + ": weights of " + std::to_string(w.count) + " values" +
                (w.values ? "" : " at a null address") +
                " (a positive count and values are needed)");
    return -2;
  }
  detail::WeightsDesc copy{w.type, w.count,
                           std::vector<char>(size_t(w.count * size))};
  std::memcpy(copy.bytes.data(), w.values, copy.bytes.size());
  state.weights.push_back(std::move(copy));
  return int64_t(state.weights.size()) - 1;
}

/// Adds a layer of `kind` reading `inputs` (checked), with `weights`
/// (copied; those marked optional may be empty), its settings made by
/// `fill`, and builds it: the layer's handle, or an invalid one.
template <typename Fill>
Layer addLayer(const std::shared_ptr<NetworkState> &self, LayerKind kind,
               const std::vector<Tensor> &inputs,
               const std::vector<std::pair<Weights, bool>> &weights,
               Fill fill) {
  NetworkState &state = *self;
  LayerDesc layer;
  layer.kind = kind;
  layer.name = std::string(detail::layerKindName(kind)) + "_" +
               std::to_string(state.layers.size());
  std::string what = std::string("add ") + detail::layerKindName(kind);
  for (const Tensor &t : inputs) {
    int64_t id = HandleAccess::id(self, t, what);
    if (id < 0)
      return Layer();
    layer.inputs.push_back(id);
  }
  for (auto &[w, optional] : weights) {
    int64_t id = copyWeights(state, w, what, optional);
    if (id == -2)
      return Layer();
    layer.weights.push_back(id);
  }
  if (!fill(layer))
    return Layer();
  for (int64_t i = 0; i < layer.numOutputs; ++i) {
    TensorDesc out;
    out.name = layer.name + "_output" + (i ? "_" + std::to_string(i) : "");
    out.layer = int64_t(state.layers.size());
    state.tensors.push_back(out);
    (i ? layer.moreOutputs.emplace_back() : layer.output) =
        int64_t(state.tensors.size()) - 1;
  }
  state.layers.push_back(std::move(layer));
  state.update();
  return HandleAccess::layer(self, int64_t(state.layers.size()) - 1);
}

bool positive(NetworkState &state, const Dims &dims, const char *what) {
  for (int64_t d : dims)
    if (d <= 0) {
      state.error(std::string(what) + ": dimension " + std::to_string(d) +
                  " (dimensions are positive)");
      return false;
    }
  return true;
}

} // namespace

Tensor NetworkDefinition::addInput(const std::string &name, DataType type,
                                   const Dims &dims) {
  NetworkState &state = *state_;
  if (name.empty()) {
    state.error("addInput: an empty name");
    return Tensor();
  }
  for (const TensorDesc &t : state.tensors)
    if (t.name == name) {
      state.error("addInput: a tensor is already named '" + name + "'");
      return Tensor();
    }
  if (!positive(state, dims, ("addInput '" + name + "'").c_str()))
    return Tensor();
  if (!detail::getElementType(*state.context, type)) {
    state.error("addInput '" + name + "': type " + rt::dataTypeName(type) +
                " (expected f32, f16, bf16, i8, i32, i64 or bool)");
    return Tensor();
  }
  TensorDesc t;
  t.name = name;
  t.type = type;
  t.dims = dims;
  state.tensors.push_back(t);
  state.inputs.push_back(int64_t(state.tensors.size()) - 1);
  state.stale = true;
  return HandleAccess::tensor(state_, int64_t(state.tensors.size()) - 1);
}

bool NetworkDefinition::markOutput(const Tensor &tensor) {
  int64_t id = HandleAccess::id(state_, tensor, "markOutput");
  if (id < 0)
    return false;
  TensorDesc &t = state_->tensors[id];
  if (t.isOutput) {
    state_->error("markOutput: '" + t.name + "' is already an output");
    return false;
  }
  if (t.layer < 0) {
    state_->error("markOutput: '" + t.name +
                  "' is a network input (an output must be computed)");
    return false;
  }
  t.isOutput = true;
  state_->outputs.push_back(id);
  return true;
}

ConvolutionLayer NetworkDefinition::addConvolution(const Tensor &input,
                                                   int64_t outputMaps,
                                                   const Dims &kernel,
                                                   Weights filter,
                                                   Weights bias) {
  return addLayer(state_, LayerKind::Convolution, {input},
                  {{filter, false}, {bias, true}}, [&](LayerDesc &l) {
                    l.count = outputMaps;
                    l.kernel = kernel;
                    return positive(*state_, kernel, "addConvolution");
                  });
}

DeconvolutionLayer NetworkDefinition::addDeconvolution(const Tensor &input,
                                                       int64_t outputMaps,
                                                       const Dims &kernel,
                                                       Weights filter,
                                                       Weights bias) {
  return addLayer(state_, LayerKind::Deconvolution, {input},
                  {{filter, false}, {bias, true}}, [&](LayerDesc &l) {
                    l.count = outputMaps;
                    l.kernel = kernel;
                    return positive(*state_, kernel, "addDeconvolution");
                  });
}

PoolingLayer NetworkDefinition::addPooling(const Tensor &input,
                                           PoolingType type,
                                           const Dims &window) {
  return addLayer(state_, LayerKind::Pooling, {input}, {}, [&](LayerDesc &l) {
    l.type = int(type);
    l.kernel = window;
    l.flag = true; // the average excludes padding
    return positive(*state_, window, "addPooling");
  });
}

Layer NetworkDefinition::addFullyConnected(const Tensor &input, int64_t outputs,
                                           Weights weights, Weights bias) {
  return addLayer(state_, LayerKind::FullyConnected, {input},
                  {{weights, false}, {bias, true}}, [&](LayerDesc &l) {
                    l.count = outputs;
                    return positive(*state_, {outputs}, "addFullyConnected");
                  });
}

Layer NetworkDefinition::addMatrixMultiply(const Tensor &a, bool transposeA,
                                           const Tensor &b, bool transposeB) {
  return addLayer(state_, LayerKind::MatrixMultiply, {a, b}, {},
                  [&](LayerDesc &l) {
                    l.flag = transposeA;
                    l.flagB = transposeB;
                    return true;
                  });
}

ActivationLayer NetworkDefinition::addActivation(const Tensor &input,
                                                 ActivationType type) {
  return addLayer(state_, LayerKind::Activation, {input}, {},
                  [&](LayerDesc &l) {
                    l.type = int(type);
                    return true;
                  });
}

SoftMaxLayer NetworkDefinition::addSoftMax(const Tensor &input) {
  return addLayer(state_, LayerKind::SoftMax, {input}, {},
                  [](LayerDesc &) { return true; });
}

Layer NetworkDefinition::addScale(const Tensor &input, ScaleMode mode,
                                  Weights shift, Weights scale, Weights power,
                                  int64_t channelAxis) {
  return addLayer(state_, LayerKind::Scale, {input},
                  {{shift, true}, {scale, true}, {power, true}},
                  [&](LayerDesc &l) {
                    l.type = int(mode);
                    l.axis = channelAxis;
                    return true;
                  });
}

Layer NetworkDefinition::addElementWise(const Tensor &a, const Tensor &b,
                                        ElementWiseOperation op) {
  return addLayer(state_, LayerKind::ElementWise, {a, b}, {},
                  [&](LayerDesc &l) {
                    l.type = int(op);
                    return true;
                  });
}

ConcatenationLayer
NetworkDefinition::addConcatenation(const std::vector<Tensor> &inputs) {
  if (inputs.empty()) {
    state_->error("add concatenation: no inputs");
    return Layer();
  }
  return addLayer(state_, LayerKind::Concatenation, inputs, {},
                  [](LayerDesc &) { return true; });
}

Layer NetworkDefinition::addLRN(const Tensor &input, int64_t window,
                                float alpha, float beta, float k) {
  return addLayer(state_, LayerKind::LRN, {input}, {}, [&](LayerDesc &l) {
    l.count = window;
    l.alpha = alpha;
    l.beta = beta;
    l.k = k;
    return positive(*state_, {window}, "addLRN");
  });
}

ShuffleLayer NetworkDefinition::addShuffle(const Tensor &input) {
  return addLayer(state_, LayerKind::Shuffle, {input}, {},
                  [](LayerDesc &) { return true; });
}

Layer NetworkDefinition::addUnary(const Tensor &input, UnaryOperation op) {
  return addLayer(state_, LayerKind::Unary, {input}, {}, [&](LayerDesc &l) {
    l.type = int(op);
    return true;
  });
}

Layer NetworkDefinition::addReduce(const Tensor &input, ReduceOperation op,
                                   uint32_t axes, bool keepDimensions) {
  return addLayer(state_, LayerKind::Reduce, {input}, {}, [&](LayerDesc &l) {
    l.type = int(op);
    l.axes = axes;
    l.flag = keepDimensions;
    return true;
  });
}

Layer NetworkDefinition::addPadding(const Tensor &input, const Dims &pre,
                                    const Dims &post) {
  return addLayer(state_, LayerKind::Padding, {input}, {}, [&](LayerDesc &l) {
    l.prePadding = pre;
    l.postPadding = post;
    return true;
  });
}

Layer NetworkDefinition::addConstant(const Dims &dims, Weights weights) {
  return addLayer(state_, LayerKind::Constant, {}, {{weights, false}},
                  [&](LayerDesc &l) {
                    l.kernel = dims;
                    return positive(*state_, dims, "addConstant");
                  });
}

Layer NetworkDefinition::addGather(const Tensor &data, const Tensor &indices,
                                   int64_t axis) {
  return addLayer(state_, LayerKind::Gather, {data, indices}, {},
                  [&](LayerDesc &l) {
                    l.axis = axis;
                    return true;
                  });
}

NormalizationLayer NetworkDefinition::addNormalization(const Tensor &input,
                                                       const Tensor &scale,
                                                       const Tensor &bias,
                                                       uint32_t axes) {
  return addLayer(state_, LayerKind::Normalization, {input, scale, bias}, {},
                  [&](LayerDesc &l) {
                    l.axes = axes;
                    return true;
                  });
}

Layer NetworkDefinition::addPluginV2(const std::vector<Tensor> &inputs,
                                     const std::string &name,
                                     const rt::PluginFields &fields,
                                     const std::string &version,
                                     const std::string &pluginNamespace) {
  mlir::kiln::PluginLayerSpec spec{name, version, pluginNamespace, fields};
  return addLayer(state_, LayerKind::Plugin, inputs, {}, [&](LayerDesc &l) {
    // The plugin says how many outputs the layer has; it is built (and
    // checked again) with the others.
    std::string key = rt::pluginKey(name, version, pluginNamespace);
    auto creator = rt::findPluginCreator(name, version, pluginNamespace);
    auto plugin =
        creator
            ? creator->create(mlir::kiln::coercePluginFields(*creator, fields))
            : rt::StatusOr<std::unique_ptr<rt::Plugin>>(
                  rt::Status(rt::StatusCode::NotFound, "it is not registered"));
    std::vector<rt::PluginTensor> tensors;
    state_->update(); // the inputs' types
    for (int64_t id : l.inputs) {
      mlir::Value v = id < int64_t(state_->values.size()) ? state_->values[id]
                                                          : mlir::Value();
      auto type = v ? mlir::dyn_cast<mlir::RankedTensorType>(v.getType())
                    : mlir::RankedTensorType();
      auto element = type
                         ? mlir::kiln::getRuntimeDataType(type.getElementType())
                         : std::nullopt;
      if (!element) {
        state_->error("add plugin " + key + ": input tensor " +
                      std::to_string(id) +
                      " is not known (an earlier layer "
                      "failed)");
        return false;
      }
      tensors.push_back(
          {*element, std::vector<int64_t>(type.getShape().begin(),
                                          type.getShape().end())});
    }
    auto outputs =
        plugin ? (*plugin)->getOutputs(tensors)
               : rt::StatusOr<std::vector<rt::PluginTensor>>(plugin.status());
    if (!outputs || outputs->empty()) {
      state_->error(
          "add plugin " + key + ": " +
          (outputs ? "it gives no outputs" : outputs.status().message()));
      return false;
    }
    l.numOutputs = int64_t(outputs->size());
    l.plugin = spec;
    return true;
  });
}

int NetworkDefinition::getNbLayers() const {
  return int(state_->layers.size());
}
Layer NetworkDefinition::getLayer(int index) const {
  if (!state_->layer(index, "getLayer"))
    return Layer();
  return HandleAccess::layer(state_, index);
}
int NetworkDefinition::getNbInputs() const {
  return int(state_->inputs.size());
}
Tensor NetworkDefinition::getInput(int index) const {
  if (index < 0 || index >= int(state_->inputs.size())) {
    state_->error("getInput(" + std::to_string(index) + "): the network has " +
                  std::to_string(state_->inputs.size()) + " inputs");
    return Tensor();
  }
  return HandleAccess::tensor(state_, state_->inputs[index]);
}
int NetworkDefinition::getNbOutputs() const {
  return int(state_->outputs.size());
}
Tensor NetworkDefinition::getOutput(int index) const {
  if (index < 0 || index >= int(state_->outputs.size())) {
    state_->error("getOutput(" + std::to_string(index) + "): the network has " +
                  std::to_string(state_->outputs.size()) + " outputs");
    return Tensor();
  }
  return HandleAccess::tensor(state_, state_->outputs[index]);
}
std::vector<std::string> NetworkDefinition::getErrors() const {
  state_->update();
  return state_->allErrors();
}

} // namespace kiln
