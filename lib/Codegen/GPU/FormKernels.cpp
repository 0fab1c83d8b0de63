//===- FormKernels.cpp - one GPU kernel per linalg op -----------*- C++ -*-===//
//
// kiln-gpu-form-kernels: every linalg op of the bufferized network function
// becomes a gpu.func in `gpu.module @kiln_kernels` plus a gpu.launch_func of
// it. The kernel walks the op's parallel loops as one collapsed, row-major
// 1-D space (tile_config: `tile` iterations per block, `threads` threads per
// block, each thread striding by `threads`), with the reduction loops inside
// each thread. Device copies and byte-pattern fills stay for the runtime.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Codegen/GPU/DeviceOps.h"
#include "kiln/Codegen/GPU/Flops.h"
#include "kiln/Codegen/GPU/InPlace.h"
#include "kiln/Codegen/GPU/InnerVectors.h"
#include "kiln/Codegen/GPU/WarpRows.h"
#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Codegen/Host/StructuralHash.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/ScopeExit.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUFORMKERNELSPASS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

static constexpr llvm::StringLiteral kKernelModule = "kiln_kernels";

/// Access bits of a kernel's buffer argument.
constexpr unsigned kAccessRead = 1, kAccessWrite = 2;

/// "read", "write" or "readwrite" (kiln_gpu.arg_access).
static StringRef getAccessName(unsigned bits) {
  if (bits == (kAccessRead | kAccessWrite))
    return "readwrite";
  return bits & kAccessWrite ? "write" : "read";
}

/// A name for the kernel of `op`: the innermost named location (the layer's
/// name), made a valid PTX identifier.
static std::string kernelName(Operation *op, unsigned index) {
  std::string name = "k" + std::to_string(index);
  std::string layer;
  op->getLoc()->walk([&](Location loc) {
    auto named = dyn_cast<NameLoc>(loc);
    if (named && !named.getName().getValue().empty()) {
      layer = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (layer.empty())
    layer = op->getName().stripDialect().str();
  name += "_";
  for (char c : layer.substr(0, 40))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

/// Replaces math.ipowi (which NVVM has no lowering for) with exponentiation
/// by squaring over the exponent's bits; a negative exponent gives 0 unless
/// the base is 1 or -1, as math.ipowi defines.
static void expandIPowI(math::IPowIOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value base = op.getLhs(), exp = op.getRhs();
  Type type = base.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value zero = c(0), one = c(1), minusOne = c(-1);
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
      arith::ConstantIndexOp::create(b, loc, width),
      arith::ConstantIndexOp::create(b, loc, 1), ValueRange{one, base, exp},
      [&](OpBuilder &nb, Location l, Value, ValueRange it) {
        Value r = it[0], sq = it[1], e = it[2];
        Value bit = arith::AndIOp::create(nb, l, e, one);
        Value odd =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, bit, zero);
        Value times = arith::MulIOp::create(nb, l, r, sq);
        r = arith::SelectOp::create(nb, l, odd, times, r);
        sq = arith::MulIOp::create(nb, l, sq, sq);
        e = arith::ShRUIOp::create(nb, l, e, one);
        scf::YieldOp::create(nb, l, ValueRange{r, sq, e});
      });
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exp, zero);
  Value isOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, minusOne);
  Value expOdd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, exp, one), zero);
  Value signed1 = arith::SelectOp::create(b, loc, expOdd, minusOne, one);
  Value forNegative = arith::SelectOp::create(
      b, loc, isOne, one,
      arith::SelectOp::create(b, loc, isMinusOne, signed1, zero));
  Value result =
      arith::SelectOp::create(b, loc, negative, forNegative, loop.getResult(0));
  op.replaceAllUsesWith(result);
  op.erase();
}

