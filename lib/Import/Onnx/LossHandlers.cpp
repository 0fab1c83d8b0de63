//===- LossHandlers.cpp - ONNX loss functions -------------------*- C++ -*-===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed from kiln
// ops: the class score of each target is picked with kiln.gather_elements,
// weighted by kiln.gather of the class weights, zeroed where the target is
// ignore_index, then summed or averaged (by the total weight) as asked.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

FailureOr<Value> sumAll(NodeContext &nc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 0)
    return v;
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    axes.push_back(i);
  return nc.create<ReduceOp>(
      {v}, {nc.named("kind",
                     ReduceKindAttr::get(nc.b.getContext(), ReduceKind::Sum)),
            nc.named("axes", nc.i64s(axes))});
}

/// The NLL loss of log-probabilities `logp` (N x C x d...) for `target`
/// (N x d...), with optional class `weight` (C), `reduction` and ignore_index.
FailureOr<Value> nllLoss(NodeContext &nc, Value logp, Value target,
                         Value weight) {
  auto type = cast<RankedTensorType>(logp.getType());
  auto ttype = cast<RankedTensorType>(target.getType());
  if (type.getRank() < 2 || ttype.getRank() != type.getRank() - 1)
    return nc.fail("expects scores N x C x ... and targets N x ...");
  Type element = type.getElementType();
  Value t = target;
  Value valid;
  if (nc.hasAttr("ignore_index")) {
    int64_t ignore = nc.getInt("ignore_index", 0);
    Value ignored = nc.splat(RankedTensorType::get({}, ttype.getElementType()),
                             static_cast<double>(ignore));
    FailureOr<Value> eq = nc.binary(BinaryKind::Equal, target, ignored);
    if (failed(eq))
      return failure();
    FailureOr<Value> notEq = nc.create<UnaryOp>(
        {*eq}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                    UnaryKind::Not))});
    if (failed(notEq))
      return failure();
    valid = *notEq;
    Value zero = nc.splat(RankedTensorType::get({}, ttype.getElementType()), 0);
    FailureOr<Value> safe = nc.create<SelectOp>({valid, target, zero});
    if (failed(safe))
      return failure();
    t = *safe;
  }
  // Score of the target class: gather_elements along the class axis.
  FailureOr<Value> t1 =
      nc.create<UnsqueezeOp>({t}, {nc.named("axes", nc.i64s({1}))});
  FailureOr<Value> picked =
      failed(t1)
          ? FailureOr<Value>(failure())
          : nc.create<GatherElementsOp>(
                {logp, *t1}, {nc.named("axis", nc.b.getI64IntegerAttr(1))});
  FailureOr<Value> score =
      failed(picked)
          ? FailureOr<Value>(failure())
          : nc.create<SqueezeOp>({*picked}, {nc.named("axes", nc.i64s({1}))});
  if (failed(score))
    return failure();
  // Per-element weights: weight[target] (or 1), 0 where ignored.
  Value w;
  if (weight) {
    FailureOr<Value> g = nc.create<GatherOp>(
        {weight, t}, {nc.named("axis", nc.b.getI64IntegerAttr(0))});
    if (failed(g))
      return failure();
    w = *g;
  } else {
    w = nc.splat(RankedTensorType::get(ttype.getShape(), element), 1.0);
  }
  if (valid) {
    Value zero = nc.splat(RankedTensorType::get({}, element), 0.0);
    FailureOr<Value> masked = nc.create<SelectOp>({valid, w, zero});
    if (failed(masked))
      return failure();
    w = *masked;
  }
  FailureOr<Value> neg = nc.create<UnaryOp>(
      {*score}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                     UnaryKind::Neg))});
  FailureOr<Value> loss = failed(neg) ? FailureOr<Value>(failure())
                                      : nc.binary(BinaryKind::Mul, *neg, w);
  if (failed(loss))
    return failure();
  std::string reduction = nc.getString("reduction", "mean");
  if (reduction == "none")
    return loss;
  FailureOr<Value> total = sumAll(nc, *loss);
  if (failed(total) || reduction == "sum")
    return total;
  if (reduction != "mean")
    return nc.fail("unknown reduction '" + reduction + "'");
  FailureOr<Value> weightSum = sumAll(nc, w);
  if (failed(weightSum))
    return failure();
  return nc.binary(BinaryKind::Div, *total, *weightSum);
}

LogicalResult negativeLogLikelihood(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<Value> loss = nllLoss(nc, nc.input(0), nc.input(1),
                                  nc.hasInput(2) ? nc.input(2) : Value());
  if (failed(loss))
    return failure();
  nc.setOutput(0, *loss);
  return success();
}

/// SoftmaxCrossEntropyLoss: log_softmax over the class axis, then NLL; the
/// optional second output is the log-probabilities.
LogicalResult softmaxCrossEntropy(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<Value> logp = nc.create<LogSoftmaxOp>(
      {nc.input(0)}, {nc.named("axis", nc.b.getI64IntegerAttr(1))});
  if (failed(logp))
    return failure();
  FailureOr<Value> loss =
      nllLoss(nc, *logp, nc.input(1), nc.hasInput(2) ? nc.input(2) : Value());
  if (failed(loss))
    return failure();
  nc.setOutput(0, *loss);
  nc.setOutput(1, *logp);
  return success();
}

} // namespace

void mlir::kiln::onnx_import::appendLossHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"NegativeLogLikelihoodLoss", 12, negativeLogLikelihood},
      {"SoftmaxCrossEntropyLoss", 12, softmaxCrossEntropy},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
