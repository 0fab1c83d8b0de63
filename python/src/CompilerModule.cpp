//===- CompilerModule.cpp - kiln._compiler: models and networks to plans --===//
//
// The compiler library through its MLIR-free headers: compile_model
// (kiln/Compiler/CompileModel.h, what kiln.compile calls), the network
// definition API (NetworkModule.cpp) and the Builder that compiles a network
// or runs it on the CPU reference executor. Compiling releases the GIL.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "PythonLogger.h"

#include "kiln/Builder/Builder.h"
#include "kiln/Compiler/CompileModel.h"
#include "kiln/runtime/Plugin.h"

#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;
using namespace kiln;
using namespace kiln::python;

namespace kiln::python {
void bindNetwork(py::module_ &m);
const NetworkDefinition &definitionOf(py::handle network);
} // namespace kiln::python

namespace {

template <typename T> T valueOr(const rt::StatusOr<T> &result) {
  if (!result)
    raiseStatus(int(result.status().code()), result.status().message());
  return *result;
}

ModelSource modelSource(py::object path, py::object bytes,
                        const std::string &name) {
  ModelSource source;
  if (!path.is_none())
    source.path = py::str(path);
  else
    source.bytes = bytes.cast<std::string>();
  source.name = name;
  return source;
}

py::bytes compileFromPython(py::object path, py::object bytes,
                            const std::string &name,
                            const CompileSettings &settings, py::object log) {
  ModelSource source = modelSource(path, bytes, name);
  PythonLogger logger(log);
  rt::StatusOr<std::string> plan = rt::Status(rt::StatusCode::Internal, "");
  {
    py::gil_scoped_release release;
    plan = kiln::compileModel(source, settings, logger);
  }
  return py::bytes(valueOr(plan));
}

/// A host tensor holding a copy of `value` (a numpy array, or a sequence as
/// float32), called `name`.
tooling::HostTensor toHostTensor(py::handle value, const std::string &name) {
  py::array array = contiguousArray(value);
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  tooling::HostTensor tensor = valueOr(tooling::HostTensor::create(
      name, DataType(typeFromPython(array.dtype())), shape));
  std::memcpy(tensor.data(), array.data(), size_t(tensor.numBytes()));
  return tensor;
}

py::array toNumpy(const tooling::HostTensor &tensor) {
  py::array array = newArray(int(tensor.type), tensor.shape);
  std::memcpy(array.mutable_data(), tensor.data(), size_t(tensor.numBytes()));
  return array;
}

std::vector<tooling::HostTensor> toHostTensors(py::list inputs) {
  std::vector<tooling::HostTensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i)
    tensors.push_back(toHostTensor(inputs[i], "input " + std::to_string(i)));
  return tensors;
}

py::list toNumpyList(const std::vector<tooling::HostTensor> &tensors) {
  py::list arrays;
  for (const tooling::HostTensor &t : tensors)
    arrays.append(toNumpy(t));
  return arrays;
}

void check(const rt::Status &status) {
  if (!status.isOk())
    raiseStatus(int(status.code()), status.message());
}

py::list runModelFromPython(py::object path, py::object bytes,
                            const std::string &name,
                            const CompileSettings &settings, py::object log,
                            py::list inputs) {
  ModelSource source = modelSource(path, bytes, name);
  std::vector<tooling::HostTensor> in = toHostTensors(inputs), out;
  PythonLogger logger(log);
  rt::Status status = rt::Status::ok();
  {
    py::gil_scoped_release release;
    status = kiln::runModelReference(source, settings, in, out, logger);
  }
  check(status);
  return toNumpyList(out);
}

struct PyBuilder {
  std::unique_ptr<PythonLogger> logger;
  std::unique_ptr<Builder> builder;
};

py::list runReference(PyBuilder &b, py::handle network, py::list inputs) {
  const NetworkDefinition &definition = definitionOf(network);
  std::vector<tooling::HostTensor> in = toHostTensors(inputs), out;
  // The GIL stays held: other threads could change the network.
  check(b.builder->runReference(definition, in, out));
  return toNumpyList(out);
}

