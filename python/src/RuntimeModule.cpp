//===- RuntimeModule.cpp - kiln._runtime: the runtime's C API -------------===//
//
// The runtime for Python, over its C API (kiln_runtime.h): Runtime, Engine,
// ExecutionContext and DeviceArray. Each object holds the one it came from
// (a context its engine, an engine its runtime), so Python's reference
// counts destroy them in the order the C API needs. Errors raise the classes
// of kiln/_types.py with the C API's messages. Calls that wait for the GPU
// or load a plan release the GIL; the log callback takes it again.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "DLPack.h"
#include "TorchTensors.h"

#include "kiln/runtime/kiln_runtime.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace kiln::python;

namespace {

void check(kiln_status status) {
  if (status != KILN_STATUS_OK)
    raiseStatus(status, kiln_last_error_message());
}

/// The runtime and the Python callable its messages go to.
struct Runtime {
  kiln_runtime *handle = nullptr;
  py::object log;
  kiln_device_info device{};

  ~Runtime() {
    if (handle)
      kiln_runtime_destroy(handle);
  }
};

void logToPython(void *user, kiln_severity severity, const char *message) {
  auto *runtime = static_cast<Runtime *>(user);
  py::gil_scoped_acquire gil;
  try {
    runtime->log(int(severity), message);
  } catch (py::error_already_set &error) {
    error.discard_as_unraisable("kiln runtime log callback");
  } catch (...) {
  }
}

std::shared_ptr<Runtime> createRuntime(int device, py::object driver,
                                       py::object log) {
  auto runtime = std::make_shared<Runtime>();
  runtime->log = log;
  std::string driverPath;
  if (!driver.is_none())
    driverPath = py::str(driver);
  kiln_status status;
  {
    py::gil_scoped_release release;
    status = kiln_runtime_create(
        driverPath.empty() ? nullptr : driverPath.c_str(), device,
        log.is_none() ? nullptr : logToPython, runtime.get(), &runtime->handle);
  }
  check(status);
  check(kiln_runtime_device_info(runtime->handle, &runtime->device));
  return runtime;
}

/// Device memory from the runtime's allocator, freed with it.
struct DeviceMemory {
  std::shared_ptr<Runtime> runtime;
  uint64_t ptr = 0;
  uint64_t bytes = 0;

  DeviceMemory(std::shared_ptr<Runtime> rt, uint64_t size)
      : runtime(std::move(rt)), bytes(size) {
    check(kiln_runtime_allocate(runtime->handle, size ? size : 1, &ptr));
  }
  ~DeviceMemory() { kiln_runtime_free(runtime->handle, ptr); }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
};

/// An array in device memory that kiln allocated: what run() and the
/// runtime's helpers give, and what DLPack consumers (torch.from_dlpack)
/// take without a copy.
struct DeviceArray {
  std::shared_ptr<DeviceMemory> memory;
  int type;
  std::vector<int64_t> shape;

