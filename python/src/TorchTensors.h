//===- TorchTensors.h - torch CUDA tensors bound directly -------*- C++ -*-===//
//
// torch's DLPack export (Tensor.__dlpack__) is Python code that makes stream
// objects and an event on every call: about 15 us a tensor on the H200,
// more than the rest of a run's Python overhead together. When torch is
// imported and a binding is a torch CUDA tensor used on torch's current
// stream, the context reads its address, type, shape and contiguity through
// torch's own C-level methods instead, and keeps the tensor alive while it
// is bound. Other tensors, and torch tensors used on another stream (whose
// ordering the DLPack protocol provides), go through DLPack.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_TORCHTENSORS_H
#define KILN_PYTHON_TORCHTENSORS_H

#include "DLPack.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

namespace kiln::python {

namespace py = pybind11;

/// Whether `obj` is a torch CUDA tensor (false when torch is not imported).
bool isTorchCudaTensor(py::handle obj);

/// torch's current stream on CUDA device `ordinal` (a CUstream as an int; 0
/// is the legacy default stream).
uint64_t torchCurrentStream(int ordinal);

/// The device address of torch CUDA tensor `obj`, checked against
/// `expected` as takeDLPack checks (InvalidArgumentError naming the tensor).
uint64_t torchAddress(py::handle obj, const Expected &expected);

} // namespace kiln::python

#endif // KILN_PYTHON_TORCHTENSORS_H