namespace {
struct FormKernels
    : public kiln::impl::KilnGpuFormKernelsPassBase<FormKernels> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// A kernel formed from a generic whose body reads no buffer but its
  /// operands: what a later generic must match to be launched as it is.
  struct FormedKernel {
    ArrayAttr maps, iterators;
    DictionaryAttr attrs;
    SmallVector<Type> argTypes;     // the kernel's, rebased
    SmallVector<unsigned> operands; // the argument of each op operand
    SmallVector<bool> placed;       // isPlacedBuffer, per argument
    std::shared_ptr<Region> body;   // a copy of the generic's body
    gpu::GPUFuncOp func;
    int64_t blocks;
    TileConfigAttr config;
  };
  /// The kernel formed before that `op` would make again, if any; else
  /// null, with `key` (and a copy of `op`'s body) remembered in `added`,
  /// whose kernel the caller fills in.
  FormedKernel *findFormed(FormedKernel &key, linalg::GenericOp op,
                           FormedKernel *&added);

  LogicalResult formKernel(linalg::GenericOp op, gpu::GPUModuleOp kernels,
                           unsigned index);
  LogicalResult formGroupKernel(scf::ForallOp loop, gpu::GPUModuleOp kernels,
                                unsigned index);
  TileConfigAttr configFor(Operation *op, int64_t iterations);

  /// Kernels formed by this run, by a hash of their FormedKernel key: a
  /// network of thousands of layers alike (a concat's parts, a model's
  /// repeated blocks) forms each kind of kernel once.
  DenseMap<llvm::hash_code, std::vector<FormedKernel>> formed;
};
} // namespace

TileConfigAttr FormKernels::configFor(Operation *op, int64_t iterations) {
  if (auto given = op->getAttrOfType<TileConfigAttr>(
          KilnGPUDialect::getTileConfigAttrName()))
    return given;
  int64_t t = std::min<int64_t>(threads, llvm::alignTo(iterations, 32));
  return TileConfigAttr::get(op->getContext(), {t * itemsPerThread}, {t}, 1);
}

/// Splits `linear` into indices of the row-major space `sizes`. A 32-bit
/// `linear` (buildIterationGuard's when the space is small) is split with
/// 32-bit divisions, which are several times cheaper on the GPU than 64-bit
/// ones; the indices are index values either way.
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<int64_t> sizes) {
  SmallVector<Value> ivs(sizes.size());
  Value rest = linear;
  Type type = linear.getType();
  for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      ivs[i] = rest;
      break;
    }
    Value size =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, sizes[i]));
    ivs[i] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  if (!type.isIndex())
    for (Value &iv : ivs)
      iv = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), iv);
  return ivs;
}

/// At the builder's insertion point: the iteration thread (block * tile +
/// thread + k * threads, for k below tile / threads) works on, and an
/// scf.if that it is below `iterations`. Returns the iteration, an i32 when
/// every iteration a thread computes fits (an index otherwise); the builder
/// is left inside the scf.if, before its yield.
static Value buildIterationGuard(OpBuilder &b, Location loc, int64_t tile,
                                 int64_t blockThreads, int64_t iterations) {
  bool narrow =
      llvm::alignTo(iterations, tile) <= std::numeric_limits<int32_t>::max();
  Type type = narrow ? Type(b.getI32Type()) : Type(b.getIndexType());
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (narrow) {
    blockId = arith::IndexCastUIOp::create(b, loc, type, blockId);
    threadId = arith::IndexCastUIOp::create(b, loc, type, threadId);
  }
  Value base = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId, cst(tile)), threadId);
  Value linear = base;
  if (tile > blockThreads) {
    auto items =
        scf::ForOp::create(b, loc, cst(0), cst(tile), cst(blockThreads));
    b.setInsertionPointToStart(items.getBody());
    linear = arith::AddIOp::create(b, loc, base, items.getInductionVar());
  }
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        linear, cst(iterations));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  return linear;
}

/// At the builder's insertion point: the iteration warp (block * warps per
/// block + thread / 32) works on, its lane (thread % 32), and an scf.if that
/// the iteration is below `iterations` (the same for the whole warp).
/// Returns the iteration; the builder is left inside the scf.if.
static Value buildWarpGuard(OpBuilder &b, Location loc, int64_t blockThreads,
                            int64_t iterations, Value &lane) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, loc, threadId, cst(kWarpLanes));
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, blockId, cst(blockThreads / kWarpLanes)),
      arith::DivUIOp::create(b, loc, threadId, cst(kWarpLanes)));
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        linear, cst(iterations));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  return linear;
}

