//===- CaffeImporter.cpp - Caffe network to kiln IR -------------*- C++ -*-===//
//
// Reads a prototxt (protobuf text, through TextFormat::Parser with an error
// collector, so a syntax error names its line and column) and a caffemodel
// (binary protobuf, with size and recursion limits), matches the
// caffemodel's blobs to the prototxt's layers by layer name, as Caffe's
// CopyTrainedLayersFrom does, and builds one func.func: inputs (Input
// layers, or the net's input / input_shape / input_dim) become arguments,
// each layer of the TEST phase is imported by the handler its type picks
// (or becomes a plugin a registered creator is named after), blobs are
// looked up by name in the order the layers define them (so in-place layers
// work), and the outputs are the blobs asked for or, by default, Caffe's:
// those no later layer consumes, sorted by name. Every error names its
// layer and the prototxt line that defines it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/CaffeImporter.h"

#include "LayerContext.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Import/PluginLayer.h"
#include "kiln/Support/Sizes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

namespace {

/// Keeps the first error the text parser reports (0-based line, column).
class FirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string &message) override {
    if (found)
      return;
    found = true;
    this->line = line;
    this->column = column;
    this->message = message;
  }
  bool found = false;
  int line = 0, column = 0;
  std::string message;
};

/// Layer types of training nets: data sources and losses.
const char *const trainingLayers[] = {
    "Data",          "ImageData",       "HDF5Data",
    "WindowData",    "MemoryData",      "DummyData",
    "AnnotatedData", "Accuracy",        "SoftmaxWithLoss",
    "EuclideanLoss", "HingeLoss",       "SigmoidCrossEntropyLoss",
    "InfogainLoss",  "ContrastiveLoss", "MultinomialLogisticLoss",
    "MultiBoxLoss",  "HDF5Output"};

std::vector<HandlerEntry> handlerTable() {
  std::vector<HandlerEntry> table;
  appendConvPoolHandlers(table);
  appendActivationHandlers(table);
  appendNormalizationHandlers(table);
  appendShapeHandlers(table);
  appendDetectionHandlers(table);
  return table;
}

/// True when a TEST-phase net at level 0 without stages meets `rule`
/// (Caffe's StateMeetsRule).
bool meetsRule(const caffe::NetStateRule &rule) {
  if (rule.has_phase() && rule.phase() != caffe::TEST)
    return false;
  if (rule.has_min_level() && rule.min_level() > 0)
    return false;
  if (rule.has_max_level() && rule.max_level() < 0)
    return false;
  return rule.stage().empty();
}

/// Caffe's FilterNet for the TEST phase.
bool isIncluded(const caffe::LayerParameter &layer) {
  if (!layer.include().empty())
    return llvm::any_of(layer.include(), meetsRule);
  return llvm::none_of(layer.exclude(), meetsRule);
}

/// Reads `path` (at most `maxBytes`) into `bytes`.
LogicalResult readFile(llvm::StringRef path, uint64_t maxBytes,
                       llvm::StringRef what, Location loc, std::string &bytes) {
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size))
    return emitError(loc) << "cannot open the " << what << " '" << path << "'";
  uint64_t limit = std::min<uint64_t>(maxBytes, INT32_MAX - 1);
  if (size > limit)
    return emitError(loc) << "the " << what << " is " << size
                          << " bytes, over the limit of " << limit
                          << " (--max-model-bytes)";
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the " << what << " '" << path
                          << "': " << buffer.getError().message();
  bytes = (*buffer)->getBuffer().str();
  return success();
}

/// Imports one network into one function.
class NetImporter {
public:
  NetImporter(MLIRContext *ctx, const CaffeImportOptions &options,
              std::string prototxt, bool haveWeights)
      : ctx(ctx), options(options), prototxt(std::move(prototxt)),
        haveWeights(haveWeights),
        fileLoc(FileLineColLoc::get(ctx, this->prototxt, 0, 0)) {}

  LogicalResult run(const caffe::NetParameter &net,
                    const google::protobuf::TextFormat::ParseInfoTree &tree,
                    const caffe::NetParameter &weights,
                    OwningOpRef<ModuleOp> &result);

private:
  /// Why a value of `type` may not be made, or "".
  std::string checkBudget(Type type) const;
  /// Adds the function argument `name` of `dims` (after --input-shape and
  /// --batch); `label` says where it is declared.
  LogicalResult addInput(const std::string &name, SmallVector<int64_t> dims,
                         Location loc, const std::string &label);
  LogicalResult importLayer(const caffe::LayerParameter &layer, int index,
                            Location loc);
  void define(const std::string &name, Value value) {
    values[name] = value;
    consumed[name] = false;
  }

