//===- NetworkDefinition.h - networks built layer by layer ------*- C++ -*-===//
//
// The network definition API (TensorRT's INetworkDefinition, TensorRT 5
// developer guide, section 2.2.1 sampleMNISTAPI): a network built layer by
// layer in C++, which kiln::Builder (Builder.h) compiles to a plan as
// kiln-compile does a model.
//
//   kiln::NetworkDefinition network(logger);
//   kiln::Tensor data = network.addInput("data", kiln::DataType::F32,
//                                        {1, 1, 28, 28});
//   auto conv = network.addConvolution(data, 20, {5, 5}, filter, bias);
//   conv.setStride({1, 1});
//   auto pool = network.addPooling(conv.getOutput(), kiln::PoolingType::Max,
//                                  {2, 2});
//   ...
//   network.markOutput(prob.getOutput());
//
// Tensors and layers are handles: small values that name an entry of their
// network. A handle of another network, of a network that no longer exists,
// or of a layer that failed is refused with an error, never a crash.
// Weights ({type, pointer, count}) are copied when the layer is added.
//
// Errors go to the network's logger (Error severity) and stay listed in
// getErrors(): an add* that fails returns an invalid handle (false in a
// boolean context), and a network with errors does not build. Shapes are
// checked as each layer is added (kiln's own type inference, the one the
// ONNX importer uses): a dimension mismatch names the layer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_BUILDER_NETWORKDEFINITION_H
#define KILN_BUILDER_NETWORKDEFINITION_H

#include "kiln/runtime/Logger.h"
#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Plugin.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

using rt::DataType;
using Dims = std::vector<int64_t>;

/// Weights the caller owns: `count` elements of `type` at `values`
/// (copied when the layer is added; count 0 with nullptr: none).
struct Weights {
  DataType type = DataType::F32;
  const void *values = nullptr;
  int64_t count = 0;
};

enum class ActivationType {
  Relu,
  Sigmoid,
  Tanh,
  LeakyRelu, // alpha: the slope below 0
  Elu,       // alpha
  Selu,      // alpha, beta (gamma)
  Softsign,
  Softplus,        // log(1 + exp(x))
  Clip,            // alpha: the minimum, beta: the maximum
  HardSigmoid,     // alpha, beta
  ScaledTanh,      // alpha * tanh(beta * x)
  ThresholdedRelu, // alpha
  GeluErf,
  GeluTanh,
  HardSwish,
};
enum class PoolingType { Max, Average };
enum class ElementWiseOperation { Sum, Prod, Max, Min, Sub, Div, Pow };
/// In the order of kiln.unary's kinds.
enum class UnaryOperation {
  Exp,
  Log,
  Sqrt,
  Recip,
  Abs,
  Neg,
  Sin,
  Cos,
  Tan,
  Sinh,
  Cosh,
  Asin,
  Acos,
  Atan,
  Asinh,
  Acosh,
  Atanh,
  Ceil,
  Floor,
  Round,
  Erf,
  Sign,
  Not, // booleans
};
enum class ReduceOperation { Sum, Prod, Max, Min, Avg };
/// How many values addScale's shift, scale and power have: one, one per
/// channel, or one per element of the dimensions from the channel on.
enum class ScaleMode { Uniform, Channel, Elementwise };

namespace detail {
struct NetworkState;
struct HandleAccess;
} // namespace detail

class Tensor {
public:
  /// An invalid handle.
  Tensor() = default;
  /// Whether it names a tensor of a network that still exists.
  explicit operator bool() const;
  /// Names it (inputs and outputs are bound by name at run time; names are
  /// unique in a network).
  Tensor &setName(const std::string &name);
  std::string getName() const;
  /// Its dimensions, or {} with an error logged when they cannot be known
  /// (an invalid handle, an earlier layer that failed).
  Dims getDimensions() const;
  DataType getType() const;
  bool isNetworkInput() const;
  bool isNetworkOutput() const;

private:
  friend struct detail::HandleAccess;
  Tensor(std::weak_ptr<detail::NetworkState> network, int64_t id)
      : network(std::move(network)), id(id) {}
  std::weak_ptr<detail::NetworkState> network;
  int64_t id = -1;
};

