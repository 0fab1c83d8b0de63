//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes host tensors as NumPy arrays (.npy format 1.0-3.0,
// little-endian, C order): f4, f2, i1, i4, i8 and b1. The header is checked
// against the file's size before any tensor memory is allocated.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_NPY_H
#define KILN_TOOLING_NPY_H

#include "kiln/tooling/HostTensor.h"

#include <string>

namespace kiln::tooling {

/// Reads `path`; the tensor is named after the file's stem. Errors
/// (InvalidArgument) name the file and what is wrong: unreadable, not .npy,
/// malformed or Fortran-order header, an unsupported dtype, an invalid
/// shape, fewer or more bytes than the shape needs.
rt::StatusOr<HostTensor> readNpy(const std::string &path);

/// Writes `tensor` to `path` (version 1.0 header). bf16 has no NumPy dtype
/// and is refused.
rt::Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace kiln::tooling

#endif // KILN_TOOLING_NPY_H