  uint64_t nbytes() const { return memory->bytes; }
  py::array numpy() const {
    py::array host = newArray(type, shape);
    check(kiln_runtime_copy_to_host(
        memory->runtime->handle, host.mutable_data(), memory->ptr, nbytes()));
    return host;
  }
};

/// A numpy view of `value` with `type` and `shape`, contiguous (copied when
/// it is not), or an InvalidArgumentError naming tensor `name`. For an
/// output (`output`), `value` itself must be a writable, C-contiguous array
/// (a subclass too: np.memmap) to write into.
py::array hostArray(py::handle value, const std::string &name, int type,
                    const std::vector<int64_t> &shape, bool output = false) {
  py::array array = py::isinstance<py::array>(value)
                        ? py::reinterpret_borrow<py::array>(value)
                        : py::array::ensure(value);
  if (output && (!py::isinstance<py::array>(value) || !array.writeable() ||
                 !(array.flags() & py::array::c_style)))
    raiseStatus(1, "run: output '" + name +
                       "' must be a writable, C-contiguous numpy array (or a "
                       "CUDA DLPack tensor)");
  if (!array)
    raiseStatus(1, "tensor '" + name +
                       "': expected a numpy array or a DLPack "
                       "tensor, got " +
                       std::string(py::str(py::type::of(value))));
  py::dtype want = numpyDtype(type);
  if (!array.dtype().is(want) && !array.dtype().equal(want))
    raiseStatus(1, "tensor '" + name + "' is " +
                       std::string(py::str(array.dtype())) +
                       ", the engine's tensor " + typeName(type) +
                       " (convert it with .astype)");
  std::vector<int64_t> got(array.shape(), array.shape() + array.ndim());
  if (got != shape) {
    auto format = [](const std::vector<int64_t> &dims) {
      std::string text = "(";
      for (size_t i = 0; i < dims.size(); ++i)
        text += (i ? ", " : "") + std::to_string(dims[i]);
      return text + (dims.size() == 1 ? ",)" : ")");
    };
    raiseStatus(1, "tensor '" + name + "' has shape " + format(got) +
                       ", the engine's tensor " + format(shape));
  }
  if (output)
    return array;
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  if (!contiguous)
    throw py::error_already_set();
  return contiguous;
}

struct TensorInfo {
  int index;
  std::string name;
  int type;
  std::vector<int64_t> shape;
  bool isInput;
  uint64_t bytes;
};

struct Engine {
  std::shared_ptr<Runtime> runtime;
  kiln_engine *handle = nullptr;
  std::vector<TensorInfo> tensors;
  std::map<std::string, int> byName;

  ~Engine() {
    if (handle)
      kiln_engine_destroy(handle);
  }

  std::vector<std::string> names(bool inputs) const {
    std::vector<std::string> result;
    for (const TensorInfo &t : tensors)
      if (t.isInput == inputs)
        result.push_back(t.name);
    return result;
  }
};

/// A contiguous view of a buffer object (bytes, bytearray, a memoryview, a
/// numpy array), released with it.
struct ContiguousBuffer {
  Py_buffer view{};
  explicit ContiguousBuffer(py::handle object) {
    if (PyObject_GetBuffer(object.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      raiseStatus(1, "a plan must be bytes or a contiguous buffer, got " +
                         std::string(py::str(py::type::of(object))));
    }
  }
  ~ContiguousBuffer() { PyBuffer_Release(&view); }
};

std::shared_ptr<Engine> deserialize(std::shared_ptr<Runtime> runtime,
                                    py::object plan) {
  ContiguousBuffer bytes(plan);
  auto engine = std::make_shared<Engine>();
  engine->runtime = runtime;
  kiln_status status;
  {
    py::gil_scoped_release release;
    status = kiln_engine_deserialize(runtime->handle, bytes.view.buf,
                                     size_t(bytes.view.len), &engine->handle);
  }
  check(status);
  int count = 0;
  check(kiln_engine_num_tensors(engine->handle, &count));
  for (int i = 0; i < count; ++i) {
    TensorInfo t;
    t.index = i;
    const char *name = nullptr;
    kiln_data_type type;
    int rank = 0, isInput = 0;
    check(kiln_engine_tensor_name(engine->handle, i, &name));
    check(kiln_engine_tensor_data_type(engine->handle, i, &type));
    check(kiln_engine_tensor_rank(engine->handle, i, &rank));
    t.shape.resize(rank);
    check(kiln_engine_tensor_dims(engine->handle, i, t.shape.data(), rank));
    check(kiln_engine_tensor_is_input(engine->handle, i, &isInput));
    check(kiln_engine_tensor_bytes(engine->handle, i, &t.bytes));
    t.name = name;
    t.type = int(type);
    t.isInput = isInput != 0;
    engine->byName[t.name] = i;
    engine->tensors.push_back(std::move(t));
  }
  return engine;
}

std::string listNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &n : names)
    text += (text.empty() ? "'" : ", '") + n + "'";
  return text.empty() ? "none" : text;
}

