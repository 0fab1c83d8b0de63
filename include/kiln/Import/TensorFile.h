//===- TensorFile.h - read and write serialized ONNX tensors ----*- C++ -*-===//
//
// The ONNX test data format: one TensorProto per .pb file.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_TENSORFILE_H
#define KILN_IMPORT_TENSORFILE_H

#include "kiln/Reference/HostTensor.h"

#include <string>

namespace mlir::kiln {

/// Reads a TensorProto file into `tensor`; returns an empty string or the
/// error (unreadable, unsupported element type, data size mismatch).
std::string readTensorFile(const std::string &path, HostTensor &tensor);

} // namespace mlir::kiln

#endif // KILN_IMPORT_TENSORFILE_H
