//===- FormFusionGroups.cpp - fuse linalg ops into kernel groups -*- C++
//-*-===//
//
// kiln-gpu-form-fusion-groups: on linalg on tensors, fuses elementwise
// chains with upstream linalg's elementwise fusion, then makes each op that
// has producers only it reads the root of a group: the root is tiled into an
// scf.forall of one iteration per element (or row) and its producers are
// tiled and fused into that loop with upstream scf's tile and fuse. Each
// scf.forall becomes one kernel in kiln-gpu-form-kernels.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUFORMFUSIONGROUPSPASS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The most times one producer may be computed per iteration of a group's
/// loop (once per path from the root to it): an elementwise op, and an op
/// that reduces (softmax's max is read by exp(x - max) for the sum and for
/// the division).
static constexpr int64_t kMaxRecompute = 4, kMaxRecomputeReduction = 2;
/// The largest body (ops but the yield) of an elementwise op that is fused
/// into an op that reduces over it: it is computed again for every
/// iteration of the reader's other loops (a bias and activation, a
/// transpose or a cast are; a GELU is not).
static constexpr int64_t kMaxOpsReduced = 3;
/// The largest body of an op that elementwise fusion makes, and of a group
/// (the ops of its members' bodies together): a kernel of its own beyond
/// that. Fusing two ops copies both bodies, so a chain of n elementwise
/// layers fused into one op would cost n^2 / 2 copied ops (and its fused
/// location n^2 / 2 entries); with the cap, n * kMaxFusedOps at most. A
/// kernel of 256 arithmetic ops per element is bound by arithmetic, not
/// by memory: one more kernel costs one more read and write of the tensor.
static constexpr int64_t kMaxFusedOps = 256;
/// Sweeps of elementwise fusion over the function (applyPatternsGreedily's
/// default number of iterations).
static constexpr int kMaxFusionSweeps = 10;

/// The linalg op directly in `block` that defines `v`, if any.
/// Whether `op` is to be a library call (kiln-gpu-select-library-calls):
/// no fusion touches it.
static bool isLibraryCall(Operation *op) {
  return op && op->hasAttr(KilnGPUDialect::getLibraryAttrName());
}

/// Whether `op` only rounds a library call's result (an f32 accumulator of
/// f16 or bf16 products) to a narrower float: it stays alone, so that the
/// call writes the rounded values itself (kiln-gpu-form-library-calls).
static bool isRoundingOfLibraryCall(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1)
    return false;
  // (Through the reshapes that fusion moves out of the way.)
  Value input = generic.getDpsInputs()[0];
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      input.getDefiningOp()))
    input = input.getDefiningOp()->getOperand(0);
  if (!isLibraryCall(input.getDefiningOp()))
    return false;
  Block &body = generic.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
  return trunc && body.getOperations().size() == 2 &&
         trunc.getIn() == body.getArgument(0);
}

static linalg::LinalgOp getTopLevelProducer(Value v, Block *block) {
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getBlock() != block ||
      !isa<TilingInterface>(producer.getOperation()) ||
      producer->getNumResults() != 1)
    return nullptr;
  return producer;
}

/// The ops of a linalg op's body but its terminator.
static int64_t getBodySize(linalg::LinalgOp op) {
  if (op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 0;
  return static_cast<int64_t>(op.getBlock()->getOperations().size()) - 1;
}

/// Whether `reader` reads `operand` through one of its reduction loops.
static bool isReducedOver(linalg::LinalgOp reader, OpOperand *operand) {
  AffineMap map = reader.getMatchingIndexingMap(operand);
  auto iterators = reader.getIteratorTypesArray();
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::reduction &&
        map.isFunctionOfDim(d))
      return true;
  return false;
}

/// Whether `v` is computed from the result of a reduction through at most
/// `depth` all-parallel generics and reshapes (a mean divided by its count,
/// a keepdims view of a sum).
static bool isFromReduction(Value v, Block *block, int depth = 4) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != block || depth < 0)
    return false;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return isFromReduction(def->getOperand(0), block, depth - 1);
  auto producer = dyn_cast<linalg::LinalgOp>(def);
  if (!producer)
    return false;
  if (producer.getNumReductionLoops() > 0)
    return true;
  return llvm::any_of(producer.getDpsInputOperands(), [&](OpOperand *input) {
    return isFromReduction(input->get(), block, depth - 1);
  });
}