struct ExecutionContext {
  std::shared_ptr<Engine> engine;
  kiln_context *handle = nullptr;
  /// run()'s stream and its buffers for host arrays, made on first use.
  void *stream = nullptr;
  std::vector<std::unique_ptr<DeviceMemory>> staging;
  /// Per tensor, the DLPack capsule of the tensor it is bound to (kept alive
  /// while bound), or None.
  std::vector<py::object> held;
  bool cudaGraphs = false;
  int profile = 0;
  /// Set while run or enqueue runs (they release the GIL): a context serves
  /// one thread at a time.
  bool busy = false;

  /// Marks the context busy for a scope, or raises when it already is.
  struct Busy {
    explicit Busy(ExecutionContext &c) : context(c) {
      if (c.busy)
        raiseStatus(1, "the execution context is running in another thread "
                       "(a context serves one thread at a time; make one "
                       "per thread)");
      c.busy = true;
    }
    ~Busy() { context.busy = false; }
    ExecutionContext &context;
  };

  ~ExecutionContext() {
    if (stream)
      kiln_runtime_stream_synchronize(engine->runtime->handle, stream);
    if (handle)
      kiln_context_destroy(handle);
    staging.clear();
    if (stream)
      kiln_runtime_stream_destroy(engine->runtime->handle, stream);
  }

  kiln_runtime *runtime() const { return engine->runtime->handle; }

  const TensorInfo &tensor(const std::string &name, const char *what) const {
    auto it = engine->byName.find(name);
    if (it == engine->byName.end())
      raiseStatus(KILN_STATUS_NOT_FOUND,
                  std::string(what) + ": the engine has no tensor named '" +
                      name + "'; its inputs are " +
                      listNames(engine->names(true)) + ", its outputs " +
                      listNames(engine->names(false)));
    return engine->tensors[it->second];
  }

  /// Binds `t` to `ptr`, a buffer of `bytes` bytes (the runtime refuses
  /// shapes that need more), keeping `owner` (a DLPack capsule, or None)
  /// alive while it stays bound.
  void bind(const TensorInfo &t, uint64_t ptr, uint64_t bytes,
            py::object owner = py::none()) {
    check(kiln_context_set_tensor_buffer(handle, t.name.c_str(), ptr, bytes));
    if (held.empty())
      held.resize(engine->tensors.size(), py::none());
    held[t.index] = std::move(owner);
  }

  /// Binds DLPack tensor `value` (on `device`) to `t` for work on
  /// `streamHandle`.
  void bindDLPack(const TensorInfo &t, py::handle value,
                  std::pair<int, int> device, uint64_t streamHandle) {
    py::object capsule;
    Expected want = expected(t);
    uint64_t ptr = takeDLPack(value, device, want, streamHandle, capsule);
    // takeDLPack checked that the tensor has the shape wanted.
    bind(t, ptr, bytesOf(t, want.shape), std::move(capsule));
  }

  Expected expected(const TensorInfo &t) const {
    return Expected{t.name, t.type, shapeOf(t),
                    engine->runtime->device.ordinal};
  }

  /// `t`'s shape at the shapes set: the engine's for a static tensor, else
  /// as set (an input) or computed from the inputs' (an output).
  std::vector<int64_t> shapeOf(const TensorInfo &t) const {
    if (!isDynamic(t))
      return t.shape;
    std::vector<int64_t> dims(t.shape.size());
    int rank = 0;
    check(kiln_context_get_tensor_shape(handle, t.name.c_str(), dims.data(),
                                        int(dims.size()), &rank));
    return dims;
  }

  /// The bytes of `t` at `shape`.
  static uint64_t bytesOf(const TensorInfo &t,
                          const std::vector<int64_t> &shape) {
    // numpy's own attribute: pybind11's itemsize() reads numpy 1's layout.
    uint64_t bytes = numpyDtype(t.type).attr("itemsize").cast<uint64_t>();
    for (int64_t d : shape)
      bytes *= uint64_t(d);
    return bytes;
  }