/// Records `config` on kernel `func` (and the block size it implies).
static void setTileConfig(gpu::GPUFuncOp func, TileConfigAttr config) {
  func->setAttr(KilnGPUDialect::getTileConfigAttrName(), config);
  func.setKnownBlockSizeAttr(OpBuilder(func).getDenseI32ArrayAttr(
      {static_cast<int32_t>(config.getThreads()[0]), 1, 1}));
}

/// Whether host buffer `v` is (a view of) a buffer the plan places (an
/// arena buffer or weights), which starts at a multiple of the plan's
/// alignment (at least kVectorBytes), unlike the network's inputs and
/// outputs.
static bool isPlacedBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v.getDefiningOp<memref::AllocOp>() ||
         v.getDefiningOp<memref::GetGlobalOp>();
}

/// What the launch of the kernel made of `scope` passes for each of
/// `buffers`: a part of a buffer that starts a vector or more into it is
/// rebased (rebasePart) to start at the vector-aligned element before it,
/// keeping only the offset within that vector in its type. Kernels then
/// differ by that remainder, not by where their part lies (a
/// concatenation's thousands of inputs share a kernel), and accesses
/// aligned before stay aligned.
static SmallVector<Value> getKernelOperands(ArrayRef<Value> buffers,
                                            Operation *scope) {
  SmallVector<Value> operands;
  OpBuilder b(scope);
  for (Value v : buffers) {
    int64_t bytes =
        getElementBytes(cast<MemRefType>(v.getType()).getElementType());
    operands.push_back(kVectorBytes % bytes != 0
                           ? v
                           : rebasePart(b, v, kVectorBytes / bytes, scope));
  }
  return operands;
}