/// Tile sizes of the root: 1 for each parallel loop, 0 (untiled) for
/// reductions and for parallel loops along which the root reads the result
/// of a reduction (softmax's row sum, LayerNorm's variance, or a value
/// computed from one) through a broadcast, so that one iteration computes
/// that reduction once.
static SmallVector<int64_t> getTileSizes(linalg::LinalgOp root) {
  SmallVector<int64_t> sizes;
  for (utils::IteratorType type : root.getIteratorTypesArray())
    sizes.push_back(type == utils::IteratorType::parallel ? 1 : 0);
  for (OpOperand *input : root.getDpsInputOperands()) {
    if (isReducedOver(root, input) ||
        !isFromReduction(input->get(), root->getBlock()))
      continue;
    AffineMap map = root.getMatchingIndexingMap(input);
    for (unsigned d = 0; d < sizes.size(); ++d)
      if (!map.isFunctionOfDim(d))
        sizes[d] = 0;
  }
  return sizes;
}

/// The ops of the group rooted at `root` (tiled by `sizes`), root first:
/// its producers, transitively, that one iteration of the group's loop
/// computes a slice of without recomputing work of another iteration:
/// - read through a projected permutation (an element, not a window) that
///   uses every tiled loop of the reader (no broadcast along a tiled loop);
/// - an op the reader reduces over only when it is a small elementwise op,
///   and then without its own producers;
/// - with every user in the group, computed at most kMaxRecompute times
///   per iteration.
static llvm::SetVector<Operation *> collectGroup(linalg::LinalgOp root,
                                                 ArrayRef<int64_t> sizes) {
  Block *block = root->getBlock();
  llvm::SetVector<Operation *> group;
  DenseMap<Operation *, SmallVector<bool>> tiled;
  DenseSet<Operation *> leaves;
  int64_t groupOps = getBodySize(root);
  group.insert(root);
  tiled[root] = llvm::map_to_vector(sizes, [](int64_t s) { return s != 0; });
  for (size_t i = 0; i < group.size(); ++i) {
    auto op = cast<linalg::LinalgOp>(group[i]);
    if (leaves.contains(op))
      continue;
    SmallVector<bool> opTiled = tiled[op];
    for (OpOperand &operand : op->getOpOperands()) {
      linalg::LinalgOp producer = getTopLevelProducer(operand.get(), block);
      // (A producer with a loop of no iterations cannot be tiled.)
      if (!producer || group.contains(producer) || isLibraryCall(producer) ||
          isRoundingOfLibraryCall(producer) ||
          llvm::is_contained(producer.getStaticLoopRanges(), 0))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
        continue;
      if (llvm::any_of(llvm::seq<unsigned>(0, opTiled.size()), [&](unsigned d) {
            return opTiled[d] && !map.isFunctionOfDim(d);
          }))
        continue;
      bool reduced = !op.isDpsInit(&operand) && isReducedOver(op, &operand);
      if (reduced && (producer.getNumReductionLoops() > 0 ||
                      getBodySize(producer) > kMaxOpsReduced))
        continue;
      if (groupOps + getBodySize(producer) > kMaxFusedOps)
        continue;
      groupOps += getBodySize(producer);
      // The producer's loops that the reader's tiled loops select.
      AffineMap result =
          producer.getIndexingMapMatchingResult(cast<OpResult>(operand.get()));
      SmallVector<bool> producerTiled(producer.getNumLoops(), false);
      for (unsigned j = 0; j < map.getNumResults(); ++j) {
        auto dim = dyn_cast<AffineDimExpr>(result.getResult(j));
        auto readerDim = dyn_cast<AffineDimExpr>(map.getResult(j));
        if (dim && readerDim && opTiled[readerDim.getPosition()])
          producerTiled[dim.getPosition()] = true;
      }
      tiled[producer] = std::move(producerTiled);
      if (reduced)
        leaves.insert(producer);
      group.insert(producer);
    }
  }
  // Drop members with a user outside the group, or computed too often, until
  // none is left to drop (dropping one can strand its producers).
  bool changed = true;
  while (changed) {
    changed = false;
    DenseMap<Operation *, int64_t> paths;
    paths[root] = 1;
    // Members in program order from the root backwards: users first.
    SmallVector<Operation *> order(group.begin(), group.end());
    llvm::sort(order, [](Operation *a, Operation *b) {
      return b->isBeforeInBlock(a);
    });
    for (Operation *member : order) {
      if (member == root)
        continue;
      int64_t count = 0;
      bool inside = true;
      for (Operation *user : member->getUsers()) {
        if (!group.contains(user)) {
          inside = false;
          break;
        }
        count += paths.lookup(user);
      }
      int64_t limit = cast<linalg::LinalgOp>(member).getNumReductionLoops() > 0
                          ? kMaxRecomputeReduction
                          : kMaxRecompute;
      if (!inside || count == 0 || count > limit) {
        group.remove(member);
        changed = true;
        break;
      }
      paths[member] = count;
    }
  }
  return group;
}