  /// Each dynamic input in `values` takes the shape of its value (a numpy
  /// array, anything with a .shape, or what numpy makes of it).
  void setShapes(const py::dict &values) {
    for (const TensorInfo &t : engine->tensors) {
      py::str key(t.name);
      if (!t.isInput || !isDynamic(t) || !values.contains(key))
        continue;
      py::object value = values[key];
      py::object shape = py::hasattr(value, "shape")
                             ? value.attr("shape")
                             : py::array::ensure(value).attr("shape");
      std::vector<int64_t> dims;
      for (py::handle d : py::tuple(shape))
        dims.push_back(d.cast<int64_t>());
      check(kiln_context_set_input_shape(handle, t.name.c_str(), dims.data(),
                                         int(dims.size())));
    }
  }

  static bool isDynamic(const TensorInfo &t) {
    return std::any_of(t.shape.begin(), t.shape.end(),
                       [](int64_t d) { return d < 0; });
  }

  /// Binds `value` when it is a torch CUDA tensor and the work runs on
  /// torch's current stream (`torchStream`, 0 when no torch tensor is
  /// bound): its address read from torch directly (TorchTensors.h). False
  /// otherwise (it then goes through DLPack, which orders the streams).
  bool bindTorch(const TensorInfo &t, py::handle value, uint64_t streamHandle,
                 std::optional<uint64_t> torchStream) {
    if (!torchStream || *torchStream != streamHandle ||
        !isTorchCudaTensor(value))
      return false;
    Expected want = expected(t);
    bind(t, torchAddress(value, want), bytesOf(t, want.shape),
         py::reinterpret_borrow<py::object>(value));
    return true;
  }

  /// torch's current stream when one of `values` is a torch CUDA tensor.
  std::optional<uint64_t>
  torchStreamFor(std::initializer_list<py::dict> dicts) {
    for (const py::dict &d : dicts)
      for (auto item : d)
        if (isTorchCudaTensor(item.second))
          return torchCurrentStream(engine->runtime->device.ordinal);
    return std::nullopt;
  }

  uint64_t stagingBuffer(const TensorInfo &t) {
    if (staging.empty())
      staging.resize(engine->tensors.size());
    if (!staging[t.index])
      staging[t.index] =
          std::make_unique<DeviceMemory>(engine->runtime, t.bytes);
    return staging[t.index]->ptr;
  }

