//===- CheckedBuild.h - building kiln ops from unchecked input --*- C++ -*-===//
//
// The generated builders of ops whose result types kiln infers abort the
// process (reportFatalInferReturnTypesError) when the operands do not fit.
// Front ends that build ops from a user's input (the ONNX importer, the
// network definition API) use these instead: the types are inferred and
// the op verified with the failure reported as a diagnostic.
//
//   OperationState state(loc, ConvolutionOp::getOperationName());
//   state.addOperands(operands);
//   state.addAttributes(attributes);
//   if (failed(inferResultTypes<ConvolutionOp>(b, state)))
//     return failure();
//   FailureOr<Operation *> op = createVerified(b, state);
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_CHECKEDBUILD_H
#define KILN_DIALECT_KILN_IR_CHECKEDBUILD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"

#include <type_traits>

namespace mlir::kiln {

/// Adds to `state` (operands and attributes set) the result types OpTy
/// infers, after its properties' defaults; fails, with the inference's
/// diagnostic emitted, when the operands do not fit.
template <typename OpTy>
LogicalResult inferResultTypes(OpBuilder &b, OperationState &state) {
  DictionaryAttr dict = state.attributes.getDictionary(b.getContext());
  OpaqueProperties properties = nullptr;
  if constexpr (!std::is_same_v<typename OpTy::Properties, EmptyProperties>) {
    properties = &state.getOrAddProperties<typename OpTy::Properties>();
    // Defaults first (inference reads them), then the given attributes.
    state.name.populateDefaultProperties(properties);
    if (failed(state.name.getRegisteredInfo()->setOpPropertiesFromAttribute(
            state.name, properties, dict,
            [&] { return emitError(state.location); })))
      return failure();
  }
  SmallVector<Type> types;
  if (failed(OpTy::inferReturnTypes(b.getContext(), state.location,
                                    state.operands, dict, properties,
                                    state.regions, types)))
    return failure();
  state.addTypes(types);
  return success();
}

/// The op of `state`, verified; erased, with the verifier's diagnostic
/// emitted, when it does not verify.
inline FailureOr<Operation *> createVerified(OpBuilder &b,
                                             OperationState &state) {
  Operation *op = b.create(state);
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  return op;
}

/// The one result of a verified OpTy whose result types kiln infers, or
/// failure with the diagnostic emitted (front ends without more to do per
/// op: the network definition API, the Caffe importer).
template <typename OpTy>
FailureOr<Value> buildChecked(OpBuilder &b, Location loc, ValueRange operands,
                              ArrayRef<NamedAttribute> attributes = {}) {
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(operands);
  state.addAttributes(attributes);
  if (failed(inferResultTypes<OpTy>(b, state)))
    return failure();
  FailureOr<Operation *> op = createVerified(b, state);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

/// The one result of a verified OpTy of result type `type`.
template <typename OpTy>
FailureOr<Value> buildCheckedTyped(OpBuilder &b, Location loc, Type type,
                                   ValueRange operands,
                                   ArrayRef<NamedAttribute> attributes = {}) {
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(type);
  FailureOr<Operation *> op = createVerified(b, state);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_CHECKEDBUILD_H