/// A kernel `name` at the end of `kernels` taking `operands` (the launch's
/// values for `buffers`, which `mapping` maps to its arguments), with the
/// constants `scalars` cloned in and `config` recorded; its body holds only
/// the constants.
static gpu::GPUFuncOp createKernelFunc(gpu::GPUModuleOp kernels, Location loc,
                                       StringRef name, ArrayRef<Value> buffers,
                                       ArrayRef<Value> operands,
                                       ArrayRef<Value> scalars,
                                       TileConfigAttr config,
                                       IRMapping &mapping) {
  OpBuilder b(kernels.getBodyRegion());
  b.setInsertionPointToEnd(kernels.getBody());
  SmallVector<Type> argTypes(ValueRange(operands).getTypes());
  auto func = gpu::GPUFuncOp::create(
      b, loc, name, FunctionType::get(b.getContext(), argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  setTileConfig(func, config);
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  for (auto [buffer, arg] : llvm::zip(buffers, entry.getArguments()))
    mapping.map(buffer, arg);
  for (Value v : scalars)
    mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
  return func;
}

/// Replaces `replaced` on the host with a launch of `func` over `blocks` x
/// `config`'s threads with `operands` (for `buffers`), recording the tile
/// config, what the kernel does with each buffer, which outputs it may
/// write in place of which inputs and its floating-point operations.
static gpu::LaunchFuncOp createLaunch(Operation *replaced, gpu::GPUFuncOp func,
                                      int64_t blocks, TileConfigAttr config,
                                      ArrayRef<Value> buffers,
                                      ArrayRef<Value> operands,
                                      const DenseMap<Value, unsigned> &access,
                                      ArrayRef<InPlacePair> inPlace) {
  OpBuilder b(replaced);
  Location loc = replaced->getLoc();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = c(1);
  auto launch =
      gpu::LaunchFuncOp::create(b, loc, func, {c(blocks), one, one},
                                {c(config.getThreads()[0]), one, one},
                                /*dynamicSharedMemorySize=*/nullptr, operands);
  launch->setAttr(KilnGPUDialect::getTileConfigAttrName(), config);
  launch->setAttr(KilnGPUDialect::getFlopsAttrName(),
                  b.getI64IntegerAttr(countFlops(replaced)));
  SmallVector<Attribute> accesses;
  for (Value buffer : buffers)
    accesses.push_back(b.getStringAttr(getAccessName(access.lookup(buffer))));
  launch->setAttr(KilnGPUDialect::getArgAccessAttrName(),
                  b.getArrayAttr(accesses));
  if (!inPlace.empty()) {
    SmallVector<int64_t> flat;
    for (auto [read, written] : inPlace)
      flat.append({read, written});
    launch->setAttr(KilnGPUDialect::getInPlaceAttrName(),
                    b.getDenseI64ArrayAttr(flat));
  }
  return launch;
}

FormKernels::FormedKernel *FormKernels::findFormed(FormedKernel &key,
                                                   linalg::GenericOp op,
                                                   FormedKernel *&added) {
  llvm::hash_code hash = hashStructure(
      op.getRegion(),
      llvm::hash_combine(
          key.maps, key.iterators, key.attrs,
          llvm::hash_combine_range(key.argTypes.begin(), key.argTypes.end()),
          llvm::hash_combine_range(key.operands.begin(), key.operands.end()),
          llvm::hash_combine_range(key.placed.begin(), key.placed.end())));
  std::vector<FormedKernel> &candidates = formed[hash];
  for (FormedKernel &f : candidates) {
    if (f.maps != key.maps || f.iterators != key.iterators ||
        f.attrs != key.attrs || f.argTypes != key.argTypes ||
        f.operands != key.operands || f.placed != key.placed)
      continue;
    // The bodies: the same ops on block arguments alike, and constants
    // (cloned into the kernel) of equal values.
    DenseMap<Value, Value> same;
    auto check = [&](Value a, Value b) -> LogicalResult {
      if (a == b || same.lookup(a) == b)
        return success();
      Attribute ca, cb;
      return success(a.getType() == b.getType() &&
                     matchPattern(a, m_Constant(&ca)) &&
                     matchPattern(b, m_Constant(&cb)) && ca == cb);
    };
    auto mark = [&](Value a, Value b) { same[a] = b; };
    if (OperationEquivalence::isRegionEquivalentTo(
            &op.getRegion(), f.body.get(), check, mark,
            OperationEquivalence::IgnoreLocations))
      return &f;
  }
  key.body = std::make_shared<Region>();
  IRMapping none;
  op.getRegion().cloneInto(key.body.get(), none);
  candidates.push_back(std::move(key));
  added = &candidates.back();
  return nullptr;
}

LogicalResult FormKernels::formKernel(linalg::GenericOp op,
                                      gpu::GPUModuleOp kernels,
                                      unsigned index) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t iterations = 1;
  for (auto [range, type] : llvm::zip(ranges, op.getIteratorTypesArray())) {
    if (ShapedType::isDynamic(range))
      return op.emitError("kiln-gpu-form-kernels: dynamic loop range");
    if (type == utils::IteratorType::parallel &&
        llvm::MulOverflow(iterations, range, iterations))
      return op.emitError("kiln-gpu-form-kernels: the op's parallel "
                          "iterations overflow 64 bits");
  }
  TileConfigAttr config = configFor(op, iterations);

  // Kernel arguments: the op's buffers and those its body reads (a gather's
  // data); scalars it reads must be constants, which are cloned in.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  SmallVector<Value> buffers, scalars;
  // What the kernel does with each buffer: inputs and captured buffers are
  // read, inits written (and read when the body uses their value).
  DenseMap<Value, unsigned> access;
  for (OpOperand *input : op.getDpsInputOperands())
    access[input->get()] |= kAccessRead;
  for (OpOperand &init : op.getDpsInitsMutable())
    access[init.get()] |=
        kAccessWrite |
        (op.payloadUsesValueFromOperand(&init) ? kAccessRead : 0u);
  for (Value v : captured)
    access[v] |= kAccessRead;
  for (Value v : llvm::concat<Value>(op->getOperands(), captured)) {
    if (auto memref = dyn_cast<MemRefType>(v.getType())) {
      if (!hasStaticLayout(memref))
        return op.emitError("kiln-gpu-form-kernels: operand type ")
               << memref << " has a dynamic shape or layout";
      if (llvm::is_contained(buffers, v))
        continue;
      buffers.push_back(v);
      continue;
    }
    if (!v.getDefiningOp() ||
        !v.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      return op.emitError("kiln-gpu-form-kernels: the op reads a scalar that "
                          "is not a constant");
    if (!llvm::is_contained(scalars, v))
      scalars.push_back(v);
  }

  SmallVector<InPlacePair> inPlace = findInPlacePairs(op, buffers);
  SmallVector<Value> operands = getKernelOperands(buffers, op);

  // A generic alike formed a kernel before (its operands are buffers and
  // its body reads no other): launch that one.
  FormedKernel *added = nullptr;
  auto isBuffer = [](Value v) { return isa<MemRefType>(v.getType()); };
  if (llvm::none_of(captured, isBuffer) &&
      llvm::all_of(op->getOperands(), isBuffer)) {
    FormedKernel key;
    key.maps = op.getIndexingMaps();
    key.iterators = op.getIteratorTypes();
    key.attrs = op->getDiscardableAttrDictionary();
    key.argTypes = llvm::to_vector(ValueRange(operands).getTypes());
    for (Value v : op->getOperands())
      key.operands.push_back(llvm::find(buffers, v) - buffers.begin());
    for (Value v : buffers)
      key.placed.push_back(isPlacedBuffer(v));
    if (FormedKernel *same = findFormed(key, op, added)) {
      createLaunch(op, same->func, same->blocks, same->config, buffers,
                   operands, access, inPlace);
      op.erase();
      return success();
    }
  }
  IRMapping mapping;
  gpu::GPUFuncOp func =
      createKernelFunc(kernels, loc, kernelName(op, index), buffers, operands,
                       scalars, config, mapping);
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&entry);
  auto clone = cast<linalg::LinalgOp>(b.clone(*op, mapping));
  gpu::ReturnOp ret = gpu::ReturnOp::create(b, loc);

  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(clone);
  if (failed(linalg::linalgOpToParallelLoops(rewriter, clone)))
    return op.emitError("kiln-gpu-form-kernels: cannot lower to loops");
  rewriter.eraseOp(clone);
  // The loops index through identity affine.apply ops: index directly.
  func.walk([&](affine::AffineApplyOp apply) {
    if (apply.getAffineMap().isIdentity() && apply.getNumOperands() == 1)
      rewriter.replaceOp(apply, apply.getOperand(0));
  });
  SmallVector<math::IPowIOp> powers;
  func.walk([&](math::IPowIOp p) { powers.push_back(p); });
  for (math::IPowIOp p : powers)
    expandIPowI(p);

  // The parallel loop (if any) becomes the block/thread mapping.
  scf::ParallelOp parallel;
  for (Operation &o : entry)
    if ((parallel = dyn_cast<scf::ParallelOp>(&o)))
      break;
  SmallVector<int64_t> sizes;
  SmallVector<Operation *> nest;
  if (!parallel)
    for (Operation &o : entry)
      if (&o != ret)
        nest.push_back(&o);
  if (parallel) {
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *l != 0 || *s != 1)
        return op.emitError("kiln-gpu-form-kernels: unexpected loop bounds");
      sizes.push_back(*u);
    }
  }

  // A thread runs V consecutive iterations of the innermost loop at once
  // when its accesses along it are contiguous (InnerVectors.h).
  auto aligned = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &entry &&
           isPlacedBuffer(buffers[arg.getArgNumber()]);
  };
  int64_t width = 1;
  if (parallel && vectors)
    width = getInnerVectorWidth(*parallel.getBody(),
                                parallel.getInductionVars().back(),
                                sizes.back(), aligned);
  if (width > 1) {
    sizes.back() /= width;
    iterations /= width;
    config = configFor(op, iterations);
    setTileConfig(func, config);
  }
  int64_t tile = config.getTile()[0], blockThreads = config.getThreads()[0];
  int64_t blocks = llvm::divideCeil(iterations, tile);
  if (blocks > std::numeric_limits<int32_t>::max())
    return op.emitError("kiln-gpu-form-kernels: ")
           << iterations << " iterations need " << blocks
           << " blocks, more than a grid holds";

  // The mapping goes where the parallel loop is (after the constants the
  // loop nest uses).
  if (parallel)
    b.setInsertionPoint(parallel);
  else
    b.setInsertionPointToStart(&entry);
  Value linear = buildIterationGuard(b, loc, tile, blockThreads, iterations);
  Operation *yield = &*b.getInsertionPoint();
  if (parallel && width > 1) {
    SmallVector<Value> ivs = delinearize(b, loc, linear, sizes);
    Block *body = parallel.getBody();
    Value inner = parallel.getInductionVars().back();
    IRMapping ivMapping;
    for (auto [iv, v] : llvm::zip(parallel.getInductionVars(), ivs))
      ivMapping.map(iv, v);
    Value first = arith::MulIOp::create(
        b, loc, ivs.back(), arith::ConstantIndexOp::create(b, loc, width));
    cloneAsVectors(b, *body, inner, first, width, ivMapping, aligned);
    rewriter.eraseOp(parallel);
  } else if (parallel) {
    SmallVector<Value> ivs = delinearize(b, loc, linear, sizes);
    Block *body = parallel.getBody();
    Operation *reduce = body->getTerminator();
    rewriter.inlineBlockBefore(body, yield, ivs);
    rewriter.eraseOp(reduce);
    rewriter.eraseOp(parallel);
  } else {
    // No parallel loop: one iteration does everything.
    for (Operation *o : nest)
      o->moveBefore(yield);
  }

  if (added) {
    added->func = func;
    added->blocks = blocks;
    added->config = config;
  }
  // The launch replaces the op on the host.
  createLaunch(op, func, blocks, config, buffers, operands, access, inPlace);
  op.erase();
  return success();
}

