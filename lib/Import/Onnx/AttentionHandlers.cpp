//===- AttentionHandlers.cpp - ONNX attention ops as kiln ops ---*- C++ -*-===//
//
// ONNX Attention (23; 24's nonpad_kv_seqlen; 25's sliding window) composed
// from kiln ops as onnx's reference computes it: 3-D inputs split into
// heads, the past key/value concatenated in front, Q and K each scaled by
// sqrt(scale), grouped-query heads repeated, softcap, an additive bias (the
// attention mask, the bottom-right causal frontier, the sliding window and
// the padding of nonpad_kv_seqlen, each -inf where disallowed), softmax
// (in softmax_precision), fully masked rows set to zero, and the product
// with V. The qk_matmul_output modes 0 to 3 are the values along the way.
// RotaryEmbedding (23) rotates pairs of each head's first entries by the
// cos and sin caches.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// The shapes and attributes one Attention node works with.
struct AttentionShape {
  int64_t batch = 0, qHeads = 0, kvHeads = 0, qLength = 0, kvLength = 0;
  int64_t pastLength = 0, headSize = 0, valueHeadSize = 0;
  bool threeD = false;
};

/// A 3-D (batch, sequence, heads * size) tensor as 4-D (batch, heads,
/// sequence, size).
FailureOr<Value> splitHeads(NodeContext &nc, Value v, int64_t heads,
                            llvm::StringRef name) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t hidden = type.getDimSize(2);
  if (heads <= 0 || hidden % heads)
    return nc.fail(Twine(name) + "'s hidden size " + Twine(hidden) +
                   " is not a multiple of its number of heads " + Twine(heads));
  FailureOr<Value> r = nc.reshape(
      v, {type.getDimSize(0), type.getDimSize(1), heads, hidden / heads});
  if (failed(r))
    return failure();
  return nc.create<TransposeOp>(
      {*r}, {nc.named("permutation", nc.i64s({0, 2, 1, 3}))});
}

class AttentionBuilder {
public:
  explicit AttentionBuilder(NodeContext &nc) : nc(nc) {}
  LogicalResult build();

private:
  Value scalar(double value, Type element) {
    return nc.splat(RankedTensorType::get({}, element), value);
  }
  Value scalar(double value) { return scalar(value, element); }
  /// 0 where `allowed`, -inf elsewhere (in the inputs' type).
  FailureOr<Value> biasOf(FailureOr<Value> allowed) {
    if (failed(allowed))
      return failure();
    return nc.create<SelectOp>({*allowed, scalar(0), scalar(-INFINITY)});
  }
  FailureOr<Value> add(Value bias, FailureOr<Value> term) {
    if (failed(term))
      return failure();
    return bias ? nc.binary(BinaryKind::Add, bias, *term) : term;
  }
  LogicalResult readShapes();
  FailureOr<Value> maskBias();
  FailureOr<Value> frontierBias(bool causal, int64_t left, int64_t right);
  FailureOr<Value> paddingBias();
  FailureOr<Value> repeatHeads(Value v);

  NodeContext &nc;
  AttentionShape s;
  Type element;
  Value q, k, v;
  /// The per-batch count of valid keys (nonpad_kv_seqlen, i64), or null.
  Value nonpad;
};

LogicalResult AttentionBuilder::readShapes() {
  auto qt = nc.inputType(0), kt = nc.inputType(1), vt = nc.inputType(2);
  element = qt.getElementType();
  if (!isa<FloatType>(element) || kt.getElementType() != element ||
      vt.getElementType() != element)
    return nc.fail("expects Q, K and V of one floating-point type");
  if (qt.getRank() != kt.getRank() || qt.getRank() != vt.getRank() ||
      (qt.getRank() != 3 && qt.getRank() != 4))
    return nc.fail("expects Q, K and V all of rank 3 or all of rank 4");
  s.threeD = qt.getRank() == 3;
  q = nc.input(0), k = nc.input(1), v = nc.input(2);
  if (s.threeD) {
    int64_t qHeads = nc.getInt("q_num_heads", 0);
    int64_t kvHeads = nc.getInt("kv_num_heads", 0);
    FailureOr<Value> q4 = splitHeads(nc, q, qHeads, "Q");
    FailureOr<Value> k4 = failed(q4) ? q4 : splitHeads(nc, k, kvHeads, "K");
    FailureOr<Value> v4 = failed(k4) ? k4 : splitHeads(nc, v, kvHeads, "V");
    if (failed(v4))
      return failure();
    q = *q4, k = *k4, v = *v4;
  }
  auto q4 = cast<RankedTensorType>(q.getType());
  auto k4 = cast<RankedTensorType>(k.getType());
  auto v4 = cast<RankedTensorType>(v.getType());
  s.batch = q4.getDimSize(0), s.qHeads = q4.getDimSize(1);
  s.qLength = q4.getDimSize(2), s.headSize = q4.getDimSize(3);
  s.kvHeads = k4.getDimSize(1), s.kvLength = k4.getDimSize(2);
  s.valueHeadSize = v4.getDimSize(3);
  if (k4.getDimSize(0) != s.batch || v4.getDimSize(0) != s.batch ||
      k4.getDimSize(3) != s.headSize || v4.getDimSize(1) != s.kvHeads ||
      v4.getDimSize(2) != s.kvLength)
    return nc.fail("Q, K and V do not agree in batch, heads, key length or "
                   "head size");
  if (s.kvHeads <= 0 || s.qHeads % s.kvHeads)
    return nc.fail("q_num_heads " + Twine(s.qHeads) +
                   " is not a multiple of kv_num_heads " + Twine(s.kvHeads));
  return success();
}

