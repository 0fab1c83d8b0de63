//===- NetworkState.cpp - building a network's IR ---------------*- C++ -*-===//
//
// The network's own module grows with each layer added (its shapes answer
// getDimensions and catch a mismatch at the layer that makes it); a setter
// marks it stale and the next question builds it again from the start.
//
//===----------------------------------------------------------------------===//

#include "NetworkState.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace kiln::detail {

const char *layerKindName(LayerKind kind) {
  static const char *names[] = {
      "convolution",     "deconvolution", "pooling", "fully connected",
      "matrix multiply", "activation",    "softmax", "scale",
      "element-wise",    "concatenation", "LRN",     "shuffle",
      "unary",           "reduce",        "padding", "constant",
      "gather",          "normalization", "plugin"};
  return names[static_cast<int>(kind)];
}

NetworkState::NetworkState(rt::Logger &logger)
    : logger(logger), context(std::make_unique<MLIRContext>()) {
  context->loadDialect<mlir::kiln::KilnDialect, func::FuncDialect>();
  // Errors are captured and reported per layer, not printed.
  context->printOpOnDiagnostic(false);
}

NetworkState::~NetworkState() = default;

void NetworkState::error(const std::string &message) {
  errors.push_back(message);
  logger.log(rt::Logger::Severity::Error, message);
}

LayerDesc *NetworkState::layer(int64_t id, const char *what) {
  if (id < 0 || id >= int64_t(layers.size())) {
    error(std::string(what) + ": not a layer of this network");
    return nullptr;
  }
  return &layers[id];
}

TensorDesc *NetworkState::tensor(int64_t id, const char *what) {
  if (id < 0 || id >= int64_t(tensors.size())) {
    error(std::string(what) + ": not a tensor of this network");
    return nullptr;
  }
  return &tensors[id];
}

/// A module with func @main taking the network's inputs, without a
/// terminator; `values` holds the inputs' block arguments.
static OwningOpRef<ModuleOp> startModule(MLIRContext &context,
                                         const NetworkState &state,
                                         std::vector<Value> &values) {
  OpBuilder b(&context);
  Location loc = NameLoc::get(b.getStringAttr("network"));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  for (int64_t id : state.inputs) {
    const TensorDesc &t = state.tensors[id];
    argTypes.push_back(
        RankedTensorType::get(t.dims, getElementType(context, t.type)));
  }
  auto func =
      func::FuncOp::create(b, loc, "main", b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  SmallVector<DictionaryAttr> argAttrs;
  values.assign(state.tensors.size(), Value());
  for (auto [i, id] : llvm::enumerate(state.inputs)) {
    values[id] = body->getArgument(i);
    argAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(mlir::kiln::KilnDialect::getNameAttrName(),
                       b.getStringAttr(state.tensors[id].name))));
  }
  func.setAllArgAttrs(argAttrs);
  return module;
}

static Block &mainBody(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>("main").getBody().front();
}

std::vector<std::string> NetworkState::allErrors() const {
  std::vector<std::string> all = errors;
  all.insert(all.end(), buildErrors.begin(), buildErrors.end());
  return all;
}

bool NetworkState::update() {
  if (stale) {
    module = startModule(*context, *this, values);
    builtLayers = 0;
    stale = false;
    buildErrors.clear();
  }
  values.resize(tensors.size());
  size_t known = buildErrors.size();
  buildLayers(*this, mainBody(*module), builtLayers, layers.size(), values,
              buildErrors);
  builtLayers = layers.size();
  for (size_t i = known; i < buildErrors.size(); ++i)
    logger.log(rt::Logger::Severity::Warning, buildErrors[i]);
  return buildErrors.empty();
}

FailureOr<OwningOpRef<ModuleOp>>
NetworkState::buildModule(MLIRContext &ctx, std::string &error) const {
  if (outputs.empty()) {
    error = "the network has no outputs (markOutput)";
    return failure();
  }
  std::vector<Value> built;
  OwningOpRef<ModuleOp> m = startModule(ctx, *this, built);
  Block &body = mainBody(*m);
  std::vector<std::string> failures;
  if (!buildLayers(*this, body, 0, layers.size(), built, failures)) {
    error = failures.front();
    return failure();
  }
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (int64_t id : outputs) {
    results.push_back(built[id]);
    resultAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(mlir::kiln::KilnDialect::getNameAttrName(),
                       b.getStringAttr(tensors[id].name))));
  }
  auto func = m->lookupSymbol<func::FuncOp>("main");
  func::ReturnOp::create(b, func.getLoc(), results);
  func.setType(b.getFunctionType(func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  if (failed(mlir::verify(*m))) {
    error = "the network's IR does not verify";
    return failure();
  }
  return m;
}

} // namespace kiln::detail