/// The buffer defined outside `region` that `v` is a view of, if any.
static Value getViewedBuffer(Value v, Region &region) {
  while (Operation *def = v.getDefiningOp()) {
    if (!region.isAncestor(def->getParentRegion()))
      break;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return nullptr;
    v = view.getViewSource();
  }
  return region.isAncestor(v.getParentRegion()) ? nullptr : v;
}

/// Adds to `access` what the ops in `region` do with buffers defined
/// outside it (through views of them).
static void collectAccess(Region &region, DenseMap<Value, unsigned> &access) {
  auto note = [&](Value v, unsigned bits) {
    if (Value buffer = getViewedBuffer(v, region))
      access[buffer] |= bits;
  };
  region.walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      for (OpOperand *input : linalgOp.getDpsInputOperands())
        note(input->get(), kAccessRead);
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        note(init.get(),
             kAccessWrite |
                 (linalgOp.payloadUsesValueFromOperand(&init) ? kAccessRead
                                                              : 0u));
    } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
      note(load.getMemRef(), kAccessRead);
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      note(store.getMemRef(), kAccessWrite);
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (isSelfCopy(copy))
        return; // erased below
      note(copy.getSource(), kAccessRead);
      note(copy.getTarget(), kAccessWrite);
    }
  });
}

