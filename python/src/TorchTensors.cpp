//===- TorchTensors.cpp - torch CUDA tensors bound directly ---------------===//

#include "TorchTensors.h"

#include "Common.h"

#include <string>

namespace kiln::python {

namespace {
/// torch.Tensor, once torch is imported; null before.
PyObject *tensorType() {
  static PyObject *type = nullptr;
  if (type)
    return type;
  PyObject *modules = PyImport_GetModuleDict();
  PyObject *torch = PyDict_GetItemString(modules, "torch"); // borrowed
  if (!torch)
    return nullptr;
  PyObject *tensor = PyObject_GetAttrString(torch, "Tensor");
  if (!tensor) {
    PyErr_Clear();
    return nullptr;
  }
  type = tensor; // kept for the process
  return type;
}

/// torch's dtype for kiln type `type`, or None where torch has none.
py::object torchDtype(int type) {
  static const char *names[kNumTypes] = {
      "float32", "float16", "bfloat16", "int8",  "int32",  "int64",
      "bool",    "float64", "int16",    "uint8", "uint16", "uint32",
      "uint64",  nullptr,   nullptr,    nullptr, nullptr,  nullptr,
      nullptr,   nullptr,   nullptr,    nullptr};
  if (!names[type])
    return py::none();
  return py::module_::import("torch").attr(names[type]);
}
} // namespace

bool isTorchCudaTensor(py::handle obj) {
  PyObject *type = tensorType();
  if (!type || PyObject_IsInstance(obj.ptr(), type) != 1)
    return false;
  return obj.attr("is_cuda").cast<bool>();
}

uint64_t torchCurrentStream(int ordinal) {
  py::module_ torchC = py::module_::import("torch._C");
  if (py::hasattr(torchC, "_cuda_getCurrentRawStream"))
    return torchC.attr("_cuda_getCurrentRawStream")(ordinal).cast<uint64_t>();
  return py::module_::import("torch.cuda")
      .attr("current_stream")(ordinal)
      .attr("cuda_stream")
      .cast<uint64_t>();
}

uint64_t torchAddress(py::handle obj, const Expected &e) {
  auto refuse = [&](const std::string &why) {
    raiseStatus(1, "tensor '" + e.name + "': " + why);
  };
  int device = obj.attr("get_device")().cast<int>();
  if (device != e.deviceOrdinal)
    refuse("the torch tensor is on CUDA device " + std::to_string(device) +
           ", the runtime on device " + std::to_string(e.deviceOrdinal));
  py::object dtype = obj.attr("dtype");
  if (!dtype.is(torchDtype(e.type)))
    refuse("the torch tensor is " + std::string(py::str(dtype)) +
           ", the engine's tensor " + typeName(e.type));
  py::tuple shape = obj.attr("shape");
  bool same = shape.size() == e.shape.size();
  for (size_t i = 0; same && i < e.shape.size(); ++i)
    same = shape[i].cast<int64_t>() == e.shape[i];
  if (!same) {
    std::string want = "(";
    for (size_t i = 0; i < e.shape.size(); ++i)
      want += (i ? ", " : "") + std::to_string(e.shape[i]);
    refuse("the torch tensor has shape " +
           std::string(py::str(py::tuple(shape))) + ", the engine's tensor " +
           want + (e.shape.size() == 1 ? ",)" : ")"));
  }
  if (!obj.attr("is_contiguous")().cast<bool>())
    refuse("the torch tensor is not contiguous and row-major; pass "
           ".contiguous()");
  return obj.attr("data_ptr")().cast<uint64_t>();
}

} // namespace kiln::python
