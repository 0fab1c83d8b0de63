//===- NetworkModule.cpp - kiln._compiler: the network definition API -----===//
//
// kiln::NetworkDefinition (kiln/Builder/NetworkDefinition.h) for Python, with
// the C++ names in snake case: add_convolution, set_stride, ... Weights are
// numpy arrays (copied when the layer is added; sequences become float32).
// An add_* that fails raises InvalidArgumentError with the network's error;
// setters return their layer, so that calls chain.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "PythonLogger.h"

#include "kiln/Builder/NetworkDefinition.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <memory>

namespace py = pybind11;
using namespace kiln;
using namespace kiln::python;

namespace {

/// A network and the logger it reports to (which must outlive it).
struct Network {
  std::unique_ptr<PythonLogger> logger;
  std::unique_ptr<NetworkDefinition> definition;
};

/// Calls `add` (an add* of the network) and returns its handle, or raises
/// InvalidArgumentError with the error the call made when it is invalid.
template <typename Add>
auto checked(const Network &network, Add &&add, const char *what) {
  std::vector<std::string> before = network.definition->getErrors();
  auto handle = add();
  if (!handle) {
    std::string why = std::string(what) + " failed";
    for (const std::string &error : network.definition->getErrors())
      if (std::find(before.begin(), before.end(), error) == before.end()) {
        why = error;
        break;
      }
    raiseStatus(1, why);
  }
  return handle;
}

/// Plugin fields from {name: int | float | str | [int...] | [float...]}
/// (a list with a float in it is floats); TypeError for anything else.
rt::PluginFields pluginFields(py::dict fields) {
  rt::PluginFields out;
  for (auto [key, value] : fields) {
    std::string name = py::str(key);
    if (py::isinstance<py::str>(value)) {
      out.push_back(rt::PluginField::of(name, value.cast<std::string>()));
      continue;
    }
    py::list items;
    if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value) ||
        py::isinstance<py::float_>(value))
      items.append(value);
    else if (py::isinstance<py::sequence>(value))
      items = py::list(py::reinterpret_borrow<py::object>(value));
    else
      throw py::type_error("plugin field '" + name +
                           "' must be an int, a float, a str or a list of "
                           "ints or floats");
    bool floats = false;
    for (py::handle item : items) {
      if (py::isinstance<py::float_>(item))
        floats = true;
      else if (!py::isinstance<py::int_>(item))
        throw py::type_error("plugin field '" + name +
                             "' must hold ints or floats");
    }
    if (floats)
      out.push_back(
          rt::PluginField::of(name, items.cast<std::vector<double>>()));
    else
      out.push_back(
          rt::PluginField::of(name, items.cast<std::vector<int64_t>>()));
  }
  return out;
}

/// Weights from a numpy array (or a sequence, as float32; None: none); the
/// array is kept in `keep` until the layer has copied it.
Weights toWeights(py::handle value, std::vector<py::array> &keep) {
  if (value.is_none())
    return {};
  py::array array = contiguousArray(value);
  keep.push_back(array);
  return Weights{DataType(typeFromPython(array.dtype())), array.data(),
                 int64_t(array.size())};
}

/// A setter of `T` taking one `Arg`, returning the layer (for chaining).
template <typename T, typename Arg, typename Method> auto chain(Method method) {
  return [method](py::object self, Arg value) {
    (self.cast<T &>().*method)(value);
    return self;
  };
}

template <typename T> void bindWindowed(py::class_<T, Layer> &cls) {
  cls.def("set_stride", chain<T, const Dims &>(&T::setStride),
          py::arg("stride"))
      .def("set_padding", chain<T, const Dims &>(&T::setPadding),
           py::arg("padding"), "The same padding before and after.")
      .def("set_pre_padding", chain<T, const Dims &>(&T::setPrePadding),
           py::arg("padding"))
      .def("set_post_padding", chain<T, const Dims &>(&T::setPostPadding),
           py::arg("padding"));
}