  py::dict run(py::dict inputs, py::object outputs, py::object streamArg) {
    Busy scope(*this);
    py::dict given = outputs.is_none() ? py::dict() : outputs.cast<py::dict>();
    // Copies: the caller's code (a __dlpack__) may change the dicts.
    inputs = py::dict(inputs);
    given = py::dict(given);
    for (auto item : inputs)
      if (!tensor(py::str(item.first), "run").isInput)
        raiseStatus(1, "run: '" + std::string(py::str(item.first)) +
                           "' is an output; give outputs in outputs=");
    for (auto item : given)
      if (tensor(py::str(item.first), "run").isInput)
        raiseStatus(1, "run: '" + std::string(py::str(item.first)) +
                           "' is an input; give inputs in the first argument");
    // torch tensors run on torch's current stream, as torch's own ops do,
    // unless a stream is given.
    std::optional<uint64_t> torchStream = torchStreamFor({inputs, given});
    if (streamArg.is_none() && !torchStream && !stream) {
      void *created = nullptr;
      check(kiln_runtime_stream_create(runtime(), &created));
      stream = created;
    }
    uint64_t streamHandle = !streamArg.is_none() ? streamArg.cast<uint64_t>()
                            : torchStream        ? *torchStream
                                          : reinterpret_cast<uint64_t>(stream);
    void *runStream = reinterpret_cast<void *>(streamHandle);
    // Run-time shapes: the inputs' before anything is bound.
    setShapes(inputs);
    // Host arrays to copy back after the run: (tensor, destination or None).
    std::vector<std::pair<const TensorInfo *, py::object>> copyBack;
    for (const TensorInfo &t : engine->tensors) {
      py::str key(t.name);
      py::dict &source = t.isInput ? inputs : given;
      if (!source.contains(key)) {
        if (t.isInput)
          raiseStatus(1, "run: no value for input '" + t.name +
                             "' (the engine's inputs: " +
                             listNames(engine->names(true)) + ")");
        bind(t, stagingBuffer(t), t.bytes);
        copyBack.emplace_back(&t, py::none());
        continue;
      }
      py::object value = source[key];
      if (bindTorch(t, value, streamHandle, torchStream))
        continue;
      std::optional<std::pair<int, int>> device = dlpackDevice(value);
      if (device && isCudaDevice(device->first)) {
        bindDLPack(t, value, *device, streamHandle);
        continue;
      }
      std::vector<int64_t> shape = shapeOf(t);
      py::array host = hostArray(value, t.name, t.type, shape, !t.isInput);
      uint64_t buffer = stagingBuffer(t);
      if (t.isInput)
        check(kiln_runtime_copy_to_device(runtime(), buffer, host.data(),
                                          bytesOf(t, shape)));
      else
        copyBack.emplace_back(&t, host);
      bind(t, buffer, t.bytes);
    }
    kiln_status status;
    {
      py::gil_scoped_release release;
      status = kiln_context_enqueue(handle, runStream);
      if (status == KILN_STATUS_OK)
        status = kiln_runtime_stream_synchronize(runtime(), runStream);
    }
    check(status);
    py::dict results;
    for (const TensorInfo &t : engine->tensors)
      if (!t.isInput && given.contains(py::str(t.name)))
        results[py::str(t.name)] = given[py::str(t.name)];
    for (auto &[t, destination] : copyBack) {
      std::vector<int64_t> shape = shapeOf(*t);
      py::array host = destination.is_none() ? newArray(t->type, shape)
                                             : destination.cast<py::array>();
      check(kiln_runtime_copy_to_host(runtime(), host.mutable_data(),
                                      staging[t->index]->ptr,
                                      bytesOf(*t, shape)));
      results[py::str(t->name)] = host;
    }
    return results;
  }

  void enqueue(py::dict bindings, uint64_t streamHandle) {
    Busy scope(*this);
    // A list of its own: the caller's code (a __dlpack__) may change the
    // dict.
    py::list items(bindings.attr("items")());
    std::optional<uint64_t> torchStream = torchStreamFor({bindings});
    setShapes(py::dict(bindings));
    for (py::handle entry : items) {
      py::tuple item = entry.cast<py::tuple>();
      py::object name = item[0], value = item[1];
      const TensorInfo &t = tensor(py::str(name), "enqueue");
      if (bindTorch(t, value, streamHandle, torchStream))
        continue;
      std::optional<std::pair<int, int>> device = dlpackDevice(value);
      if (!device || !isCudaDevice(device->first))
        raiseStatus(1, "enqueue: tensor '" + t.name +
                           "' must be a CUDA DLPack tensor (torch, CuPy, "
                           "kiln.DeviceArray); run() takes numpy arrays");
      bindDLPack(t, value, *device, streamHandle);
    }
    kiln_status status;
    {
      py::gil_scoped_release release;
      status =
          kiln_context_enqueue(handle, reinterpret_cast<void *>(streamHandle));
    }
    check(status);
  }
};

std::shared_ptr<ExecutionContext>
createContext(std::shared_ptr<Engine> engine) {
  auto context = std::make_shared<ExecutionContext>();
  context->engine = engine;
  check(kiln_context_create(engine->handle, &context->handle));
  return context;
}

