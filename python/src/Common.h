//===- Common.h - what both native modules of the package share -*- C++ -*-===//
//
// Raising kiln's Python exceptions (kiln/_types.py) for a status, and the
// element types by name: kiln's types are numbered alike in the runtime's C
// API (kiln_data_type) and C++ (kiln::rt::DataType), and named as numpy and
// ml_dtypes name them. Included by kiln._runtime and kiln._compiler, which
// are built with RTTI and exceptions: nothing here includes MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_COMMON_H
#define KILN_PYTHON_COMMON_H

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::python {

namespace py = pybind11;

/// Raises the exception class of kiln/_types.py for status `code` (the
/// values of kiln_status) with `message`.
[[noreturn]] inline void raiseStatus(int code, const std::string &message) {
  py::object cls = py::module_::import("kiln._types").attr("error_class")(code);
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

/// The names of kiln's element types, by their number.
inline constexpr const char *kTypeNames[] = {
    "float32",     "float16",         "bfloat16",
    "int8",        "int32",           "int64",
    "bool",        "float64",         "int16",
    "uint8",       "uint16",          "uint32",
    "uint64",      "float8_e4m3fn",   "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float4_e2m1fn",
    "int4",        "uint4",           "int2",
    "uint2"};
inline constexpr int kNumTypes = sizeof(kTypeNames) / sizeof(kTypeNames[0]);

inline const char *typeName(int type) {
  return type >= 0 && type < kNumTypes ? kTypeNames[type] : "unknown";
}

/// Bytes per element, by type number (the sub-byte types take one).
inline int64_t typeBytes(int type) {
  static const uint8_t bytes[] = {4, 2, 2, 1, 4, 8, 1, 8, 2, 1, 2,
                                  4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  static_assert(sizeof(bytes) == kNumTypes);
  return bytes[type];
}

/// The type called `name` ("float32", ...), if kiln has it.
inline std::optional<int> typeFromName(const std::string &name) {
  for (int i = 0; i < kNumTypes; ++i)
    if (name == kTypeNames[i])
      return i;
  return std::nullopt;
}

/// The type of a dtype-like Python object (numpy.float32, "float16", an
/// ml_dtypes type), or an InvalidArgumentError naming it.
inline int typeFromPython(py::handle dtype) {
  std::string name;
  if (dtype.is_none())
    raiseStatus(1, "a dtype is needed, got None");
  if (py::isinstance<py::str>(dtype)) {
    name = dtype.cast<std::string>();
  } else {
    py::dtype d;
    try {
      d = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
    } catch (py::error_already_set &) {
      raiseStatus(1, "not a dtype: " + std::string(py::repr(dtype)));
    }
    if (!d.attr("isnative").cast<bool>())
      raiseStatus(1, "dtype " + std::string(py::str(d)) +
                         " is not in this machine's byte order (convert "
                         "with .astype(dtype.newbyteorder('=')))");
    name = py::str(d.attr("name"));
  }
  if (std::optional<int> type = typeFromName(name))
    return *type;
  raiseStatus(1, "kiln has no element type '" + name + "'");
}

/// The numpy dtype of `type`: numpy's own, or ml_dtypes' for bfloat16, the
/// float8 and the sub-byte types (an InvalidArgumentError when ml_dtypes is
/// not installed).
inline py::dtype numpyDtype(int type) {
  const char *name = typeName(type);
  switch (type) {
  case 2:
  case 13:
  case 14:
  case 15:
  case 16:
  case 17:
  case 18:
  case 19:
  case 20:
  case 21: {
    py::module_ mlDtypes;
    try {
      mlDtypes = py::module_::import("ml_dtypes");
    } catch (py::error_already_set &) {
      PyErr_Clear();
      raiseStatus(1, std::string("numpy arrays of ") + name +
                         " need the ml_dtypes package (pip install "
                         "ml_dtypes), or bind DLPack tensors instead");
    }
    return py::dtype::from_args(mlDtypes.attr(name));
  }
  default:
    return py::dtype::from_args(py::str(name));
  }
}

/// `value` as a C-contiguous numpy array: a numpy array as it is (copied
/// only when not contiguous), anything else (a sequence) as float32.
inline py::array contiguousArray(py::handle value) {
  py::array array =
      py::isinstance<py::array>(value)
          ? py::array::ensure(value, py::array::c_style)
          : py::array_t<float, py::array::c_style |
                                   py::array::forcecast>::ensure(value);
  if (!array)
    raiseStatus(1, "expected a numpy array or a sequence of numbers, got " +
                       std::string(py::str(py::type::of(value))));
  return array;
}

/// A new C-contiguous numpy array of `type` and `shape`. The strides are
/// given: pybind11 2.10 (Debian's) reads a dtype's item size at numpy 1's
/// offsets, which numpy 2 moved.
inline py::array newArray(int type, const std::vector<int64_t> &shape) {
  std::vector<py::ssize_t> strides(shape.size());
  int64_t stride = typeBytes(type);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return py::array(numpyDtype(type), shape, strides);
}

} // namespace kiln::python

#endif // KILN_PYTHON_COMMON_H
