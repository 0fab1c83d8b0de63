//===- TensorFile.h - read and write serialized ONNX tensors ----*- C++ -*-===//
//
// Tensors in files: the ONNX test data format (one TensorProto per .pb file)
// and NumPy .npy arrays.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_TENSORFILE_H
#define KILN_IMPORT_TENSORFILE_H

#include "kiln/Reference/HostTensor.h"

#include <string>

namespace mlir::kiln {

/// Reads a tensor file into `tensor`: a serialized TensorProto (.pb) or a
/// NumPy array (.npy, little-endian, C order). Returns an empty string or the
/// error (unreadable, unsupported element type, data size mismatch).
std::string readTensorFile(const std::string &path, HostTensor &tensor);

} // namespace mlir::kiln

#endif // KILN_IMPORT_TENSORFILE_H
