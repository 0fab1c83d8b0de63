//===- CaffeImporter.h - Caffe model to kiln IR -----------------*- C++ -*-===//
//
// Imports a Caffe network: its definition (a prototxt, protobuf text) and its
// trained weights (a caffemodel, binary protobuf), matched to the layers by
// layer name as Caffe does, into a module holding one func.func of kiln ops.
// Every error names its layer and where the prototxt defines it:
//   net.prototxt:12:1: layer 3 'conv1' (Convolution): <what is wrong>
// and a prototxt that does not parse names the line and column.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_CAFFEIMPORTER_H
#define KILN_IMPORT_CAFFEIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace kiln {

struct CaffeImportOptions {
  /// The blobs that become the function's results, in this order. Empty:
  /// every blob that a layer produces and no later layer consumes, sorted
  /// by name (Caffe's own net outputs).
  std::vector<std::string> outputs;
  /// Shapes that replace the declared shapes of inputs, by name (the rank
  /// must stay).
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// Replaces the first (batch) dimension of every input.
  std::optional<int64_t> batch;
  /// Largest prototxt and caffemodel file accepted, in bytes.
  uint64_t maxFileBytes = uint64_t(2) << 30;
  /// Deepest nesting of messages the parsers accept (text and binary).
  int maxRecursionDepth = 64;
  /// The largest tensor (input, weight or a layer's result) in bytes; a
  /// network whose shapes ask for more is refused, naming the layer.
  uint64_t maxTensorBytes = uint64_t(16) << 30;
  /// Name of the function the network becomes.
  std::string functionName = "main";
};

/// Imports the network of `prototxtPath` with the weights of
/// `caffemodelPath` (empty: none, for networks without weights or with
/// their blobs in the prototxt). Errors go to the context's diagnostic
/// handler.
LogicalResult importCaffeFiles(MLIRContext *context,
                               llvm::StringRef prototxtPath,
                               llvm::StringRef caffemodelPath,
                               const CaffeImportOptions &options,
                               OwningOpRef<ModuleOp> &result);

/// The Caffe layer types the importer handles (plugins aside).
std::vector<std::string> supportedCaffeLayers();

/// True when `path` names a Caffe network definition (.prototxt, .pbtxt).
bool isCaffePrototxtPath(llvm::StringRef path);

} // namespace kiln
} // namespace mlir

#endif // KILN_IMPORT_CAFFEIMPORTER_H