void bindEnums(py::module_ &m) {
  py::enum_<ActivationType>(m, "ActivationType")
      .value("RELU", ActivationType::Relu)
      .value("SIGMOID", ActivationType::Sigmoid)
      .value("TANH", ActivationType::Tanh)
      .value("LEAKY_RELU", ActivationType::LeakyRelu)
      .value("ELU", ActivationType::Elu)
      .value("SELU", ActivationType::Selu)
      .value("SOFTSIGN", ActivationType::Softsign)
      .value("SOFTPLUS", ActivationType::Softplus)
      .value("CLIP", ActivationType::Clip)
      .value("HARD_SIGMOID", ActivationType::HardSigmoid)
      .value("SCALED_TANH", ActivationType::ScaledTanh)
      .value("THRESHOLDED_RELU", ActivationType::ThresholdedRelu)
      .value("GELU_ERF", ActivationType::GeluErf)
      .value("GELU_TANH", ActivationType::GeluTanh)
      .value("HARD_SWISH", ActivationType::HardSwish);
  py::enum_<PoolingType>(m, "PoolingType")
      .value("MAX", PoolingType::Max)
      .value("AVERAGE", PoolingType::Average);
  py::enum_<ElementWiseOperation>(m, "ElementWiseOperation")
      .value("SUM", ElementWiseOperation::Sum)
      .value("PROD", ElementWiseOperation::Prod)
      .value("MAX", ElementWiseOperation::Max)
      .value("MIN", ElementWiseOperation::Min)
      .value("SUB", ElementWiseOperation::Sub)
      .value("DIV", ElementWiseOperation::Div)
      .value("POW", ElementWiseOperation::Pow);
  py::enum_<UnaryOperation> unary(m, "UnaryOperation");
  const char *unaryNames[] = {
      "EXP",   "LOG",  "SQRT",  "RECIP", "ABS",  "NEG",  "SIN",   "COS",
      "TAN",   "SINH", "COSH",  "ASIN",  "ACOS", "ATAN", "ASINH", "ACOSH",
      "ATANH", "CEIL", "FLOOR", "ROUND", "ERF",  "SIGN", "NOT"};
  for (int i = 0; i <= int(UnaryOperation::Not); ++i)
    unary.value(unaryNames[i], UnaryOperation(i));
  py::enum_<ReduceOperation>(m, "ReduceOperation")
      .value("SUM", ReduceOperation::Sum)
      .value("PROD", ReduceOperation::Prod)
      .value("MAX", ReduceOperation::Max)
      .value("MIN", ReduceOperation::Min)
      .value("AVG", ReduceOperation::Avg);
  py::enum_<ScaleMode>(m, "ScaleMode")
      .value("UNIFORM", ScaleMode::Uniform)
      .value("CHANNEL", ScaleMode::Channel)
      .value("ELEMENTWISE", ScaleMode::Elementwise);
}