/// The attention mask as an additive bias: a boolean mask is 0 where true
/// and -inf where false; a last dimension shorter than the keys is padded
/// with -inf.
FailureOr<Value> AttentionBuilder::maskBias() {
  Value mask = nc.input(3);
  auto type = nc.inputType(3);
  bool isBool = type.getElementType().isInteger(1);
  if (!isBool && type.getElementType() != element)
    return nc.fail("expects a boolean attn_mask or one of Q's type");
  if (type.getRank() == 0)
    return nc.fail("expects an attn_mask of rank >= 1");
  FailureOr<Value> bias = isBool ? biasOf(mask) : FailureOr<Value>(mask);
  if (failed(bias))
    return failure();
  int64_t rank = type.getRank();
  int64_t total = s.pastLength + s.kvLength;
  int64_t shortBy = total - type.getDimSize(rank - 1);
  if (shortBy < 0)
    return nc.fail("attn_mask has " + Twine(type.getDimSize(rank - 1)) +
                   " keys, more than the " + Twine(total) + " of K");
  if (shortBy == 0)
    return bias;
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[2 * rank - 1] = shortBy;
  return nc.create<PadOp>(
      {*bias},
      {nc.named("mode", PadModeAttr::get(nc.b.getContext(), PadMode::Constant)),
       nc.named("pads", nc.i64s(pads)),
       nc.named("value", nc.b.getF64FloatAttr(-INFINITY))});
}

/// The causal frontier (key j <= query i + offset) and the sliding window
/// (offset + i - left <= j <= offset + i + right, where a bound >= 0) as
/// a bias. The offset is the past length, or with nonpad_kv_seqlen
/// nonpad[b] - q_length per batch (then the bias is (batch, 1, q, kv)).
FailureOr<Value> AttentionBuilder::frontierBias(bool causal, int64_t left,
                                                int64_t right) {
  int64_t total = s.pastLength + s.kvLength;
  Type i64 = nc.b.getI64Type();
  FailureOr<Value> keyPositions =
      nc.ramp("the key positions", RankedTensorType::get({1, total}, i64), 1);
  FailureOr<Value> position =
      failed(keyPositions)
          ? keyPositions
          : nc.ramp("the query positions",
                    RankedTensorType::get({s.qLength, 1}, i64), 0);
  if (failed(position))
    return failure();
  Value keys = *keyPositions;
  if (nonpad) {
    FailureOr<Value> offset =
        nc.binary(BinaryKind::Sub, nonpad, scalar(double(s.qLength), i64));
    if (failed(offset) ||
        failed(offset = nc.reshape(*offset, {s.batch, 1, 1})) ||
        failed(position = nc.binary(BinaryKind::Add, *position, *offset)))
      return failure();
  } else if (s.pastLength) {
    position = nc.binary(BinaryKind::Add, *position,
                         scalar(double(s.pastLength), i64));
  }
  if (failed(position))
    return failure();
  // diff = position - key: causal wants diff >= 0, the window
  // diff <= left and -diff <= right.
  FailureOr<Value> diff = nc.binary(BinaryKind::Sub, *position, keys);
  if (failed(diff))
    return failure();
  Value allowed;
  auto both = [&](FailureOr<Value> term) -> LogicalResult {
    if (succeeded(term) && allowed)
      term = nc.binary(BinaryKind::And, allowed, *term);
    if (failed(term))
      return failure();
    allowed = *term;
    return success();
  };
  if (causal &&
      failed(both(nc.binary(BinaryKind::GreaterEqual, *diff, scalar(0, i64)))))
    return failure();
  if (left >= 0 && failed(both(nc.binary(BinaryKind::LessEqual, *diff,
                                         scalar(double(left), i64)))))
    return failure();
  if (right >= 0 && failed(both(nc.binary(BinaryKind::GreaterEqual, *diff,
                                          scalar(double(-right), i64)))))
    return failure();
  FailureOr<Value> bias = biasOf(allowed);
  if (failed(bias) || !nonpad)
    return bias;
  return nc.reshape(*bias, {s.batch, 1, s.qLength, total});
}