class Layer {
public:
  Layer() = default;
  explicit operator bool() const;
  /// Names the layer (errors and profiles use it).
  Layer &setName(const std::string &name);
  std::string getName() const;
  int getNbOutputs() const;
  /// Output `i`, or an invalid tensor.
  Tensor getOutput(int i = 0) const;

protected:
  friend struct detail::HandleAccess;
  Layer(std::weak_ptr<detail::NetworkState> network, int64_t id)
      : network(std::move(network)), id(id) {}
  /// Changes a setting of the layer: `field` of its parameters (see
  /// NetworkDefinition.cpp); logs an error for an invalid handle.
  void set(const char *setter, int field, const Dims &values) const;
  void set(const char *setter, int field, double value) const;

  std::weak_ptr<detail::NetworkState> network;
  int64_t id = -1;
};

/// The settings of windowed layers (convolutions, deconvolutions,
/// pooling): strides and padding, the same before and after or each side.
/// Default: no padding.
template <typename Self> class WindowedLayer : public Layer {
public:
  using Layer::Layer;
  WindowedLayer(Layer layer) : Layer(layer) {}
  Self &setStride(const Dims &stride);
  Self &setPadding(const Dims &padding);
  Self &setPrePadding(const Dims &padding);
  Self &setPostPadding(const Dims &padding);
};

/// Convolutions and deconvolutions: also dilations and groups. Defaults:
/// stride 1, dilation 1, one group.
class ConvolutionLayer : public WindowedLayer<ConvolutionLayer> {
public:
  ConvolutionLayer() = default;
  ConvolutionLayer(Layer layer) : WindowedLayer(layer) {}
  ConvolutionLayer &setDilation(const Dims &dilation);
  ConvolutionLayer &setNbGroups(int64_t groups);
};
using DeconvolutionLayer = ConvolutionLayer;

/// Pooling: the stride defaults to the window.
class PoolingLayer : public WindowedLayer<PoolingLayer> {
public:
  PoolingLayer() = default;
  PoolingLayer(Layer layer) : WindowedLayer(layer) {}
  /// Average pooling: whether padding is left out of the count (default
  /// true, as in TensorRT).
  PoolingLayer &setAverageCountExcludesPadding(bool excludes);
};

class ActivationLayer : public Layer {
public:
  using Layer::Layer;
  ActivationLayer(Layer layer) : Layer(layer) {}
  ActivationLayer &setAlpha(float alpha);
  ActivationLayer &setBeta(float beta);
};

class SoftMaxLayer : public Layer {
public:
  using Layer::Layer;
  SoftMaxLayer(Layer layer) : Layer(layer) {}
  /// One bit, the axis (default: the channels, axis 1, or axis 0 of a
  /// vector).
  SoftMaxLayer &setAxes(uint32_t axes);
};

class ConcatenationLayer : public Layer {
public:
  using Layer::Layer;
  ConcatenationLayer(Layer layer) : Layer(layer) {}
  /// Default: the channels, axis 1 (axis 0 of vectors).
  ConcatenationLayer &setAxis(int64_t axis);
};

/// A first transpose, a reshape (0 copies the input's dimension, -1 takes
/// what is left; as ONNX Reshape) and a second transpose, each optional.
class ShuffleLayer : public Layer {
public:
  using Layer::Layer;
  ShuffleLayer(Layer layer) : Layer(layer) {}
  ShuffleLayer &setFirstTranspose(const Dims &permutation);
  ShuffleLayer &setReshapeDimensions(const Dims &dims);
  ShuffleLayer &setSecondTranspose(const Dims &permutation);
};

class NormalizationLayer : public Layer {
public:
  using Layer::Layer;
  NormalizationLayer(Layer layer) : Layer(layer) {}
  /// Default 1e-5.
  NormalizationLayer &setEpsilon(float epsilon);
};

class NetworkDefinition {
public:
  /// Errors and warnings go to `logger` (which must outlive the network).
  explicit NetworkDefinition(rt::Logger &logger);
  ~NetworkDefinition();
  NetworkDefinition(const NetworkDefinition &) = delete;
  NetworkDefinition &operator=(const NetworkDefinition &) = delete;

  /// A network input of a static shape.
  Tensor addInput(const std::string &name, DataType type, const Dims &dims);
  /// Makes `tensor` an output (in the order of the calls).
  bool markOutput(const Tensor &tensor);