LogicalResult FormKernels::formGroupKernel(scf::ForallOp loop,
                                           gpu::GPUModuleOp kernels,
                                           unsigned index) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  ArrayRef<int64_t> lbs = loop.getStaticLowerBound(),
                    ubs = loop.getStaticUpperBound(),
                    steps = loop.getStaticStep();
  if (loop.getNumResults() != 0 ||
      llvm::any_of(lbs, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(steps, [](int64_t v) { return v != 1; }) ||
      llvm::any_of(ubs, ShapedType::isDynamic))
    return loop.emitError("kiln-gpu-form-kernels: a fusion group's loop must "
                          "be bufferized and run from 0 by 1 to static bounds");
  int64_t iterations = 1;
  for (int64_t ub : ubs)
    if (llvm::MulOverflow(iterations, ub, iterations))
      return loop.emitError("kiln-gpu-form-kernels: the group's iterations "
                            "overflow 64 bits");
  if (iterations == 0) {
    loop.erase();
    return success();
  }
  // One warp per iteration when the group works on rows (WarpRows.h).
  std::optional<int64_t> row =
      warpRows > 0 ? getWarpRowLength(loop, warpRows) : std::nullopt;
  TileConfigAttr config = configFor(loop, iterations);
  if (row) {
    int64_t t = std::min<int64_t>(
        threads, llvm::alignTo(iterations * kWarpLanes, kWarpLanes));
    config = TileConfigAttr::get(ctx, {t}, {t}, 1);
  }
  int64_t tile = config.getTile()[0], blockThreads = config.getThreads()[0];
  int64_t blocks =
      llvm::divideCeil(iterations, row ? blockThreads / kWarpLanes : tile);
  if (blocks > std::numeric_limits<int32_t>::max())
    return loop.emitError("kiln-gpu-form-kernels: ")
           << iterations << " iterations need " << blocks
           << " blocks, more than a grid holds";

  Region &body = loop.getRegion();
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(body, captured);
  DenseMap<Value, unsigned> access;
  collectAccess(body, access);
  SmallVector<Value> buffers, scalars;
  for (Value v : captured) {
    if (auto memref = dyn_cast<MemRefType>(v.getType())) {
      if (!hasStaticLayout(memref))
        return loop.emitError("kiln-gpu-form-kernels: buffer type ")
               << memref << " has a dynamic shape or layout";
      buffers.push_back(v);
      access[v] |= 0u;
      continue;
    }
    if (!v.getDefiningOp() ||
        !v.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      return loop.emitError("kiln-gpu-form-kernels: the group reads a scalar "
                            "that is not a constant");
    scalars.push_back(v);
  }

  SmallVector<InPlacePair> inPlace = findInPlacePairs(loop, buffers);
  SmallVector<Value> operands = getKernelOperands(buffers, loop);
  IRMapping mapping;
  gpu::GPUFuncOp func =
      createKernelFunc(kernels, loc, kernelName(loop, index), buffers, operands,
                       scalars, config, mapping);
  OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
  gpu::ReturnOp ret = gpu::ReturnOp::create(b, loc);

  // Thread (block * tile + thread + k * threads) does iteration `linear` of
  // the loop, delinearized row-major over its bounds.
  b.setInsertionPoint(ret);
  Value lane;
  Value linear =
      row ? buildWarpGuard(b, loc, blockThreads, iterations, lane)
          : buildIterationGuard(b, loc, tile, blockThreads, iterations);
  SmallVector<Value> ivs = delinearize(b, loc, linear, ubs);
  for (auto [iv, v] : llvm::zip(loop.getInductionVars(), ivs))
    mapping.map(iv, v);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);

  // The group's temporaries live in each thread's registers or local
  // memory; its linalg ops become loops in the thread.
  IRRewriter rewriter(ctx);
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::CopyOp, linalg::LinalgOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape())
        return loop.emitError("kiln-gpu-form-kernels: a fusion group "
                              "allocates a buffer of dynamic shape");
      rewriter.replaceOpWithNewOp<memref::AllocaOp>(alloc, alloc.getType());
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (isSelfCopy(copy)) {
        rewriter.eraseOp(copy);
        continue;
      }
      op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                  copy.getTarget());
      rewriter.eraseOp(copy);
      rewriter.setInsertionPoint(op);
    }
    if (row) {
      if (failed(lowerToWarpLoops(rewriter, cast<linalg::LinalgOp>(op), lane,
                                  *row)))
        return loop.emitError("kiln-gpu-form-kernels: cannot lower the "
                              "group's ops to one warp per row");
      continue;
    }
    if (failed(linalg::linalgOpToLoops(rewriter, cast<linalg::LinalgOp>(op))))
      return loop.emitError("kiln-gpu-form-kernels: cannot lower the group's "
                            "ops to loops");
    rewriter.eraseOp(op);
  }
  if (row)
    compactRowTemporaries(func.getBody(), *row);
  SmallVector<math::IPowIOp> powers;
  func.walk([&](math::IPowIOp p) { powers.push_back(p); });
  for (math::IPowIOp p : powers)
    expandIPowI(p);

  // The launch replaces the loop on the host.
  gpu::LaunchFuncOp launch = createLaunch(loop, func, blocks, config, buffers,
                                          operands, access, inPlace);
  if (row) {
    Attribute lanes = b.getI64IntegerAttr(kWarpLanes);
    func->setAttr(KilnGPUDialect::getLanesAttrName(), lanes);
    launch->setAttr(KilnGPUDialect::getLanesAttrName(), lanes);
  }
  if (Attribute names = loop->getAttr(KilnGPUDialect::getFusionGroupAttrName()))
    launch->setAttr(KilnGPUDialect::getFusionGroupAttrName(), names);
  loop.erase();
  return success();
}