/// Keys at or after nonpad_kv_seqlen[b] are padding: (batch, 1, 1, kv).
FailureOr<Value> AttentionBuilder::paddingBias() {
  SmallVector<int64_t> cols;
  for (int64_t j = 0; j < s.kvLength; ++j)
    cols.push_back(j);
  FailureOr<Value> counts = nc.reshape(nonpad, {s.batch, 1});
  if (failed(counts))
    return failure();
  FailureOr<Value> bias = biasOf(nc.binary(
      BinaryKind::Less, nc.i64Constant({1, s.kvLength}, cols), *counts));
  if (failed(bias))
    return failure();
  return nc.reshape(*bias, {s.batch, 1, 1, s.kvLength});
}

/// Grouped-query attention: each key/value head repeated for the
/// q_heads / kv_heads query heads that share it ([h0, h0, h1, h1, ...]).
FailureOr<Value> AttentionBuilder::repeatHeads(Value x) {
  if (s.qHeads == s.kvHeads)
    return x;
  int64_t reps = s.qHeads / s.kvHeads;
  SmallVector<int64_t> heads;
  for (int64_t h = 0; h < s.qHeads; ++h)
    heads.push_back(h / reps);
  return nc.create<GatherOp>({x, nc.i64Constant({s.qHeads}, heads)},
                             {nc.named("axis", nc.b.getI64IntegerAttr(1))});
}

