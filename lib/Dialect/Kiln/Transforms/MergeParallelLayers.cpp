//===- MergeParallelLayers.cpp - one layer for parallel ones ----*- C++ -*-===//
//
// kiln-merge-parallel-layers (the TensorRT builder's "horizontal" fusion;
// Passes.td shows the IR): layers that read the same tensor with the same
// parameters and constant weights (a transformer's Q, K and V projections,
// as fully connected layers or as MatMul + Add; an Inception module's 1x1
// convolutions) become one layer whose weights are theirs concatenated along
// the output features, followed by the layers' common bias add and
// activation, whose result each reader takes a slice of.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "Weights.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMERGEPARALLELLAYERSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// One layer that may merge: the layer, the add of its bias when that is a
/// separate op (a MatMul's Add), its activation (the only user, if an
/// activation), and the dimension of its result and of its weights that the
/// merge concatenates.
struct Member {
  Operation *layer = nullptr;
  Operation *biasAdd = nullptr;
  Operation *activation = nullptr;
  Value weight, bias;
  int64_t resultDim = 0, weightDim = 0;

  /// The value before the activation.
  Value preActivation() const {
    return (biasAdd ? biasAdd : layer)->getResult(0);
  }
  Value result() const {
    return activation ? activation->getResult(0) : preActivation();
  }
};

/// The only user of `v`, if it has exactly one.
Operation *getOnlyUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// A name for merged weights: the members' resource keys joined by '+'.
std::string mergedName(ArrayRef<Value> parts) {
  std::string name;
  for (Value v : parts)
    name += (name.empty() ? "" : "+") + weights::getWeightName(v, "weights");
  return name;
}

/// The float constants `parts` concatenated along `dim`, or null when one
/// is not a float constant.
Value concatConstants(OpBuilder &b, Location loc, ArrayRef<Value> parts,
                      int64_t dim) {
  auto first = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  std::vector<std::vector<char>> bytes;
  for (Value p : parts) {
    std::optional<std::vector<char>> data = weights::getConstantBytes(p);
    if (!data || !isa<FloatType>(first.getElementType()))
      return nullptr;
    bytes.push_back(std::move(*data));
    shape[dim] += cast<RankedTensorType>(p.getType()).getDimSize(dim);
  }
  // Row-major: for each index before `dim`, each part's block in turn.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  std::vector<char> merged;
  for (int64_t o = 0; o < outer; ++o)
    for (const std::vector<char> &data : bytes) {
      size_t block = data.size() / static_cast<size_t>(outer);
      merged.insert(merged.end(), data.begin() + o * block,
                    data.begin() + (o + 1) * block);
    }
  auto type = RankedTensorType::get(shape, first.getElementType());
  return weights::createConstant(b, loc, type, merged, mergedName(parts));
}

/// `layer` as a member of a merge, if its weights are constants and its
/// parameters allow one.
std::optional<Member> getMember(Operation *layer) {
  Member m;
  m.layer = layer;
  if (auto fc = dyn_cast<FullyConnectedOp>(layer)) {
    m.weight = fc.getWeight();
    m.bias = fc.getBias();
    m.resultDim = fc.getType().getRank() - 1;
    m.weightDim = 0;
  } else if (auto conv = dyn_cast<ConvolutionOp>(layer)) {
    if (conv.getGroups() != 1 || conv.getLayout() != Layout::ChannelsFirst)
      return std::nullopt;
    m.weight = conv.getFilter();
    m.bias = conv.getBias();
    m.resultDim = 1;
    m.weightDim = 0;
  } else if (auto mm = dyn_cast<MatmulOp>(layer)) {
    // x * W (or W^T) with 2-D constant weights, then maybe + b: a Linear
    // layer as exporters write it.
    auto rhs = cast<RankedTensorType>(mm.getRhs().getType());
    if (mm.getTransposeLhs() || rhs.getRank() != 2 ||
        mm.getType().getRank() < 1)
      return std::nullopt;
    m.weight = mm.getRhs();
    m.resultDim = mm.getType().getRank() - 1;
    m.weightDim = mm.getTransposeRhs() ? 0 : 1;
    auto add = dyn_cast_or_null<BinaryOp>(getOnlyUser(mm.getResult()));
    if (add && add.getKind() == BinaryKind::Add) {
      Value other =
          add.getLhs() == mm.getResult() ? add.getRhs() : add.getLhs();
      auto type = cast<RankedTensorType>(other.getType());
      if (other.getDefiningOp<ConstantOp>() && type.getRank() == 1 &&
          type.getDimSize(0) == mm.getType().getDimSize(m.resultDim) &&
          add.getType() == mm.getType()) {
        m.biasAdd = add;
        m.bias = other;
      }
    }
  } else {
    return std::nullopt;
  }
  if (!m.weight.getDefiningOp<ConstantOp>() ||
      (m.bias && !m.bias.getDefiningOp<ConstantOp>()) ||
      !cast<RankedTensorType>(layer->getResult(0).getType()).hasStaticShape())
    return std::nullopt;
  m.activation = dyn_cast_or_null<ActivationOp>(getOnlyUser(m.preActivation()));
  // A concat's input is written in place into the concat's buffer; as a
  // slice of a merged result it would be copied there.
  if (llvm::any_of(m.result().getUsers(), llvm::IsaPred<ConcatOp>))
    return std::nullopt;
  return m;
}

