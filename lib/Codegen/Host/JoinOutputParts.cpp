//===- JoinOutputParts.cpp - outputs that are parts of one tensor -*- C++ -*-=//
//
// kiln-join-output-parts: the network outputs that are contiguous parts of
// one tensor (a Split's outputs, a Caffe Slice's tops) are returned as that
// tensor once; `kiln.output_parts` tells the executor where each output
// lies. The CPU reference then compiles one copy instead of a part of code
// per output.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNJOINOUTPUTPARTSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace mlir::kiln {
namespace {

/// The element offset of `slice` in its input when its elements are one run
/// of the input's elements: dimensions of 1 up to one that may be partial,
/// whole dimensions after it, stride 1 where more than one index is read.
/// nullopt otherwise, and for an empty slice.
std::optional<int64_t> contiguousOffset(SliceOp slice) {
  RankedTensorType in = slice.getInput().getType(), out = slice.getType();
  // Elements of whole bytes (i1 is stored in one), so that an offset is one
  // in bytes too.
  unsigned bits = in.getElementType().getIntOrFloatBitWidth();
  if (!in.hasStaticShape() || !out.hasStaticShape() ||
      out.getNumElements() == 0 || (bits != 1 && bits % 8 != 0))
    return std::nullopt;
  ArrayRef<int64_t> shape = in.getShape(), start = slice.getStart(),
                    size = slice.getSize(), stride = slice.getStride();
  int64_t rank = in.getRank(), partial = 0;
  while (partial < rank && size[partial] == 1)
    ++partial;
  for (int64_t d = partial; d < rank; ++d)
    if ((d > partial && (start[d] != 0 || size[d] != shape[d])) ||
        (size[d] > 1 && stride[d] != 1))
      return std::nullopt;
  // The slice's verifier bounded every start by its dimension.
  int64_t offset = 0, step = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    offset += start[d] * step;
    step *= shape[d];
  }
  return offset;
}

struct JoinOutputPartsPass
    : impl::KilnJoinOutputPartsPassBase<JoinOutputPartsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && func.getBody().hasOneBlock() &&
          !func->hasAttr(kOutputPartsAttrName) && users.getUsers(func).empty())
        join(func);
  }

  void join(func::FuncOp func) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    unsigned n = ret.getNumOperands();
    // The outputs that are parts of each tensor, tensors in order of their
    // first part.
    llvm::MapVector<Value, SmallVector<unsigned>> parts;
    SmallVector<int64_t> offsets(n, -1);
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (auto slice = v.getDefiningOp<SliceOp>())
        if (std::optional<int64_t> offset = contiguousOffset(slice)) {
          parts[slice.getInput()].push_back(i);
          offsets[i] = *offset;
        }
    llvm::BitVector joined(n);
    for (auto &[tensor, outputs] : parts)
      if (outputs.size() >= 2)
        for (unsigned o : outputs)
          joined.set(o);
    if (joined.none())
      return;

    SmallVector<Value> results;
    SmallVector<DictionaryAttr> resultAttrs;
    SmallVector<int64_t> map(2 * n);
    llvm::SetVector<Operation *> slices;
    // The first result each value is (a joined tensor may be one already).
    llvm::DenseMap<Value, int64_t> resultOf;
    for (unsigned i = 0; i < n; ++i) {
      if (joined[i]) {
        slices.insert(ret.getOperand(i).getDefiningOp());
        continue;
      }
      map[2 * i] = results.size();
      map[2 * i + 1] = -1;
      resultOf.try_emplace(ret.getOperand(i), results.size());
      results.push_back(ret.getOperand(i));
      resultAttrs.push_back(func.getResultAttrDict(i));
    }
    for (auto &[tensor, outputs] : parts) {
      if (outputs.size() < 2)
        continue;
      // The tensor is returned once: as an output of its own if it is one.
      auto [it, added] = resultOf.try_emplace(tensor, results.size());
      int64_t result = it->second;
      if (added) {
        results.push_back(tensor);
        resultAttrs.push_back(DictionaryAttr::get(func.getContext()));
      }
      for (unsigned o : outputs) {
        map[2 * o] = result;
        map[2 * o + 1] = offsets[o];
      }
      numJoined += outputs.size();
    }

    OpBuilder b(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    func.setAllResultAttrs(resultAttrs);
    func->setAttr(kOutputPartsAttrName, b.getDenseI64ArrayAttr(map));
    for (Operation *slice : slices)
      if (slice->use_empty())
        slice->erase();
  }
};

} // namespace
} // namespace mlir::kiln