LogicalResult AttentionBuilder::build() {
  if (failed(nc.requireInputs(3)) || failed(readShapes()))
    return failure();
  bool hasPast = nc.hasInput(4) || nc.hasInput(5);
  if (hasPast && !(nc.hasInput(4) && nc.hasInput(5)))
    return nc.fail("expects past_key and past_value together");
  if (hasPast && nc.hasInput(6))
    return nc.fail("nonpad_kv_seqlen cannot be combined with past_key and "
                   "past_value");
  int64_t mode = nc.getInt("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return nc.fail("qk_matmul_output_mode " + Twine(mode) +
                   " is not one of 0 to 3");
  int64_t left = nc.getInt("left_window_size", -1);
  int64_t right = nc.getInt("right_window_size", -1);
  if (left < -1 || right < -1)
    return nc.fail("a window size below -1");
  Type softmaxType = element;
  if (int64_t precision = nc.getInt("softmax_precision", 0)) {
    softmaxType =
        convertElementType(nc.b.getContext(), static_cast<int32_t>(precision));
    if (!softmaxType || !isa<FloatType>(softmaxType))
      return nc.unsupported("softmax_precision " +
                            dataTypeName(static_cast<int32_t>(precision)) +
                            " is not supported");
  }

  // The present key and value: the past ones, then the new.
  if (hasPast) {
    auto pk = nc.inputType(4), pv = nc.inputType(5);
    if (pk.getRank() != 4 || pv.getRank() != 4 ||
        pk.getDimSize(2) != pv.getDimSize(2))
      return nc.fail("expects 4-D past_key and past_value of one length");
    s.pastLength = pk.getDimSize(2);
    auto concat = [&](Value past, Value now) {
      return nc.create<ConcatOp>({past, now},
                                 {nc.named("axis", nc.b.getI64IntegerAttr(2))});
    };
    FailureOr<Value> pkv = concat(nc.input(4), k);
    FailureOr<Value> pvv = failed(pkv) ? pkv : concat(nc.input(5), v);
    if (failed(pvv))
      return failure();
    k = *pkv, v = *pvv;
  }
  if (nc.hasOutput(1))
    nc.setOutput(1, k);
  if (nc.hasOutput(2))
    nc.setOutput(2, v);
  if (nc.hasInput(6)) {
    auto type = nc.inputType(6);
    if (type.getNumElements() != s.batch ||
        !isa<IntegerType>(type.getElementType()))
      return nc.fail("expects an integer nonpad_kv_seqlen of batch size");
    FailureOr<Value> counts = nc.castTo(nc.input(6), nc.b.getI64Type());
    if (failed(counts) || failed(counts = nc.reshape(*counts, {s.batch})))
      return failure();
    nonpad = *counts;
  }

  // The additive bias, null when nothing is masked.
  Value bias;
  FailureOr<Value> term = Value();
  if (nc.hasInput(3) && failed(term = add(bias, maskBias())))
    return failure();
  bias = *term;
  bool causal = nc.getInt("is_causal", 0) != 0;
  if ((causal || left >= 0 || right >= 0) &&
      failed(term = add(bias, frontierBias(causal, left, right))))
    return failure();
  bias = *term;
  if (nonpad && failed(term = add(bias, paddingBias())))
    return failure();
  bias = *term;

  // Scores: (Q * sqrt(scale)) (K * sqrt(scale))^T, softcapped.
  double scale = nc.getFloat("scale", 0.0f);
  if (!nc.attr("scale"))
    scale = 1.0 / std::sqrt(double(s.headSize));
  Value root = scalar(std::sqrt(scale));
  FailureOr<Value> qs = nc.binary(BinaryKind::Mul, q, root);
  FailureOr<Value> ks = failed(qs) ? qs : repeatHeads(k);
  FailureOr<Value> vs = failed(ks) ? ks : repeatHeads(v);
  if (failed(vs) || failed(ks = nc.binary(BinaryKind::Mul, *ks, root)))
    return failure();
  FailureOr<Value> scores = nc.create<MatmulOp>(
      {*qs, *ks}, {nc.named("transpose_rhs", nc.b.getBoolAttr(true))});
  if (failed(scores))
    return failure();
  if (float softcap = nc.getFloat("softcap", 0.0f); softcap > 0) {
    FailureOr<Value> capped =
        nc.binary(BinaryKind::Div, *scores, scalar(softcap));
    if (succeeded(capped))
      capped = nc.create<ActivationOp>(
          {*capped},
          {nc.named("kind", ActivationKindAttr::get(nc.b.getContext(),
                                                    ActivationKind::Tanh))});
    if (failed(capped) ||
        failed(scores = nc.binary(BinaryKind::Mul, *capped, scalar(softcap))))
      return failure();
  }
  FailureOr<Value> biased =
      bias ? nc.binary(BinaryKind::Add, *scores, bias) : scores;
  if (failed(biased))
    return failure();

  // Softmax over the keys; a row whose bias is all -inf attends nothing
  // and is 0 (softmax would give NaN).
  FailureOr<Value> probs = nc.castTo(*biased, softmaxType);
  if (failed(probs) ||
      failed(probs = nc.create<SoftmaxOp>(
                 {*probs}, {nc.named("axis", nc.b.getI64IntegerAttr(3))})))
    return failure();
  if (bias) {
    int64_t last = cast<RankedTensorType>(bias.getType()).getRank() - 1;
    FailureOr<Value> rowMax = nc.create<ReduceOp>(
        {bias}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(),
                                                      ReduceKind::Max)),
                 nc.named("axes", nc.i64s({last})),
                 nc.named("keep_dims", nc.b.getBoolAttr(true))});
    FailureOr<Value> none =
        failed(rowMax)
            ? rowMax
            : nc.binary(BinaryKind::Equal, *rowMax, scalar(-INFINITY));
    if (failed(none) || failed(probs = nc.create<SelectOp>(
                                   {*none, scalar(0, softmaxType), *probs})))
      return failure();
  }
  if (failed(probs = nc.castTo(*probs, element)))
    return failure();
  if (nc.hasOutput(3))
    nc.setOutput(3, mode == 3 ? *probs : mode == 2 ? *biased : *scores);

  FailureOr<Value> y = nc.create<MatmulOp>({*probs, *vs});
  if (failed(y) || !s.threeD)
    return nc.result(y);
  y = nc.create<TransposeOp>({*y},
                             {nc.named("permutation", nc.i64s({0, 2, 1, 3}))});
  if (failed(y))
    return failure();
  return nc.result(
      nc.reshape(*y, {s.batch, s.qLength, s.qHeads * s.valueHeadSize}));
}

LogicalResult attention(NodeContext &nc) {
  return AttentionBuilder(nc).build();
}

/// The last dimension of a rank-4 `v` from `start`, `size` entries at
/// `stride`.
FailureOr<Value> lastDims(NodeContext &nc, Value v, int64_t start, int64_t size,
                          int64_t stride = 1) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  return nc.create<SliceOp>(
      {v}, {nc.named("start", nc.i64s({0, 0, 0, start})),
            nc.named("size", nc.i64s({shape[0], shape[1], shape[2], size})),
            nc.named("stride", nc.i64s({1, 1, 1, stride}))});
}

