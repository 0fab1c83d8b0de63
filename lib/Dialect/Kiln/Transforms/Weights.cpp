//===- Weights.cpp - weights rewritten on the host by graph passes -*- C++ -*-//
//
// See Weights.h.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Sizes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// The stored bytes of a constant: one element when `splat`, else all.
struct StoredBytes {
  ArrayRef<char> data;
  bool splat = false;
  size_t elementBytes = 0, bytes = 0;
};
} // namespace

/// The bytes `v` stores when it is a kiln.constant of some elements of whole
/// bytes each, without copying them.
static std::optional<StoredBytes> viewConstantBytes(Value v) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant)
    return std::nullopt;
  RankedTensorType type = constant.getType();
  // Whole bytes per element (no i1 or sub-byte types), and some elements.
  if (type.getElementTypeBitWidth() % 8 != 0 || type.getNumElements() == 0)
    return std::nullopt;
  std::optional<uint64_t> bytes = getByteSize(type);
  if (!bytes)
    return std::nullopt;
  StoredBytes stored;
  stored.elementBytes = type.getElementTypeBitWidth() / 8;
  stored.bytes = *bytes;
  ElementsAttr value = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    stored.data = dense.getRawData();
    stored.splat = dense.isSplat();
    if (stored.splat && stored.bytes > weights::kMaxExpandedSplatBytes)
      return std::nullopt;
    size_t expected = stored.splat ? stored.elementBytes : stored.bytes;
    return stored.data.size() == expected ? std::optional(stored)
                                          : std::nullopt;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || blob->getData().size() < stored.bytes)
    return std::nullopt;
  stored.data = blob->getData().take_front(stored.bytes);
  return stored;
}

bool weights::hasConstantBytes(Value v) {
  return viewConstantBytes(v).has_value();
}

std::optional<std::vector<char>> weights::getConstantBytes(Value v) {
  std::optional<StoredBytes> stored = viewConstantBytes(v);
  if (!stored)
    return std::nullopt;
  if (!stored->splat)
    return std::vector<char>(stored->data.begin(), stored->data.end());
  std::vector<char> out(stored->bytes);
  for (size_t i = 0; i < stored->bytes; i += stored->elementBytes)
    std::memcpy(out.data() + i, stored->data.data(), stored->elementBytes);
  return out;
}

std::string weights::getWeightName(Value v, StringRef fallback) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  auto resource = constant
                      ? dyn_cast<DenseResourceElementsAttr>(constant.getValue())
                      : DenseResourceElementsAttr();
  return resource ? resource.getRawHandle().getKey().str() : fallback.str();
}

Value weights::createConstant(OpBuilder &b, Location loc, RankedTensorType type,
                              ArrayRef<char> bytes, StringRef name) {
  ElementsAttr attr;
  if (type.getNumElements() <= kDenseLimit)
    attr = DenseElementsAttr::getFromRawBuffer(type, bytes);
  else
    attr = DenseResourceElementsAttr::get(
        type, name, HeapAsmResourceBlob::allocateAndCopyInferAlign(bytes));
  return ConstantOp::create(b, loc, attr);
}

Value weights::transposeConstant(OpBuilder &b, Location loc, Value v,
                                 ArrayRef<int64_t> perm, StringRef suffix,
                                 ArrayRef<int64_t> shape) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant)
    return nullptr;
  auto type = cast<RankedTensorType>(v.getType());
  if (shape.empty())
    shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  auto outType = RankedTensorType::get(outShape, type.getElementType());
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (dense && dense.isSplat())
    return ConstantOp::create(b, loc, dense.resizeSplat(outType));
  std::optional<std::vector<char>> data = getConstantBytes(v);
  if (!data)
    return nullptr;
  size_t elementBytes = type.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    inStrides[i] = inStrides[i + 1] * shape[i + 1];
  // Walk the result row-major with an index per result dimension.
  std::vector<char> out(data->size());
  SmallVector<int64_t> index(rank, 0);
  for (size_t o = 0; o < out.size(); o += elementBytes) {
    int64_t from = 0;
    for (int64_t i = 0; i < rank; ++i)
      from += index[i] * inStrides[perm[i]];
    std::memcpy(out.data() + o, data->data() + from * elementBytes,
                elementBytes);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < outShape[i])
        break;
      index[i] = 0;
    }
  }
  return createConstant(b, loc, outType, out,
                        getWeightName(v, "weights") + suffix.str());
}