/// The names of the layers of `ops` (the innermost named locations: an
/// ONNX node's name, or a kiln op's kind in a .mlir file), each once.
static ArrayAttr getLayerNames(MLIRContext *ctx, ArrayRef<Operation *> ops) {
  llvm::SetVector<StringAttr> names;
  for (Operation *op : ops)
    op->getLoc()->walk([&](Location loc) {
      auto named = dyn_cast<NameLoc>(loc);
      if (named && !isa<NameLoc>(named.getChildLoc()) &&
          !named.getName().getValue().empty())
        names.insert(named.getName());
      return WalkResult::advance();
    });
  return ArrayAttr::get(ctx,
                        SmallVector<Attribute>(names.begin(), names.end()));
}

namespace {
/// The dimension of a reassociation `group` of `shape` that is not a unit
/// (the group's first when all are); `unitOnly` becomes false when two are
/// not.
int64_t getKeptDim(ArrayRef<int64_t> shape, const ReassociationIndices &group,
                   bool &unitOnly) {
  int64_t keep = group.front(), nonUnit = 0;
  for (int64_t d : group)
    if (shape[d] != 1) {
      keep = d;
      ++nonUnit;
    }
  unitOnly &= nonUnit <= 1;
  return keep;
}

/// Makes `op` read `source` through `exprs` instead of `input`, unless a
/// loop would then index no operand (it would lose its bound).
LogicalResult readInstead(PatternRewriter &rewriter, linalg::GenericOp op,
                          OpOperand *input, Value source,
                          ArrayRef<AffineExpr> exprs) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[input->getOperandNumber()] =
      AffineMap::get(op.getNumLoops(), 0, exprs, op.getContext());
  if (!inversePermutation(concatAffineMaps(maps, op.getContext())))
    return failure();
  rewriter.modifyOpInPlace(op, [&] {
    input->set(source);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  return success();
}

/// A generic that reads a reshape which only adds or drops unit dimensions
/// (a keepdims view of a reduction) reads the reshape's source instead: a
/// unit dimension is only ever read at 0. The reshape then no longer
/// separates the reduction from its readers. (A rank-0 side has no
/// reassociation to follow.)
struct ReadThroughUnitReshape : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (isLibraryCall(op))
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      SmallVector<AffineExpr> exprs;
      bool unitOnly = true;
      if (auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>()) {
        // Of each group of the view's dimensions, read the source's at the
        // kept one.
        if (!expand.getSrcType().hasStaticShape() ||
            expand.getSrcType().getRank() == 0)
          continue;
        for (const ReassociationIndices &group :
             expand.getReassociationIndices())
          exprs.push_back(map.getResult(
              getKeptDim(expand.getResultType().getShape(), group, unitOnly)));
        if (unitOnly &&
            succeeded(readInstead(rewriter, op, input, expand.getSrc(), exprs)))
          return success();
        continue;
      }
      auto collapse = input->get().getDefiningOp<tensor::CollapseShapeOp>();
      if (!collapse || !collapse.getSrcType().hasStaticShape() ||
          collapse.getResultType().getRank() == 0)
        continue;
      // Each source dimension of a group: the view's at the kept one, 0 at
      // the units.
      for (auto [g, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        int64_t keep =
            getKeptDim(collapse.getSrcType().getShape(), group, unitOnly);
        for (int64_t d : group)
          exprs.push_back(d == keep ? map.getResult(g)
                                    : rewriter.getAffineConstantExpr(0));
      }
      if (unitOnly &&
          succeeded(readInstead(rewriter, op, input, collapse.getSrc(), exprs)))
        return success();
    }
    return failure();
  }
};

/// A named linalg op but a fill (a transpose, a matmul) as a generic, so
/// that elementwise fusion and reshape folding see it. A fill stays: one
/// outside a group is a memset, not a kernel.
struct GeneralizeNamedOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()))
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct FormFusionGroups
    : public kiln::impl::KilnGpuFormFusionGroupsPassBase<FormFusionGroups> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult fuseElementwise();
  LogicalResult formGroup(linalg::LinalgOp root, DenseSet<Operation *> &erased);
};
} // namespace

