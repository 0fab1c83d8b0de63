//===- OrderingHandlers.cpp - ONNX ops that reorder elements ----*- C++ -*-===//
//
// TopK and ReverseSequence, composed from kiln ops. TopK ranks each element
// along the axis by counting the elements that come before it (larger, or
// smaller with largest = 0; equal ones by index; NaN above every number,
// as numpy sorts), then picks the element of each rank 0..k-1: quadratic
// in the axis length, so it is refused above 4,096. ReverseSequence with
// constant sequence_lens is a GatherElements with constant indices.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// The permutation moving `axis` of a rank-`rank` tensor last, and back.
SmallVector<int64_t> axisLast(int64_t axis, int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  return perm;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// `v` with a dimension of 1 inserted before dimension `at`.
FailureOr<Value> unsqueezed(NodeContext &nc, Value v, int64_t at) {
  auto shape =
      SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
  shape.insert(shape.begin() + at, 1);
  return nc.reshape(v, shape);
}

FailureOr<Value> sumOver(NodeContext &nc, FailureOr<Value> v, int64_t axis,
                         bool keepDims) {
  if (failed(v))
    return failure();
  return nc.create<ReduceOp>(
      {*v}, {nc.named("kind",
                      ReduceKindAttr::get(nc.b.getContext(), ReduceKind::Sum)),
             nc.named("axes", nc.i64s({axis})),
             nc.named("keep_dims", nc.b.getBoolAttr(keepDims))});
}

/// Element-wise and/or of two i1 tensors.
FailureOr<Value> logical(NodeContext &nc, BinaryKind kind, FailureOr<Value> a,
                         FailureOr<Value> b) {
  if (failed(a) || failed(b))
    return failure();
  return nc.binary(kind, *a, *b);
}

/// TopK (1's k attribute, 10's k input, 11's largest and sorted): the k
/// largest (or smallest) elements along `axis` and their int64 indices, in
/// order (sorted = 0 allows any order; this order is one).
LogicalResult topK(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  if (rank == 0)
    return nc.fail("expects an input of rank >= 1");
  int64_t k = nc.getInt("k", -1);
  if (nc.opset >= 10) {
    if (failed(nc.requireInputs(2)))
      return failure();
    FailureOr<SmallVector<int64_t>> kInput = nc.intInput(1);
    if (failed(kInput))
      return failure();
    if (kInput->size() != 1)
      return nc.fail("expects a single k");
    k = (*kInput)[0];
  }
  FailureOr<int64_t> axis = nc.axis(nc.getInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  int64_t n = type.getDimSize(*axis);
  if (k < 0 || k > n)
    return nc.fail("k = " + Twine(k) + " is not within 0.." + Twine(n));
  if (k == 0)
    return nc.unsupported("k = 0 (an empty result) is not supported");
  if (n > 4096)
    return nc.unsupported("TopK along " + Twine(n) +
                          " elements is not supported (kiln ranks them "
                          "pairwise; at most 4,096)");
  bool largest = nc.getInt("largest", 1) != 0;

  SmallVector<int64_t> perm = axisLast(*axis, rank);
  FailureOr<Value> x = nc.transpose(nc.input(0), perm);
  if (failed(x))
    return failure();
  // Rows i (dimension rank - 1 after unsqueezing) against columns j.
  FailureOr<Value> xi = unsqueezed(nc, *x, rank);
  FailureOr<Value> xj = failed(xi) ? xi : unsqueezed(nc, *x, rank - 1);
  if (failed(xj))
    return failure();
  Type i64 = nc.b.getI64Type();
  FailureOr<Value> iIdx =
      nc.ramp("the row positions", RankedTensorType::get({n, 1}, i64), 0);
  FailureOr<Value> jIdx = failed(iIdx)
                              ? iIdx
                              : nc.ramp("the column positions",
                                        RankedTensorType::get({1, n}, i64), 1);
  if (failed(jIdx))
    return failure();
  // NaN (x != x) counts above every number.
  FailureOr<Value> ni = nc.binary(BinaryKind::Equal, *xi, *xi);
  FailureOr<Value> nj = nc.binary(BinaryKind::Equal, *xj, *xj);
  auto isNaN = [&](FailureOr<Value> notNaN) -> FailureOr<Value> {
    if (failed(notNaN))
      return failure();
    return nc.create<UnaryOp>(
        {*notNaN}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                        UnaryKind::Not))});
  };
  FailureOr<Value> nanI = isNaN(ni), nanJ = isNaN(nj);
  // j comes before i: it beats i, or it ties and has a lower index.
  FailureOr<Value> beats =
      largest
          ? logical(nc, BinaryKind::Or,
                    nc.binary(BinaryKind::Greater, *xj, *xi),
                    logical(nc, BinaryKind::And, nanJ, ni))
          : logical(nc, BinaryKind::Or, nc.binary(BinaryKind::Less, *xj, *xi),
                    logical(nc, BinaryKind::And, nj, nanI));
  FailureOr<Value> ties =
      logical(nc, BinaryKind::Or, nc.binary(BinaryKind::Equal, *xj, *xi),
              logical(nc, BinaryKind::And, nanJ, nanI));
  FailureOr<Value> before =
      logical(nc, BinaryKind::Or, beats,
              logical(nc, BinaryKind::And, ties,
                      nc.binary(BinaryKind::Less, *jIdx, *iIdx)));
  FailureOr<Value> count =
      failed(before) ? before : nc.castTo(*before, nc.b.getI64Type());
  FailureOr<Value> ranks = sumOver(nc, count, rank, /*keepDims=*/true);
  // ranks: (..., n, 1) against 0..k-1: which element holds each rank.
  FailureOr<Value> wanted =
      failed(ranks) ? ranks
                    : nc.ramp("the ranks", RankedTensorType::get({k}, i64), 0);
  FailureOr<Value> holds =
      failed(wanted) ? wanted : nc.binary(BinaryKind::Equal, *ranks, *wanted);
  if (failed(holds))
    return failure();
  auto pick = [&](Value from, Type element) -> FailureOr<Value> {
    Value zero = nc.splat(RankedTensorType::get({}, element), 0);
    FailureOr<Value> picked =
        sumOver(nc, nc.create<SelectOp>({*holds, from, zero}), rank - 1, false);
    if (failed(picked))
      return failure();
    return nc.transpose(*picked, inverse(perm));
  };
  FailureOr<Value> values = pick(*xi, type.getElementType());
  if (failed(values))
    return failure();
  nc.setOutput(0, *values);
  if (nc.hasOutput(1))
    return nc.result(pick(*iIdx, nc.b.getI64Type()), 1);
  return success();
}

