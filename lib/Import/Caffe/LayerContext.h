//===- LayerContext.h - state shared by the Caffe layer handlers -*- C++
//-*-===//
//
// The importer walks the network layer by layer; for each layer it finds a
// handler by the layer's type and gives it a LayerContext: the bottoms as
// values, the layer's blobs (from the caffemodel, matched by layer name) read
// against the shapes the layer's parameters imply, a checked way to create
// kiln ops, and error reporting that the importer prefixes with the layer's
// index, name, type and prototxt line. Private to the importer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_CAFFE_LAYERCONTEXT_H
#define KILN_LIB_IMPORT_CAFFE_LAYERCONTEXT_H

#include "caffe.pb.h"

#include "kiln/Dialect/Kiln/IR/CheckedBuild.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Sizes.h"
#include "kiln/runtime/Plugin.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <string>
#include <vector>

namespace mlir::kiln::caffe_import {

/// What a handler sees of one layer.
class LayerContext {
public:
  LayerContext(const caffe::LayerParameter &layer,
               std::vector<const caffe::BlobProto *> blobs,
               SmallVector<Value> bottoms, OpBuilder &builder, Location loc,
               std::string &error)
      : layer(layer), b(builder), loc(loc), blobs(std::move(blobs)),
        bottoms(std::move(bottoms)), tops(layer.top_size()), error(error) {}

  //===--- bottoms and tops ---===//
  unsigned numBottoms() const { return bottoms.size(); }
  Value bottom(unsigned i) const { return bottoms[i]; }
  RankedTensorType bottomType(unsigned i) const {
    return cast<RankedTensorType>(bottoms[i].getType());
  }
  /// Fails unless the layer has between `min` and `max` bottoms and
  /// exactly `numTops` tops (any number of tops when numTops < 0).
  LogicalResult requireArity(unsigned min, unsigned max, int numTops = 1);
  unsigned numTops() const { return tops.size(); }
  void setTop(unsigned i, Value value) { tops[i] = value; }
  /// Makes `value` top `i`, or passes its failure on.
  LogicalResult result(FailureOr<Value> value, unsigned i = 0) {
    if (failed(value))
      return failure();
    setTop(i, *value);
    return success();
  }
  Value top(unsigned i) const { return tops[i]; }

  //===--- blobs ---===//
  unsigned numBlobs() const { return blobs.size(); }
  /// Fails, saying how many blobs `what` the layer takes, unless it has
  /// `count` blobs.
  LogicalResult requireBlobs(unsigned count, llvm::StringRef what);
  /// The values of blob `i`, which must hold `shape` (its own shape, when
  /// it has one, must be `shape`, or for a legacy 4-D blob `shape` padded
  /// with leading 1s, as Caffe checks); `what` names it in messages.
  FailureOr<std::vector<float>> blobValues(unsigned i, ArrayRef<int64_t> shape,
                                           llvm::StringRef what);
  /// The shape blob `i` declares (its shape, or its legacy 4-D dims).
  SmallVector<int64_t> blobShape(unsigned i) const;
  /// How many values blob `i` holds.
  int64_t blobValueCount(unsigned i) const;
  /// Blob `i` as a kiln.constant of `shape` (checked as blobValues does).
  FailureOr<Value> blobConstant(unsigned i, ArrayRef<int64_t> shape,
                                llvm::StringRef what);
  /// A kiln.constant of f32 `values` with `shape`.
  Value constant(ArrayRef<int64_t> shape, ArrayRef<float> values);
  /// An f32 scalar (rank 0) constant.
  Value scalar(float value) { return constant({}, {value}); }

  //===--- building ---===//
  /// Creates an op whose result type kiln infers; fails (with the
  /// verifier's message) instead of crashing on bad operands.
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          ArrayRef<NamedAttribute> attributes = {}) {
    return buildChecked<OpTy>(b, loc, operands, attributes);
  }
  /// Creates an op with the given result type.
  template <typename OpTy>
  FailureOr<Value> createTyped(Type resultType, ValueRange operands,
                               ArrayRef<NamedAttribute> attributes = {}) {
    return buildCheckedTyped<OpTy>(b, loc, resultType, operands, attributes);
  }
  FailureOr<Value> binary(BinaryKind kind, Value lhs, Value rhs);
  FailureOr<Value> activation(ActivationKind kind, Value input,
                              std::optional<float> alpha = std::nullopt);
  /// `v` reshaped to `shape` (v itself when it has that shape).
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape);
  /// `v` transposed by `perm` (v itself for the identity).
  FailureOr<Value> transpose(Value v, ArrayRef<int64_t> perm);
  NamedAttribute named(llvm::StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  DenseI64ArrayAttr i64s(ArrayRef<int64_t> values) {
    return b.getDenseI64ArrayAttr(values);
  }

  //===--- errors ---===//
  /// Records what is wrong with the layer and fails.
  LogicalResult fail(const llvm::Twine &message);
  /// A Caffe axis (negative counts from the end) against `rank`.
  FailureOr<int64_t> axis(int64_t value, int64_t rank, llvm::StringRef what);
  /// Fails unless `value` is at least `min` ("<what> must be at least").
  LogicalResult checkAtLeast(int64_t value, int64_t min, llvm::StringRef what);

  const caffe::LayerParameter &layer;
  OpBuilder &b;
  Location loc;
  /// Set once a handler has checked the blob count.
  bool blobsChecked = false;

private:
  std::vector<const caffe::BlobProto *> blobs;
  SmallVector<Value> bottoms;
  SmallVector<Value> tops;
  std::string &error;
};

using Handler = LogicalResult (*)(LayerContext &);

/// One row of the handler table: `type` (Caffe's layer type) is imported
/// by `handler`.
struct HandlerEntry {
  const char *type;
  Handler handler;
};

/// The handler tables, one per family of layers.
void appendConvPoolHandlers(std::vector<HandlerEntry> &table);
void appendActivationHandlers(std::vector<HandlerEntry> &table);
void appendNormalizationHandlers(std::vector<HandlerEntry> &table);
void appendShapeHandlers(std::vector<HandlerEntry> &table);
void appendDetectionHandlers(std::vector<HandlerEntry> &table);

/// Imports a layer of a type kiln does not know as the plugin `creator`
/// makes (PluginLayers.cpp).
LogicalResult importPluginLayer(LayerContext &lc,
                                const ::kiln::rt::PluginCreator &creator);

/// The product of `dims`, or -1 when it overflows int64 or a dimension is
/// negative.
int64_t checkedProduct(ArrayRef<int64_t> dims);

} // namespace mlir::kiln::caffe_import

#endif // KILN_LIB_IMPORT_CAFFE_LAYERCONTEXT_H