void bindHandles(py::module_ &m) {
  py::class_<Tensor>(m, "Tensor", "A tensor of a NetworkDefinition.")
      .def("__bool__", [](const Tensor &t) { return bool(t); })
      .def_property("name", &Tensor::getName,
                    [](Tensor &t, const std::string &name) { t.setName(name); })
      .def_property_readonly("shape",
                             [](const Tensor &t) {
                               return py::tuple(py::cast(t.getDimensions()));
                             })
      .def_property_readonly(
          "dtype", [](const Tensor &t) { return typeName(int(t.getType())); })
      .def_property_readonly("is_network_input", &Tensor::isNetworkInput)
      .def_property_readonly("is_network_output", &Tensor::isNetworkOutput);

  py::class_<Layer>(m, "Layer", "A layer of a NetworkDefinition.")
      .def("__bool__", [](const Layer &l) { return bool(l); })
      .def_property("name", &Layer::getName,
                    [](Layer &l, const std::string &name) { l.setName(name); })
      .def_property_readonly("num_outputs", &Layer::getNbOutputs)
      .def("get_output", &Layer::getOutput, py::arg("index") = 0)
      .def_property_readonly(
          "output", [](const Layer &l) { return l.getOutput(0); }, "Output 0.");

  py::class_<ConvolutionLayer, Layer> conv(m, "ConvolutionLayer",
                                           "A convolution or deconvolution.");
  bindWindowed(conv);
  conv.def(
          "set_dilation",
          chain<ConvolutionLayer, const Dims &>(&ConvolutionLayer::setDilation),
          py::arg("dilation"))
      .def("set_num_groups",
           chain<ConvolutionLayer, int64_t>(&ConvolutionLayer::setNbGroups),
           py::arg("groups"));
  py::class_<PoolingLayer, Layer> pool(m, "PoolingLayer");
  bindWindowed(pool);
  pool.def(
      "set_average_count_excludes_padding",
      chain<PoolingLayer, bool>(&PoolingLayer::setAverageCountExcludesPadding),
      py::arg("excludes"));
  py::class_<ActivationLayer, Layer>(m, "ActivationLayer")
      .def("set_alpha",
           chain<ActivationLayer, float>(&ActivationLayer::setAlpha),
           py::arg("alpha"))
      .def("set_beta", chain<ActivationLayer, float>(&ActivationLayer::setBeta),
           py::arg("beta"));
  py::class_<SoftMaxLayer, Layer>(m, "SoftMaxLayer")
      .def("set_axes", chain<SoftMaxLayer, uint32_t>(&SoftMaxLayer::setAxes),
           py::arg("axes"), "One bit: the axis (1 << axis).");
  py::class_<ConcatenationLayer, Layer>(m, "ConcatenationLayer")
      .def("set_axis",
           chain<ConcatenationLayer, int64_t>(&ConcatenationLayer::setAxis),
           py::arg("axis"));
  py::class_<ShuffleLayer, Layer>(m, "ShuffleLayer")
      .def("set_first_transpose",
           chain<ShuffleLayer, const Dims &>(&ShuffleLayer::setFirstTranspose),
           py::arg("permutation"))
      .def("set_reshape_dimensions",
           chain<ShuffleLayer, const Dims &>(
               &ShuffleLayer::setReshapeDimensions),
           py::arg("dims"))
      .def("set_second_transpose",
           chain<ShuffleLayer, const Dims &>(&ShuffleLayer::setSecondTranspose),
           py::arg("permutation"));
  py::class_<NormalizationLayer, Layer>(m, "NormalizationLayer")
      .def("set_epsilon",
           chain<NormalizationLayer, float>(&NormalizationLayer::setEpsilon),
           py::arg("epsilon"));
}

} // namespace

