//===- InnerVectors.cpp - kernels work on vectors along the inner loop ----===//
//
// See InnerVectors.h. The analysis finds the values that differ between the
// iterations a thread runs together (those computed from loads indexed by
// the innermost loop) and checks that only arith/math ops, which work on
// vectors as they do on scalars, compute them; the clone widens exactly
// those values to vectors and keeps everything else scalar.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/InnerVectors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The buffer `op` loads from or stores to, and its indices; null for other
/// ops.
std::pair<Value, ValueRange> getAccess(Operation &op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemRef(), store.getIndices()};
  return {nullptr, ValueRange()};
}

/// Whether `op` is a load or store whose last index is `inner`, and which
/// uses `inner` nowhere else.
bool isInnerAccess(Operation &op, Value inner) {
  auto [memref, indices] = getAccess(op);
  return memref && !indices.empty() && indices.back() == inner &&
         llvm::count(op.getOperands(), inner) == 1;
}

/// A float or integer (not index) type: what vector<V x T> can hold and
/// arith/math ops compute on alike.
bool isScalarData(Type t) { return isa<FloatType, IntegerType>(t); }

} // namespace

namespace {
/// What getInnerVectorWidth learns walking a body.
struct Analysis {
  Value inner;
  AlignedBufferFn aligned;
  DenseSet<Value> varying; // values that differ between the iterations
  int64_t widest = 0;      // bytes of the widest element accessed along inner
  SmallVector<MemRefType> alignedTypes; // aligned buffers accessed so

  /// Whether `block` (without its terminator) can run on vectors.
  bool walk(Block &block);
};
} // namespace

/// A loop nested in the body (a reduction loop of the op) whose bounds are
/// the same for all iterations and which carries no values.
static scf::ForOp getUniformLoop(Operation &op, const DenseSet<Value> &varying,
                                 Value inner) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || loop.getNumResults() != 0 ||
      llvm::any_of(loop->getOperands(),
                   [&](Value v) { return v == inner || varying.contains(v); }))
    return nullptr;
  return loop;
}

bool Analysis::walk(Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (scf::ForOp loop = getUniformLoop(op, varying, inner)) {
      if (!walk(*loop.getBody()))
        return false;
      continue;
    }
    if (op.getNumRegions() != 0)
      return false;
    auto [memref, indices] = getAccess(op);
    if (memref && isInnerAccess(op, inner)) {
      auto type = cast<MemRefType>(memref.getType());
      Type element = type.getElementType();
      SmallVector<int64_t> strides;
      int64_t offset;
      // Whole bytes: an i1 buffer holds a byte per element, a vector<N x i1>
      // packs N bits.
      if (!isScalarData(element) || element.getIntOrFloatBitWidth() % 8 != 0 ||
          failed(type.getStridesAndOffset(strides, offset)) ||
          strides.back() != 1)
        return false;
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
      if (aligned(memref))
        alignedTypes.push_back(type);
      if (isa<memref::LoadOp>(op))
        varying.insert(op.getResult(0));
      continue;
    }
    // Every iteration stores its own element; a load elsewhere is the same
    // for all iterations, and so is everything not computed from `inner`.
    if (isa<memref::StoreOp>(op) || llvm::is_contained(op.getOperands(), inner))
      return false;
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return varying.contains(v); }))
      continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        !llvm::all_of(op.getOperandTypes(), isScalarData) ||
        !llvm::all_of(op.getResultTypes(), isScalarData))
      return false;
    varying.insert(op.getResults().begin(), op.getResults().end());
  }
  return true;
}

int64_t mlir::kiln::getInnerVectorWidth(Block &body, Value inner, int64_t size,
                                        AlignedBufferFn aligned) {
  if (body.getTerminator()->getNumOperands() != 0 || size < 2)
    return 1;
  Analysis analysis{inner, aligned};
  if (!analysis.walk(body))
    return 1;
  int64_t widest = analysis.widest;
  ArrayRef<MemRefType> alignedTypes = analysis.alignedTypes;
  if (alignedTypes.empty() || widest == 0 || widest > kVectorBytes)
    return 1;
  auto fits = [&](int64_t width) {
    if (size % width != 0)
      return false;
    for (MemRefType type : alignedTypes) {
      auto [strides, offset] = type.getStridesAndOffset();
      if (offset % width != 0 ||
          llvm::any_of(ArrayRef(strides).drop_back(),
                       [&](int64_t s) { return s % width != 0; }))
        return false;
    }
    return true;
  };
  int64_t width = kVectorBytes / widest;
  while (width > 1 && !fits(width))
    width /= 2;
  return width;
}

