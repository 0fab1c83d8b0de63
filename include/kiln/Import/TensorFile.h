//===- TensorFile.h - read tensors from files -------------------*- C++ -*-===//
//
// Tensors in files for the tools: the ONNX test data format (one TensorProto
// per .pb file, read here with libonnx's schema) and NumPy .npy arrays (read
// by the host-tensor library, kiln_host_tensor).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_TENSORFILE_H
#define KILN_IMPORT_TENSORFILE_H

#include "kiln/tooling/HostTensor.h"

#include <string>

namespace mlir::kiln {

/// Reads a tensor file: a serialized TensorProto (.pb) or a NumPy array
/// (.npy, little-endian, C order). Errors (InvalidArgument) name the file
/// and the cause: unreadable, unsupported element type, a data size that
/// does not match the shape.
::kiln::rt::StatusOr<::kiln::tooling::HostTensor>
readTensorFile(const std::string &path);

} // namespace mlir::kiln

#endif // KILN_IMPORT_TENSORFILE_H
