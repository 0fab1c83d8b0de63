//===- NetworkState.h - what a NetworkDefinition holds ----------*- C++ -*-===//
//
// The state behind kiln::NetworkDefinition and its handles: the layers with
// their settings, the tensors, the copied weights, and the network built as
// kiln IR in a context of its own (for shapes and checks as layers are
// added; Builder builds it again in the compiler's context). Private to
// lib/Builder.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_BUILDER_NETWORKSTATE_H
#define KILN_LIB_BUILDER_NETWORKSTATE_H

#include "kiln/Builder/NetworkDefinition.h"
#include "kiln/Import/PluginLayer.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace kiln::detail {

enum class LayerKind {
  Convolution,
  Deconvolution,
  Pooling,
  FullyConnected,
  MatrixMultiply,
  Activation,
  SoftMax,
  Scale,
  ElementWise,
  Concatenation,
  LRN,
  Shuffle,
  Unary,
  Reduce,
  Padding,
  Constant,
  Gather,
  Normalization,
  Plugin,
};
/// "convolution", ... (for messages).
const char *layerKindName(LayerKind kind);

/// The settings a layer's setters change (Layer::set's `field`).
enum Field {
  Stride,
  PrePadding,
  PostPadding,
  Dilation,
  Groups,
  CountExcludesPadding,
  Alpha,
  Beta,
  Axes,
  Axis,
  FirstTranspose,
  ReshapeDimensions,
  SecondTranspose,
  Epsilon,
};

struct LayerDesc {
  LayerKind kind;
  std::string name;
  /// The type of an activation, pooling, element-wise, unary, reduce or
  /// scale layer (its enum's value).
  int type = 0;
  /// Tensor ids.
  std::vector<int64_t> inputs;
  /// Weight ids, -1 for none (filter then bias; shift, scale, power; a
  /// constant's values).
  std::vector<int64_t> weights;
  /// The tensor it produces (the first, for a plugin of several outputs).
  int64_t output = -1;
  /// How many outputs it has, and the tensors of those after the first.
  int64_t numOutputs = 1;
  std::vector<int64_t> moreOutputs;
  /// A plugin layer's creator and fields.
  std::optional<mlir::kiln::PluginLayerSpec> plugin;
  Dims kernel, stride, prePadding, postPadding, dilation;
  std::optional<Dims> firstTranspose, reshape, secondTranspose;
  int64_t count = 0; // output maps, outputs, LRN window
  int64_t groups = 1;
  std::optional<int64_t> axis;
  uint32_t axes = 0;
  bool flag = false; // keep dims, transposes, count excludes padding
  bool flagB = false;
  std::optional<float> alpha, beta;
  float k = 0, epsilon = 1e-5f;
};

struct TensorDesc {
  std::string name;
  /// The producing layer; -1 for a network input.
  int64_t layer = -1;
  /// An input's type and dimensions.
  DataType type = DataType::F32;
  Dims dims;
  bool isOutput = false;
};

struct WeightsDesc {
  DataType type;
  int64_t count;
  std::vector<char> bytes;
};

struct NetworkState {
  explicit NetworkState(rt::Logger &logger);
  ~NetworkState();

  /// Logs `message` as an error and keeps it (misuse of the API: it stays).
  void error(const std::string &message);
  /// The misuse errors, then the layers that do not build now.
  std::vector<std::string> allErrors() const;
  /// The layer or tensor `id` names, after checking that it is in range.
  LayerDesc *layer(int64_t id, const char *what);
  TensorDesc *tensor(int64_t id, const char *what);

  /// Builds what is not built yet into `module` (everything when `stale`,
  /// after a setter): false, with each new failure logged as a warning
  /// (a later setter may mend it; building a plan refuses it), when a layer
  /// does not build.
  bool update();
  /// The whole network as a module of `context`, its outputs returned in
  /// the order they were marked; `error` says why not.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  buildModule(mlir::MLIRContext &context, std::string &error) const;

  rt::Logger &logger;
  std::vector<LayerDesc> layers;
  std::vector<TensorDesc> tensors;
  std::vector<WeightsDesc> weights;
  std::vector<int64_t> inputs, outputs;
  std::vector<std::string> errors;

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Per tensor id, its value in `module` (null: not built).
  std::vector<mlir::Value> values;
  size_t builtLayers = 0;
  bool stale = true;
  /// Why layers do not build, as of the last update.
  std::vector<std::string> buildErrors;
};

/// Builds layers [from, to) of `state` at the end of `body`, with `values`
/// holding each tensor's value (inputs set; a failed layer's output stays
/// null and the layers that read it fail too); each failure adds a message
/// to `errors` ("layer 'x' (convolution): ..."). True when none failed.
bool buildLayers(const NetworkState &state, mlir::Block &body, size_t from,
                 size_t to, std::vector<mlir::Value> &values,
                 std::vector<std::string> &errors);

/// The IR element type of `type` in `context`.
mlir::Type getElementType(mlir::MLIRContext &context, DataType type);

} // namespace kiln::detail

#endif // KILN_LIB_BUILDER_NETWORKSTATE_H
