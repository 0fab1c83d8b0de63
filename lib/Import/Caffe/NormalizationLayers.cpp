//===- NormalizationLayers.cpp - Caffe's BatchNorm, Scale, LRN, Softmax ---===//
//
// BatchNorm (mean, variance and the moving-average factor that divides both,
// as Caffe stores them; eps), Scale (a learned scale over the axes [axis,
// axis + num_axes) or a second bottom, with an optional bias), LRN
// (ACROSS_CHANNELS as kiln.lrn; WITHIN_CHANNEL as Caffe composes it: an
// average of squares over a local_size square, then x * (1 + alpha *
// average) ^ -beta) and Softmax (axis).
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

namespace {

LogicalResult batchNorm(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::BatchNormParameter &p = lc.layer.batch_norm_param();
  if (p.has_use_global_stats() && !p.use_global_stats())
    return lc.fail("use_global_stats: false (statistics of the batch) is "
                   "not supported; inference uses the stored statistics");
  auto type = lc.bottomType(0);
  if (type.getRank() < 2)
    return lc.fail("expects a bottom of rank >= 2 (N x C x ...), got " +
                   formatDims(type.getShape()));
  int64_t channels = type.getDimSize(1);
  if (failed(lc.requireBlobs(3, "mean, variance and moving-average factor")))
    return failure();
  FailureOr<std::vector<float>> mean = lc.blobValues(0, {channels}, "mean");
  FailureOr<std::vector<float>> variance =
      failed(mean) ? mean : lc.blobValues(1, {channels}, "variance");
  FailureOr<std::vector<float>> factor =
      failed(variance) ? variance
                       : lc.blobValues(2, {1}, "moving-average factor");
  if (failed(factor))
    return failure();
  // Caffe: the stored sums divided by the factor (0 stays 0).
  float f = (*factor)[0] == 0.0f ? 0.0f : 1.0f / (*factor)[0];
  for (float &v : *mean)
    v *= f;
  for (float &v : *variance)
    v *= f;
  std::vector<float> ones(channels, 1.0f), zeros(channels, 0.0f);
  return lc.result(lc.create<BatchNormOp>(
      {lc.bottom(0), lc.constant({channels}, ones),
       lc.constant({channels}, zeros), lc.constant({channels}, *mean),
       lc.constant({channels}, *variance)},
      {lc.named("epsilon", lc.b.getF32FloatAttr(p.eps()))}));
}

/// `v` (of `dims`, the dimensions [axis, axis + dims.size()) of a bottom of
/// `rank`) shaped to broadcast against that bottom.
FailureOr<Value> alongAxes(LayerContext &lc, Value v, ArrayRef<int64_t> dims,
                           int64_t axis, int64_t rank) {
  SmallVector<int64_t> shape(dims);
  shape.append(rank - axis - dims.size(), 1);
  return lc.reshape(v, shape);
}

LogicalResult scale(LayerContext &lc) {
  if (failed(lc.requireArity(1, 2)))
    return failure();
  const caffe::ScaleParameter &p = lc.layer.scale_param();
  auto type = lc.bottomType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> dims;
  int64_t axis = 0;
  Value factor;
  unsigned biasBlob = 0;
  if (lc.numBottoms() == 2) {
    // The scale is the second bottom, over [axis, axis + its rank).
    auto scaleType = lc.bottomType(1);
    dims.assign(scaleType.getShape().begin(), scaleType.getShape().end());
    if (!dims.empty()) {
      FailureOr<int64_t> a = lc.axis(p.axis(), rank, "axis");
      if (failed(a))
        return failure();
      axis = *a;
    }
    if (axis + int64_t(dims.size()) > rank ||
        type.getShape().slice(axis, dims.size()) != ArrayRef<int64_t>(dims))
      return lc.fail("the scale bottom " + formatDims(dims) +
                     " does not match the dimensions of bottom 0 " +
                     formatDims(type.getShape()) + " from axis " + Twine(axis));
    factor = lc.bottom(1);
    if (failed(lc.requireBlobs(p.bias_term() ? 1 : 0,
                               p.bias_term() ? "bias" : "none")))
      return failure();
  } else {
    FailureOr<int64_t> a = lc.axis(p.axis(), rank, "axis");
    if (failed(a))
      return failure();
    axis = *a;
    int64_t count = p.num_axes() == -1 ? rank - axis : p.num_axes();
    if (count < 0 || axis + count > rank)
      return lc.fail("num_axes " + Twine(p.num_axes()) + " from axis " +
                     Twine(axis) + " does not fit a bottom of rank " +
                     Twine(rank));
    dims.assign(type.getShape().begin() + axis,
                type.getShape().begin() + axis + count);
    if (failed(lc.requireBlobs(p.bias_term() ? 2 : 1,
                               p.bias_term() ? "scale and bias" : "scale")))
      return failure();
    FailureOr<Value> s = lc.blobConstant(0, dims, "scale");
    if (failed(s))
      return failure();
    factor = *s;
    biasBlob = 1;
  }
  FailureOr<Value> shaped = alongAxes(lc, factor, dims, axis, rank);
  FailureOr<Value> y = failed(shaped)
                           ? shaped
                           : lc.binary(BinaryKind::Mul, lc.bottom(0), *shaped);
  if (failed(y) || !p.bias_term())
    return lc.result(y);
  FailureOr<Value> bias = lc.blobConstant(biasBlob, dims, "bias");
  if (failed(bias) || failed(bias = alongAxes(lc, *bias, dims, axis, rank)))
    return failure();
  return lc.result(lc.binary(BinaryKind::Add, *y, *bias));
}

/// WITHIN_CHANNEL: x * (1 + alpha * avg(x^2 over size x size)) ^ -beta,
/// the average counting the padding (Caffe's pooling), k unused.
FailureOr<Value> lrnWithinChannel(LayerContext &lc, int64_t size, float alpha,
                                  float beta) {
  Value x = lc.bottom(0);
  int64_t pad = (size - 1) / 2;
  FailureOr<Value> squared = lc.binary(BinaryKind::Mul, x, x);
  if (failed(squared))
    return failure();
  FailureOr<Value> mean = lc.create<PoolOp>(
      {*squared}, {lc.named("kind", PoolKindAttr::get(lc.b.getContext(),
                                                      PoolKind::Average)),
                   lc.named("window", lc.i64s({size, size})),
                   lc.named("strides", lc.i64s({1, 1})),
                   lc.named("pads", lc.i64s({pad, pad, pad, pad})),
                   lc.named("dilations", lc.i64s({1, 1})),
                   lc.named("count_include_pad", lc.b.getBoolAttr(true))});
  FailureOr<Value> scaled =
      failed(mean) ? mean : lc.binary(BinaryKind::Mul, *mean, lc.scalar(alpha));
  FailureOr<Value> shifted =
      failed(scaled) ? scaled
                     : lc.binary(BinaryKind::Add, *scaled, lc.scalar(1.0f));
  FailureOr<Value> powered =
      failed(shifted) ? shifted
                      : lc.binary(BinaryKind::Pow, *shifted, lc.scalar(-beta));
  if (failed(powered))
    return failure();
  return lc.binary(BinaryKind::Mul, x, *powered);
}

LogicalResult lrn(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::LRNParameter &p = lc.layer.lrn_param();
  auto type = lc.bottomType(0);
  if (type.getRank() != 4)
    return lc.fail("expects a 4-D bottom (N x C x H x W), got " +
                   formatDims(type.getShape()));
  int64_t size = p.local_size();
  if (size % 2 != 1)
    return lc.fail("local_size " + Twine(size) +
                   " must be odd (as Caffe requires)");
  if (p.norm_region() == caffe::LRNParameter::WITHIN_CHANNEL)
    return lc.result(lrnWithinChannel(lc, size, p.alpha(), p.beta()));
  return lc.result(lc.create<LrnOp>(
      {lc.bottom(0)}, {lc.named("size", lc.b.getI64IntegerAttr(size)),
                       lc.named("alpha", lc.b.getF32FloatAttr(p.alpha())),
                       lc.named("beta", lc.b.getF32FloatAttr(p.beta())),
                       lc.named("bias", lc.b.getF32FloatAttr(p.k()))}));
}

LogicalResult softmax(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  FailureOr<int64_t> axis = lc.axis(lc.layer.softmax_param().axis(),
                                    lc.bottomType(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  return lc.result(lc.create<SoftmaxOp>(
      {lc.bottom(0)}, {lc.named("axis", lc.b.getI64IntegerAttr(*axis))}));
}

} // namespace

void mlir::kiln::caffe_import::appendNormalizationHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"BatchNorm", batchNorm},
      {"Scale", scale},
      {"LRN", lrn},
      {"Softmax", softmax},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
