//===- DLPack.cpp - DLPack tensors in and out of kiln._runtime ------------===//

#include "DLPack.h"

#include "Common.h"

#include <dlpack/dlpack.h>

namespace kiln::python {

namespace {
/// DLPack's bool (added after 0.6, kDLBool = 6 in later headers).
constexpr uint8_t kDLBoolCode = 6;

struct TypeCode {
  uint8_t code, bits;
};

/// DLPack's code and bits for kiln type `type`, where DLPack has it.
std::optional<TypeCode> dlpackType(int type) {
  switch (type) {
  case 0:
    return TypeCode{kDLFloat, 32};
  case 1:
    return TypeCode{kDLFloat, 16};
  case 2:
    return TypeCode{kDLBfloat, 16};
  case 3:
    return TypeCode{kDLInt, 8};
  case 4:
    return TypeCode{kDLInt, 32};
  case 5:
    return TypeCode{kDLInt, 64};
  case 6:
    return TypeCode{kDLBoolCode, 8};
  case 7:
    return TypeCode{kDLFloat, 64};
  case 8:
    return TypeCode{kDLInt, 16};
  case 9:
    return TypeCode{kDLUInt, 8};
  case 10:
    return TypeCode{kDLUInt, 16};
  case 11:
    return TypeCode{kDLUInt, 32};
  case 12:
    return TypeCode{kDLUInt, 64};
  default:
    return std::nullopt;
  }
}

std::string describeType(const DLDataType &t) {
  std::string text;
  switch (t.code) {
  case kDLFloat:
    text = "float";
    break;
  case kDLInt:
    text = "int";
    break;
  case kDLUInt:
    text = "uint";
    break;
  case kDLBfloat:
    text = "bfloat";
    break;
  case kDLBoolCode:
    text = "bool";
    break;
  default:
    text = "DLPack type code " + std::to_string(t.code) + " of ";
  }
  text += std::to_string(t.bits);
  if (t.lanes != 1)
    text += "x" + std::to_string(t.lanes);
  return text;
}

std::string formatShape(const int64_t *dims, int rank) {
  std::string text = "(";
  for (int i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (rank == 1 ? ",)" : ")");
}

/// The memory of a capsule kiln made: the DLManagedTensor, its dimensions
/// and the Python object that owns the device memory.
struct Exported {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  PyObject *owner;
};

void deleteExported(DLManagedTensor *managed) {
  auto *exported = static_cast<Exported *>(managed->manager_ctx);
  // The consumer may delete from any thread.
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(exported->owner);
  PyGILState_Release(gil);
  delete exported;
}

void deleteUnusedCapsule(PyObject *capsule) {
  // Only a capsule no consumer took still owns its tensor.
  if (!PyCapsule_IsValid(capsule, "dltensor"))
    return;
  auto *managed =
      static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (managed && managed->deleter)
    managed->deleter(managed);
}
} // namespace

std::optional<std::pair<int, int>> dlpackDevice(py::handle obj) {
  PyObject *method = PyObject_GetAttrString(obj.ptr(), "__dlpack_device__");
  if (!method) {
    PyErr_Clear();
    return std::nullopt;
  }
  py::object device = py::reinterpret_steal<py::object>(method)();
  try {
    py::tuple pair = device.cast<py::tuple>();
    if (pair.size() == 2)
      return std::make_pair(pair[0].cast<int>(), pair[1].cast<int>());
  } catch (py::cast_error &) {
  }
  raiseStatus(1, "__dlpack_device__() gave " + std::string(py::repr(device)) +
                     ", not (device type, device id)");
}

bool isCudaDevice(int deviceType) {
  return deviceType == kDLCUDA || deviceType == kDLCUDAManaged;
}

uint64_t takeDLPack(py::handle obj, std::pair<int, int> device,
                    const Expected &e, uint64_t stream, py::object &capsule) {
  auto refuse = [&](const std::string &why) {
    raiseStatus(1, "tensor '" + e.name + "': " + why);
  };
  auto [deviceType, ordinal] = device;
  if (!isCudaDevice(deviceType))
    refuse("the DLPack tensor is on device type " + std::to_string(deviceType) +
           ", not CUDA (bind CUDA tensors, or give run() numpy arrays)");
  if (ordinal != e.deviceOrdinal)
    refuse("the DLPack tensor is on CUDA device " + std::to_string(ordinal) +
           ", the runtime on device " + std::to_string(e.deviceOrdinal));
  // DLPack's stream numbers: 1 is the legacy default stream (0 is not
  // allowed for CUDA).
  capsule = obj.attr("__dlpack__")(py::arg("stream") = stream ? stream : 1);
  auto *managed = static_cast<DLManagedTensor *>(
      PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed)
    throw py::error_already_set();
  const DLTensor &t = managed->dl_tensor;
  std::optional<TypeCode> want = dlpackType(e.type);
  if (!want)
    refuse(std::string("kiln cannot bind ") + typeName(e.type) +
           " tensors through DLPack");
  if (t.dtype.code != want->code || t.dtype.bits != want->bits ||
      t.dtype.lanes != 1)
    refuse("the DLPack tensor is " + describeType(t.dtype) +
           ", the engine's tensor " + typeName(e.type));
  bool sameShape = t.ndim == int(e.shape.size());
  for (int i = 0; sameShape && i < t.ndim; ++i)
    sameShape = t.shape[i] == e.shape[i];
  if (!sameShape)
    refuse("the DLPack tensor has shape " + formatShape(t.shape, t.ndim) +
           ", the engine's tensor " +
           formatShape(e.shape.data(), int(e.shape.size())));
  if (t.strides) {
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != expected)
        refuse("the DLPack tensor is not contiguous and row-major (strides " +
               formatShape(t.strides, t.ndim) + "); pass a contiguous copy");
      expected *= t.shape[i];
    }
  }
  return reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
}

py::capsule makeDLPackCapsule(uint64_t ptr, int type,
                              const std::vector<int64_t> &shape,
                              int deviceOrdinal, py::object owner) {
  std::optional<TypeCode> code = dlpackType(type);
  if (!code)
    raiseStatus(1, std::string("DLPack has no ") + typeName(type) + " type");
  auto *exported = new Exported{};
  exported->shape = shape;
  exported->owner = owner.release().ptr();
  DLTensor &t = exported->managed.dl_tensor;
  t.data = reinterpret_cast<void *>(ptr);
  t.device = DLDevice{kDLCUDA, deviceOrdinal};
  t.ndim = int(shape.size());
  t.dtype = DLDataType{code->code, code->bits, 1};
  t.shape = exported->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = deleteExported;
  PyObject *capsule =
      PyCapsule_New(&exported->managed, "dltensor", deleteUnusedCapsule);
  if (!capsule) {
    deleteExported(&exported->managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

} // namespace kiln::python
