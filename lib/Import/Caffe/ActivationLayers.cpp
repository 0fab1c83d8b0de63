//===- ActivationLayers.cpp - Caffe's elementwise layers ------------------===//
//
// ReLU (negative_slope: a leaky ReLU), PReLU (a slope per channel, or one
// with channel_shared), ELU, Sigmoid, TanH, Power ((shift + scale * x) ^
// power) and Dropout, which at inference passes its bottom on.
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

namespace {

LogicalResult relu(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  float slope = lc.layer.relu_param().negative_slope();
  if (slope == 0.0f)
    return lc.result(lc.activation(ActivationKind::Relu, lc.bottom(0)));
  return lc.result(
      lc.activation(ActivationKind::LeakyRelu, lc.bottom(0), slope));
}

/// max(x, 0) + slope * min(x, 0), the slope per channel (dimension 1).
LogicalResult prelu(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  auto type = lc.bottomType(0);
  if (type.getRank() < 2)
    return lc.fail("expects a bottom of rank >= 2 (N x C x ...), got " +
                   formatDims(type.getShape()));
  bool shared = lc.layer.prelu_param().channel_shared();
  int64_t channels = type.getDimSize(1);
  if (failed(lc.requireBlobs(1, "slopes")))
    return failure();
  // Caffe stores a shared slope as a blob of no axes.
  SmallVector<int64_t> blobShape =
      shared ? SmallVector<int64_t>{} : SmallVector<int64_t>{channels};
  FailureOr<std::vector<float>> slopes = lc.blobValues(0, blobShape, "slopes");
  if (failed(slopes))
    return failure();
  SmallVector<int64_t> shape(type.getRank() - 1, 1);
  shape[0] = shared ? 1 : channels;
  Value slope = lc.constant(shape, *slopes);
  Value zero = lc.scalar(0.0f);
  FailureOr<Value> pos = lc.binary(BinaryKind::Max, lc.bottom(0), zero);
  FailureOr<Value> neg =
      failed(pos) ? pos : lc.binary(BinaryKind::Min, lc.bottom(0), zero);
  FailureOr<Value> scaled =
      failed(neg) ? neg : lc.binary(BinaryKind::Mul, *neg, slope);
  if (failed(scaled))
    return failure();
  return lc.result(lc.binary(BinaryKind::Add, *pos, *scaled));
}

LogicalResult elu(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  return lc.result(lc.activation(ActivationKind::Elu, lc.bottom(0),
                                 lc.layer.elu_param().alpha()));
}

template <ActivationKind kind> LogicalResult simple(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  return lc.result(lc.activation(kind, lc.bottom(0)));
}

/// (shift + scale * x) ^ power, leaving out the steps that do nothing.
LogicalResult power(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::PowerParameter &p = lc.layer.power_param();
  FailureOr<Value> y = lc.bottom(0);
  if (p.scale() != 1.0f)
    y = lc.binary(BinaryKind::Mul, *y, lc.scalar(p.scale()));
  if (succeeded(y) && p.shift() != 0.0f)
    y = lc.binary(BinaryKind::Add, *y, lc.scalar(p.shift()));
  if (succeeded(y) && p.power() != 1.0f)
    y = lc.binary(BinaryKind::Pow, *y, lc.scalar(p.power()));
  return lc.result(y);
}

/// At inference, Caffe's Dropout passes its bottom on unchanged.
LogicalResult dropout(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  lc.setTop(0, lc.bottom(0));
  return success();
}

} // namespace

void mlir::kiln::caffe_import::appendActivationHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"ReLU", relu},
      {"PReLU", prelu},
      {"ELU", elu},
      {"Sigmoid", simple<ActivationKind::Sigmoid>},
      {"TanH", simple<ActivationKind::Tanh>},
      {"Power", power},
      {"Dropout", dropout},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