void FormKernels::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  // The copies of bodies kept for comparison use values of the module:
  // drop them before the pass returns, on every path.
  auto forget = llvm::make_scope_exit([&] { formed.clear(); });
  if (threads < 1 || threads > 1024 || itemsPerThread < 1) {
    module.emitError("kiln-gpu-form-kernels: threads must be in [1, 1024] and "
                     "items-per-thread >= 1");
    return signalPassFailure();
  }

  // Linalg ops and copies, and the loops of fusion groups (whose ops become
  // one kernel together).
  SmallVector<Operation *> work;
  module.walk([&](Operation *op) {
    if (op->getParentOfType<gpu::GPUModuleOp>() ||
        op->getParentOfType<scf::ForallOp>())
      return;
    if (isa<linalg::LinalgOp, memref::CopyOp, scf::ForallOp>(op))
      work.push_back(op);
  });
  if (work.empty())
    return;

  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModule);
  unsigned index =
      kernels ? llvm::range_size(kernels.getOps<gpu::GPUFuncOp>()) : 0;
  auto kernelModule = [&]() {
    if (!kernels) {
      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointToEnd(module.getBody());
      kernels = gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModule);
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(ctx));
    }
    return kernels;
  };

  IRRewriter rewriter(ctx);
  for (Operation *op : work) {
    if (auto loop = dyn_cast<scf::ForallOp>(op)) {
      if (failed(formGroupKernel(loop, kernelModule(), index++)))
        return signalPassFailure();
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      // Bufferization can leave a buffer copied onto itself (a result
      // computed in place in a slice of an output): nothing to do.
      if (isSelfCopy(copy)) {
        rewriter.eraseOp(copy);
        continue;
      }
      if (isDeviceCopy(copy))
        continue;
      rewriter.setInsertionPoint(copy);
      op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                  copy.getTarget());
      rewriter.eraseOp(copy);
    }
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureBufferSemantics()) {
      op->emitError("kiln-gpu-form-kernels: expects linalg ops on buffers");
      return signalPassFailure();
    }
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    if (llvm::is_contained(ranges, 0)) {
      rewriter.eraseOp(op); // nothing to compute
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op); fill && getMemsetByte(fill))
      continue;

    auto generic = dyn_cast<linalg::GenericOp>(op);
    Attribute config = op->getAttr(KilnGPUDialect::getTileConfigAttrName());
    rewriter.setInsertionPoint(op);
    if (!generic) {
      FailureOr<linalg::GenericOp> g =
          linalg::generalizeNamedOp(rewriter, linalgOp);
      if (failed(g)) {
        op->emitError("kiln-gpu-form-kernels: cannot generalize this op");
        return signalPassFailure();
      }
      generic = *g;
    }
    // Parallel loops first, so that they all map to threads.
    SmallVector<unsigned> order;
    auto iterators = generic.getIteratorTypesArray();
    for (unsigned i = 0; i < iterators.size(); ++i)
      if (iterators[i] == utils::IteratorType::parallel)
        order.push_back(i);
    for (unsigned i = 0; i < iterators.size(); ++i)
      if (iterators[i] != utils::IteratorType::parallel)
        order.push_back(i);
    if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
      FailureOr<linalg::GenericOp> swapped =
          linalg::interchangeGenericOp(rewriter, generic, order);
      if (failed(swapped)) {
        generic.emitError("kiln-gpu-form-kernels: cannot interchange loops");
        return signalPassFailure();
      }
      generic = *swapped;
    }
    if (config)
      generic->setAttr(KilnGPUDialect::getTileConfigAttrName(), config);
    if (failed(formKernel(generic, kernelModule(), index++)))
      return signalPassFailure();
  }
  // Layers that repeat made the same kernels: keep one of each before
  // anything (the verifier first) looks at thousands of them.
  deduplicateKernels(module);
}
