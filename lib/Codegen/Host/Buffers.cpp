//===- Buffers.cpp - tracing host buffers to their roots --------*- C++ -*-===//

#include "kiln/Codegen/Host/Buffers.h"

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

Value kiln::getRootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

Operation *kiln::getAllocation(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      return def;
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      v = meta.getSource();
    else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else
      return nullptr;
  }
  return nullptr;
}

uint64_t kiln::getElementBytes(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
}

/// The static offset of memref type `type`'s first element from its base,
/// in bytes; nullopt when `type` is not a memref of static offset.
static std::optional<int64_t> getTypeByteOffset(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return std::nullopt;
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  return offset *
         static_cast<int64_t>(kiln::getElementBytes(memref.getElementType()));
}

std::optional<int64_t> kiln::getBaseByteOffset(Value v) {
  int64_t base = 0;
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (auto rebase = dyn_cast<kiln::RebaseOp>(view.getOperation())) {
      std::optional<int64_t> from = getTypeByteOffset(
                                 rebase.getSource().getType()),
                             to = getTypeByteOffset(rebase.getType());
      if (!from || !to)
        return std::nullopt;
      base += *from - *to;
    }
    v = view.getViewSource();
  }
  return base;
}

std::optional<int64_t> kiln::getStaticByteOffset(Value v) {
  std::optional<int64_t> base = getBaseByteOffset(v),
                         offset = getTypeByteOffset(v.getType());
  if (!base || !offset)
    return std::nullopt;
  return *base + *offset;
}

bool kiln::hasStaticLayout(MemRefType type) {
  int64_t offset;
  SmallVector<int64_t> strides;
  return type.hasStaticShape() &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         !llvm::any_of(strides, ShapedType::isDynamic);
}

bool kiln::isBarePointerType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return !isa<BaseMemRefType>(type);
  return hasStaticLayout(memref);
}

bool kiln::isSelfCopy(memref::CopyOp copy) {
  Value src = copy.getSource(), dst = copy.getTarget();
  if (src == dst)
    return true;
  // Two subviews of one buffer at the same (possibly dynamic) place.
  auto srcView = src.getDefiningOp<memref::SubViewOp>();
  auto dstView = dst.getDefiningOp<memref::SubViewOp>();
  if (srcView && dstView && srcView.getSource() == dstView.getSource() &&
      srcView.getType() == dstView.getType() &&
      srcView.getMixedOffsets() == dstView.getMixedOffsets() &&
      srcView.getMixedSizes() == dstView.getMixedSizes() &&
      srcView.getMixedStrides() == dstView.getMixedStrides())
    return true;
  if (getRootBuffer(src) != getRootBuffer(dst))
    return false;
  // The same bytes: equal layouts, or two contiguous views of one shape.
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(dst.getType());
  bool sameLayout = srcType == dstType ||
                    (srcType.getShape() == dstType.getShape() &&
                     srcType.getElementType() == dstType.getElementType() &&
                     memref::isStaticShapeAndContiguousRowMajor(srcType) &&
                     memref::isStaticShapeAndContiguousRowMajor(dstType));
  if (!sameLayout)
    return false;
  std::optional<int64_t> a = getStaticByteOffset(src),
                         b = getStaticByteOffset(dst);
  return a && b && *a == *b;
}

/// Whether every use of buffer `v` within `scope` (its regions included)
/// reads or writes elements by index.
static bool isIndexedOnly(Value v, Operation *scope) {
  // A walk of `scope`, not of `v`'s uses: an input that every layer reads
  // has as many uses as the network has layers.
  return !scope
              ->walk([&](Operation *user) {
                if (isa<linalg::LinalgOp, memref::LoadOp, memref::StoreOp,
                        memref::CopyOp>(user) ||
                    !llvm::is_contained(user->getOperands(), v))
                  return WalkResult::advance();
                return WalkResult::interrupt();
              })
              .wasInterrupted();
}

Value kiln::rebasePart(OpBuilder &b, Value v, int64_t granule,
                       Operation *scope) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !hasStaticLayout(type))
    return v;
  auto [strides, offset] = type.getStridesAndOffset();
  if (offset < granule || !isIndexedOnly(v, scope))
    return v;
  int64_t rest = offset % granule;
  MemRefLayoutAttrInterface layout;
  if (rest != 0 || strides != computeSuffixProduct(type.getShape()))
    layout = StridedLayoutAttr::get(b.getContext(), rest, strides);
  auto rebased = MemRefType::get(type.getShape(), type.getElementType(), layout,
                                 type.getMemorySpace());
  return RebaseOp::create(b, v.getLoc(), rebased, v);
}
