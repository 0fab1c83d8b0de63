//===- FormLibraryCalls.cpp - library calls on buffers ----------*- C++ -*-===//
//
// kiln-gpu-form-library-calls: each linalg.generic that
// kiln-gpu-select-library-calls marked becomes a kiln_gpu.library_call
// "cublaslt.matmul" on its buffers and a workspace, with the row-major
// parameters of kiln/runtime/CublasLtMatmul.h read from the buffers' strides.
// A product whose buffers cuBLASLt cannot take (a row not contiguous, batch
// dimensions that are not one stride apart) loses its mark and stays a
// kernel. The zero fill of the product's output goes (the call overwrites
// it).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Codegen/GPU/Products.h"
#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <functional>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUFORMLIBRARYCALLSPASS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// A buffer's rows and batches: the stride between rows (`ld`) and between
/// batches (0 for one matrix), in elements.
struct Strides {
  int64_t ld = 0, batch = 0, count = 1;
};

/// The strides of `type` as a stack of matrices, when rows are contiguous
/// and the batch dimensions are one stride apart.
std::optional<Strides> getMatrixStrides(MemRefType type, bool batched) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || type.getRank() < 2 ||
      strides.back() != 1 || ShapedType::isDynamic(strides[strides.size() - 2]))
    return std::nullopt;
  Strides s;
  int64_t rank = type.getRank();
  s.ld = strides[rank - 2];
  if (!batched || rank == 2)
    return s;
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t i = 0; i + 1 < rank - 2; ++i)
    if (strides[i] != strides[i + 1] * shape[i + 1] && shape[i] != 1)
      return std::nullopt;
  s.batch = strides[rank - 3];
  for (int64_t i = 0; i < rank - 2; ++i)
    s.count *= shape[i];
  return s;
}

StringRef getTypeName(Type t) {
  return isa<Float16Type>(t) ? "f16" : isa<BFloat16Type>(t) ? "bf16" : "f32";
}

/// Whether `op` reads or writes the buffer `root` (through any view).
bool touches(Operation *op, Value root) {
  return llvm::any_of(op->getOperands(), [&](Value v) {
    return isa<MemRefType>(v.getType()) && getRootBuffer(v) == root;
  });
}

/// Makes `v` available before `point`: moves its allocation, views and
/// constants up when they come after it. False when something else defines
/// it there.
bool hoistBefore(Value v, Operation *point) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() ||
      def->isBeforeInBlock(point))
    return true;
  if (!isa<memref::AllocOp>(def) && !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!hoistBefore(operand, point))
      return false;
  def->moveBefore(point);
  return true;
}

/// What cuBLASLt can do to D before it writes it: add a residual C (a
/// matrix of D's shape) and a bias (a vector along D's last dimension), then
/// maybe max(x, 0), and round an f32 accumulator to the inputs' f16 or
/// bf16; into a buffer of D's shape.
struct Epilogue {
  linalg::GenericOp op;
  Value bias, residual, out;
  bool relu = false;
  /// The element type written: D's, or the one D is rounded to.
  Type element;
};

/// `v` without a max(., 0) in front: max(x, 0), or trunc(max(ext(x), 0))
/// (a ReLU of a 16-bit x computed in f32); `ops` counts what it skips.
Value skipRelu(Value v, int64_t &ops) {
  Value inner = v;
  auto trunc = v.getDefiningOp<arith::TruncFOp>();
  if (trunc)
    inner = trunc.getIn();
  auto max = inner.getDefiningOp<arith::MaximumFOp>();
  if (!max)
    return nullptr;
  Value x = max.getLhs(), zero = max.getRhs();
  if (!matchPattern(zero, m_AnyZeroFloat()))
    std::swap(x, zero);
  if (!matchPattern(zero, m_AnyZeroFloat()))
    return nullptr;
  ops += 1;
  if (!trunc)
    return x;
  auto ext = x.getDefiningOp<arith::ExtFOp>();
  if (!ext || ext.getIn().getType() != v.getType())
    return nullptr;
  ops += 2;
  return ext.getIn();
}