/// RotaryEmbedding-23: the first rotary_embedding_dim entries of each head
/// rotated as pairs (halves, or neighbours when interleaved) by the cos
/// and sin caches (indexed by position_ids when given); the rest pass.
LogicalResult rotaryEmbedding(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  if (rank != 3 && rank != 4)
    return nc.fail("expects an input of rank 3 or 4");
  // (batch, sequence, heads, size): 4-D inputs are (batch, heads,
  // sequence, size); 3-D ones split their hidden size into num_heads.
  FailureOr<Value> x =
      rank == 4 ? FailureOr<Value>(nc.input(0))
                : splitHeads(nc, nc.input(0), nc.getInt("num_heads", 0), "X");
  if (succeeded(x))
    x = nc.create<TransposeOp>(
        {*x}, {nc.named("permutation", nc.i64s({0, 2, 1, 3}))});
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x->getType()).getShape();
  int64_t batch = shape[0], length = shape[1], heads = shape[2];
  int64_t size = shape[3];
  int64_t rotary = nc.getInt("rotary_embedding_dim", 0);
  if (rotary == 0)
    rotary = size;
  if (rotary < 0 || rotary > size || rotary % 2)
    return nc.fail("rotary_embedding_dim " + Twine(rotary) +
                   " is not an even number within the head size " +
                   Twine(size));
  int64_t half = rotary / 2;
  bool interleaved = nc.getInt("interleaved", 0) != 0;
  auto cache = [&](unsigned i) -> FailureOr<Value> {
    FailureOr<Value> c = nc.input(i);
    if (nc.hasInput(3))
      c = nc.create<GatherOp>({*c, nc.input(3)},
                              {nc.named("axis", nc.b.getI64IntegerAttr(0))});
    if (failed(c))
      return failure();
    auto ct = cast<RankedTensorType>(c->getType());
    if (ct.getNumElements() != batch * length * half)
      return nc.fail("a cos or sin cache does not hold (batch, sequence, " +
                     Twine(half) + ") entries");
    return nc.reshape(*c, {batch, length, 1, half});
  };
  FailureOr<Value> cos = cache(1), sin = failed(cos) ? cos : cache(2);
  int64_t step = interleaved ? 2 : 1;
  FailureOr<Value> x1 = failed(sin) ? sin : lastDims(nc, *x, 0, half, step);
  FailureOr<Value> x2 =
      failed(x1) ? x1 : lastDims(nc, *x, interleaved ? 1 : half, half, step);
  if (failed(x2))
    return failure();
  auto mul = [&](Value a, Value b) { return nc.binary(BinaryKind::Mul, a, b); };
  auto combine = [&](BinaryKind kind, FailureOr<Value> a,
                     FailureOr<Value> b) -> FailureOr<Value> {
    if (failed(a) || failed(b))
      return failure();
    return nc.binary(kind, *a, *b);
  };
  FailureOr<Value> real =
      combine(BinaryKind::Sub, mul(*cos, *x1), mul(*sin, *x2));
  FailureOr<Value> imag =
      combine(BinaryKind::Add, mul(*sin, *x1), mul(*cos, *x2));
  if (failed(real) || failed(imag))
    return failure();
  auto concat = [&](ArrayRef<Value> parts, int64_t axis) {
    return nc.create<ConcatOp>(
        parts, {nc.named("axis", nc.b.getI64IntegerAttr(axis))});
  };
  FailureOr<Value> rotated;
  if (interleaved) {
    FailureOr<Value> r5 = nc.reshape(*real, {batch, length, heads, half, 1});
    FailureOr<Value> i5 =
        failed(r5) ? r5 : nc.reshape(*imag, {batch, length, heads, half, 1});
    rotated = failed(i5) ? i5 : concat({*r5, *i5}, 4);
    if (succeeded(rotated))
      rotated = nc.reshape(*rotated, {batch, length, heads, rotary});
  } else {
    rotated = concat({*real, *imag}, 3);
  }
  if (succeeded(rotated) && rotary < size) {
    FailureOr<Value> rest = lastDims(nc, *x, rotary, size - rotary);
    rotated = failed(rest) ? rest : concat({*rotated, *rest}, 3);
  }
  if (failed(rotated))
    return failure();
  if (rank == 3)
    return nc.result(nc.reshape(*rotated, type.getShape()));
  return nc.result(nc.create<TransposeOp>(
      {*rotated}, {nc.named("permutation", nc.i64s({0, 2, 1, 3}))}));
}

} // namespace

void mlir::kiln::onnx_import::appendAttentionHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Attention", 23, attention},
      {"RotaryEmbedding", 23, rotaryEmbedding},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
