//===- SpecializeShapes.cpp - a dynamic network at one shape ----*- C++ -*-===//
//
// See SpecializeShapes.h.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/SpecializeShapes.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::kiln;

static bool isDynamic(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && !shaped.hasStaticShape();
}

/// Gives `op`'s result the shape its map takes at `symbols`, and drops the
/// map.
static LogicalResult specializeMapped(Operation *op, AffineMap shape,
                                      ArrayRef<int64_t> symbols) {
  std::string why;
  FailureOr<SmallVector<int64_t>> dims = evaluateShapeMap(shape, symbols, why);
  if (failed(dims))
    return op->emitOpError("cannot evaluate its shape map ")
           << AffineMapAttr::get(shape) << ": " << why;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  op->getResult(0).setType(type.clone(*dims));
  op->removeAttr("shape");
  return success();
}

/// A reshape's result takes its map's shape, or its one `?` is what the
/// input's element count leaves when the static dimensions have taken
/// theirs (ONNX's -1).
static LogicalResult specializeReshape(ReshapeOp op,
                                       ArrayRef<int64_t> symbols) {
  RankedTensorType in = op.getInput().getType(), out = op.getType();
  if (!in.hasStaticShape())
    return op.emitOpError("has an input of dynamic shape ")
           << in << " at a given shape";
  if (std::optional<AffineMap> shape = op.getShape()) {
    if (failed(specializeMapped(op, *shape, symbols)))
      return failure();
    if (in.getNumElements() != op.getType().getNumElements())
      return op.emitOpError("cannot reshape ")
             << in << " to " << op.getType() << " (its shape map "
             << AffineMapAttr::get(*shape) << "): the element counts differ";
    return success();
  }
  if (out.hasStaticShape())
    return success();
  int64_t count = in.getNumElements(), rest = 1;
  bool overflow = false;
  for (int64_t d : out.getShape())
    if (!ShapedType::isDynamic(d))
      overflow |= __builtin_mul_overflow(rest, d, &rest);
  if (overflow || rest == 0 || count % rest != 0)
    return op.emitOpError("cannot reshape ")
           << in << " to " << out << ": " << count
           << " elements do not divide into rows of " << rest;
  SmallVector<int64_t> shape(out.getShape());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = count / rest;
  op.getResult().setType(out.clone(shape));
  return success();
}

LogicalResult
mlir::kiln::specializeShapes(func::FuncOp func,
                             ArrayRef<SmallVector<int64_t>> shapes) {
  Block &body = func.getBody().front();
  if (shapes.size() != body.getNumArguments())
    return func.emitError("specializing shapes: ")
           << shapes.size() << " shapes for " << body.getNumArguments()
           << " arguments";
  // The symbols of the shape maps, before the arguments lose their `?`.
  SmallVector<int64_t> symbols;
  SmallVector<std::pair<unsigned, unsigned>> where = dynamicArgumentDims(body);
  for (auto [arg, dim] : where)
    if (arg < shapes.size() && dim < shapes[arg].size())
      symbols.push_back(shapes[arg][dim]);
  if (auto equal =
          func->getAttrOfType<DenseI64ArrayAttr>(kEqualSymbolsAttrName)) {
    ArrayRef<int64_t> pairs = equal.asArrayRef();
    auto name = [&](int64_t symbol) {
      auto [arg, dim] = where[symbol];
      auto attr = func.getArgAttrOfType<StringAttr>(
          arg, KilnDialect::getNameAttrName());
      return "input '" + (attr ? attr.str() : std::to_string(arg)) +
             "' dimension " + std::to_string(dim);
    };
    for (size_t k = 0; k + 1 < pairs.size(); k += 2) {
      int64_t a = pairs[k], b = pairs[k + 1];
      if (a < 0 || b < 0 || size_t(a) >= symbols.size() ||
          size_t(b) >= symbols.size())
        return func.emitError("specializing shapes: ")
               << kEqualSymbolsAttrName << " names symbol " << std::max(a, b)
               << " of " << symbols.size();
      if (symbols[a] != symbols[b])
        return func.emitError("specializing shapes: ")
               << name(a) << " (" << symbols[a] << ") and " << name(b) << " ("
               << symbols[b]
               << ") must be equal: the network's layers combine them "
                  "element by element";
    }
    func->removeAttr(kEqualSymbolsAttrName);
  }
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      if (!shapes[i].empty())
        return func.emitError("specializing shapes: argument ")
               << i << " is not a ranked tensor";
      continue;
    }
    ArrayRef<int64_t> shape = shapes[i];
    if (shape.size() != static_cast<size_t>(type.getRank()) ||
        llvm::any_of(llvm::seq<int64_t>(0, type.getRank()), [&](int64_t d) {
          return shape[d] < 0 ||
                 (!type.isDynamicDim(d) && shape[d] != type.getDimSize(d));
        }))
      return func.emitError("specializing shapes: argument ")
             << i << " of type " << type << " cannot take the shape "
             << RankedTensorType::get(shape, type.getElementType());
    arg.setType(type.clone(shape));
    func.removeArgAttr(i, KilnDialect::getProfileAttrName());
  }
  for (Operation &op : body.without_terminator()) {
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      if (failed(specializeReshape(reshape, symbols)))
        return failure();
      continue;
    }
    if (auto iota = dyn_cast<IotaOp>(op)) {
      if (std::optional<AffineMap> shape = iota.getShape())
        if (failed(specializeMapped(iota, *shape, symbols)))
          return failure();
      continue;
    }
    // A slice takes a dimension that varies whole.
    if (auto slice = dyn_cast<SliceOp>(op)) {
      SmallVector<int64_t> size(slice.getSize());
      for (auto [i, d] : llvm::enumerate(size))
        if (ShapedType::isDynamic(d))
          d = slice.getInput().getType().getDimSize(i);
      slice.setSize(size);
    }
    if (auto cast = dyn_cast<CastOp>(op)) {
      cast.getResult().setType(
          cast.getInput().getType().clone(cast.getType().getElementType()));
      continue;
    }
    auto infer = dyn_cast<InferTypeOpInterface>(&op);
    if (!infer) {
      if (llvm::any_of(op.getResultTypes(), isDynamic))
        return op.emitOpError("has a dynamic result type that the reference "
                              "cannot infer at a given shape");
      continue;
    }
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op.getContext(), op.getLoc(), op.getOperands(),
            op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
            op.getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip(op.getResults(), types))
      result.setType(type);
  }
  Operation *terminator = body.getTerminator();
  func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                 terminator->getOperandTypes()));
  return success();
}