  MLIRContext *ctx;
  const CaffeImportOptions &options;
  std::string prototxt;
  bool haveWeights;
  Location fileLoc;
  OpBuilder *builder = nullptr;
  Block *body = nullptr;
  std::vector<HandlerEntry> table = handlerTable();
  /// Blobs by name, as the layers so far define them.
  llvm::StringMap<Value> values;
  /// Whether a later layer consumes a blob's latest definition.
  llvm::StringMap<bool> consumed;
  /// The caffemodel's blobs, by layer name.
  llvm::StringMap<const google::protobuf::RepeatedPtrField<caffe::BlobProto> *>
      weightsByName;
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
};

} // namespace

std::string NetImporter::checkBudget(Type type) const {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return "";
  std::optional<uint64_t> bytes = getByteSize(shaped);
  std::string what = "(" + formatDims(shaped.getShape()) + "xf32)";
  if (!bytes)
    return what + " has more bytes than 64 bits can count";
  if (*bytes > options.maxTensorBytes)
    return what + " would take " + std::to_string(*bytes) +
           " bytes, more than the memory budget of " +
           std::to_string(options.maxTensorBytes) +
           " bytes (raise it with --max-memory)";
  return "";
}

LogicalResult NetImporter::addInput(const std::string &name,
                                    SmallVector<int64_t> dims, Location loc,
                                    const std::string &label) {
  auto fail = [&](const Twine &why) {
    return emitError(loc) << label << ": input '" << name << "' " << why;
  };
  if (name.empty())
    return emitError(loc) << label << ": an input has an empty name";
  if (values.count(name))
    return fail("is defined twice");
  auto given = options.inputShapes.find(name);
  if (given != options.inputShapes.end()) {
    if (given->second.size() != dims.size())
      return fail("has rank " + Twine(dims.size()) +
                  ", but --input-shape gives rank " +
                  Twine(given->second.size()));
    dims = given->second;
  } else if (options.batch && !dims.empty()) {
    dims[0] = *options.batch;
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (d <= 0)
      return fail("has dimension " + Twine(i) + " = " + Twine(d) +
                  "; dimensions must be positive");
  auto type = RankedTensorType::get(dims, builder->getF32Type());
  if (std::string why = checkBudget(type); !why.empty())
    return fail(why);
  argTypes.push_back(type);
  argNames.push_back(name);
  define(name, body->addArgument(type, loc));
  return success();
}

LogicalResult NetImporter::importLayer(const caffe::LayerParameter &layer,
                                       int index, Location at) {
  const std::string &type = layer.type();
  std::string label = "layer " + std::to_string(index) + " '" + layer.name() +
                      "' (" + type + ")";
  auto report = [&](const Twine &what) {
    return emitError(at) << label << ": " << what;
  };
  if (type.empty())
    return report("has no type");
  if (type == "Input") {
    const auto &shapes = layer.input_param().shape();
    if (!layer.bottom().empty())
      return report("an Input layer takes no bottoms");
    if (shapes.empty() ||
        (shapes.size() != 1 && shapes.size() != layer.top_size()))
      return report("has " + Twine(shapes.size()) +
                    " input_param shape(s) "
                    "for " +
                    Twine(layer.top_size()) +
                    " tops; give one, or one per top");
    for (auto [i, top] : llvm::enumerate(layer.top())) {
      const caffe::BlobShape &shape = shapes[shapes.size() == 1 ? 0 : i];
      if (failed(addInput(top, {shape.dim().begin(), shape.dim().end()}, at,
                          label)))
        return failure();
    }
    return success();
  }
  if (llvm::is_contained(trainingLayers, type))
    return report("is a training layer (a data source or a loss); import "
                  "the deploy prototxt, whose inputs are Input layers");

  SmallVector<Value> bottoms;
  for (auto [i, name] : llvm::enumerate(layer.bottom())) {
    Value v = values.lookup(name);
    if (!v)
      return report("bottom " + Twine(i) + " '" + name +
                    "' is not produced by an earlier layer or an input");
    bottoms.push_back(v);
  }
  for (auto [i, name] : llvm::enumerate(layer.top()))
    if (name.empty())
      return report("top " + Twine(i) + " has an empty name");

  const HandlerEntry *handler = nullptr;
  for (const HandlerEntry &entry : table)
    if (type == entry.type)
      handler = &entry;
  std::shared_ptr<::kiln::rt::PluginCreator> plugin =
      handler ? nullptr : findPluginCreatorByName(type, "");
  if (!handler && !plugin)
    return report("layer type '" + type +
                  "' is not supported, and no registered plugin is named '" +
                  type + "' (load its library with --plugin-lib)");

  std::vector<const caffe::BlobProto *> blobs;
  const auto *stored = weightsByName.lookup(layer.name());
  for (const caffe::BlobProto &blob : stored ? *stored : layer.blobs())
    blobs.push_back(&blob);

  std::string error;
  Location loc = NameLoc::get(builder->getStringAttr(layer.name()), at);
  LayerContext lc(layer, std::move(blobs), bottoms, *builder, loc, error);
  LogicalResult ok = success();
  {
    // Capture what inference and verification say about the ops built.
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && error.empty())
        error = diag.str();
      return success();
    });
    ok = handler ? handler->handler(lc) : importPluginLayer(lc, *plugin);
  }
  if (failed(ok)) {
    if (error.empty())
      error = "could not be imported";
    if (!haveWeights && lc.numBlobs() == 0 &&
        llvm::StringRef(error).starts_with("has no blobs"))
      error += " (no caffemodel was given: --caffemodel)";
    return report(error);
  }
  if (!lc.blobsChecked && lc.numBlobs() > 0)
    return report("has " + Twine(lc.numBlobs()) + " blob(s), but a " + type +
                  " layer takes none");
  for (const std::string &name : layer.bottom())
    consumed[name] = true;
  for (auto [i, name] : llvm::enumerate(layer.top())) {
    Value v = lc.top(i);
    if (!v)
      return report("top " + Twine(i) + " '" + name + "' is not produced");
    if (std::string why = checkBudget(v.getType()); !why.empty())
      return report("top " + Twine(i) + " '" + name + "' " + why);
    define(name, v);
  }
  return success();
}

LogicalResult
NetImporter::run(const caffe::NetParameter &net,
                 const google::protobuf::TextFormat::ParseInfoTree &tree,
                 const caffe::NetParameter &weights,
                 OwningOpRef<ModuleOp> &result) {
  if (!net.layers().empty())
    return emitError(fileLoc)
           << "the prototxt uses the deprecated V1 layers ('layers { ... }'); "
              "upgrade it with Caffe's upgrade_net_proto_text";
  for (const caffe::LayerParameter &layer : weights.layer())
    weightsByName[layer.name()] = &layer.blobs();
  for (const caffe::V1LayerParameter &layer : weights.layers())
    if (!weightsByName.count(layer.name()))
      weightsByName[layer.name()] = &layer.blobs();

  OpBuilder b(ctx);
  builder = &b;
  result = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(result->getBody());
  auto func = func::FuncOp::create(b, fileLoc, options.functionName,
                                   b.getFunctionType({}, {}));
  body = func.addEntryBlock();
  b.setInsertionPointToStart(body);

  // The net's own inputs: input with input_shape or 4 input_dim each.
  int inputs = net.input_size();
  if (inputs) {
    bool byShape = net.input_shape_size() == inputs;
    if (!byShape && net.input_dim_size() != 4 * inputs)
      return emitError(fileLoc)
             << "the net declares " << inputs << " input(s) with "
             << net.input_shape_size() << " input_shape and "
             << net.input_dim_size()
             << " input_dim values; give one input_shape, or 4 input_dim, "
                "per input";
    for (int i = 0; i < inputs; ++i) {
      SmallVector<int64_t> dims;
      if (byShape)
        dims.assign(net.input_shape(i).dim().begin(),
                    net.input_shape(i).dim().end());
      else
        dims.assign(net.input_dim().begin() + 4 * i,
                    net.input_dim().begin() + 4 * i + 4);
      if (failed(addInput(net.input(i), dims, fileLoc, "the net")))
        return failure();
    }
  }

  const auto *layerField =
      caffe::NetParameter::descriptor()->FindFieldByName("layer");
  for (auto [index, layer] : llvm::enumerate(net.layer())) {
    if (!isIncluded(layer))
      continue;
    auto where = tree.GetLocation(layerField, index);
    Location at = where.line >= 0
                      ? Location(FileLineColLoc::get(
                            ctx, prototxt, where.line + 1, where.column + 1))
                      : fileLoc;
    if (failed(importLayer(layer, index, at)))
      return failure();
  }
  for (const auto &entry : options.inputShapes)
    if (!llvm::is_contained(argNames, entry.first()))
      return emitError(fileLoc) << "--input-shape names '" << entry.first()
                                << "', which is not an input of the net";

  std::vector<std::string> outputs = options.outputs;
  if (outputs.empty()) {
    for (const auto &entry : consumed)
      if (!entry.second)
        outputs.push_back(entry.first().str());
    std::sort(outputs.begin(), outputs.end());
    if (outputs.empty())
      return emitError(fileLoc) << "the net has no outputs (every blob is "
                                   "consumed); name them with --output";
  }
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs, argAttrs;
  for (const std::string &name : outputs) {
    Value v = values.lookup(name);
    if (!v) {
      std::vector<std::string> known;
      for (const auto &entry : values)
        known.push_back(entry.first().str());
      std::sort(known.begin(), known.end());
      std::string list;
      for (size_t i = 0; i < known.size() && i < 20; ++i)
        list += (i ? ", " : "") + known[i];
      return emitError(fileLoc) << "--output '" << name
                                << "' is not a blob of the net (blobs: " << list
                                << (known.size() > 20 ? ", ..." : "") << ")";
    }
    results.push_back(v);
    resultAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(KilnDialect::getNameAttrName(), b.getStringAttr(name))));
  }
  for (const std::string &name : argNames)
    argAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(KilnDialect::getNameAttrName(), b.getStringAttr(name))));
  if (argTypes.empty())
    return emitError(fileLoc) << "the net has no inputs (Input layers, or "
                                 "input with input_shape)";
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resultAttrs);
  if (failed(mlir::verify(*result)))
    return emitError(fileLoc) << "the imported module does not verify";
  return success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult mlir::kiln::importCaffeFiles(MLIRContext *context,
                                           llvm::StringRef prototxtPath,
                                           llvm::StringRef caffemodelPath,
                                           const CaffeImportOptions &options,
                                           OwningOpRef<ModuleOp> &result) {
  context->loadDialect<KilnDialect, func::FuncDialect>();
  Location protoLoc = FileLineColLoc::get(context, prototxtPath, 0, 0);
  std::string text;
  if (failed(readFile(prototxtPath, options.maxFileBytes, "prototxt", protoLoc,
                      text)))
    return failure();
  caffe::NetParameter net;
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  google::protobuf::TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  parser.SetRecursionLimit(options.maxRecursionDepth);
  if (!parser.ParseFromString(text, &net))
    return emitError(FileLineColLoc::get(context, prototxtPath, errors.line + 1,
                                         errors.column + 1))
           << "cannot parse the prototxt: "
           << (errors.found ? errors.message : std::string("invalid text"));

  caffe::NetParameter weights;
  if (!caffemodelPath.empty()) {
    Location modelLoc = FileLineColLoc::get(context, caffemodelPath, 0, 0);
    std::string bytes;
    if (failed(readFile(caffemodelPath, options.maxFileBytes, "caffemodel",
                        modelLoc, bytes)))
      return failure();
    google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                               static_cast<int>(bytes.size()));
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(static_cast<int>(bytes.size()) + 1);
    coded.SetRecursionLimit(options.maxRecursionDepth);
    if (!weights.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
      return emitError(modelLoc)
             << "not a valid caffemodel: the protobuf does not parse "
                "(truncated, corrupted, not binary, or nested deeper than "
             << options.maxRecursionDepth << " levels)";
  }
  NetImporter importer(context, options, prototxtPath.str(),
                       !caffemodelPath.empty());
  if (succeeded(importer.run(net, tree, weights, result)))
    return success();
  result = nullptr;
  return failure();
}

std::vector<std::string> mlir::kiln::supportedCaffeLayers() {
  std::vector<std::string> types = {"Input"};
  for (const HandlerEntry &entry : handlerTable())
    types.push_back(entry.type);
  std::sort(types.begin(), types.end());
  return types;
}

bool mlir::kiln::isCaffePrototxtPath(llvm::StringRef path) {
  return path.ends_with(".prototxt");
}