namespace kiln::python {

/// A network's definition (for the Builder).
const NetworkDefinition &definitionOf(py::handle network) {
  return *network.cast<Network &>().definition;
}

void bindNetwork(py::module_ &m) {
  bindEnums(m);
  bindHandles(m);
  using W = std::vector<py::array>;
  py::class_<Network>(
      m, "NetworkDefinition",
      "A network built layer by layer (TensorRT's INetworkDefinition).")
      .def(py::init([](py::object log) {
             auto network = std::make_unique<Network>();
             network->logger = std::make_unique<PythonLogger>(log);
             network->definition =
                 std::make_unique<NetworkDefinition>(*network->logger);
             return network;
           }),
           py::arg("log") = py::none(),
           "`log(severity, message)` receives errors and warnings (None: "
           "stderr).")
      .def(
          "add_input",
          [](Network &n, const std::string &name, py::handle dtype,
             const Dims &shape) {
            return checked(
                n,
                [&] {
                  return n.definition->addInput(
                      name, DataType(typeFromPython(dtype)), shape);
                },
                "add_input");
          },
          py::arg("name"), py::arg("dtype"), py::arg("shape"))
      .def(
          "mark_output",
          [](Network &n, const Tensor &t) {
            checked(
                n, [&] { return n.definition->markOutput(t); }, "mark_output");
          },
          py::arg("tensor"))
      .def(
          "add_convolution",
          [](Network &n, const Tensor &input, int64_t maps, const Dims &kernel,
             py::handle filter, py::handle bias) {
            W keep;
            return checked(
                n,
                [&] {
                  return n.definition->addConvolution(input, maps, kernel,
                                                      toWeights(filter, keep),
                                                      toWeights(bias, keep));
                },
                "add_convolution");
          },
          py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"),
          py::arg("kernel"), py::arg("bias") = py::none(),
          "Filters of maps x C/groups x kernel (K C R S).")
      .def(
          "add_deconvolution",
          [](Network &n, const Tensor &input, int64_t maps, const Dims &kernel,
             py::handle filter, py::handle bias) {
            W keep;
            return checked(
                n,
                [&] {
                  return n.definition->addDeconvolution(input, maps, kernel,
                                                        toWeights(filter, keep),
                                                        toWeights(bias, keep));
                },
                "add_deconvolution");
          },
          py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"),
          py::arg("kernel"), py::arg("bias") = py::none(),
          "Filters of C x maps/groups x kernel, as ONNX ConvTranspose.")
      .def(
          "add_pooling",
          [](Network &n, const Tensor &input, PoolingType type,
             const Dims &window) {
            return checked(
                n,
                [&] { return n.definition->addPooling(input, type, window); },
                "add_pooling");
          },
          py::arg("input"), py::arg("type"), py::arg("window_size"))
      .def(
          "add_fully_connected",
          [](Network &n, const Tensor &input, int64_t outputs,
             py::handle weights, py::handle bias) {
            W keep;
            return checked(
                n,
                [&] {
                  return n.definition->addFullyConnected(
                      input, outputs, toWeights(weights, keep),
                      toWeights(bias, keep));
                },
                "add_fully_connected");
          },
          py::arg("input"), py::arg("num_outputs"), py::arg("kernel"),
          py::arg("bias") = py::none(),
          "y = x W^T + b over the dimensions from 1 on.")
      .def(
          "add_matrix_multiply",
          [](Network &n, const Tensor &a, bool ta, const Tensor &b, bool tb) {
            return checked(
                n,
                [&] { return n.definition->addMatrixMultiply(a, ta, b, tb); },
                "add_matrix_multiply");
          },
          py::arg("a"), py::arg("transpose_a"), py::arg("b"),
          py::arg("transpose_b"))
      .def(
          "add_activation",
          [](Network &n, const Tensor &input, ActivationType type) {
            return checked(
                n, [&] { return n.definition->addActivation(input, type); },
                "add_activation");
          },
          py::arg("input"), py::arg("type"))
      .def(
          "add_softmax",
          [](Network &n, const Tensor &input) {
            return checked(
                n, [&] { return n.definition->addSoftMax(input); },
                "add_softmax");
          },
          py::arg("input"))
      .def(
          "add_scale",
          [](Network &n, const Tensor &input, ScaleMode mode, py::handle shift,
             py::handle scale, py::handle power, int64_t axis) {
            W keep;
            return checked(
                n,
                [&] {
                  return n.definition->addScale(
                      input, mode, toWeights(shift, keep),
                      toWeights(scale, keep), toWeights(power, keep), axis);
                },
                "add_scale");
          },
          py::arg("input"), py::arg("mode"), py::arg("shift") = py::none(),
          py::arg("scale") = py::none(), py::arg("power") = py::none(),
          py::arg("channel_axis") = 1,
          "(x * scale + shift) ** power, values per `mode`.")
      .def(
          "add_elementwise",
          [](Network &n, const Tensor &a, const Tensor &b,
             ElementWiseOperation op) {
            return checked(
                n, [&] { return n.definition->addElementWise(a, b, op); },
                "add_elementwise");
          },
          py::arg("a"), py::arg("b"), py::arg("op"))
      .def(
          "add_concatenation",
          [](Network &n, const std::vector<Tensor> &inputs) {
            return checked(
                n, [&] { return n.definition->addConcatenation(inputs); },
                "add_concatenation");
          },
          py::arg("inputs"))
      .def(
          "add_lrn",
          [](Network &n, const Tensor &input, int64_t window, float alpha,
             float beta, float k) {
            return checked(
                n,
                [&] {
                  return n.definition->addLRN(input, window, alpha, beta, k);
                },
                "add_lrn");
          },
          py::arg("input"), py::arg("window"), py::arg("alpha"),
          py::arg("beta"), py::arg("k"))
      .def(
          "add_shuffle",
          [](Network &n, const Tensor &input) {
            return checked(
                n, [&] { return n.definition->addShuffle(input); },
                "add_shuffle");
          },
          py::arg("input"))
      .def(
          "add_unary",
          [](Network &n, const Tensor &input, UnaryOperation op) {
            return checked(
                n, [&] { return n.definition->addUnary(input, op); },
                "add_unary");
          },
          py::arg("input"), py::arg("op"))
      .def(
          "add_reduce",
          [](Network &n, const Tensor &input, ReduceOperation op, uint32_t axes,
             bool keep) {
            return checked(
                n,
                [&] { return n.definition->addReduce(input, op, axes, keep); },
                "add_reduce");
          },
          py::arg("input"), py::arg("op"), py::arg("axes"),
          py::arg("keep_dims"), "`axes`: bit i reduces axis i.")
      .def(
          "add_padding",
          [](Network &n, const Tensor &input, const Dims &pre,
             const Dims &post) {
            return checked(
                n, [&] { return n.definition->addPadding(input, pre, post); },
                "add_padding");
          },
          py::arg("input"), py::arg("pre_padding"), py::arg("post_padding"))
      .def(
          "add_constant",
          [](Network &n, const Dims &shape, py::handle weights) {
            W keep;
            return checked(
                n,
                [&] {
                  return n.definition->addConstant(shape,
                                                   toWeights(weights, keep));
                },
                "add_constant");
          },
          py::arg("shape"), py::arg("weights"))
      .def(
          "add_gather",
          [](Network &n, const Tensor &data, const Tensor &indices,
             int64_t axis) {
            return checked(
                n, [&] { return n.definition->addGather(data, indices, axis); },
                "add_gather");
          },
          py::arg("data"), py::arg("indices"), py::arg("axis"))
      .def(
          "add_normalization",
          [](Network &n, const Tensor &input, const Tensor &scale,
             const Tensor &bias, uint32_t axes) {
            return checked(
                n,
                [&] {
                  return n.definition->addNormalization(input, scale, bias,
                                                        axes);
                },
                "add_normalization");
          },
          py::arg("input"), py::arg("scale"), py::arg("bias"), py::arg("axes"))
      .def(
          "add_plugin_v2",
          [](Network &n, const std::vector<Tensor> &inputs,
             const std::string &name, py::dict fields,
             const std::string &version, const std::string &pluginNamespace) {
            rt::PluginFields converted = pluginFields(fields);
            return checked(
                n,
                [&] {
                  return n.definition->addPluginV2(inputs, name, converted,
                                                   version, pluginNamespace);
                },
                "add_plugin_v2");
          },
          py::arg("inputs"), py::arg("name"), py::arg("fields") = py::dict(),
          py::arg("version") = "1", py::arg("namespace") = "",
          "A layer the registered plugin implements (load its library with "
          "kiln.load_plugin_library first): fields are ints, floats or str, "
          "or lists of ints or floats; layer.num_outputs and "
          "layer.get_output(i) are the plugin's outputs.")
      .def_property_readonly(
          "num_layers",
          [](const Network &n) { return n.definition->getNbLayers(); })
      .def(
          "get_layer",
          [](const Network &n, int i) { return n.definition->getLayer(i); },
          py::arg("index"))
      .def_property_readonly("inputs",
                             [](const Network &n) {
                               std::vector<Tensor> result;
                               for (int i = 0; i < n.definition->getNbInputs();
                                    ++i)
                                 result.push_back(n.definition->getInput(i));
                               return result;
                             })
      .def_property_readonly("outputs",
                             [](const Network &n) {
                               std::vector<Tensor> result;
                               for (int i = 0; i < n.definition->getNbOutputs();
                                    ++i)
                                 result.push_back(n.definition->getOutput(i));
                               return result;
                             })
      .def_property_readonly(
          "errors", [](const Network &n) { return n.definition->getErrors(); },
          "Every error so far; a network with errors does not build.");
}

} // namespace kiln::python
