//===- KilnGPUDialect.cpp - kiln code generation dialect --------*- C++ -*-===//
//
// Registers the kiln_gpu attributes, verifies #kiln_gpu.tile_config, and
// checks the kiln_gpu.* discardable attributes wherever they are attached.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/KilnGPU/IR/KilnGPUAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/KilnGPU/IR/KilnGPUOps.cpp.inc"

void KilnGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/KilnGPU/IR/KilnGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/KilnGPU/IR/KilnGPUOps.cpp.inc"
      >();
}

/// True for "read", "write" and "readwrite".
static bool isAccessName(Attribute a) {
  auto s = dyn_cast<StringAttr>(a);
  return s && llvm::is_contained({"read", "write", "readwrite"}, s.getValue());
}

LogicalResult LibraryCallOp::verify() {
  if (getCallee().empty())
    return emitOpError("needs a callee");
  if (getAccess().size() != getBuffers().size())
    return emitOpError("has ") << getBuffers().size() << " buffers but "
                               << getAccess().size() << " access entries";
  if (!llvm::all_of(getAccess(), isAccessName))
    return emitOpError("access must be \"read\", \"write\" or "
                       "\"readwrite\" per buffer, got ")
           << getAccess();
  return success();
}

void LibraryCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (auto [buffer, access] : llvm::zip(getBuffersMutable(), getAccess())) {
    StringRef a = cast<StringAttr>(access).getValue();
    if (a != "write")
      effects.emplace_back(MemoryEffects::Read::get(), &buffer,
                           SideEffects::DefaultResource::get());
    if (a != "read")
      effects.emplace_back(MemoryEffects::Write::get(), &buffer,
                           SideEffects::DefaultResource::get());
  }
}

Value RebaseOp::getViewSource() { return getSource(); }

LogicalResult RebaseOp::verify() {
  auto from = cast<MemRefType>(getSource().getType());
  auto to = cast<MemRefType>(getResult().getType());
  SmallVector<int64_t> fromStrides, toStrides;
  int64_t fromOffset, toOffset;
  if (!from.hasStaticShape() ||
      failed(from.getStridesAndOffset(fromStrides, fromOffset)) ||
      ShapedType::isDynamic(fromOffset) ||
      llvm::any_of(fromStrides, ShapedType::isDynamic))
    return emitOpError("needs a source of static shape, strides and offset, "
                       "got ")
           << from;
  if (failed(to.getStridesAndOffset(toStrides, toOffset)) ||
      to.getShape() != from.getShape() ||
      to.getElementType() != from.getElementType() ||
      to.getMemorySpace() != from.getMemorySpace() ||
      toStrides != fromStrides || ShapedType::isDynamic(toOffset) ||
      toOffset < 0 || toOffset > fromOffset)
    return emitOpError("result ")
           << to << " must keep the shape, element type and strides of " << from
           << " with a static offset in [0, " << fromOffset << "]";
  return success();
}

LogicalResult
TileConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> tile, ArrayRef<int64_t> threads,
                       int64_t stages) {
  // v1 kernels walk a collapsed 1-D iteration space (see the description).
  if (tile.size() != 1 || threads.size() != 1)
    return emitError() << "tile_config: tile and threads must have one entry "
                          "each (kernels cover a collapsed 1-D iteration "
                          "space), got "
                       << tile.size() << " and " << threads.size();
  if (threads[0] < 1 || threads[0] > 1024)
    return emitError() << "tile_config: threads must be in [1, 1024], got "
                       << threads[0];
  if (tile[0] < threads[0] || tile[0] % threads[0] != 0)
    return emitError() << "tile_config: tile (" << tile[0]
                       << ") must be a positive multiple of threads ("
                       << threads[0] << ")";
  if (stages < 1)
    return emitError() << "tile_config: stages must be >= 1, got " << stages;
  return success();
}

/// A non-negative i64 integer attribute, or an error naming `name`.
static LogicalResult verifyNonNegative(Operation *op, StringRef name,
                                       Attribute value) {
  auto integer = dyn_cast<IntegerAttr>(value);
  if (!integer || !integer.getType().isInteger(64) || integer.getInt() < 0)
    return op->emitError() << "'" << name
                           << "' must be a non-negative i64 integer, got "
                           << value;
  return success();
}

LogicalResult
KilnGPUDialect::verifyOperationAttribute(Operation *op,
                                         NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == getTileConfigAttrName()) {
    if (!isa<TileConfigAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << name << "' must be a #kiln_gpu.tile_config, got "
             << attribute.getValue();
    return success();
  }
  if (name == getArgAccessAttrName()) {
    auto list = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!list || !llvm::all_of(list, isAccessName))
      return op->emitError() << "'" << name
                             << "' must be a list of \"read\", \"write\" or "
                                "\"readwrite\", got "
                             << attribute.getValue();
    return success();
  }
  if (name == getFusionGroupAttrName()) {
    auto list = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!list || !llvm::all_of(list, llvm::IsaPred<StringAttr>))
      return op->emitError()
             << "'" << name << "' must be a list of layer names, got "
             << attribute.getValue();
    return success();
  }
  if (name == getLanesAttrName()) {
    auto lanes = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!lanes || !lanes.getType().isInteger(64) || lanes.getInt() != 32)
      return op->emitError() << "'" << name << "' must be 32 : i64, got "
                             << attribute.getValue();
    return success();
  }
  if (name == getFlopsAttrName()) {
    if (!isa<gpu::LaunchFuncOp>(op))
      return op->emitError() << "'" << name << "' belongs on a gpu.launch_func";
    return verifyNonNegative(op, name, attribute.getValue());
  }
  if (name == getInPlaceAttrName()) {
    auto pairs = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return op->emitError() << "'" << name << "' belongs on a gpu.launch_func";
    int64_t args = launch.getNumKernelOperands();
    if (!pairs || pairs.size() % 2 != 0 ||
        llvm::any_of(pairs.asArrayRef(),
                     [&](int64_t i) { return i < 0 || i >= args; }))
      return op->emitError() << "'" << name
                             << "' must be pairs of the launch's argument "
                                "indices (array<i64: in, out, ...>), got "
                             << attribute.getValue();
    return success();
  }
  if (name == getLibraryAttrName()) {
    auto callee = dyn_cast<StringAttr>(attribute.getValue());
    if (!callee || callee.getValue().empty())
      return op->emitError()
             << "'" << name << "' must name a library call, got "
             << attribute.getValue();
    return success();
  }
  if (name == getArenaOffsetAttrName()) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      return op->emitError()
             << "'" << name << "' belongs on a memref.alloc or memref.alloca";
    return verifyNonNegative(op, name, attribute.getValue());
  }
  if (name == getArenaBytesAttrName()) {
    if (!isa<func::FuncOp>(op))
      return op->emitError() << "'" << name << "' belongs on a func.func";
    return verifyNonNegative(op, name, attribute.getValue());
  }
  return op->emitError() << "unknown kiln_gpu attribute '" << name << "'";
}