void mlir::kiln::cloneAsVectors(OpBuilder &b, Block &body, Value inner,
                                Value first, int64_t width, IRMapping &mapping,
                                AlignedBufferFn aligned) {
  DenseMap<Value, Value> vectors; // values of `body` that differ, widened
  DenseSet<Value> varying;        // their keys, for getUniformLoop
  auto vectorType = [&](Type t) { return VectorType::get({width}, t); };
  auto vectorOf = [&](Location loc, Value v) -> Value {
    if (Value w = vectors.lookup(v))
      return w;
    Value s = mapping.lookupOrDefault(v);
    return vector::BroadcastOp::create(b, loc, vectorType(s.getType()), s);
  };
  // The access's indices with the last one `first` + j.
  auto indicesAt = [&](Location loc, ValueRange indices, int64_t j) {
    SmallVector<Value> at;
    for (Value i : indices.drop_back())
      at.push_back(mapping.lookupOrDefault(i));
    at.push_back(
        j == 0 ? first
               : arith::AddIOp::create(
                     b, loc, first, arith::ConstantIndexOp::create(b, loc, j)));
    return at;
  };
  std::function<void(Block &)> cloneBlock = [&](Block &block) {
    for (Operation &op : block.without_terminator()) {
      Location loc = op.getLoc();
      if (scf::ForOp loop = getUniformLoop(op, varying, inner)) {
        auto copy = scf::ForOp::create(
            b, loc, mapping.lookupOrDefault(loop.getLowerBound()),
            mapping.lookupOrDefault(loop.getUpperBound()),
            mapping.lookupOrDefault(loop.getStep()));
        mapping.map(loop.getInductionVar(), copy.getInductionVar());
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(copy.getBody()->getTerminator());
        cloneBlock(*loop.getBody());
        continue;
      }
      if (isInnerAccess(op, inner)) {
        auto [memref, indices] = getAccess(op);
        Value buffer = mapping.lookupOrDefault(memref);
        Type element = cast<MemRefType>(buffer.getType()).getElementType();
        VectorType type = vectorType(element);
        bool whole = aligned(buffer);
        llvm::MaybeAlign align(width * element.getIntOrFloatBitWidth() / 8);
        if (auto load = dyn_cast<memref::LoadOp>(op)) {
          if (whole) {
            varying.insert(load.getResult());
            vectors[load.getResult()] = vector::LoadOp::create(
                b, loc, type, buffer, indicesAt(loc, indices, 0),
                /*nontemporal=*/false, align);
            continue;
          }
          SmallVector<Value> elements;
          for (int64_t j = 0; j < width; ++j)
            elements.push_back(memref::LoadOp::create(
                b, loc, buffer, indicesAt(loc, indices, j)));
          varying.insert(load.getResult());
          vectors[load.getResult()] =
              vector::FromElementsOp::create(b, loc, type, elements);
          continue;
        }
        auto store = cast<memref::StoreOp>(op);
        Value value = vectorOf(loc, store.getValueToStore());
        if (whole) {
          vector::StoreOp::create(b, loc, value, buffer,
                                  indicesAt(loc, indices, 0),
                                  /*nontemporal=*/false, align);
          continue;
        }
        for (int64_t j = 0; j < width; ++j)
          memref::StoreOp::create(b, loc,
                                  vector::ExtractOp::create(b, loc, value, j),
                                  buffer, indicesAt(loc, indices, j));
        continue;
      }
      if (llvm::none_of(op.getOperands(),
                        [&](Value v) { return vectors.contains(v); })) {
        b.clone(op, mapping);
        continue;
      }
      // The same op on vectors; a select's condition may stay one bit for all.
      OperationState state(loc, op.getName());
      for (OpOperand &operand : op.getOpOperands()) {
        bool condition = isa<arith::SelectOp>(op) &&
                         operand.getOperandNumber() == 0 &&
                         !vectors.contains(operand.get());
        state.addOperands(condition ? mapping.lookupOrDefault(operand.get())
                                    : vectorOf(loc, operand.get()));
      }
      for (Type t : op.getResultTypes())
        state.addTypes(vectorType(t));
      state.addAttributes(op.getAttrs());
      Operation *widened = b.create(state);
      for (auto [from, to] :
           llvm::zip(op.getResults(), widened->getResults())) {
        varying.insert(from);
        vectors[from] = to;
      }
    }
  };
  cloneBlock(body);
}