/// What must be equal for two members to merge: the layer's name and
/// attributes, its weights' shape but for the merged dimension, whether it
/// has a bias, and its activation's kind and attributes.
std::string getMergeKey(const Member &m) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << m.layer->getName() << m.layer->getAttrDictionary();
  auto weight = cast<RankedTensorType>(m.weight.getType());
  for (auto [d, size] : llvm::enumerate(weight.getShape()))
    os << "x" << (static_cast<int64_t>(d) == m.weightDim ? -1 : size);
  os << weight.getElementType() << (m.bias ? "+bias" : "")
     << (m.biasAdd ? "+add" : "");
  if (m.activation)
    os << m.activation->getName() << m.activation->getAttrDictionary();
  return key;
}

/// Replaces `members` (reading one input) with one layer over their
/// concatenated weights, its activation and a slice per member.
LogicalResult merge(ArrayRef<Member> members) {
  const Member &first = members.front();
  // Run-time shapes: kiln.slice takes static shapes only (for now).
  if (!cast<RankedTensorType>(first.layer->getResult(0).getType())
           .hasStaticShape())
    return failure();
  Operation *earliest = first.layer;
  for (const Member &m : members)
    if (m.layer->isBeforeInBlock(earliest))
      earliest = m.layer;
  OpBuilder b(earliest);
  SmallVector<Location> locs;
  SmallVector<Value> weights, biases;
  for (const Member &m : members) {
    locs.push_back(m.layer->getLoc());
    weights.push_back(m.weight);
    if (m.bias)
      biases.push_back(m.bias);
  }
  Location loc = FusedLoc::get(b.getContext(), locs);
  // The weights' dimensions must be laid out as merged: a MatMul's W is
  // C x K, so its columns are concatenated; the biases along their one.
  Value weight = concatConstants(b, loc, weights, first.weightDim);
  Value bias = biases.empty() ? Value() : concatConstants(b, loc, biases, 0);
  if (!weight || (!biases.empty() && !bias))
    return failure();

  auto resultType = cast<RankedTensorType>(first.layer->getResult(0).getType());
  SmallVector<int64_t> shape(resultType.getShape());
  shape[first.resultDim] = 0;
  for (const Member &m : members)
    shape[first.resultDim] +=
        cast<RankedTensorType>(m.layer->getResult(0).getType())
            .getDimSize(first.resultDim);
  auto mergedType = RankedTensorType::get(shape, resultType.getElementType());

  IRMapping mapping;
  mapping.map(first.weight, weight);
  if (first.bias)
    mapping.map(first.bias, bias);
  // The layer, its bias add and its activation, each once over the merged
  // width, located at all the ops it replaces.
  Value merged;
  auto cloneMerged = [&](Operation *op, auto opOf) {
    SmallVector<Location> opLocs;
    for (const Member &m : members)
      opLocs.push_back(opOf(m)->getLoc());
    Operation *clone = b.clone(*op, mapping);
    clone->setLoc(FusedLoc::get(b.getContext(), opLocs));
    clone->getResult(0).setType(mergedType);
    mapping.map(op->getResult(0), clone->getResult(0));
    merged = clone->getResult(0);
  };
  cloneMerged(first.layer, [](const Member &m) { return m.layer; });
  if (first.biasAdd)
    cloneMerged(first.biasAdd, [](const Member &m) { return m.biasAdd; });
  if (first.activation)
    cloneMerged(first.activation, [](const Member &m) { return m.activation; });

  // All slices first: the builder inserts before a member's layer, which
  // goes only after.
  int64_t offset = 0;
  int64_t rank = mergedType.getRank();
  SmallVector<Value> slices;
  for (const Member &m : members) {
    auto type = cast<RankedTensorType>(m.result().getType());
    SmallVector<int64_t> start(rank, 0), stride(rank, 1);
    start[first.resultDim] = offset;
    offset += type.getDimSize(first.resultDim);
    slices.push_back(SliceOp::create(b, m.result().getLoc(), type, merged,
                                     b.getDenseI64ArrayAttr(start),
                                     b.getDenseI64ArrayAttr(type.getShape()),
                                     b.getDenseI64ArrayAttr(stride)));
  }
  for (auto [m, slice] : llvm::zip(members, slices)) {
    m.result().replaceAllUsesWith(slice);
    if (m.activation)
      m.activation->erase();
    if (m.biasAdd)
      m.biasAdd->erase();
    m.layer->erase();
  }
  return success();
}

struct MergeParallelLayersPass
    : mlir::kiln::impl::KilnMergeParallelLayersPassBase<
          MergeParallelLayersPass> {
  using Base::Base;

  void runOnOperation() override {
    // Candidates by input and key, in program order.
    llvm::MapVector<std::pair<Value, StringAttr>, SmallVector<Member>> sets;
    getOperation().walk([&](Operation *op) {
      if (op->getNumOperands() == 0)
        return;
      if (std::optional<Member> m = getMember(op))
        sets[{op->getOperand(0),
              StringAttr::get(&getContext(), getMergeKey(*m))}]
            .push_back(*m);
    });
    for (auto &[key, members] : sets) {
      if (members.size() < 2)
        continue;
      if (failed(merge(members)))
        continue; // weights that cannot be read: left as they are
      ++numMerged;
      numLayers += members.size();
    }
  }
};

} // namespace