/// ReverseSequence: along time_axis, the first sequence_lens[b] elements of
/// each batch entry b reversed, the rest kept. The lengths must be constant.
LogicalResult reverseSequence(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  if (type.getRank() < 2)
    return nc.fail("expects an input of rank >= 2");
  int64_t batchAxis = nc.getInt("batch_axis", 1);
  int64_t timeAxis = nc.getInt("time_axis", 0);
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return nc.fail("batch_axis and time_axis must be 0 and 1 in some order");
  FailureOr<SmallVector<int64_t>> lens = nc.intInput(1);
  if (failed(lens))
    return failure();
  int64_t batch = type.getDimSize(batchAxis), time = type.getDimSize(timeAxis);
  if (static_cast<int64_t>(lens->size()) != batch)
    return nc.fail("expects " + Twine(batch) + " sequence_lens, got " +
                   Twine(lens->size()));
  for (int64_t len : *lens)
    if (len < 0 || len > time)
      return nc.fail("a sequence length " + Twine(len) + " is not within 0.." +
                     Twine(time));
  // Indices of x's shape: the source along the time axis.
  ArrayRef<int64_t> shape = type.getShape();
  int64_t inner = 1;
  for (int64_t d = 2; d < type.getRank(); ++d)
    inner *= shape[d];
  SmallVector<int64_t> source;
  source.reserve(type.getNumElements());
  for (int64_t a = 0; a < shape[0]; ++a)
    for (int64_t c = 0; c < shape[1]; ++c) {
      int64_t b = batchAxis == 0 ? a : c, t = timeAxis == 0 ? a : c;
      int64_t len = (*lens)[b];
      source.append(inner, t < len ? len - 1 - t : t);
    }
  return nc.result(nc.create<GatherElementsOp>(
      {nc.input(0), nc.i64Constant(shape, source)},
      {nc.named("axis", nc.b.getI64IntegerAttr(timeAxis))}));
}

} // namespace

void mlir::kiln::onnx_import::appendOrderingHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"TopK", 1, topK},
      {"ReverseSequence", 10, reverseSequence},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
