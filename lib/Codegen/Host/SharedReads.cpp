//===- SharedReads.cpp - many readers read through own tensors --*- C++ -*-===//
//
// kiln-shared-reads: a tensor with more than max-readers uses is read by
// each reader through a bufferization.to_tensor of its own, so that
// one-shot bufferization does not check every reader against every other
// (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSHAREDREADSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The buffer that `value` (with many readers) is read from: a to_tensor's
/// own, or a new allocation that `value` is written into after its
/// producer. Null when `value` has no static shape.
static Value getSharedBuffer(Value value, OpBuilder &b) {
  if (auto read = value.getDefiningOp<bufferization::ToTensorOp>())
    return read.getBuffer();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return {};
  b.setInsertionPointAfterValue(value);
  Location loc = value.getLoc();
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      b.getI64IntegerAttr(kBufferAlignment));
  auto write =
      bufferization::MaterializeInDestinationOp::create(b, loc, value, buffer);
  write.setRestrict(true);
  write.setWritable(true);
  return buffer;
}

namespace {
struct SharedReads : public kiln::impl::KilnSharedReadsPassBase<SharedReads> {
  using Base::Base;

  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    SmallVector<Value> shared;
    auto consider = [&](Value v) {
      if (isa<RankedTensorType>(v.getType()) &&
          v.hasNUsesOrMore(static_cast<unsigned>(maxReaders) + 1))
        shared.push_back(v);
    };
    for (BlockArgument arg : body.getArguments())
      consider(arg);
    for (Operation &op : body)
      for (Value v : op.getResults())
        consider(v);
    OpBuilder b(&getContext());
    for (Value value : shared) {
      // The readers, each once, in the block (before the write is added).
      llvm::SetVector<Operation *> readers;
      for (Operation *user : value.getUsers())
        if (Operation *inBlock = body.findAncestorOpInBlock(*user))
          readers.insert(inBlock);
      Value buffer = getSharedBuffer(value, b);
      if (!buffer)
        continue;
      auto original = value.getDefiningOp<bufferization::ToTensorOp>();
      for (Operation *reader : readers) {
        if (reader == original)
          continue;
        b.setInsertionPoint(reader);
        auto read = bufferization::ToTensorOp::create(b, value.getLoc(),
                                                      value.getType(), buffer);
        read.setRestrict(true);
        reader->replaceUsesOfWith(value, read.getResult());
      }
      if (original && original->use_empty())
        original->erase();
    }
  }
};
} // namespace