std::shared_ptr<DeviceArray> emptyArray(std::shared_ptr<Runtime> runtime,
                                        std::vector<int64_t> shape,
                                        py::handle dtype) {
  int type = typeFromPython(dtype);
  // At most 2^40 bytes, as kiln's host tensors.
  uint64_t bytes = uint64_t(typeBytes(type));
  for (int64_t d : shape) {
    if (d < 0)
      raiseStatus(1, "a DeviceArray cannot have a negative dimension");
    if (d != 0 && bytes > (uint64_t(1) << 40) / uint64_t(d))
      raiseStatus(1, "a DeviceArray of that shape would take more than 2^40 "
                     "bytes");
    bytes *= uint64_t(d);
  }
  auto array = std::make_shared<DeviceArray>();
  array->type = type;
  array->shape = std::move(shape);
  array->memory = std::make_shared<DeviceMemory>(runtime, bytes);
  return array;
}

std::string formatDeviceInfo(const kiln_device_info &d) {
  return "kiln.DeviceInfo(ordinal=" + std::to_string(d.ordinal) + ", name='" +
         d.name + "', compute_capability=(" +
         std::to_string(d.compute_capability_major) + ", " +
         std::to_string(d.compute_capability_minor) +
         "), multiprocessors=" + std::to_string(d.multiprocessor_count) + ")";
}

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "kiln's runtime: plans loaded on the GPU and run (see kiln).";
  // pybind11 2.10 loads numpy's API in a function-local static on first use,
  // importing numpy inside it: threads first using numpy at once deadlock
  // (one waits for the static, holding the GIL). Load it now.
  py::dtype::of<float>();
  m.attr("C_API_VERSION") = KILN_RUNTIME_C_API_VERSION;

  m.def(
      "load_plugin_library",
      [](const std::string &path) {
        check(kiln_load_plugin_library(path.c_str()));
      },
      py::arg("path"),
      "Loads a plugin library (KILN_PLUGIN_LIBRARY) and registers its "
      "creators, before plans that use them are deserialized.");

  py::class_<kiln_device_info>(m, "DeviceInfo",
                               "What the driver reports about a device.")
      .def_readonly("ordinal", &kiln_device_info::ordinal)
      .def_property_readonly(
          "name", [](const kiln_device_info &d) { return std::string(d.name); })
      .def_property_readonly("compute_capability",
                             [](const kiln_device_info &d) {
                               return py::make_tuple(
                                   d.compute_capability_major,
                                   d.compute_capability_minor);
                             })
      .def_readonly("multiprocessors", &kiln_device_info::multiprocessor_count)
      .def_readonly("total_memory", &kiln_device_info::total_memory_bytes)
      .def_readonly("driver_version", &kiln_device_info::driver_version)
      .def("__repr__", &formatDeviceInfo);

  py::class_<Runtime, std::shared_ptr<Runtime>>(
      m, "Runtime",
      "The CUDA driver and one device: loads plans as engines (TensorRT's "
      "IRuntime).")
      .def(py::init(&createRuntime), py::arg("device") = 0,
           py::arg("driver") = py::none(), py::arg("log") = py::none(),
           "Loads the driver (`driver`: a path, default libcuda.so.1) and "
           "uses device `device`. `log(severity, message)` receives the "
           "runtime's messages (None: warnings and errors to stderr).")
      .def_property_readonly(
          "device", [](const Runtime &r) { return r.device; },
          "The device's description (DeviceInfo).")
      .def("deserialize", &deserialize, py::arg("plan"),
           "Verifies and loads a plan (bytes or any buffer) as an Engine.")
      .def("empty", &emptyArray, py::arg("shape"), py::arg("dtype"),
           "An uninitialized DeviceArray of `shape` and `dtype`.")
      .def(
          "to_device",
          [](std::shared_ptr<Runtime> runtime, py::array host) {
            int type = typeFromPython(host.dtype());
            std::vector<int64_t> shape(host.shape(),
                                       host.shape() + host.ndim());
            auto array = emptyArray(runtime, shape, py::str(typeName(type)));
            py::array contiguous = py::array::ensure(host, py::array::c_style);
            check(kiln_runtime_copy_to_device(
                runtime->handle, array->memory->ptr, contiguous.data(),
                array->nbytes()));
            return array;
          },
          py::arg("array"), "A DeviceArray holding a copy of `array`.")
      .def(
          "synchronize",
          [](const Runtime &r, uint64_t stream) {
            kiln_status status;
            {
              py::gil_scoped_release release;
              status = kiln_runtime_stream_synchronize(
                  r.handle, reinterpret_cast<void *>(stream));
            }
            check(status);
          },
          py::arg("stream") = 0,
          "Waits for the work on `stream` (a CUstream as an int; 0: the "
          "legacy default stream).");

  py::class_<TensorInfo>(m, "TensorInfo", "An engine's input or output.")
      .def_readonly("name", &TensorInfo::name)
      .def_property_readonly(
          "dtype", [](const TensorInfo &t) { return typeName(t.type); },
          "The element type, as numpy (or ml_dtypes) names it.")
      .def_property_readonly(
          "shape",
          [](const TensorInfo &t) { return py::tuple(py::cast(t.shape)); })
      .def_readonly("is_input", &TensorInfo::isInput)
      .def_readonly("nbytes", &TensorInfo::bytes)
      .def("__repr__", [](const TensorInfo &t) {
        return "kiln.TensorInfo('" + t.name + "', " + typeName(t.type) + ", " +
               std::string(py::str(py::tuple(py::cast(t.shape)))) + ", " +
               (t.isInput ? "input" : "output") + ")";
      });

  py::class_<Engine, std::shared_ptr<Engine>>(
      m, "Engine", "A plan loaded on the device (TensorRT's ICudaEngine).")
      .def_property_readonly(
          "tensors", [](const Engine &e) { return e.tensors; },
          "Every input and output (TensorInfo), in the plan's order.")
      .def_property_readonly("inputs",
                             [](const Engine &e) { return e.names(true); })
      .def_property_readonly("outputs",
                             [](const Engine &e) { return e.names(false); })
      .def_property_readonly(
          "device_memory_size",
          [](const Engine &e) {
            uint64_t bytes = 0;
            check(kiln_engine_device_memory_size(e.handle, &bytes));
            return bytes;
          },
          "Bytes of device memory (the arena) one context needs.")
      .def_property_readonly(
          "num_optimization_profiles",
          [](const Engine &e) {
            int count = 0;
            check(kiln_engine_num_optimization_profiles(e.handle, &count));
            return count;
          },
          "The plan's optimization profiles (0 for a plan of one shape); a "
          "tensor's shape has -1 where it varies.")
      .def("create_execution_context", &createContext,
           "A context with its own arena (TensorRT's IExecutionContext).");

  py::class_<ExecutionContext, std::shared_ptr<ExecutionContext>>(
      m, "ExecutionContext",
      "Runs an engine; one thread at a time per context.")
      .def("run", &ExecutionContext::run, py::arg("inputs"),
           py::arg("outputs") = py::none(), py::arg("stream") = py::none(),
           "Runs the engine once and waits. `inputs` maps every input name "
           "to a numpy array (copied to the device) or a CUDA DLPack tensor "
           "(bound in place). `outputs` may map output names to CUDA DLPack "
           "tensors or numpy arrays to write into. Returns a dict of every "
           "output: the given objects, and new numpy arrays for the rest. "
           "It runs on `stream` (a CUstream as an int; 0: the legacy default "
           "stream) when given; else on torch's current stream when torch "
           "tensors are bound (as torch's ops do), else on a stream of the "
           "context's.")
      .def("enqueue", &ExecutionContext::enqueue, py::arg("bindings"),
           py::arg("stream") = 0,
           "Binds CUDA DLPack tensors (name -> tensor; names bound before "
           "keep their address) and enqueues the engine on `stream` (a "
           "CUstream as an int, e.g. torch.cuda.current_stream().cuda_stream; "
           "0: the legacy default stream) without waiting. Keep the tensors "
           "alive until that work is done.")
      .def(
          "set_tensor_address",
          [](ExecutionContext &c, const std::string &name, uint64_t ptr) {
            c.bind(c.tensor(name, "set_tensor_address"), ptr, UINT64_MAX);
          },
          py::arg("name"), py::arg("ptr"),
          "Binds tensor `name` to device address `ptr` (an int).")
      .def_property(
          "cuda_graphs", [](const ExecutionContext &c) { return c.cudaGraphs; },
          [](ExecutionContext &c, bool enabled) {
            check(kiln_context_set_cuda_graphs(c.handle, enabled ? 1 : 0));
            c.cudaGraphs = enabled;
          },
          "Set True to capture the steps into a CUDA graph once and launch "
          "the graph (enqueue's stream must not be 0).")
      .def(
          "set_input_shape",
          [](ExecutionContext &c, const std::string &name,
             const std::vector<int64_t> &shape) {
            check(kiln_context_set_input_shape(
                c.handle, name.c_str(), shape.data(), int(shape.size())));
          },
          py::arg("name"), py::arg("shape"),
          "Run-time shapes: input `name` takes `shape` for the next runs, "
          "within the current optimization profile (run() sets it from its "
          "arrays).")
      .def(
          "get_tensor_shape",
          [](const ExecutionContext &c, const std::string &name) {
            return py::tuple(
                py::cast(c.shapeOf(c.tensor(name, "get_tensor_shape"))));
          },
          py::arg("name"),
          "Tensor `name`'s shape at the shapes set, outputs included, before "
          "any run (-1 where an input it needs has none).")
      .def_property(
          "optimization_profile",
          [](const ExecutionContext &c) { return c.profile; },
          [](ExecutionContext &c, int index) {
            check(kiln_context_set_optimization_profile(c.handle, index));
            c.profile = index;
          },
          "The optimization profile whose ranges the shapes are checked "
          "against (0 at first).")
      .def_property_readonly(
          "engine", [](const ExecutionContext &c) { return c.engine; });

  py::class_<DeviceArray, std::shared_ptr<DeviceArray>>(
      m, "DeviceArray",
      "Device memory kiln allocated, shaped and typed; a DLPack tensor.")
      .def_property_readonly(
          "shape",
          [](const DeviceArray &a) { return py::tuple(py::cast(a.shape)); })
      .def_property_readonly(
          "dtype", [](const DeviceArray &a) { return typeName(a.type); })
      .def_property_readonly("nbytes", &DeviceArray::nbytes)
      .def_property_readonly(
          "ptr", [](const DeviceArray &a) { return a.memory->ptr; },
          "The device address.")
      .def("numpy", &DeviceArray::numpy, "A host copy (a numpy array).")
      .def("__dlpack_device__",
           [](const DeviceArray &a) {
             return py::make_tuple(2, a.memory->runtime->device.ordinal);
           })
      .def(
          "__dlpack__",
          [](py::object self, py::object stream) {
            const auto &a = self.cast<const DeviceArray &>();
            // kiln's copies are complete when they return; work enqueued on
            // a stream must be waited for first (documented).
            if (!stream.is_none() && py::int_(stream).cast<int64_t>() == 0)
              raiseStatus(1, "__dlpack__: stream 0 is not allowed for CUDA "
                             "(DLPack: 1 is the legacy default stream)");
            return makeDLPackCapsule(a.memory->ptr, a.type, a.shape,
                                     a.memory->runtime->device.ordinal, self);
          },
          py::arg("stream") = py::none(),
          "A DLPack capsule of this memory (no copy). Synchronize the "
          "stream of any enqueue that wrote it first.");
}
