//===- AssignPrecision.cpp - run layers in fp16 or bf16 ---------*- C++ -*-===//
//
// kiln-assign-precision: each layer that is safe in 16 bits computes on f16
// (bf16) tensors; f32 values cross into and out of those regions through one
// kiln.cast per value and direction, and the weights they read are rounded
// on the host. Passes.td has the list of layers and an example.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "Weights.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"

#include <cstring>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNASSIGNPRECISIONPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace mlir::kiln {
namespace {

/// The element type layers of `precision` compute in.
Type getPrecisionType(MLIRContext *ctx, Precision precision) {
  switch (precision) {
  case Precision::FP32:
    return Float32Type::get(ctx);
  case Precision::FP16:
    return Float16Type::get(ctx);
  case Precision::BF16:
    return BFloat16Type::get(ctx);
  }
  return Float32Type::get(ctx);
}

/// Whether `op` is safe in 16 bits: it implements PrecisionOpInterface
/// and says so (Passes.td lists the ops).
bool allowsReducedPrecision(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  return precision && precision.allowsReducedPrecision();
}

/// The name of `loc`'s layer: the first NameLoc in it.
StringRef getLayerName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (StringRef n = getLayerName(inner); !n.empty())
        return n;
  return "";
}

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<Float32Type>(tensor.getElementType());
}

/// `bytes` of f32 values rounded to `to` (to nearest even), as its bytes.
std::vector<char> roundFloats(ArrayRef<char> bytes, FloatType to) {
  size_t n = bytes.size() / 4;
  std::vector<char> out(n * 2);
  const llvm::fltSemantics &sem = to.getFloatSemantics();
  for (size_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    llvm::APFloat v(f);
    bool lost;
    v.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
    std::memcpy(out.data() + 2 * i, &bits, 2);
  }
  return out;
}

struct AssignPrecisionPass
    : impl::KilnAssignPrecisionPassBase<AssignPrecisionPass> {
  using Base::Base;

  /// The values whose type this pass changed from f32, and the casts made
  /// of each value, by target element type.
  llvm::DenseSet<Value> changed;
  DenseMap<std::pair<Value, Type>, Value> casts;

  /// `v` as a tensor of `element`: a rounded constant, or a cast right after
  /// its definition (made once).
  Value convert(Value v, Type element) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == element)
      return v;
    auto key = std::make_pair(v, element);
    if (Value done = casts.lookup(key))
      return done;
    auto newType = type.clone(element);
    OpBuilder b(&getContext());
    Value result;
    auto constant = v.getDefiningOp<ConstantOp>();
    if (constant && isa<Float32Type>(type.getElementType())) {
      b.setInsertionPointAfter(constant);
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (dense && dense.isSplat()) {
        llvm::APFloat f = dense.getSplatValue<llvm::APFloat>();
        bool lost;
        f.convert(cast<FloatType>(element).getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        result = ConstantOp::create(b, constant.getLoc(),
                                    DenseElementsAttr::get(newType, f));
      } else if (std::optional<std::vector<char>> bytes =
                     weights::getConstantBytes(v)) {
        std::string suffix = isa<Float16Type>(element) ? ".f16" : ".bf16";
        result = weights::createConstant(
            b, constant.getLoc(), newType,
            roundFloats(*bytes, cast<FloatType>(element)),
            weights::getWeightName(v, "weights") + suffix);
      }
      if (result)
        ++numWeights;
    }
    if (!result) {
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(v.getParentBlock());
      result = CastOp::create(b, v.getLoc(), newType, v);
      ++numCasts;
    }
    casts[key] = result;
    return result;
  }

  /// Makes `op` compute in `element`: its f32 operands converted, its f32
  /// results retyped.
  void reduce(Operation *op, Type element) {
    bool any = false;
    for (OpOperand &operand : op->getOpOperands())
      if (isF32Tensor(operand.get().getType())) {
        operand.set(convert(operand.get(), element));
        any = true;
      }
    for (Value r : op->getResults())
      if (isF32Tensor(r.getType())) {
        r.setType(cast<RankedTensorType>(r.getType()).clone(element));
        changed.insert(r);
        any = true;
      }
    numReduced += any;
  }

  /// Gives `op` f32 operands where this pass made them 16-bit.
  void restore(Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      if (changed.contains(operand.get()))
        operand.set(convert(operand.get(), Float32Type::get(&getContext())));
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
    Type low = getPrecisionType(ctx, precision);
    llvm::StringMap<Type> overrides;
    llvm::StringMap<bool> used;
    for (const std::string &spec : layerPrecision) {
      auto [name, value] = StringRef(spec).rsplit('=');
      std::optional<Precision> layer = parsePrecision(value);
      if (name.empty() || !layer) {
        func.emitError("kiln-assign-precision: layer-precision expects "
                       "NAME=fp32|fp16|bf16, got '")
            << spec << "'";
        return signalPassFailure();
      }
      overrides[name] = getPrecisionType(ctx, *layer);
      used[name] = false;
    }
    // Every name must be a layer's, checked before anything changes.
    func.walk([&](Operation *op) {
      if (StringRef name = getLayerName(op->getLoc()); !name.empty())
        if (auto it = used.find(name); it != used.end())
          it->second = true;
    });
    for (const auto &entry : used)
      if (!entry.second) {
        func.emitError("kiln-assign-precision: layer-precision names '")
            << entry.first() << "', which is no layer of @" << func.getName();
        return signalPassFailure();
      }
    if (isa<Float32Type>(low) && overrides.empty())
      return;
    changed.clear();
    casts.clear();
    Type f32 = Float32Type::get(ctx);
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (isa<ConstantOp>(op))
        continue;
      Type target = f32;
      if (allowsReducedPrecision(op))
        target = low;
      bool overridden = false;
      if (StringRef name = getLayerName(op->getLoc()); !name.empty()) {
        auto it = overrides.find(name);
        if (it != overrides.end()) {
          overridden = isa<KilnDialect>(op->getDialect()) && !isa<CastOp>(op);
          if (overridden)
            target = it->second;
        }
      }
      // (A value that left f32 is f32 again for the function's return.)
      if (!isa<Float32Type>(target))
        reduce(op, target);
      else
        restore(op);
    }
    // Weights now read only in 16 bits go.
    llvm::SmallPtrSet<Operation *, 16> rounded;
    for (auto &entry : casts)
      if (auto constant = entry.first.first.getDefiningOp<ConstantOp>())
        rounded.insert(constant);
    for (Operation *constant : rounded)
      if (constant->use_empty())
        constant->erase();
    if (failed(verify(func)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::kiln