LogicalResult FormFusionGroups::fuseElementwise() {
  RewritePatternSet patterns(&getContext());
  // A producer read by one op is always fused; one read by several ops is
  // left for tile and fuse, which computes it in each group that reads it.
  // An op that reduces over its producer recomputes it for every iteration
  // of its other loops: only small producers are fused into it.
  linalg::ControlFusionFn control = [](OpOperand *operand) {
    auto producer = operand->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !producer->hasOneUse() || isLibraryCall(producer) ||
        isLibraryCall(operand->getOwner()) || isRoundingOfLibraryCall(producer))
      return false;
    Operation *owner = operand->getOwner();
    auto reader = dyn_cast<linalg::LinalgOp>(owner);
    if (reader && isReducedOver(reader, operand) &&
        getBodySize(producer) > kMaxOpsReduced)
      return false;
    if (reader && getBodySize(reader) + getBodySize(producer) > kMaxFusedOps)
      return false;
    // The fused op takes the reader's location: keep the producer's layer
    // in it too (the group's names, kiln-compile --report).
    owner->setLoc(FusedLoc::get(owner->getContext(),
                                {owner->getLoc(), producer->getLoc()}));
    return true;
  };
  linalg::populateElementwiseOpsFusionPatterns(patterns, control);
  // Named ops (a transpose, a copy) fuse as generics; reshapes between ops
  // move out of the way (the op on the other side runs in the reshaped
  // space), so that the ops on both sides can fuse.
  patterns.add<GeneralizeNamedOp, ReadThroughUnitReshape>(&getContext());
  linalg::populateFoldReshapeOpsByExpansionPatterns(
      patterns, [](OpOperand *operand) {
        return !isLibraryCall(operand->getOwner()) &&
               !isLibraryCall(operand->get().getDefiningOp());
      });
  // As applyPatternsGreedily on the function (sweeps over all of its ops,
  // nested ones too, until one changes nothing), but without its
  // terminator: a return of n results, refolded (every operand matched
  // against a constant) each time one of its producers changes, costs n^2.
  FrozenRewritePatternSet frozen(std::move(patterns));
  func::FuncOp func = getOperation();
  Operation *terminator = func.getBody().front().getTerminator();
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  for (int sweep = 0; sweep < kMaxFusionSweeps; ++sweep) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (op != func && op != terminator)
        ops.push_back(op);
    });
    bool changed = false;
    if (failed(applyOpPatternsGreedily(ops, frozen, config, &changed)))
      return failure();
    if (!changed)
      return success();
  }
  return failure();
}

/// Tiles `root` and fuses its group into the loop; adds the ops it erases
/// to `erased`.
LogicalResult FormFusionGroups::formGroup(linalg::LinalgOp root,
                                          DenseSet<Operation *> &erased) {
  // A loop of no iterations (a reduction over an empty set) has nothing to
  // tile: the op stays a kernel (or a fill) of its own.
  if (llvm::is_contained(root.getStaticLoopRanges(), 0) || isLibraryCall(root))
    return success();
  SmallVector<int64_t> sizes = getTileSizes(root);
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return success(); // one iteration would do everything
  llvm::SetVector<Operation *> group = collectGroup(root, sizes);
  if (group.size() < 2)
    return success(); // nothing to fuse: the op is a kernel of its own

  MLIRContext *ctx = &getContext();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(root);
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
  // A mapping keeps canonicalization from inlining a loop of one iteration
  // (the group would fall apart into kernels); kiln-gpu-form-kernels maps
  // the iterations itself.
  int64_t loops = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
  if (loops <= 10) {
    SmallVector<Attribute> mapping;
    for (int64_t i = 0; i < loops; ++i)
      mapping.push_back(gpu::GPUThreadMappingAttr::get(
          ctx, static_cast<gpu::MappingId>(
                   static_cast<int64_t>(gpu::MappingId::LinearDim0) + i)));
    tiling.setMapping(mapping);
  }
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!group.contains(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result))
    return root.emitError("kiln-gpu-form-fusion-groups: cannot tile the "
                          "group's root");
  if (result->loops.size() != 1)
    return root.emitError("kiln-gpu-form-fusion-groups: expected one loop");
  Operation *loop = result->loops.front();
  SmallVector<Operation *> members(group.begin(), group.end());
  llvm::sort(members,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  loop->setAttr(KilnGPUDialect::getFusionGroupAttrName(),
                getLayerNames(ctx, members));
  for (OpResult r : root->getResults())
    rewriter.replaceAllUsesWith(r, result->replacements.lookup(r));
  // The root and the producers fused into the loop are dead now, once the
  // slices of them that fusion replaced are gone.
  erased.insert(root);
  rewriter.eraseOp(root);
  SmallVector<tensor::ExtractSliceOp> slices;
  loop->walk([&](tensor::ExtractSliceOp slice) {
    if (slice->use_empty())
      slices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : slices)
    rewriter.eraseOp(slice);
  for (Operation *member : llvm::reverse(members))
    if (member != root.getOperation() && member->use_empty()) {
      erased.insert(member);
      rewriter.eraseOp(member);
    }
  return success();
}

void FormFusionGroups::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (failed(fuseElementwise())) {
    func.emitError("kiln-gpu-form-fusion-groups: elementwise fusion did not "
                   "converge");
    return signalPassFailure();
  }
  // Roots from the last op backwards, so that a group takes its producers
  // before they are considered as roots themselves.
  Block &body = func.getBody().front();
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : body)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
  DenseSet<Operation *> erased;
  for (linalg::LinalgOp op : llvm::reverse(ops)) {
    if (erased.contains(op.getOperation()))
      continue;
    if (failed(formGroup(op, erased)))
      return signalPassFailure();
  }
}