  /// Filters of outputMaps x C/groups x kernel (K C R S), bias of outputMaps
  /// elements or none.
  ConvolutionLayer addConvolution(const Tensor &input, int64_t outputMaps,
                                  const Dims &kernel, Weights filter,
                                  Weights bias = {});
  /// Filters of C x outputMaps/groups x kernel, as ONNX ConvTranspose.
  DeconvolutionLayer addDeconvolution(const Tensor &input, int64_t outputMaps,
                                      const Dims &kernel, Weights filter,
                                      Weights bias = {});
  PoolingLayer addPooling(const Tensor &input, PoolingType type,
                          const Dims &window);
  /// y = x W^T + b over the dimensions from 1 on: weights of outputs x
  /// (C * H * W ...), bias of outputs or none; the output is N x outputs.
  Layer addFullyConnected(const Tensor &input, int64_t outputs, Weights weights,
                          Weights bias = {});
  /// Batched matrix products (numpy broadcasting of the batch dimensions),
  /// each operand transposed first when asked.
  Layer addMatrixMultiply(const Tensor &a, bool transposeA, const Tensor &b,
                          bool transposeB);
  /// The parameters of the types that take them are set with setAlpha and
  /// setBeta (defaults: LeakyRelu 0.01, Elu 1, Selu 1.67326, 1.0507, Clip 0
  /// and 6, HardSigmoid 0.2 and 0.5, ScaledTanh 1 and 1, ThresholdedRelu
  /// 1).
  ActivationLayer addActivation(const Tensor &input, ActivationType type);
  SoftMaxLayer addSoftMax(const Tensor &input);
  /// (x * scale + shift) ^ power with values per `mode` along `channelAxis`
  /// on; each of the three may be empty.
  Layer addScale(const Tensor &input, ScaleMode mode, Weights shift,
                 Weights scale, Weights power, int64_t channelAxis = 1);
  /// Numpy broadcasting.
  Layer addElementWise(const Tensor &a, const Tensor &b,
                       ElementWiseOperation op);
  ConcatenationLayer addConcatenation(const std::vector<Tensor> &inputs);
  /// Local response normalization across channels: x / (k + alpha / window *
  /// sum of squares) ^ beta.
  Layer addLRN(const Tensor &input, int64_t window, float alpha, float beta,
               float k);
  ShuffleLayer addShuffle(const Tensor &input);
  Layer addUnary(const Tensor &input, UnaryOperation op);
  /// Over the axes set in `axes` (bit i: axis i).
  Layer addReduce(const Tensor &input, ReduceOperation op, uint32_t axes,
                  bool keepDimensions);
  /// Zeros before and after the last len(pre) dimensions (negative:
  /// crops).
  Layer addPadding(const Tensor &input, const Dims &pre, const Dims &post);
  /// A constant of `dims` (weights.count elements).
  Layer addConstant(const Dims &dims, Weights weights);
  /// data[..., indices, ...] along `axis` (indices I32 or I64).
  Layer addGather(const Tensor &data, const Tensor &indices, int64_t axis);
  /// A layer the registered plugin `name` (version, namespace) implements
  /// (TensorRT's addPluginV2): the creator makes the plugin from `fields`,
  /// and the plugin gives the layer's outputs (getNbOutputs, getOutput(i)).
  /// Register the creator first (registerPluginCreator, loadPluginLibrary).
  /// A plugin runs on the GPU only; the reference executor refuses it.
  Layer addPluginV2(const std::vector<Tensor> &inputs, const std::string &name,
                    const rt::PluginFields &fields,
                    const std::string &version = "1",
                    const std::string &pluginNamespace = "");
  /// (x - mean) / sqrt(var + epsilon) * scale + bias, the statistics over
  /// the axes set in `axes`: the trailing ones (layer normalization; scale
  /// and bias of their shape) or all but the first two (instance
  /// normalization; scale and bias per channel).
  NormalizationLayer addNormalization(const Tensor &input, const Tensor &scale,
                                      const Tensor &bias, uint32_t axes);

  int getNbLayers() const;
  Layer getLayer(int index) const;
  int getNbInputs() const;
  Tensor getInput(int index) const;
  int getNbOutputs() const;
  Tensor getOutput(int index) const;
  /// Every error so far ("layer 'conv1' (convolution): ...").
  std::vector<std::string> getErrors() const;

  /// For Builder: the network's state (shared with its handles).
  const std::shared_ptr<detail::NetworkState> &state() const { return state_; }

private:
  std::shared_ptr<detail::NetworkState> state_;
};

} // namespace kiln

#endif // KILN_BUILDER_NETWORKDEFINITION_H
