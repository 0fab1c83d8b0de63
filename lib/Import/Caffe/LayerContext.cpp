//===- LayerContext.cpp - state shared by the Caffe layer handlers --------===//
//
// Blobs read against the shapes a layer's parameters imply (Caffe's own
// check: the blob's shape, or a legacy 4-D blob's dims padded with leading
// 1s), constants for them, and the checked op builders the handlers use.
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

/// Weights with more values than this become resource blobs.
static constexpr int64_t kDenseLimit = 64;

int64_t mlir::kiln::caffe_import::checkedProduct(ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d && product > std::numeric_limits<int64_t>::max() / d))
      return -1;
    product *= d;
  }
  return product;
}

LogicalResult LayerContext::fail(const llvm::Twine &message) {
  if (error.empty())
    error = message.str();
  return failure();
}

LogicalResult LayerContext::requireArity(unsigned min, unsigned max,
                                         int numTops) {
  if (numBottoms() < min || numBottoms() > max) {
    std::string expected =
        min == max ? std::to_string(min)
                   : std::to_string(min) + " to " + std::to_string(max);
    return fail("takes " + expected + " bottom(s), got " + Twine(numBottoms()));
  }
  if (numTops >= 0 && this->numTops() != unsigned(numTops))
    return fail("takes " + Twine(numTops) + " top(s), got " +
                Twine(this->numTops()));
  return success();
}

FailureOr<int64_t> LayerContext::axis(int64_t value, int64_t rank,
                                      llvm::StringRef what) {
  int64_t normalized = value < 0 ? value + rank : value;
  if (normalized < 0 || normalized >= rank)
    return fail(what + " " + Twine(value) + " is out of range for a bottom " +
                "of rank " + Twine(rank));
  return normalized;
}

LogicalResult LayerContext::checkAtLeast(int64_t value, int64_t min,
                                         llvm::StringRef what) {
  if (value < min)
    return fail(what + " must be at least " + Twine(min) + ", got " +
                Twine(value));
  return success();
}

LogicalResult LayerContext::requireBlobs(unsigned count, llvm::StringRef what) {
  blobsChecked = true;
  if (numBlobs() == count)
    return success();
  if (numBlobs() == 0)
    return fail("has no blobs in the caffemodel (expects " + Twine(count) +
                ": " + what + "); is the layer named as in the caffemodel?");
  return fail("has " + Twine(numBlobs()) + " blob(s), expects " + Twine(count) +
              " (" + what + ")");
}

SmallVector<int64_t> LayerContext::blobShape(unsigned i) const {
  const caffe::BlobProto &blob = *blobs[i];
  if (blob.has_shape())
    return SmallVector<int64_t>(blob.shape().dim().begin(),
                                blob.shape().dim().end());
  if (blob.has_num() || blob.has_channels() || blob.has_height() ||
      blob.has_width())
    return {blob.num(), blob.channels(), blob.height(), blob.width()};
  return {};
}

int64_t LayerContext::blobValueCount(unsigned i) const {
  return std::max(blobs[i]->data_size(), blobs[i]->double_data_size());
}

FailureOr<std::vector<float>> LayerContext::blobValues(unsigned i,
                                                       ArrayRef<int64_t> shape,
                                                       llvm::StringRef what) {
  std::string name = "blob " + std::to_string(i) + " (" + what.str() + ")";
  if (i >= numBlobs())
    return fail(name + " is missing: the layer has " + Twine(numBlobs()) +
                " blob(s)");
  int64_t count = checkedProduct(shape);
  if (count < 0)
    return fail(name + " would have shape " + formatDims(shape) +
                ", more values than 64 bits count");
  const caffe::BlobProto &blob = *blobs[i];
  bool legacy = !blob.has_shape();
  SmallVector<int64_t> declared = blobShape(i);
  if (!declared.empty() || blob.has_shape()) {
    SmallVector<int64_t> expected(shape);
    if (legacy) {
      // Caffe's Blob::ShapeEquals for legacy blobs: the last four dims.
      if (expected.size() > 4)
        return fail(name + " has legacy 4-D dims " + formatDims(declared) +
                    ", but the layer expects shape " + formatDims(shape));
      expected.insert(expected.begin(), 4 - expected.size(), 1);
    }
    if (ArrayRef<int64_t>(declared) != ArrayRef<int64_t>(expected))
      return fail(name + " has shape " + formatDims(declared) +
                  ", but the layer's parameters give " + formatDims(shape));
  }
  int64_t floats = blob.data_size(), doubles = blob.double_data_size();
  if (floats && doubles)
    return fail(name + " has both data and double_data");
  int64_t given = floats ? floats : doubles;
  if (given != count)
    return fail(name + " holds " + Twine(given) + " values, but shape " +
                formatDims(shape) + " needs " + Twine(count));
  std::vector<float> values;
  values.reserve(count);
  if (floats)
    values.assign(blob.data().begin(), blob.data().end());
  else
    for (double v : blob.double_data())
      values.push_back(static_cast<float>(v));
  return values;
}

Value LayerContext::constant(ArrayRef<int64_t> shape, ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  ElementsAttr attr;
  if (static_cast<int64_t>(values.size()) <= kDenseLimit) {
    attr = DenseElementsAttr::get(type, values);
  } else {
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocateAndCopyInferAlign<float>(values);
    attr = DenseResourceElementsAttr::get(type, layer.name(), std::move(blob));
  }
  return ConstantOp::create(b, loc, attr);
}

FailureOr<Value> LayerContext::blobConstant(unsigned i, ArrayRef<int64_t> shape,
                                            llvm::StringRef what) {
  FailureOr<std::vector<float>> values = blobValues(i, shape, what);
  if (failed(values))
    return failure();
  return constant(shape, *values);
}

FailureOr<Value> LayerContext::binary(BinaryKind kind, Value lhs, Value rhs) {
  return create<BinaryOp>(
      {lhs, rhs}, {named("kind", BinaryKindAttr::get(b.getContext(), kind))});
}

FailureOr<Value> LayerContext::activation(ActivationKind kind, Value input,
                                          std::optional<float> alpha) {
  SmallVector<NamedAttribute> attrs = {
      named("kind", ActivationKindAttr::get(b.getContext(), kind))};
  if (alpha)
    attrs.push_back(named("alpha", b.getF32FloatAttr(*alpha)));
  return create<ActivationOp>({input}, attrs);
}

FailureOr<Value> LayerContext::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  if (checkedProduct(shape) != type.getNumElements())
    return fail("cannot reshape " + formatDims(type.getShape()) + " to " +
                formatDims(shape) + ": the element counts differ");
  return createTyped<ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), {v});
}

FailureOr<Value> LayerContext::transpose(Value v, ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return create<TransposeOp>({v}, {named("permutation", i64s(perm))});
  return v;
}