/// CompileSettings, one attribute per option of CompileOptions.def named by
/// its keyword, and OPTIONS: each keyword's kind, by which kiln.compile
/// checks and converts its value (python/kiln/__init__.py).
void bindSettings(py::module_ &m) {
  py::class_<CompileSettings> s(
      m, "CompileSettings",
      "kiln-compile's options (kiln.compile fills one from its keywords).");
  s.def(py::init<>());
  py::dict kinds;
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  s.def_readwrite(keyword, &CompileSettings::field, help);                     \
  kinds[keyword] = option::Kind::python;
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)        \
  KILN_OPTION(field, flag, keyword, Kind, Category, , help)
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)
#include "kiln/Compiler/CompileOptions.def"
  m.attr("OPTIONS") = kinds;
}

void bindBuilder(py::module_ &m) {
  py::class_<BuilderConfig>(m, "BuilderConfig",
                            "How a Builder compiles (TensorRT's "
                            "IBuilderConfig).")
      .def(py::init<>())
      .def_readwrite("max_batch_size", &BuilderConfig::maxBatchSize)
      .def_readwrite("max_workspace_bytes", &BuilderConfig::maxWorkspaceBytes)
      .def_readwrite("fp16", &BuilderConfig::fp16)
      .def_readwrite("bf16", &BuilderConfig::bf16)
      .def_readwrite("int8", &BuilderConfig::int8,
                     "Not supported yet: building with it is an error.")
      .def_readwrite("archs", &BuilderConfig::archs,
                     "Compute capabilities times ten (default [90]).")
      .def_readwrite("opt_level", &BuilderConfig::optLevel)
      .def_readwrite("tune", &BuilderConfig::tune,
                     "Time cuBLASLt's algorithms on this machine's GPU.");

  py::class_<PyBuilder>(m, "Builder",
                        "Compiles a NetworkDefinition (TensorRT's IBuilder).")
      .def(py::init([](py::object log) {
             auto b = std::make_unique<PyBuilder>();
             b->logger = std::make_unique<PythonLogger>(log);
             b->builder = std::make_unique<Builder>(*b->logger);
             return b;
           }),
           py::arg("log") = py::none())
      .def(
          "build_serialized_plan",
          [](PyBuilder &b, py::handle network, const BuilderConfig &config) {
            const NetworkDefinition &definition = definitionOf(network);
            // The GIL stays held: other threads could change the network.
            return py::bytes(
                valueOr(b.builder->buildSerializedPlan(definition, config)));
          },
          py::arg("network"), py::arg("config"),
          "The bytes of a plan for `network` (for Runtime.deserialize).")
      .def("run_reference", &runReference, py::arg("network"),
           py::arg("inputs"),
           "Runs `network` on the CPU reference executor: `inputs` in the "
           "order of its inputs, the outputs (numpy) in the order marked.");
}

} // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "kiln's compiler: models and networks to plans (see kiln).";
  py::dtype::of<float>(); // numpy's API loaded now (see _runtime)
  bindSettings(m);
  m.def("compile_model", &compileFromPython, py::arg("path"), py::arg("bytes"),
        py::arg("name"), py::arg("settings"), py::arg("log"),
        "The bytes of a plan for the model at `path` (or ONNX `bytes`).");
  m.def("run_model_reference", &runModelFromPython, py::arg("path"),
        py::arg("bytes"), py::arg("name"), py::arg("settings"), py::arg("log"),
        py::arg("inputs"),
        "Runs the model on the CPU reference executor: the outputs (numpy).");
  m.def(
      "load_plugin_library",
      [](const std::string &path) { check(rt::loadPluginLibrary(path)); },
      py::arg("path"),
      "Registers a plugin library's creators with the compiler (its own "
      "registry: kiln.load_plugin_library loads into both).");
  bindNetwork(m);
  bindBuilder(m);
}
