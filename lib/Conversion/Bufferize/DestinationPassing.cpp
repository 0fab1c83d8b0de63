//===- DestinationPassing.cpp - network functions on buffers ----*- C++ -*-===//

#include "kiln/Conversion/DestinationPassing.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

void kiln::convertToDestinationPassing(func::FuncOp func, bool keepNames) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  Block &body = func.getBody().front();
  unsigned numInputs = body.getNumArguments();
  SmallVector<Attribute> names;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    names.push_back(func.getArgAttr(i, KilnDialect::getNameAttrName()));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    names.push_back(func.getResultAttr(i, KilnDialect::getNameAttrName()));

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
    auto m = bufferization::MaterializeInDestinationOp::create(
        b, func.getLoc(), v, out);
    m.setRestrict(true);
    m.setWritable(true);
  }
  ret->setOperands({});
  func.setType(FunctionType::get(ctx, body.getArgumentTypes(), {}));
  func.setAllArgAttrs(ArrayRef<DictionaryAttr>{});
  func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
  if (!keepNames)
    return;
  for (auto [i, name] : llvm::enumerate(names))
    if (name)
      func.setArgAttr(i, KilnDialect::getNameAttrName(), name);
  func->setAttr(kNumInputsAttrName, b.getI64IntegerAttr(numInputs));
}