/// The op after `after` that next touches D's buffer, when it is an
/// epilogue of D that cuBLASLt can compute instead, in the call that
/// replaces `product`: D is written over, or D is scratch (an allocation)
/// that nothing touches afterwards. `narrow` is the type an f32 accumulator
/// may be rounded to (null: none).
std::optional<Epilogue> matchEpilogue(Operation *after, Operation *product,
                                      Value d, Type narrow) {
  Value root = getRootBuffer(d);
  // (Views of D in between do not read it.)
  Operation *next = after->getNextNode();
  while (next && (!touches(next, root) || isa<ViewLikeOpInterface>(next)))
    next = next->getNextNode();
  auto op = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!op || op.getNumDpsInputs() < 1 || op.getNumDpsInputs() > 3 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  auto type = cast<MemRefType>(d.getType());
  auto readsD = [&](Value v) {
    return isa<MemRefType>(v.getType()) && getRootBuffer(v) == root;
  };
  SmallVector<Value> inputs(op.getDpsInputs());
  if (llvm::count_if(inputs, readsD) != 1)
    return std::nullopt;
  unsigned at = llvm::find_if(inputs, readsD) - inputs.begin();
  Value x = inputs[at];
  Epilogue e{op, Value(), Value(), op.getDpsInits()[0]};
  auto outType = cast<MemRefType>(e.out.getType());
  auto xType = cast<MemRefType>(x.getType());
  e.element = outType.getElementType();
  if (e.element != type.getElementType() && e.element != narrow)
    return std::nullopt;
  int64_t rank = xType.getRank();
  MLIRContext *ctx = op.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap lastDim = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto sameShape =
      MemRefType(MemRefType::Builder(xType).setElementType(e.element));
  if (sameShape != outType || maps[at] != id || maps.back() != id)
    return std::nullopt;
  // The other inputs: a bias along the last dimension, a residual of D's
  // shape (contiguous, as C is).
  Block &body = op.getRegion().front();
  Value biasArg, residualArg;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (i == at)
      continue;
    auto t = dyn_cast<MemRefType>(v.getType());
    if (!t || !t.getLayout().isIdentity() || t.getElementType() != e.element ||
        getRootBuffer(v) == root)
      return std::nullopt;
    if (t.getRank() == 1 && t.getDimSize(0) == type.getShape().back() &&
        maps[i] == lastDim && !e.bias) {
      e.bias = v;
      biasArg = body.getArgument(i);
    } else if (t == sameShape && maps[i] == id && !e.residual) {
      e.residual = v;
      residualArg = body.getArgument(i);
    } else {
      return std::nullopt;
    }
  }
  // The op reads D itself, or a reshape of all of it (that keeps the rows
  // the bias runs along), and writes a buffer of that shape, as the call
  // will.
  if (x != d &&
      (!type.getLayout().isIdentity() || !xType.getLayout().isIdentity() ||
       xType.getNumElements() != type.getNumElements() ||
       (e.bias && xType.getShape().back() != type.getShape().back())))
    return std::nullopt;
  // yield([relu](d' [+ bias] [+ residual])) with d' = [truncf] d, the sum
  // in any order, and nothing else.
  int64_t expected = 1;
  Value result = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  if (Value inner = skipRelu(result, expected)) {
    result = inner;
    e.relu = true;
  }
  SmallVector<Value> leaves;
  std::function<bool(Value)> collect = [&](Value v) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != &body)
      return leaves.push_back(v), true;
    ++expected;
    return add->hasOneUse() && collect(add.getLhs()) && collect(add.getRhs());
  };
  if (!collect(result))
    return std::nullopt;
  Value core;
  for (Value leaf : leaves) {
    if (leaf == biasArg || leaf == residualArg)
      continue;
    if (core)
      return std::nullopt;
    core = leaf;
  }
  if (!core || leaves.size() != 1u + bool(e.bias) + bool(e.residual))
    return std::nullopt;
  if (e.element != type.getElementType()) {
    auto trunc = core.getDefiningOp<arith::TruncFOp>();
    if (!trunc)
      return std::nullopt;
    core = trunc.getIn();
    ++expected;
  }
  int64_t ops = llvm::count_if(
      body, [](Operation &o) { return !isa<arith::ConstantOp>(o); });
  // A ReLU without a bias is left to a kernel (the epilogues have none);
  // so is an op that changes nothing cuBLASLt would.
  if (core != body.getArgument(at) || ops != expected || (e.relu && !e.bias) ||
      (!e.bias && !e.residual && e.element == type.getElementType()))
    return std::nullopt;
  // The call runs where the product was: the epilogue's buffers must be
  // there by then.
  if (!hoistBefore(e.out, product) ||
      (e.bias && !hoistBefore(e.bias, product)) ||
      (e.residual && !hoistBefore(e.residual, product)))
    return std::nullopt;
  if (e.out != d) {
    if (!root.getDefiningOp<memref::AllocOp>())
      return std::nullopt;
    for (Operation *later = op->getNextNode(); later;
         later = later->getNextNode())
      if (touches(later, root))
        return std::nullopt;
  }
  return e;
}

