//===- DestinationPassing.cpp - network functions on buffers ----*- C++ -*-===//
//
// kiln-destination-passing: the network function takes one buffer per input
// and one per output and returns nothing, reading inputs through
// bufferization.to_tensor and writing results with
// bufferization.materialize_in_destination (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDESTINATIONPASSINGPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Rewrites `func` in place (see the pass description).
static void convertToDestinationPassing(func::FuncOp func, bool keepNames) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  Block &body = func.getBody().front();
  unsigned numInputs = body.getNumArguments();
  SmallVector<Attribute> names, unsignedMarks;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    names.push_back(func.getArgAttr(i, KilnDialect::getNameAttrName()));
    unsignedMarks.push_back(
        func.getArgAttr(i, KilnDialect::getUnsignedAttrName()));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    names.push_back(func.getResultAttr(i, KilnDialect::getNameAttrName()));
    unsignedMarks.push_back(
        func.getResultAttr(i, KilnDialect::getUnsignedAttrName()));
  }

  b.setInsertionPointToStart(&body);
  for (BlockArgument arg : body.getArguments()) {
    auto tensor = cast<RankedTensorType>(arg.getType());
    arg.setType(MemRefType::get(tensor.getShape(), tensor.getElementType()));
    auto toTensor =
        bufferization::ToTensorOp::create(b, func.getLoc(), tensor, arg);
    toTensor.setRestrict(true);
    arg.replaceAllUsesExcept(toTensor.getResult(), toTensor);
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  b.setInsertionPoint(ret);
  for (Value v : ret.getOperands()) {
    auto tensor = cast<RankedTensorType>(v.getType());
    BlockArgument out = body.addArgument(
        MemRefType::get(tensor.getShape(), tensor.getElementType()),
        func.getLoc());
    auto m = bufferization::MaterializeInDestinationOp::create(b, func.getLoc(),
                                                               v, out);
    m.setRestrict(true);
    m.setWritable(true);
  }
  ret->setOperands({});
  func.setType(FunctionType::get(ctx, body.getArgumentTypes(), {}));
  func.setAllArgAttrs(ArrayRef<DictionaryAttr>{});
  func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
  // All at once: one argument attribute at a time is quadratic. The
  // unsigned marks are type information: they stay without names too.
  SmallVector<DictionaryAttr> argAttrs;
  for (auto [name, mark] : llvm::zip(names, unsignedMarks)) {
    SmallVector<NamedAttribute> attrs;
    if (name && keepNames)
      attrs.push_back(b.getNamedAttr(KilnDialect::getNameAttrName(), name));
    if (mark)
      attrs.push_back(b.getNamedAttr(KilnDialect::getUnsignedAttrName(), mark));
    argAttrs.push_back(b.getDictionaryAttr(attrs));
  }
  func.setAllArgAttrs(argAttrs);
  // Names stay in the buffers' locations either way (kiln-check-memory
  // names the inputs and outputs it counts by them).
  for (auto [arg, name] : llvm::zip(body.getArguments(), names))
    if (auto text = dyn_cast_or_null<StringAttr>(name))
      arg.setLoc(NameLoc::get(text, arg.getLoc()));
  func->setAttr(kNumInputsAttrName, b.getI64IntegerAttr(numInputs));
}

namespace {
struct DestinationPassing
    : public kiln::impl::KilnDestinationPassingPassBase<DestinationPassing> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      if (!users.getUsers(func).empty()) {
        func.emitError("kiln-destination-passing: the function is called; "
                       "only a network function nothing calls can change "
                       "its signature");
        return signalPassFailure();
      }
      if (!func.getBody().hasOneBlock()) {
        func.emitError("kiln-destination-passing: expects a function with "
                       "one block");
        return signalPassFailure();
      }
      for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                             func.getResultTypes())) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (!tensor || !tensor.hasStaticShape()) {
          func.emitError("kiln-destination-passing: inputs and outputs must "
                         "be statically shaped tensors, got ")
              << t;
          return signalPassFailure();
        }
      }
      convertToDestinationPassing(func, keepNames);
    }
  }
};
} // namespace
