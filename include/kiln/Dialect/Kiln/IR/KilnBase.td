//===- KilnBase.td - kiln dialect definition ---------------*- tablegen -*-===//
//
// The kiln dialect: the layers of an inference network on statically shaped
// tensors. Importers (ONNX, Caffe, the network API) produce it; graph passes
// optimize it; the lowering turns each fused group into one GPU kernel.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNBASE_TD
#define KILN_DIALECT_KILN_IR_KILNBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::mlir::kiln";
  let summary = "Layers of an inference network on statically shaped tensors";
  let description = [{
    The kiln dialect models a trained network the way the TensorRT network
    definition does: a `func.func` whose arguments are the network inputs and
    whose returned values are the marked network outputs, and in between one op
    per layer (convolution, pooling, fully connected, activation, softmax,
    scale, elementwise, normalization, shuffles, ...).

    All tensors have static shapes: dynamic dimensions are fixed when a model is
    imported (`--input-shape`, `--batch`). Weights are `kiln.constant` ops whose
    value is usually a `dense_resource` blob, so that a large model is neither
    printed nor copied as text. Inputs and outputs carry their names in the
    `kiln.name` argument and result attributes.

    Every op verifies its operands and attributes and infers its result type
    (`InferTypeOpInterface`); the printed result type must equal the inferred
    one.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the argument/result attribute that holds a tensor's name.
    static constexpr ::llvm::StringLiteral getNameAttrName() {
      return ::llvm::StringLiteral("kiln.name");
    }
    /// kiln-signless-integers' marks: an input or output that was unsigned,
    /// and an op whose integer operands or results were.
    static constexpr ::llvm::StringLiteral getUnsignedAttrName() {
      return ::llvm::StringLiteral("kiln.unsigned");
    }
    static constexpr ::llvm::StringLiteral getUnsignedOperandsAttrName() {
      return ::llvm::StringLiteral("kiln.unsigned_operands");
    }
    static constexpr ::llvm::StringLiteral getUnsignedResultsAttrName() {
      return ::llvm::StringLiteral("kiln.unsigned_results");
    }
  }];
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// The 8-bit floats and the sub-byte types (I<4>, UI<4>, I<2>, UI<2>, F4E2M1FN)
// are storage types: kiln.cast converts to and from them, and the ops that
// only move data take them; arithmetic happens in the wider types.
defvar Kiln_StorageElementTypes = [F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ,
                                   F4E2M1FN, I<4>, UI<4>, I<2>, UI<2>];
defvar Kiln_AllElementTypes = !listconcat([F32, F16, BF16, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64, I1],
                                          Kiln_StorageElementTypes);
defvar Kiln_FloatElementTypes = [F32, F16, BF16, F64];

def Kiln_ElementType : AnyTypeOf<Kiln_AllElementTypes>;
def Kiln_Tensor : StaticShapeTensorOf<Kiln_AllElementTypes>;
def Kiln_FloatTensor : StaticShapeTensorOf<Kiln_FloatElementTypes>;
def Kiln_NumericTensor : StaticShapeTensorOf<[F32, F16, BF16, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Kiln_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Kiln_BoolTensor : StaticShapeTensorOf<[I1]>;

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD
