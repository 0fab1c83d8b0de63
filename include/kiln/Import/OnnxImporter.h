//===- OnnxImporter.h - ONNX model to kiln IR -------------------*- C++ -*-===//
//
// Imports an ONNX model (binary protobuf or the ONNX text format) into a
// module holding one func.func of kiln ops. Every unsupported or malformed
// input is an error that names the node:
//   node 54 'conv_12' (Conv, domain '', opset 13): <what is wrong>
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_ONNXIMPORTER_H
#define KILN_IMPORT_ONNXIMPORTER_H

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

/// The shapes an input may take (TensorRT's optimization profile): each
/// dimension ranges from min to max, and opt is the shape to tune for. A
/// dimension whose min and max differ is dynamic (`?`) in the IR.
struct ShapeProfile {
  SmallVector<int64_t> min, opt, max;
};

struct OnnxImportOptions {
  /// Static shapes for inputs, by name (fixes dynamic dimensions).
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// Value for a dynamic first (batch) dimension of every input.
  std::optional<int64_t> batch;
  /// Ranges of input shapes, by name (--shapes).
  llvm::StringMap<ShapeProfile> profiles;
  /// Every input's dynamic first dimension ranges over 1..maxBatch, opt
  /// maxBatch (--max-batch).
  std::optional<int64_t> maxBatch;
  /// Inputs to treat as constants: name -> path of a serialized TensorProto.
  /// (Shape-like inputs such as Reshape's shape must be known at build time.)
  llvm::StringMap<std::string> constantInputs;
  /// Record every unsupported node instead of stopping at the first.
  bool collectUnsupported = false;
  /// Largest model file accepted, in bytes.
  uint64_t maxFileBytes = uint64_t(2) << 30;
  /// Deepest nesting of messages the parsers accept (binary and text).
  int maxRecursionDepth = 64;
  /// The largest tensor (input, initializer or result of a node) in bytes:
  /// a model whose shapes ask for more is refused, naming the node
  /// (CompilerOptions::maxMemoryBytes, --max-memory).
  uint64_t maxTensorBytes = uint64_t(16) << 30;
  /// Name of the function the network becomes.
  std::string functionName = "main";
  /// Where importOnnxBuffer reads external data from (a model file's is its
  /// folder); empty: a model given as bytes may not have external data.
  std::string externalDataDir;
};

struct OnnxImportResult {
  OwningOpRef<ModuleOp> module;
  /// With collectUnsupported: one line per node that cannot be imported.
  std::vector<std::string> unsupported;
  /// Graph inputs a node needs as constants (pass them in constantInputs).
  std::vector<std::string> needConstant;
};

/// Imports the model at `path`; errors go to the context's diagnostic handler.
LogicalResult importOnnxFile(MLIRContext *context, llvm::StringRef path,
                             const OnnxImportOptions &options,
                             OnnxImportResult &result);

/// Imports the model in `bytes` (binary or text format); `name` names it in
/// messages. External data is read from options.externalDataDir.
LogicalResult importOnnxBuffer(MLIRContext *context, llvm::StringRef bytes,
                               llvm::StringRef name,
                               const OnnxImportOptions &options,
                               OnnxImportResult &result);

/// The ONNX ops the importer handles: (op type, first opset of each handler).
std::vector<std::pair<std::string, int>> supportedOnnxOps();

/// Registers the dialects the importer creates ops of.
void registerOnnxImporterDialects(MLIRContext *context);

} // namespace kiln
} // namespace mlir

#endif // KILN_IMPORT_ONNXIMPORTER_H