struct FormLibraryCalls
    : public mlir::kiln::impl::KilnGpuFormLibraryCallsPassBase<
          FormLibraryCalls> {
  using Base::Base;

  /// The zero fill of `d` right before `op`, with nothing between that
  /// touches d's buffer.
  linalg::FillOp findZeroFill(Operation *op, Value d) {
    Value root = getRootBuffer(d);
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      auto fill = dyn_cast<linalg::FillOp>(prev);
      if (fill && fill.getOutputs()[0] == d &&
          matchPattern(fill.value(), m_AnyZeroFloat()))
        return fill;
      if (touches(prev, root))
        return nullptr;
    }
    return nullptr;
  }

  LogicalResult form(linalg::GenericOp op) {
    // Canonicalization may have changed the product since it was chosen (a
    // splat operand becomes a constant in the body): then it stays a kernel.
    std::optional<Product> p = matchProduct(op);
    if (!p) {
      op->removeAttr(KilnGPUDialect::getLibraryAttrName());
      ++numKept;
      return success();
    }
    Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1],
          d = op.getDpsInits()[0];
    auto sa = getMatrixStrides(cast<MemRefType>(a.getType()), p->batchedA);
    auto sb = getMatrixStrides(cast<MemRefType>(b.getType()), p->batchedB);
    auto sd = getMatrixStrides(cast<MemRefType>(d.getType()), true);
    if (!sa || !sb || !sd) {
      op->removeAttr(KilnGPUDialect::getLibraryAttrName());
      ++numKept;
      return success();
    }
    // Batches of A one after another and one B for all of them: one
    // product of all of A's rows.
    int64_t m = p->m, batch = sd->count;
    if (batch > 1 && !p->transA && p->batchedA && !p->batchedB &&
        sa->batch == m * sa->ld && sd->batch == m * sd->ld) {
      m *= batch;
      batch = 1;
      sa->batch = sd->batch = 0;
    }
    // A rounding of the accumulator, then maybe a bias (and ReLU) after it.
    std::optional<Epilogue> epilogue, rounding;
    if (biasEpilogues)
      epilogue = matchEpilogue(
          op, op, d, p->accumulator != p->element ? p->element : Type());
    if (epilogue && !epilogue->bias && epilogue->element != p->accumulator) {
      rounding = epilogue;
      epilogue = matchEpilogue(rounding->op, op, rounding->out, Type());
      // (What follows a rounding is a bias epilogue, or none.)
      if (!epilogue) {
        epilogue = rounding;
        rounding.reset();
      }
    }
    OpBuilder builder(op);
    Location loc = op.getLoc();
    if (linalg::FillOp fill = findZeroFill(op, d))
      fill.erase();
    // Room for a few f32 partial products of D (split-K), within the
    // option's bound: a small product gets a small workspace.
    int64_t wanted = std::max<int64_t>(64 << 10, 4 * 4 * m * p->n * batch);
    auto workspaceType = MemRefType::get({std::min<int64_t>(workspace, wanted)},
                                         builder.getI8Type());
    Value ws = memref::AllocOp::create(builder, loc, workspaceType);
    auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
    bool useTf32 = tf32 && isa<Float32Type>(p->element);
    NamedAttrList params;
    params.append("type", builder.getStringAttr(getTypeName(p->element)));
    params.append("compute", builder.getStringAttr(useTf32 ? "tf32" : "f32"));
    params.append("m", i64(m));
    params.append("n", i64(p->n));
    params.append("k", i64(p->k));
    params.append("batch", i64(batch));
    params.append("trans_a", builder.getBoolAttr(p->transA));
    params.append("trans_b", builder.getBoolAttr(p->transB));
    params.append("lda", i64(sa->ld));
    params.append("ldb", i64(sb->ld));
    params.append("ldd", i64(sd->ld));
    params.append("stride_a", i64(batch > 1 ? sa->batch : 0));
    params.append("stride_b", i64(batch > 1 ? sb->batch : 0));
    params.append("stride_d", i64(batch > 1 ? sd->batch : 0));
    SmallVector<Value> buffers = {a, b, d, ws};
    SmallVector<StringRef> access = {"read", "read", "write", "readwrite"};
    Type out = p->accumulator;
    if (epilogue) {
      buffers[2] = epilogue->out;
      out = epilogue->element;
      if (epilogue->bias) {
        params.append("epilogue", builder.getStringAttr(
                                      epilogue->relu ? "relu_bias" : "bias"));
        buffers.push_back(epilogue->bias);
        access.push_back("read");
      }
      if (epilogue->residual) {
        params.append("residual", builder.getBoolAttr(true));
        buffers.push_back(epilogue->residual);
        access.push_back("read");
      }
    }
    if (out != p->element)
      params.append("out_type", builder.getStringAttr(getTypeName(out)));
    auto call = LibraryCallOp::create(
        builder, loc, ::kiln::rt::CublasLtMatmulParams::kCallee, buffers,
        builder.getStrArrayAttr(access), params.getDictionary(&getContext()));
    if (epilogue) {
      // The layers it computes, for the report.
      call->setLoc(
          FusedLoc::get(&getContext(), {op.getLoc(), epilogue->op.getLoc()}));
      epilogue->op.erase();
      ++numEpilogues;
    }
    if (rounding) {
      rounding->op.erase();
      ++numEpilogues;
    }
    if (auto group = op->getAttr(KilnGPUDialect::getFusionGroupAttrName()))
      call->setAttr(KilnGPUDialect::getFusionGroupAttrName(), group);
    op.erase();
    ++numFormed;
    return success();
  }

  void runOnOperation() override {
    if (workspace < 0) {
      getOperation().emitError("kiln-gpu-form-library-calls: workspace must "
                               "be at least 0 bytes");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(KilnGPUDialect::getLibraryAttrName()))
        marked.push_back(op);
    });
    for (linalg::GenericOp op : marked)
      if (failed(form(op)))
        return signalPassFailure();
  }
};
} // namespace
