//===- ImportContext.h - state shared by the ONNX op handlers ---*- C++ -*-===//
//
// The importer walks the graph node by node; for each node it finds a handler
// in the (op type, since-version) table and gives it a NodeContext: typed
// access to the node's inputs and attributes, a checked way to create kiln
// ops, and error reporting that the importer prefixes with the node's name.
// Private to the importer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
#define KILN_LIB_IMPORT_ONNX_IMPORTCONTEXT_H

#include "kiln/Dialect/Kiln/IR/CheckedBuild.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Sizes.h"
#include "kiln/runtime/Plugin.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln::onnx_import {

class GraphImporter;
class SymbolicDims;

/// What a handler sees of one node.
class NodeContext {
public:
  NodeContext(GraphImporter &graph, const onnx::NodeProto &node, int64_t opset,
              OpBuilder &builder, Location loc)
      : graph(graph), node(node), opset(opset), b(builder), loc(loc) {}

  //===--- inputs ---===//
  /// True when input `i` is given (present and not the empty name).
  bool hasInput(unsigned i) const;
  unsigned numInputs() const { return node.input_size(); }
  /// Input `i`; a handler checks hasInput (or requireInputs) first.
  Value input(unsigned i) const;
  /// Makes input(i) return `value` for this node (a shape value computed at
  /// run time in place of its placeholder).
  void overrideInput(unsigned i, Value value);
  RankedTensorType inputType(unsigned i) const;
  /// Fails unless inputs [0, n) are all given.
  LogicalResult requireInputs(unsigned n);
  /// The values of constant input `i` (an initializer, a Constant node or a
  /// graph input passed as a constant). Fails, naming the input, otherwise.
  FailureOr<SmallVector<int64_t>> intInput(unsigned i);
  FailureOr<SmallVector<double>> floatInput(unsigned i);
  /// True when input `i` is given and already a constant.
  bool isConstantInput(unsigned i) const;

  //===--- attributes ---===//
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t getInt(llvm::StringRef name, int64_t dflt) const;
  float getFloat(llvm::StringRef name, float dflt) const;
  std::string getString(llvm::StringRef name, llvm::StringRef dflt) const;
  SmallVector<int64_t> getInts(llvm::StringRef name) const;

  //===--- outputs ---===//
  unsigned numOutputs() const { return node.output_size(); }
  /// True when output `i` is given and used by the graph.
  bool hasOutput(unsigned i) const;
  void setOutput(unsigned i, Value value);
  /// Makes `value` output `i`, or passes its failure on.
  LogicalResult result(FailureOr<Value> value, unsigned i = 0) {
    if (failed(value))
      return failure();
    setOutput(i, *value);
    return success();
  }

  //===--- building ---===//
  /// Creates an op whose result type kiln infers; fails (with the
  /// verifier's message) instead of crashing on bad operands.
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          ArrayRef<NamedAttribute> attributes = {}) {
    OperationState state(loc, OpTy::getOperationName());
    // A failure's message is captured as a diagnostic.
    if (failed(prepare(state, operands, attributes)) ||
        failed(inferResultTypes<OpTy>(b, state)))
      return failure();
    return finish(state);
  }
  /// Creates an op with the given result type (reshape, cast, resize).
  template <typename OpTy>
  FailureOr<Value> createTyped(Type resultType, ValueRange operands,
                               ArrayRef<NamedAttribute> attributes = {}) {
    OperationState state(loc, OpTy::getOperationName());
    if (failed(prepare(state, operands, attributes)))
      return failure();
    state.addTypes(resultType);
    return finish(state);
  }
  /// A kiln.binary of `kind` (numpy broadcasting).
  FailureOr<Value> binary(BinaryKind kind, Value lhs, Value rhs);
  /// `v` reshaped to `shape` (v itself when it has that shape).
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape);
  /// A kiln.constant.
  Value constant(ElementsAttr value);
  /// A splat constant of `element` type.
  Value splat(RankedTensorType type, double value);
  /// `v` transposed by `perm` (v itself for the identity).
  FailureOr<Value> transpose(Value v, ArrayRef<int64_t> perm);
  /// `v` cast to `element` (v itself when it has that element type).
  FailureOr<Value> castTo(Value v, Type element);
  /// An i64 constant of `shape` holding `values`.
  Value i64Constant(ArrayRef<int64_t> shape, ArrayRef<int64_t> values);

  //===--- generated tensors ---===//
  /// Fails, naming `what`, its shape and the memory budget, when a tensor of
  /// `shape` and `element` would take more bytes than the budget allows (or
  /// than 64 bits count). Handlers call it before they build anything that
  /// large, for their outputs and for their temporaries.
  LogicalResult checkBudget(const llvm::Twine &what, ArrayRef<int64_t> shape,
                            Type element);
  /// checkBudget for output `i`, named as the importer names it.
  LogicalResult checkOutputBudget(unsigned i, ArrayRef<int64_t> shape,
                                  Type element);
  /// Whether a generated tensor of `type` is small enough to be a constant
  /// (kMaxGeneratedConstantBytes); a larger one is built from iota.
  static bool isSmallGenerated(RankedTensorType type);
  /// A constant of `type` whose element `i` (in row-major order) is
  /// `valueAt(i)`, rounded to nearest even (floats) or truncated from int64
  /// (integers; i1 tests for non-zero), written once into a raw buffer.
  /// For tensors that isSmallGenerated accepts.
  Value generatedConstant(RankedTensorType type,
                          llvm::function_ref<double(int64_t)> valueAt);
  /// A kiln.iota of `type`: start + step * index along `dimension`. An
  /// integer type takes whole `start` and `step` that fit in int64. A type
  /// with dimensions that vary gives them in `shape` (SymbolicShapes.h).
  Value iota(RankedTensorType type, int64_t dimension, double start,
             double step, AffineMap shape = {});
  /// start + step * index along `dimension`, of `type`: a generated
  /// constant when isSmallGenerated, else a kiln.iota. Fails, naming `what`,
  /// when it would break the memory budget.
  FailureOr<Value> ramp(const llvm::Twine &what, RankedTensorType type,
                        int64_t dimension, double start = 0, double step = 1);
  NamedAttribute named(llvm::StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  DenseI64ArrayAttr i64s(ArrayRef<int64_t> values) {
    return b.getDenseI64ArrayAttr(values);
  }

  /// The folder external data is read from.
  llvm::StringRef modelDir() const;
  /// The dimensions of run-time shapes (SymbolicDims.h).
  SymbolicDims &symbolic();

  //===--- errors ---===//
  /// Records what is wrong with the node and fails.
  LogicalResult fail(const llvm::Twine &message);
  /// Like fail, for a valid model kiln cannot import (yet).
  LogicalResult unsupported(const llvm::Twine &message);
  /// Normalizes a possibly negative axis against `rank`.
  FailureOr<int64_t> axis(int64_t value, int64_t rank, llvm::StringRef what);

  GraphImporter &graph;
  const onnx::NodeProto &node;
  int64_t opset;
  OpBuilder &b;
  Location loc;

private:
  SmallVector<Value> inputOverrides;
  LogicalResult prepare(OperationState &state, ValueRange operands,
                        ArrayRef<NamedAttribute> attributes);
  /// Creates the op and verifies it; erases it and fails if it is invalid.
  FailureOr<Value> finish(OperationState &state);
};

using Handler = LogicalResult (*)(NodeContext &);

/// One row of the handler table: `handler` imports `opType` as defined in
/// operator set `sinceVersion` (and later sets, until the next row).
struct HandlerEntry {
  const char *opType;
  int sinceVersion;
  Handler handler;
};

/// The handler tables, one per family of ONNX ops.
void appendElementwiseHandlers(std::vector<HandlerEntry> &table);
void appendNeuralNetHandlers(std::vector<HandlerEntry> &table);
void appendShapeHandlers(std::vector<HandlerEntry> &table);
void appendLossHandlers(std::vector<HandlerEntry> &table);
void appendComposedHandlers(std::vector<HandlerEntry> &table);
void appendAttentionHandlers(std::vector<HandlerEntry> &table);
void appendOrderingHandlers(std::vector<HandlerEntry> &table);
void appendEinsumHandlers(std::vector<HandlerEntry> &table);
void appendScatterHandlers(std::vector<HandlerEntry> &table);
void appendPadHandlers(std::vector<HandlerEntry> &table);
/// Rows for the op versions after opset 17 that kiln imports, each with the
/// handler of the op's previous row (NewerVersions.cpp); after the others.
void appendNewerVersions(std::vector<HandlerEntry> &table);

/// The registered plugin creator that implements `node` (an op of a custom
/// `domain`, or one kiln does not know), or null (PluginNodes.cpp).
std::shared_ptr<::kiln::rt::PluginCreator>
findNodePlugin(const onnx::NodeProto &node, const std::string &domain);
/// Imports `node` as a kiln.plugin made by `creator`.
LogicalResult importPluginNode(NodeContext &nc,
                               const ::kiln::rt::PluginCreator &creator);

//===--- run-time shapes (SymbolicShapeHandlers.cpp) ---===//

/// Imports a node with an input computed from dimensions that vary at run
/// time (a shape value, SymbolicDims.h): the integer ops of shape
/// subgraphs, and Reshape, Expand and Range that take their shapes from
/// one. Other ops are refused, naming the input.
/// Where the op is not one of those, or an input is not a shape value or a
/// small integer constant, the shape values are computed at run time (from
/// generated tensors of their lengths) and `handler` imports the node.
LogicalResult
importSymbolic(NodeContext &nc,
               llvm::function_ref<LogicalResult(NodeContext &)> handler);
/// Shape (dimensions [start, end)) or Size of an input with dimensions that
/// vary at run time, as a shape value.
LogicalResult shapeOfDynamic(NodeContext &nc, int64_t start, int64_t end);
/// Reshape of an input with several dimensions that vary at run time to
/// the constant `spec` (ONNX's 0 and -1).
LogicalResult reshapeDynamic(NodeContext &nc, ArrayRef<int64_t> spec);
/// ConstantOfShape whose shape is a shape value.
LogicalResult constantOfShapeDynamic(NodeContext &nc, Type element,
                                     double value);

/// Converts a TensorProto (with `raw_data` moved out, not copied, when it
/// can be) to an attribute; external data is read relative to `modelDir`.
FailureOr<ElementsAttr> convertTensor(MLIRContext *context,
                                      onnx::TensorProto &tensor,
                                      llvm::StringRef modelDir,
                                      llvm::StringRef resourceName,
                                      std::string &error);

/// The `count` elements of 4 or 2 `bits` that `tensor` packs (INT4, UINT4,
/// FLOAT4E2M1, INT2, UINT2: the first in the low bits of raw_data's first
/// byte, or of the first int32_data entry), one per byte, sign-extended when
/// `isSigned`; nullopt, with `error` naming the field, when it does not hold
/// ceil(count * bits / 8) bytes.
std::optional<std::string> unpackSubByte(const onnx::TensorProto &tensor,
                                         int64_t count, int bits, bool isSigned,
                                         std::string &error);

/// The kiln element type of an ONNX data type, or null.
Type convertElementType(MLIRContext *context, int32_t dataType);
/// "FLOAT", "DOUBLE", ...
std::string dataTypeName(int32_t dataType);

} // namespace mlir::kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
