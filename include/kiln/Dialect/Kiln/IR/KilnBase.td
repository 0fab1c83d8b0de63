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

    Tensors are ranked. A dimension is dynamic (`?`) only where an input's
    shape range says so (`--shapes`, `--max-batch`; the range is the input's
    `kiln.profile` argument attribute), and only ops that handle it accept
    it; every other dimension is fixed when a model is imported
    (`--input-shape`, `--batch`). Weights are `kiln.constant` ops whose
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
    /// Name of the argument attribute that holds an input's shape range
    /// (--shapes, --max-batch): {min = array<i64: ...>, opt = ...,
    /// max = ...}; its dynamic dimensions range over [min, max].
    static constexpr ::llvm::StringLiteral getProfileAttrName() {
      return ::llvm::StringLiteral("kiln.profile");
    }
    static constexpr ::llvm::StringLiteral getUnsignedOperandsAttrName() {
      return ::llvm::StringLiteral("kiln.unsigned_operands");
    }
    static constexpr ::llvm::StringLiteral getUnsignedResultsAttrName() {
      return ::llvm::StringLiteral("kiln.unsigned_results");
    }
  }];
}

class Kiln_NativeOpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

// The op takes dynamic dimensions (run-time shapes, --shapes/--max-batch):
// its inference and lowering handle `?`. Every other kiln op refuses them
// (Kiln_ShapeGuard, on every op), naming the tensor.
def Kiln_DynamicShapes : Kiln_NativeOpTrait<"DynamicShapes">;
def Kiln_ShapeGuard : Kiln_NativeOpTrait<"ShapeGuard">;

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, !listconcat(traits, [Kiln_ShapeGuard])>;

//===----------------------------------------------------------------------===//
// Op properties
//===----------------------------------------------------------------------===//
//
// What the graph passes may do with an op is stated here, once, and attached
// to the op in KilnOps.td; the passes query the trait or interface, never a
// list of op classes. docs/adding-an-op.md says which pass reads which.

// Each result element is a function of the operand elements at the same
// index, after numpy broadcasting (a dimension of 1 stretches; ranks align
// from the right). Such an op commutes with any permutation of dimensions
// applied to all its operands and its result: kiln-sink-transposes moves a
// transpose below it. Unlike upstream `Elementwise`, the operands may have
// different (broadcast-compatible) shapes, so kiln.binary and kiln.select
// qualify.
def Kiln_Elementwise : Kiln_NativeOpTrait<"Elementwise">;

// The result holds the operand's elements in the same row-major order; only
// the shape changes (reshape, flatten, squeeze, unsqueeze). Constant folding
// copies the elements and keeps a reshape of a resource blob a layer (it
// costs nothing at run time).
def Kiln_ReshapeLike : Kiln_NativeOpTrait<"ReshapeLike">;

def Kiln_PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    An op that may compute in 16 bits (fp16 or bf16) where its f32 tensors
    become 16-bit ones. kiln-assign-precision runs an op in the reduced
    precision only if it implements this interface and
    `allowsReducedPrecision()` holds; every other op stays f32 (unless a
    `layer-precision` override names it). An op whose answer depends on its
    attributes (an activation's or a binary op's kind) overrides the method;
    the default says yes.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether this op is accurate enough in 16 bits.
      }],
      "bool", "allowsReducedPrecision", (ins), [{}],
      /*defaultImplementation=*/[{ return true; }]>,
  ];
}

def Kiln_LayoutOpInterface : OpInterface<"LayoutOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    An op with a `layout` attribute (`#kiln<layout channels_first>` or
    `channels_last`) that computes the same function in either layout: its
    input and result are `N x C x D1 x ... x Dk` channels first and
    `N x D1 x ... x Dk x C` channels last. kiln-channels-last gives each
    channels-first one the channels-last layout between two transposes; its
    input is operand 0 (an op with other layout-dependent operands, such as
    a convolution's filter, needs its own case in ChannelsLast.cpp).
  }];
  let methods = [
    InterfaceMethod<"The layout the op computes in.",
      "::mlir::kiln::Layout", "getLayout">,
    InterfaceMethod<"Sets the layout (the caller fixes the types).",
      "void", "setLayout", (ins "::mlir::kiln::Layout":$layout)>,
  ];
}

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
def Kiln_Tensor : RankedTensorOf<Kiln_AllElementTypes>;
def Kiln_FloatTensor : RankedTensorOf<Kiln_FloatElementTypes>;
def Kiln_NumericTensor : RankedTensorOf<[F32, F16, BF16, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Kiln_IndexTensor : RankedTensorOf<[I32, I64]>;
def Kiln_BoolTensor : RankedTensorOf<[I1]>;

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD
