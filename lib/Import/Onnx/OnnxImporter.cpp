//===- OnnxImporter.cpp - ONNX model to kiln IR -----------------*- C++ -*-===//
//
// Reads a model (binary protobuf with explicit size and recursion limits, or
// the ONNX text format through libonnx's parser), checks its graph, and turns
// it into one func.func: graph inputs become arguments (initializers and
// Constant nodes become kiln.constant), each node is imported by the handler
// that the (op type, since-version) table picks for the model's opset, and
// graph outputs are returned. Every error names its node.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/OnnxImporter.h"

#include "ImportContext.h"
#include "SymbolicDims.h"
#include "kiln/Dialect/Kiln/IR/ConstantFolding.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "kiln/Support/Sizes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

/// "1x?x224" for a declared ONNX shape.
static std::string onnxShapeString(const onnx::TensorShapeProto &shape) {
  std::string s;
  for (int i = 0; i < shape.dim_size(); ++i) {
    s += i ? "x" : "";
    s += shape.dim(i).has_dim_value() ? std::to_string(shape.dim(i).dim_value())
                                      : std::string("?");
  }
  return s.empty() ? "scalar" : s;
}

namespace mlir::kiln::onnx_import {

/// Imports one graph into one function.
class GraphImporter {
public:
  /// `path` names the model in messages; external data is read from
  /// inside `modelDir` (none when it is empty).
  GraphImporter(MLIRContext *ctx, const OnnxImportOptions &options,
                OnnxImportResult &result, std::string path,
                std::string modelDir)
      : ctx(ctx), options(options), result(result), path(std::move(path)),
        modelDir(std::move(modelDir)),
        fileLoc(FileLineColLoc::get(ctx, this->path, 0, 0)) {}

  LogicalResult run(onnx::ModelProto &model);

  /// Values by ONNX name.
  llvm::StringMap<Value> values;
  /// Graph inputs that are function arguments, by name.
  llvm::StringMap<unsigned> argumentIndex;
  /// Why a value of `type` may not be made (too many bytes for 64 bits, or
  /// for the memory budget), or "".
  std::string checkBudget(Type type) const;
  /// Whether the handler of `opType` takes inputs with dynamic dimensions.
  static bool takesRunTimeShapes(StringRef opType);
  /// The dimensions of run-time shapes, and the shape values.
  SymbolicDims symbolic;

  /// Messages of the node being imported.
  std::string nodeError;
  bool nodeUnsupported = false;

  MLIRContext *ctx;
  const OnnxImportOptions &options;
  OnnxImportResult &result;
  std::string path, modelDir;
  Location fileLoc;

private:
  LogicalResult error(const Twine &message) {
    emitError(fileLoc) << message;
    return failure();
  }
  LogicalResult importInputs(const onnx::GraphProto &graph, OpBuilder &b,
                             SmallVectorImpl<Type> &argTypes,
                             SmallVectorImpl<std::string> &argNames,
                             SmallVectorImpl<ShapeProfile> &argProfiles);
  /// The shape of input `name` under its range (--shapes, --max-batch), with
  /// `?` where min and max differ; `model` holds the model's dims (-1 where
  /// dynamic). Empty `profile.max` when the input has no range.
  LogicalResult rangedShape(StringRef name, ArrayRef<int64_t> model,
                            SmallVectorImpl<int64_t> &shape,
                            ShapeProfile &profile);
  /// The graph's initializers, and (for the main graph) the tensors given
  /// with --constant-input.
  LogicalResult importInitializers(onnx::GraphProto &graph, OpBuilder &b,
                                   bool constantInputs = true);
  /// An If whose condition is a constant: the chosen branch's nodes are
  /// imported in its place.
  LogicalResult importConstantIf(
      onnx::NodeProto &node, OpBuilder &b,
      llvm::function_ref<LogicalResult(const std::string &, bool)> report);
  LogicalResult importNode(onnx::NodeProto &node, int index, OpBuilder &b);
  /// Why an attribute of `node` does not have the type its schema declares,
  /// or "".
  std::string checkAttributeTypes(const onnx::NodeProto &node,
                                  const std::string &domain);
  /// The handler row for `node`'s op in the model's opset; null, with the
  /// reason in `why`, when there is none.
  const HandlerEntry *findHandler(const onnx::NodeProto &node,
                                  std::string &why);

  std::vector<HandlerEntry> table;
  int64_t opset = 0;
  int64_t irVersion = 0;
};

} // namespace mlir::kiln::onnx_import

/// Every handler row: the families' tables, then the newer versions.
static std::vector<HandlerEntry> handlerTable() {
  std::vector<HandlerEntry> table;
  appendElementwiseHandlers(table);
  appendNeuralNetHandlers(table);
  appendShapeHandlers(table);
  appendLossHandlers(table);
  appendComposedHandlers(table);
  appendAttentionHandlers(table);
  appendOrderingHandlers(table);
  appendEinsumHandlers(table);
  appendScatterHandlers(table);
  appendPadHandlers(table);
  appendNewerVersions(table);
  return table;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

llvm::StringRef NodeContext::modelDir() const { return graph.modelDir; }

bool NodeContext::hasInput(unsigned i) const {
  return i < static_cast<unsigned>(node.input_size()) && !node.input(i).empty();
}

Value NodeContext::input(unsigned i) const {
  if (i < inputOverrides.size() && inputOverrides[i])
    return inputOverrides[i];
  return graph.values.lookup(node.input(i));
}

void NodeContext::overrideInput(unsigned i, Value value) {
  if (inputOverrides.size() <= i)
    inputOverrides.resize(i + 1);
  inputOverrides[i] = value;
}

RankedTensorType NodeContext::inputType(unsigned i) const {
  return cast<RankedTensorType>(input(i).getType());
}

LogicalResult NodeContext::requireInputs(unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if (!hasInput(i))
      return fail("expects input " + Twine(i));
  return success();
}

/// The ElementsAttr of a kiln.constant, or null.
static ElementsAttr constantValue(Value value) {
  if (auto op = value.getDefiningOp<ConstantOp>())
    return op.getValue();
  return nullptr;
}

/// Reads every element of `attr` as double (ints and floats).
static bool readValues(ElementsAttr attr, SmallVectorImpl<double> &out) {
  Type element = attr.getElementType();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(element)) {
      for (APFloat v : dense.getValues<APFloat>())
        out.push_back(v.convertToDouble());
      return true;
    }
    for (APInt v : dense.getValues<APInt>())
      out.push_back(element.isInteger(1) || element.isUnsignedInteger()
                        ? double(v.getZExtValue())
                        : double(v.getSExtValue()));
    return true;
  }
  if (element.isUnsignedInteger())
    return false; // large unsigned blobs are never shapes
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return false;
  ArrayRef<char> data = blob->getData();
  int64_t n = attr.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (element.isF32()) {
      float v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      out.push_back(v);
    } else if (element.isInteger(64)) {
      int64_t v;
      std::memcpy(&v, data.data() + 8 * i, 8);
      out.push_back(double(v));
    } else if (element.isInteger(32)) {
      int32_t v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      out.push_back(v);
    } else if (element.isF64()) {
      double v;
      std::memcpy(&v, data.data() + 8 * i, 8);
      out.push_back(v);
    } else if (element.isInteger(16)) {
      int16_t v;
      std::memcpy(&v, data.data() + 2 * i, 2);
      out.push_back(v);
    } else if (element.isInteger(8)) {
      out.push_back(static_cast<int8_t>(data[i]));
    } else {
      return false;
    }
  }
  return true;
}

bool NodeContext::isConstantInput(unsigned i) const {
  return hasInput(i) && constantValue(input(i));
}

FailureOr<SmallVector<double>> NodeContext::floatInput(unsigned i) {
  if (!hasInput(i))
    return fail("expects input " + Twine(i));
  if (graph.symbolic.shapeValue(input(i)) ||
      graph.symbolic.materializedValues.contains(input(i)))
    return unsupported("input " + Twine(i) + " ('" + node.input(i) +
                       "') is computed from dimensions that vary at run "
                       "time, and this op needs it as a constant");
  ElementsAttr attr = constantValue(input(i));
  if (!attr) {
    // The input itself when it is a graph input, else the integer graph
    // inputs it is computed from (shapes, axes): with those as constants
    // (the caller's --constant-input), it may fold.
    llvm::DenseSet<Value> seen = {input(i)};
    llvm::SmallDenseSet<unsigned> arguments;
    SmallVector<Value> work = {input(i)};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (auto argument = dyn_cast<BlockArgument>(v)) {
        if (v == input(i) ||
            isa<IntegerType>(getElementTypeOrSelf(argument.getType())))
          arguments.insert(argument.getArgNumber());
      } else if (Operation *def = v.getDefiningOp())
        for (Value operand : def->getOperands())
          if (seen.insert(operand).second)
            work.push_back(operand);
    }
    for (const auto &entry : graph.argumentIndex)
      if (arguments.count(entry.second))
        graph.result.needConstant.push_back(entry.first().str());
    return unsupported("input " + Twine(i) + " ('" + node.input(i) +
                       "') must be a constant (an initializer or a Constant "
                       "node) to be imported");
  }
  SmallVector<double> values;
  if (!readValues(attr, values))
    return fail("cannot read the values of input " + Twine(i));
  return values;
}

FailureOr<SmallVector<int64_t>> NodeContext::intInput(unsigned i) {
  FailureOr<SmallVector<double>> values = floatInput(i);
  if (failed(values))
    return failure();
  ElementsAttr attr = constantValue(input(i));
  Type element = attr.getElementType();
  SmallVector<int64_t> ints;
  // Integers are read exactly (INT64_MAX is a common Slice end), not
  // through double.
  if (element.isInteger(64) || element.isInteger(32)) {
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      for (APInt v : dense.getValues<APInt>())
        ints.push_back(v.getSExtValue());
      return ints;
    }
    auto resource = cast<DenseResourceElementsAttr>(attr);
    ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
    for (int64_t k = 0, n = attr.getNumElements(); k < n; ++k) {
      if (element.isInteger(64)) {
        int64_t v;
        std::memcpy(&v, data.data() + 8 * k, 8);
        ints.push_back(v);
      } else {
        int32_t v;
        std::memcpy(&v, data.data() + 4 * k, 4);
        ints.push_back(v);
      }
    }
    return ints;
  }
  for (double v : *values)
    ints.push_back(std::isfinite(v) && std::fabs(v) < 9.2e18
                       ? static_cast<int64_t>(v)
                       : 0);
  return ints;
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::getInt(llvm::StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : dflt;
}

float NodeContext::getFloat(llvm::StringRef name, float dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string NodeContext::getString(llvm::StringRef name,
                                   llvm::StringRef dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : dflt.str();
}

SmallVector<int64_t> NodeContext::getInts(llvm::StringRef name) const {
  SmallVector<int64_t> out;
  if (const onnx::AttributeProto *a = attr(name))
    out.append(a->ints().begin(), a->ints().end());
  return out;
}

bool NodeContext::hasOutput(unsigned i) const {
  return i < static_cast<unsigned>(node.output_size()) &&
         !node.output(i).empty();
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (hasOutput(i))
    graph.values[node.output(i)] = value;
}

SymbolicDims &NodeContext::symbolic() { return graph.symbolic; }

LogicalResult NodeContext::fail(const llvm::Twine &message) {
  if (graph.nodeError.empty())
    graph.nodeError = message.str();
  return failure();
}

LogicalResult NodeContext::unsupported(const llvm::Twine &message) {
  graph.nodeUnsupported = true;
  return fail(message);
}

FailureOr<int64_t> NodeContext::axis(int64_t value, int64_t rank,
                                     llvm::StringRef what) {
  int64_t normalized = value < 0 ? value + rank : value;
  if (normalized < 0 || normalized >= rank)
    return fail(what + " " + Twine(value) + " is out of range for rank " +
                Twine(rank));
  return normalized;
}

FailureOr<Value> NodeContext::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return createTyped<ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), {v});
}

Value NodeContext::constant(ElementsAttr value) {
  return ConstantOp::create(b, loc, value);
}

FailureOr<Value> NodeContext::binary(BinaryKind kind, Value lhs, Value rhs) {
  return create<BinaryOp>(
      {lhs, rhs}, {named("kind", BinaryKindAttr::get(b.getContext(), kind))});
}

Value NodeContext::splat(RankedTensorType type, double value) {
  Type element = type.getElementType();
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(element))
    scalar = FloatAttr::get(f, value);
  else
    scalar = IntegerAttr::get(element, static_cast<int64_t>(value));
  return constant(DenseElementsAttr::get(type, scalar));
}

FailureOr<Value> NodeContext::transpose(Value v, ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return create<TransposeOp>({v}, {named("permutation", i64s(perm))});
  return v;
}

FailureOr<Value> NodeContext::castTo(Value v, Type element) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == element)
    return v;
  return createTyped<CastOp>(RankedTensorType::get(type.getShape(), element),
                             {v});
}

Value NodeContext::i64Constant(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

LogicalResult NodeContext::checkBudget(const Twine &what,
                                       ArrayRef<int64_t> shape, Type element) {
  for (int64_t d : shape)
    if (d < 0 && !ShapedType::isDynamic(d)) // `?`: checked at the max shape
      return fail(what + " would have a negative dimension");
  if (std::string why =
          graph.checkBudget(RankedTensorType::get(shape, element));
      !why.empty())
    return fail(what + " " + why);
  return success();
}

LogicalResult NodeContext::checkOutputBudget(unsigned i,
                                             ArrayRef<int64_t> shape,
                                             Type element) {
  std::string name =
      i < static_cast<unsigned>(node.output_size()) ? node.output(i) : "";
  return checkBudget("output " + Twine(i) + " '" + name + "'", shape, element);
}

bool NodeContext::isSmallGenerated(RankedTensorType type) {
  std::optional<uint64_t> bytes = getByteSize(type);
  return bytes && *bytes <= kMaxGeneratedConstantBytes;
}

Value NodeContext::generatedConstant(
    RankedTensorType type, llvm::function_ref<double(int64_t)> valueAt) {
  Type element = type.getElementType();
  int64_t n = type.getNumElements();
  if (element.isInteger(1)) {
    // i1 has its own storage; DenseElementsAttr packs it.
    SmallVector<bool> bits(n);
    for (int64_t i = 0; i < n; ++i)
      bits[i] = valueAt(i) != 0;
    return constant(DenseElementsAttr::get(type, ArrayRef<bool>(bits)));
  }
  // Every other element takes whole bytes in a DenseElementsAttr's buffer.
  size_t width = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  std::vector<char> buffer(static_cast<size_t>(n) * width);
  auto floatType = dyn_cast<FloatType>(element);
  for (int64_t i = 0; i < n; ++i) {
    double x = valueAt(i);
    uint64_t bits;
    if (floatType) {
      APFloat a(x);
      bool lost;
      a.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      bits = a.bitcastToAPInt().getZExtValue();
    } else {
      bits = static_cast<uint64_t>(static_cast<int64_t>(x));
    }
    // The host's byte order, as DenseElementsAttr keeps it (little endian).
    std::memcpy(buffer.data() + i * width, &bits, width);
  }
  return constant(DenseElementsAttr::getFromRawBuffer(type, buffer));
}

Value NodeContext::iota(RankedTensorType type, int64_t dimension, double start,
                        double step, AffineMap shape) {
  TypedAttr startAttr, stepAttr;
  if (isa<FloatType>(type.getElementType())) {
    startAttr = b.getF64FloatAttr(start);
    stepAttr = b.getF64FloatAttr(step);
  } else {
    startAttr = b.getI64IntegerAttr(static_cast<int64_t>(start));
    stepAttr = b.getI64IntegerAttr(static_cast<int64_t>(step));
  }
  auto op = IotaOp::create(b, loc, type, b.getI64IntegerAttr(dimension),
                           startAttr, stepAttr,
                           shape ? AffineMapAttr::get(shape) : AffineMapAttr());
  graph.symbolic.record(op);
  return op;
}

FailureOr<Value> NodeContext::ramp(const Twine &what, RankedTensorType type,
                                   int64_t dimension, double start,
                                   double step) {
  if (failed(checkBudget(what, type.getShape(), type.getElementType())))
    return failure();
  if (!isSmallGenerated(type))
    return iota(type, dimension, start, step);
  int64_t inner = 1;
  for (int64_t d = dimension + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  int64_t extent = type.getDimSize(dimension);
  return generatedConstant(type, [&](int64_t i) {
    return start + step * double(i / inner % extent);
  });
}

LogicalResult NodeContext::prepare(OperationState &state, ValueRange operands,
                                   ArrayRef<NamedAttribute> attributes) {
  for (Value v : operands)
    if (!v)
      return fail("internal error: missing operand for " +
                  state.name.getStringRef());
  state.addOperands(operands);
  state.addAttributes(attributes);
  return success();
}

FailureOr<Value> NodeContext::finish(OperationState &state) {
  FailureOr<Operation *> created = createVerified(b, state);
  if (failed(created))
    return failure();
  Operation *op = *created;
  graph.symbolic.record(op);
  // Shapes are static, so what an exported network computes from shapes
  // and constants (a Reshape's target, an Expand's shape, a mask) is a
  // constant: fold it now, for the nodes that need it as one.
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands())
    if (ElementsAttr value = constantValue(v))
      operands.push_back(value);
  bool staticResults = llvm::all_of(op->getResultTypes(), [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  });
  if (operands.size() == op->getNumOperands() && staticResults)
    if (ElementsAttr value = evaluateConstant(op, operands)) {
      op->erase();
      return constant(value);
    }
  return op->getResult(0);
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

namespace {
/// One version of an op newer than opset 17 (what Debian's onnx 1.12 knows).
struct OpVersion {
  const char *opType;
  int version;
};
#define KILN_ONNX_OP_VERSION(op, v) {op, v},
const OpVersion newerOpVersions[] = {
#include "OnnxOpVersions.inc"
};
#undef KILN_ONNX_OP_VERSION
} // namespace

/// The version of `opType` in operator set `opset` when it is newer than
/// 17, or 0.
static int newerOpVersion(llvm::StringRef opType, int64_t opset) {
  int version = 0;
  for (const OpVersion &row : newerOpVersions)
    if (opType == row.opType && row.version <= opset)
      version = std::max(version, row.version);
  return version;
}

const HandlerEntry *GraphImporter::findHandler(const onnx::NodeProto &node,
                                               std::string &why) {
  const HandlerEntry *best = nullptr;
  for (const HandlerEntry &entry : table)
    if (node.op_type() == entry.opType && entry.sinceVersion <= opset &&
        (!best || entry.sinceVersion > best->sinceVersion))
      best = &entry;
  if (!best) {
    why = "op '" + node.op_type() + "' is not supported";
    return nullptr;
  }
  // A row covers the versions after it up to opset 17, which were checked
  // against onnx 1.12; a newer version needs its own row, since its meaning
  // may have changed (Reduce* take their axes as an input from 18).
  int version = newerOpVersion(node.op_type(), opset);
  if (version > best->sinceVersion) {
    why = "op '" + node.op_type() + "' version " + std::to_string(version) +
          " (opset " + std::to_string(opset) +
          ") is not supported; kiln imports the versions before it";
    return nullptr;
  }
  return best;
}

LogicalResult GraphImporter::rangedShape(StringRef name,
                                         ArrayRef<int64_t> model,
                                         SmallVectorImpl<int64_t> &shape,
                                         ShapeProfile &profile) {
  auto given = options.profiles.find(name);
  if (given != options.profiles.end()) {
    profile = given->second;
    if (profile.max.size() != model.size())
      return error("--shapes for '" + name + "' has rank " +
                   Twine(profile.max.size()) +
                   ", but the model's input has rank " + Twine(model.size()));
    for (auto [i, d] : llvm::enumerate(model))
      if (d >= 0 && (profile.min[i] != d || profile.max[i] != d))
        return error("--shapes for '" + name + "' gives dimension " + Twine(i) +
                     " the range [" + Twine(profile.min[i]) + ", " +
                     Twine(profile.max[i]) + "], which the model fixes at " +
                     Twine(d));
  } else if (options.maxBatch && !options.inputShapes.count(name)) {
    if (model.empty() || model[0] >= 0)
      return error("input '" + name + "' " +
                   (model.empty()
                        ? Twine("is a scalar")
                        : "fixes its first dimension at " + Twine(model[0])) +
                   "; --max-batch needs every input's first dimension "
                   "dynamic (export the model with a dynamic batch axis, or "
                   "give this input's range with --shapes)");
    profile.min.assign(model.begin(), model.end());
    profile.min[0] = 1;
    profile.opt = profile.min;
    profile.opt[0] = *options.maxBatch;
    profile.max = profile.opt;
    for (auto [i, d] : llvm::enumerate(model))
      if (i > 0 && d < 0)
        return error("input '" + name + "' has dynamic dimension " + Twine(i) +
                     "; --max-batch ranges the first dimension "
                     "only: give the others with --shapes " +
                     name + "=...");
  } else {
    return success();
  }
  for (auto [lo, hi] : llvm::zip(profile.min, profile.max))
    shape.push_back(lo == hi ? lo : ShapedType::kDynamic);
  return success();
}

LogicalResult
GraphImporter::importInputs(const onnx::GraphProto &graph, OpBuilder &b,
                            SmallVectorImpl<Type> &argTypes,
                            SmallVectorImpl<std::string> &argNames,
                            SmallVectorImpl<ShapeProfile> &argProfiles) {
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()) ||
        options.constantInputs.count(input.name()))
      continue;
    const std::string &name = input.name();
    if (name.empty())
      return error("graph input with an empty name");
    if (!input.type().has_tensor_type())
      return error("input '" + name +
                   "' is not a tensor (sequences, maps and "
                   "optionals are not supported)");
    const auto &tensorType = input.type().tensor_type();
    Type element = convertElementType(ctx, tensorType.elem_type());
    if (!element)
      return error("input '" + name + "' has element type " +
                   dataTypeName(tensorType.elem_type()) +
                   ", which kiln does not support");
    if (!tensorType.has_shape())
      return error("input '" + name +
                   "' has no shape; give it with "
                   "--input-shape " +
                   name + "=...");
    SmallVector<int64_t> shape, model;
    for (const auto &dim : tensorType.shape().dim())
      model.push_back(
          dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
    ShapeProfile profile;
    if (failed(rangedShape(name, model, shape, profile)))
      return failure();
    auto given = options.inputShapes.find(name);
    if (!profile.max.empty()) {
      // The largest shape in the range is the one the budget must hold.
      if (std::string why =
              checkBudget(RankedTensorType::get(profile.max, element));
          !why.empty())
        return error("input '" + name + "' at its largest shape " + why);
    } else if (given != options.inputShapes.end()) {
      if (static_cast<int>(given->second.size()) !=
          tensorType.shape().dim_size())
        return error("--input-shape for '" + name + "' has rank " +
                     Twine(given->second.size()) +
                     ", but the model's input has rank " +
                     Twine(tensorType.shape().dim_size()));
      shape = given->second;
      for (const auto &[i, dim] : llvm::enumerate(tensorType.shape().dim()))
        if (dim.has_dim_value() && dim.dim_value() != shape[i])
          return error("--input-shape for '" + name + "' gives " +
                       Twine(shape[i]) + " for dimension " + Twine(i) +
                       ", which the model fixes at " + Twine(dim.dim_value()));
    } else {
      for (const auto &[i, dim] : llvm::enumerate(tensorType.shape().dim())) {
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          shape.push_back(dim.dim_value());
        } else if (i == 0 && options.batch) {
          shape.push_back(*options.batch);
        } else {
          return error(
              "input '" + name + "' has dynamic dimension " + Twine(i) +
              (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "") +
              "; fix it with --input-shape " + name + "=..." +
              (i == 0 ? " or --batch N" : "") + ", or range it with --shapes " +
              name + "=MIN:OPT:MAX");
        }
      }
    }
    for (int64_t d : shape)
      if (d < 0 && !ShapedType::isDynamic(d))
        return error("input '" + name + "' has a negative dimension");
    if (profile.max.empty())
      if (std::string why = checkBudget(RankedTensorType::get(shape, element));
          !why.empty())
        return error("input '" + name + "' " + why);
    argumentIndex[name] = argTypes.size();
    argTypes.push_back(RankedTensorType::get(shape, element));
    argNames.push_back(name);
    argProfiles.push_back(profile);
  }
  return success();
}

LogicalResult GraphImporter::importInitializers(onnx::GraphProto &graph,
                                                OpBuilder &b,
                                                bool constantInputs) {
  auto load = [&](onnx::TensorProto &tensor) -> LogicalResult {
    std::string why;
    FailureOr<ElementsAttr> attr =
        convertTensor(ctx, tensor, modelDir, tensor.name(), why);
    if (failed(attr))
      return error("initializer '" + tensor.name() + "': " + why);
    if (std::string why = checkBudget(attr->getType()); !why.empty())
      return error("initializer '" + tensor.name() + "' " + why);
    values[tensor.name()] = ConstantOp::create(
        b, NameLoc::get(b.getStringAttr(tensor.name()), fileLoc), *attr);
    return success();
  };
  for (auto &init : *graph.mutable_initializer()) {
    if (init.name().empty())
      return error("initializer with an empty name");
    if (failed(load(init)))
      return failure();
  }
  for (const auto &entry : options.constantInputs) {
    if (!constantInputs)
      break;
    onnx::TensorProto tensor;
    std::ifstream in(entry.second, std::ios::binary);
    if (!in || !tensor.ParseFromIstream(&in))
      return error("constant input '" + entry.first() +
                   "': cannot read a "
                   "TensorProto from '" +
                   entry.second + "'");
    tensor.set_name(entry.first().str());
    if (failed(load(tensor)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::importNode(onnx::NodeProto &node, int index,
                                        OpBuilder &b) {
  std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
  std::string label = "node " + std::to_string(index) + " '" + node.name() +
                      "' (" + node.op_type() + ", domain '" + domain +
                      "', opset " + std::to_string(opset) + ")";
  auto report = [&](const std::string &what, bool unsupported) {
    if (unsupported && options.collectUnsupported) {
      result.unsupported.push_back(label + ": " + what);
      return success();
    }
    emitError(fileLoc) << label << ": " << what;
    return failure();
  };

  for (const auto &[i, name] : llvm::enumerate(node.input()))
    if (!name.empty() && !values.count(name))
      return report("input " + std::to_string(i) + " '" + name +
                        "' is not produced by an earlier node, an "
                        "initializer or a graph input (dangling name or cycle)",
                    false);
  for (const auto &[i, name] : llvm::enumerate(node.output()))
    if (!name.empty() && values.count(name))
      return report("output " + std::to_string(i) + " '" + name +
                        "' is already defined (by an earlier node, an "
                        "initializer or a graph input); a value has one "
                        "definition",
                    false);
  if (domain.empty() && node.op_type() == "If")
    return importConstantIf(node, b, report);
  for (const auto &attr : node.attribute())
    if (attr.type() == onnx::AttributeProto::GRAPH ||
        attr.type() == onnx::AttributeProto::GRAPHS)
      return report("subgraph attribute '" + attr.name() +
                        "' (control flow) is not supported",
                    true);
  if (std::string why = checkAttributeTypes(node, domain); !why.empty())
    return report(why, false);
  // Ops kiln knows are kiln's; others may be plugins (PluginNodes.cpp).
  std::string why = "domain '" + domain + "' is not supported";
  const HandlerEntry *handler =
      domain.empty() ? findHandler(node, why) : nullptr;
  std::shared_ptr<::kiln::rt::PluginCreator> plugin =
      handler ? nullptr : findNodePlugin(node, domain);
  if (!handler && !plugin) {
    bool known = domain.empty() && llvm::any_of(table, [&](const auto &e) {
                   return node.op_type() == e.opType;
                 });
    return report(known ? why
                        : why + ", and no registered plugin is named '" +
                              node.op_type() + "'",
                  true);
  }

  // An input computed from run-time dimensions (a shape value) sends the
  // node to the shape-subgraph handlers.
  bool shapeValueInput = llvm::any_of(node.input(), [&](const std::string &n) {
    return !n.empty() && symbolic.shapeValue(values.lookup(n));
  });
  if (shapeValueInput && node.op_type() == "ConstantOfShape")
    shapeValueInput = false; // its handler takes one
  if (handler && !takesRunTimeShapes(node.op_type()))
    for (const auto &[i, name] : llvm::enumerate(node.input())) {
      Value value = name.empty() ? Value() : values.lookup(name);
      if (value && symbolic.shapeValue(value))
        continue;
      auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
      if (type && !type.hasStaticShape())
        return report("input " + std::to_string(i) + " '" + name + "' is " +
                          formatDims(type.getShape()) +
                          ", and this op does not take dimensions that "
                          "vary at run time yet",
                      true);
    }

  Location loc = NameLoc::get(
      b.getStringAttr(node.name().empty()
                          ? (node.output_size() ? node.output(0) : "")
                          : node.name()),
      fileLoc);
  NodeContext nc(*this, node, opset, b, loc);
  nodeError.clear();
  nodeUnsupported = false;
  LogicalResult ok = success();
  {
    // Capture what inference and verification say about the ops built.
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && nodeError.empty())
        nodeError = diag.str();
      return success();
    });
    auto pluginNode = [&](NodeContext &c) {
      return importPluginNode(c, *plugin);
    };
    ok = shapeValueInput ? (handler ? importSymbolic(nc, handler->handler)
                                    : importSymbolic(nc, pluginNode))
         : handler       ? handler->handler(nc)
                         : pluginNode(nc);
  }
  if (failed(ok)) {
    if (nodeError.empty())
      nodeError = "could not be imported";
    return report(nodeError, nodeUnsupported);
  }
  for (const auto &[i, name] : llvm::enumerate(node.output())) {
    if (name.empty())
      continue;
    if (!values.count(name))
      return report("output " + std::to_string(i) + " '" + name +
                        "' is not supported",
                    true);
    if (Value v = values.lookup(name))
      if (std::string why = checkBudget(v.getType()); !why.empty())
        return report("output " + std::to_string(i) + " '" + name + "' " + why,
                      false);
  }
  return success();
}

LogicalResult GraphImporter::importConstantIf(
    onnx::NodeProto &node, OpBuilder &b,
    llvm::function_ref<LogicalResult(const std::string &, bool)> report) {
  if (node.input_size() != 1 || node.input(0).empty())
    return report("expects one condition input", false);
  ElementsAttr cond = nullptr;
  if (Value v = values.lookup(node.input(0)))
    cond = constantValue(v);
  if (!cond)
    return report("the condition '" + node.input(0) +
                      "' is computed at run time; kiln imports an If only "
                      "when its condition is a constant (the branch it "
                      "takes is imported in its place)",
                  true);
  SmallVector<double> c;
  if (cond.getNumElements() != 1 || !readValues(cond, c))
    return report("expects a condition of one element", false);
  std::string which = c[0] != 0 ? "then_branch" : "else_branch";
  onnx::GraphProto *branch = nullptr;
  for (auto &attr : *node.mutable_attribute())
    if (attr.name() == which && attr.type() == onnx::AttributeProto::GRAPH)
      branch = attr.mutable_g();
  if (!branch)
    return report("has no graph attribute '" + which + "'", false);
  if (branch->output_size() != node.output_size())
    return report(which + " has " + std::to_string(branch->output_size()) +
                      " outputs, the node " +
                      std::to_string(node.output_size()),
                  false);
  if (failed(importInitializers(*branch, b, /*constantInputs=*/false)))
    return failure();
  for (auto [index, inner] : llvm::enumerate(*branch->mutable_node())) {
    if (failed(importNode(inner, index, b)))
      return failure();
    for (const auto &name : inner.output())
      if (!name.empty() && !values.count(name))
        values[name] = nullptr; // unsupported, in check-support mode
  }
  for (auto [i, out] : llvm::enumerate(branch->output())) {
    if (!values.count(out.name()))
      return report(which + " output '" + out.name() +
                        "' is not produced by the branch",
                    false);
    // An output left undefined marks the If as unsupported too (in
    // check-support mode, where a branch node may be).
    if (!node.output(i).empty() && values.lookup(out.name()))
      values[node.output(i)] = values.lookup(out.name());
  }
  return success();
}

/// The ops whose handlers were written for inputs with dynamic dimensions
/// (`?`, run-time shapes): they read no dimension of them as a number, and
/// the kiln ops they build infer `?`. Others are refused on such inputs,
/// so that no `?` becomes a wrong constant.
bool GraphImporter::takesRunTimeShapes(StringRef opType) {
  static const llvm::StringSet<> ops = [] {
    llvm::StringSet<> set;
    std::vector<HandlerEntry> elementwise;
    appendElementwiseHandlers(elementwise);
    for (const HandlerEntry &e : elementwise)
      set.insert(e.opType);
    for (const char *op : {"Conv",
                           "MaxPool",
                           "AveragePool",
                           "GlobalAveragePool",
                           "GlobalMaxPool",
                           "BatchNormalization",
                           "InstanceNormalization",
                           "LayerNormalization",
                           "LRN",
                           "Flatten",
                           "Reshape",
                           "Gemm",
                           "MatMul",
                           "Softmax",
                           "LogSoftmax",
                           "Concat",
                           "Transpose",
                           "Squeeze",
                           "Unsqueeze",
                           "ReduceMean",
                           "ReduceSum",
                           "ReduceMax",
                           "ReduceMin",
                           "ReduceProd",
                           "ReduceL1",
                           "ReduceL2",
                           "ReduceLogSum",
                           "ReduceLogSumExp",
                           "ReduceSumSquare",
                           "ArgMax",
                           "ArgMin",
                           "Pad",
                           "Slice",
                           "Gather",
                           "Expand",
                           "Shape",
                           "Size"})
      set.insert(op);
    return set;
  }();
  return ops.contains(opType);
}

std::string GraphImporter::checkBudget(Type type) const {
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped && shaped.hasRank() && shaped.getRank() > kMaxTensorRank)
    return "has rank " + std::to_string(shaped.getRank()) +
           ", more than kiln's limit of " + std::to_string(kMaxTensorRank) +
           " (TensorRT's)";
  if (!shaped || !shaped.hasStaticShape())
    return "";
  std::optional<uint64_t> bytes = getByteSize(shaped);
  std::string what;
  llvm::raw_string_ostream os(what);
  os << "(" << formatDims(shaped.getShape()) << "x" << shaped.getElementType()
     << ")";
  if (!bytes)
    return what + " has more bytes than 64 bits can count";
  if (*bytes > options.maxTensorBytes)
    return what + " would take " + std::to_string(*bytes) +
           " bytes, more than the memory budget of " +
           std::to_string(options.maxTensorBytes) +
           " bytes (raise it with --max-memory)";
  return "";
}

/// The ONNX type name of an attribute type ("INT", "FLOAT", ...).
static std::string attributeTypeName(int type) {
  return onnx::AttributeProto::AttributeType_IsValid(type)
             ? onnx::AttributeProto::AttributeType_Name(
                   static_cast<onnx::AttributeProto::AttributeType>(type))
             : std::to_string(type);
}

std::string GraphImporter::checkAttributeTypes(const onnx::NodeProto &node,
                                               const std::string &domain) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), opset, domain);
  if (!schema)
    return "";
  for (const auto &attr : node.attribute()) {
    auto it = schema->attributes().find(attr.name());
    if (it == schema->attributes().end())
      continue;
    int declared = static_cast<int>(it->second.type);
    // Models before IR version 2 may leave the type unset.
    if (attr.type() != onnx::AttributeProto::UNDEFINED &&
        static_cast<int>(attr.type()) != declared)
      return "attribute '" + attr.name() + "' is " +
             attributeTypeName(attr.type()) + ", but " + node.op_type() +
             " takes " + attributeTypeName(declared);
  }
  return "";
}

LogicalResult GraphImporter::run(onnx::ModelProto &model) {
  irVersion = model.ir_version();
  for (const auto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  if (irVersion <= 0)
    return error("model has no IR version");
  // The protobuf schema of onnx 1.12 reads newer models (fields are only
  // ever added); what kiln knows of newer versions is OnnxOpVersions.inc.
  if (irVersion > KILN_ONNX_NEWEST_IR_VERSION)
    return error("model IR version " + Twine(irVersion) +
                 " is newer than the newest kiln knows, " +
                 Twine(KILN_ONNX_NEWEST_IR_VERSION) + " (onnx " +
                 KILN_ONNX_TABLE_VERSION + ")");
  if (opset <= 0)
    return error("model imports no default-domain opset");
  if (opset > KILN_ONNX_NEWEST_OPSET)
    return error("model uses default-domain opset " + Twine(opset) +
                 "; kiln knows opsets up to " + Twine(KILN_ONNX_NEWEST_OPSET) +
                 " (onnx " + KILN_ONNX_TABLE_VERSION + ")");
  table = handlerTable();

  onnx::GraphProto &graph = *model.mutable_graph();
  OpBuilder b(ctx);
  result.module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(result.module->getBody());

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<ShapeProfile> argProfiles;
  if (failed(importInputs(graph, b, argTypes, argNames, argProfiles)))
    return failure();
  for (const auto &entry : options.profiles)
    if (!argumentIndex.count(entry.first()))
      return error("--shapes names '" + entry.first() +
                   "', which is not an input of the model");
  auto func = func::FuncOp::create(b, fileLoc, options.functionName,
                                   b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<int64_t> minima, maxima;
  for (auto [i, type] : llvm::enumerate(argTypes))
    if (auto ranked = dyn_cast<RankedTensorType>(type))
      for (int64_t d = 0; d < ranked.getRank(); ++d)
        if (ranked.isDynamicDim(d)) {
          bool ranged = argProfiles[i].max.size() > size_t(d);
          minima.push_back(ranged ? argProfiles[i].min[d] : int64_t(0));
          maxima.push_back(ranged ? argProfiles[i].max[d] : int64_t(0));
        }
  symbolic.setSymbols(*body, minima, maxima);
  // Names are set all at once: one attribute at a time is quadratic.
  SmallVector<DictionaryAttr> argAttrs;
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = body->getArgument(i);
    SmallVector<NamedAttribute, 2> attrs = {
        b.getNamedAttr(KilnDialect::getNameAttrName(), b.getStringAttr(name))};
    if (const ShapeProfile &p = argProfiles[i]; !p.max.empty())
      attrs.push_back(b.getNamedAttr(
          KilnDialect::getProfileAttrName(),
          b.getDictionaryAttr({
              b.getNamedAttr("max", b.getDenseI64ArrayAttr(p.max)),
              b.getNamedAttr("min", b.getDenseI64ArrayAttr(p.min)),
              b.getNamedAttr("opt", b.getDenseI64ArrayAttr(p.opt)),
          })));
    argAttrs.push_back(b.getDictionaryAttr(attrs));
  }
  func.setAllArgAttrs(argAttrs);
  if (failed(importInitializers(graph, b)))
    return failure();

  bool anyFailed = false;
  for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
    if (failed(importNode(node, index, b)))
      return failure();
    // In check-support mode an unsupported node defines nothing: mark its
    // outputs so later nodes are checked against something.
    for (const auto &name : node.output())
      if (!name.empty() && !values.count(name)) {
        anyFailed = true;
        values[name] = nullptr;
      }
  }
  if (anyFailed)
    return success(options.collectUnsupported);

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const auto &output : graph.output()) {
    Value v = values.lookup(output.name());
    if (!v)
      return error("graph output '" + output.name() +
                   "' is not produced by any node, initializer or input");
    if (symbolic.shapeValue(v))
      return error("graph output '" + output.name() +
                   "' is computed from dimensions that vary at run time; "
                   "kiln cannot return such a shape yet");
    // A declared static output type must be what the graph computes.
    auto type = cast<RankedTensorType>(v.getType());
    if (output.type().has_tensor_type()) {
      const auto &declared = output.type().tensor_type();
      Type element = convertElementType(ctx, declared.elem_type());
      if (declared.elem_type() != 0 && element != type.getElementType())
        return error("graph output '" + output.name() + "' is declared as " +
                     dataTypeName(declared.elem_type()) +
                     " but the graph computes a different element type");
      if (declared.has_shape()) {
        bool mismatch = declared.shape().dim_size() != type.getRank();
        for (int i = 0; !mismatch && i < declared.shape().dim_size(); ++i) {
          const auto &dim = declared.shape().dim(i);
          mismatch =
              dim.has_dim_value() && dim.dim_value() != type.getDimSize(i);
        }
        if (mismatch)
          return error(
              "graph output '" + output.name() + "' is declared with shape " +
              onnxShapeString(declared.shape()) + " but the graph computes " +
              formatDims(type.getShape()));
      }
    }
    results.push_back(v);
    resultTypes.push_back(v.getType());
  }
  func::ReturnOp::create(b, fileLoc, results);
  // The shape values' placeholders were read only by the importer.
  for (auto &entry : symbolic.shapeValues) {
    Operation *placeholder = entry.first.getDefiningOp();
    if (!placeholder->use_empty())
      return error("internal error: a shape value is used by an op");
    placeholder->erase();
  }
  symbolic.shapeValues.clear();
  // Symbols the layers combine must be equal when shapes are known.
  SmallVector<int64_t> equal;
  for (auto [kept, joined] : symbolic.joined())
    equal.append({int64_t(kept), int64_t(joined)});
  if (!equal.empty())
    func->setAttr(kEqualSymbolsAttrName, b.getDenseI64ArrayAttr(equal));
  func.setType(b.getFunctionType(argTypes, resultTypes));
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &output : graph.output())
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        KilnDialect::getNameAttrName(), b.getStringAttr(output.name()))));
  func.setAllResultAttrs(resultAttrs);
  if (failed(mlir::verify(*result.module)))
    return error("the imported module does not verify");
  return success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::vector<std::pair<std::string, int>> mlir::kiln::supportedOnnxOps() {
  std::vector<HandlerEntry> table = handlerTable();
  std::vector<std::pair<std::string, int>> ops;
  for (const HandlerEntry &e : table)
    ops.emplace_back(e.opType, e.sinceVersion);
  std::sort(ops.begin(), ops.end());
  return ops;
}

void mlir::kiln::registerOnnxImporterDialects(MLIRContext *context) {
  context->loadDialect<KilnDialect, func::FuncDialect>();
}

/// Parses a binary model from `stream` (of `size` bytes) with explicit
/// limits.
static bool parseBinary(google::protobuf::io::ZeroCopyInputStream &stream,
                        uint64_t size, int recursionLimit,
                        onnx::ModelProto &model) {
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(
      static_cast<int>(std::min<uint64_t>(size + 1, INT32_MAX)));
  coded.SetRecursionLimit(recursionLimit);
  return model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

/// True when `head` (the first bytes of a model) is the ONNX text format,
/// which starts with '<' after '#' comment lines.
static bool isTextFormat(llvm::StringRef head) {
  llvm::StringRef trimmed = head.ltrim();
  while (trimmed.starts_with("#"))
    trimmed = trimmed.drop_until([](char c) { return c == '\n'; }).ltrim();
  return trimmed.starts_with("<");
}

/// The deepest nesting of braces in ONNX text (graphs, subgraphs, tensor
/// literals), outside strings and comments.
static int textNestingDepth(llvm::StringRef text) {
  int depth = 0, deepest = 0;
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inComment) {
      inComment = c != '\n';
    } else if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '#') {
      inComment = true;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}') {
      --depth;
    }
  }
  return deepest;
}

/// Parses the text format in `text` (NUL-terminated). libonnx's text parser
/// recurses once per nesting level and has no limit of its own.
static LogicalResult parseText(const char *text, Location loc, int maxDepth,
                               onnx::ModelProto &model) {
  if (int depth = textNestingDepth(text); depth > maxDepth)
    return emitError(loc) << "the ONNX text nests " << depth
                          << " levels deep, more than the limit of " << maxDepth
                          << " (subgraphs within subgraphs)";
  onnx::OnnxParser parser(text);
  auto status = parser.Parse(model);
  if (!status.IsOK())
    return emitError(loc) << "cannot parse the ONNX text format: "
                          << status.ErrorMessage();
  return success();
}

static LogicalResult checkSize(uint64_t size, const OnnxImportOptions &options,
                               Location loc) {
  if (size > options.maxFileBytes || size >= uint64_t(INT32_MAX))
    return emitError(loc) << "model file is " << size
                          << " bytes, over the limit of "
                          << std::min<uint64_t>(options.maxFileBytes,
                                                INT32_MAX - 1)
                          << " (store large weights as external data)";
  return success();
}

/// Imports a parsed model; libonnx's exceptions become errors.
static LogicalResult importModel(MLIRContext *context, onnx::ModelProto &model,
                                 const OnnxImportOptions &options,
                                 OnnxImportResult &result,
                                 const std::string &name,
                                 const std::string &modelDir) {
  Location fileLoc = FileLineColLoc::get(context, name, 0, 0);
  if (!model.has_graph())
    return emitError(fileLoc) << "model has no graph";
  GraphImporter importer(context, options, result, name, modelDir);
  try {
    return importer.run(model);
  } catch (const std::exception &e) {
    return emitError(fileLoc) << "internal error while importing: " << e.what();
  }
}

LogicalResult mlir::kiln::importOnnxFile(MLIRContext *context,
                                         llvm::StringRef path,
                                         const OnnxImportOptions &options,
                                         OnnxImportResult &result) {
  registerOnnxImporterDialects(context);
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size))
    return emitError(fileLoc) << "cannot open the model file";
  if (failed(checkSize(size, options, fileLoc)))
    return failure();
  // Peek at the start of the file to tell the text format.
  std::string head;
  {
    std::ifstream in(path.str(), std::ios::binary);
    if (!in)
      return emitError(fileLoc) << "cannot read the model file";
    head.resize(4096);
    in.read(head.data(), head.size());
    head.resize(static_cast<size_t>(in.gcount()));
  }

  onnx::ModelProto model;
  try {
    if (isTextFormat(head)) {
      auto buffer =
          llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/true);
      if (!buffer)
        return emitError(fileLoc)
               << "cannot read the model file: " << buffer.getError().message();
      if (failed(parseText((*buffer)->getBufferStart(), fileLoc,
                           options.maxRecursionDepth, model)))
        return failure();
    } else {
      // Streamed, so that only the parsed message, not also the file's
      // bytes, is held.
      int fd = ::open(path.str().c_str(), O_RDONLY);
      bool ok = false;
      if (fd >= 0) {
        google::protobuf::io::FileInputStream raw(fd);
        ok = parseBinary(raw, size, options.maxRecursionDepth, model);
        ::close(fd);
      }
      if (!ok)
        return emitError(fileLoc)
               << "not a valid ONNX model: the protobuf does not parse "
                  "(truncated, corrupted, or nested deeper than "
               << options.maxRecursionDepth << " levels)";
    }
  } catch (const std::exception &e) {
    return emitError(fileLoc) << "cannot parse the model: " << e.what();
  }
  // External data lies next to the model.
  std::string modelDir = llvm::sys::path::parent_path(path).str();
  return importModel(context, model, options, result, path.str(),
                     modelDir.empty() ? "." : modelDir);
}

LogicalResult mlir::kiln::importOnnxBuffer(MLIRContext *context,
                                           llvm::StringRef bytes,
                                           llvm::StringRef name,
                                           const OnnxImportOptions &options,
                                           OnnxImportResult &result) {
  registerOnnxImporterDialects(context);
  Location fileLoc = FileLineColLoc::get(context, name, 0, 0);
  if (failed(checkSize(bytes.size(), options, fileLoc)))
    return failure();
  onnx::ModelProto model;
  try {
    if (isTextFormat(bytes.take_front(4096))) {
      std::string text = bytes.str(); // NUL-terminated
      if (failed(parseText(text.c_str(), fileLoc, options.maxRecursionDepth,
                           model)))
        return failure();
    } else {
      google::protobuf::io::ArrayInputStream raw(
          bytes.data(), static_cast<int>(bytes.size()));
      if (!parseBinary(raw, bytes.size(), options.maxRecursionDepth, model))
        return emitError(fileLoc)
               << "not a valid ONNX model: the protobuf does not parse "
                  "(truncated, corrupted, or nested deeper than "
               << options.maxRecursionDepth << " levels)";
    }
  } catch (const std::exception &e) {
    return emitError(fileLoc) << "cannot parse the model: " << e.what();
  }
  return importModel(context, model, options, result, name.str(),
                     options.externalDataDir);
}
