//===- KilnOps.td - kiln layer ops -------------------------*- tablegen -*-===//
//
// One op per network layer. Ops whose result type follows from their operands
// and attributes implement InferTypeOpInterface (through InferTypeOpAdaptor):
// the shape rules live in one C++ helper per op family, and the verifier
// checks that the written result type equals the inferred one. Ops whose
// result type is a free choice (reshape, cast, resize) verify it instead.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A layer whose result type is inferred from its operands and attributes.
class Kiln_InferredOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])>;

/// A layer whose result type is written by its producer and verified.
class Kiln_TypedOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

defvar Kiln_UnaryFormat = "$input attr-dict `:` type($input) `->` type($result)";
defvar Kiln_KindUnaryFormat =
    "$kind $input attr-dict `:` type($input) `->` type($result)";

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "weights or another constant tensor";
  let description = [{
    A constant tensor, most often a layer's weights. Large weights are held as
    a `dense_resource` blob: the IR then names the blob and its bytes live
    once, in the module's resource section (or in memory, when an importer
    created them), so a 100 MB model is never printed or copied as text.

    ```mlir
    %w = kiln.constant dense_resource<conv1.weight> : tensor<20x1x5x5xf32>
    %b = kiln.constant dense<0.0> : tensor<20xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def Kiln_ConvolutionOp : Kiln_InferredOp<"convolution",
    [Kiln_DynamicShapes, Kiln_PrecisionOpInterface, Kiln_LayoutOpInterface]> {
  let summary = "N-D convolution with groups, dilations and an optional bias";
  let description = [{
    Cross-correlation of an `N x C x D1 x ... x Dk` input with a
    `K x C/groups x R1 x ... x Rk` filter, plus an optional bias of `K`
    values. `strides` and `dilations` have one entry per spatial dimension;
    `pads` has `2k` entries, all the begins then all the ends (ONNX order:
    top, left, bottom, right for 2-D). Each output extent is
    `floor((D + pad_begin + pad_end - dilation * (R - 1) - 1) / stride) + 1`.
    With `layout = #kiln<layout channels_last>` the input and result are
    `N x D1 x ... x Dk x C` and the filter `R1 x ... x Rk x C/groups x K`.

    ```mlir
    %y = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>,
           pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
         : (tensor<1x1x28x28xf32>, tensor<20x1x5x5xf32>, tensor<20xf32>)
         -> tensor<1x20x24x24xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$filter,
                   Optional<Kiln_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups,
                   DefaultValuedAttr<Kiln_LayoutAttr,
                                     "::mlir::kiln::Layout::ChannelsFirst">:$layout);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_DeconvolutionOp : Kiln_InferredOp<"deconvolution",
    [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "N-D transposed convolution (deconvolution)";
  let description = [{
    The gradient of `kiln.convolution` with respect to its input, used for
    upsampling. The filter is `C x K/groups x R1 x ... x Rk` (ONNX
    ConvTranspose layout) and the bias has `K` values. Each output extent is
    `stride * (D - 1) + output_padding + dilation * (R - 1) + 1 - pad_begin - pad_end`.

    ```mlir
    %y = kiln.deconvolution %x, %w {strides = array<i64: 2, 2>,
           pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>,
           output_padding = array<i64: 0, 0>}
         : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$filter,
                   Optional<Kiln_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$output_padding,
                   DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_PoolOp : Kiln_InferredOp<"pool",
    [Kiln_DynamicShapes, Kiln_PrecisionOpInterface, Kiln_LayoutOpInterface]> {
  let summary = "max or average pooling over a window";
  let description = [{
    Pools each `window` of the spatial dimensions of an `N x C x D1 x ... x Dk`
    input. `pads` holds all begins then all ends. With `ceil_mode` the output
    extent rounds up, but a window may not start inside the end padding.
    `count_include_pad` makes average pooling divide by the whole window,
    padding included. Max pooling takes integers too; average pooling
    floats only. With `layout = #kiln<layout channels_last>` the input and
    result are `N x D1 x ... x Dk x C`.

    ```mlir
    %y = kiln.pool max %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>,
           pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
         : tensor<1x20x24x24xf32> -> tensor<1x20x12x12xf32>
    ```
  }];
  let arguments = (ins Kiln_PoolKindAttr:$kind, Kiln_NumericTensor:$input,
                   DenseI64ArrayAttr:$window, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                   DefaultValuedAttr<Kiln_LayoutAttr,
                                     "::mlir::kiln::Layout::ChannelsFirst">:$layout);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
  let hasVerifier = 1;
}

def Kiln_GlobalPoolOp : Kiln_InferredOp<"global_pool",
    [Kiln_DynamicShapes, Kiln_LayoutOpInterface]> {
  let summary = "max or average over all spatial dimensions";
  let description = [{
    Reduces every spatial dimension of an `N x C x D1 x ... x Dk` input (with
    `layout = #kiln<layout channels_last>`, `N x D1 x ... x Dk x C`) to 1.

    ```mlir
    %y = kiln.global_pool average %x : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
    ```
  }];
  let arguments = (ins Kiln_PoolKindAttr:$kind, Kiln_FloatTensor:$input,
                   DefaultValuedAttr<Kiln_LayoutAttr,
                                     "::mlir::kiln::Layout::ChannelsFirst">:$layout);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def Kiln_FullyConnectedOp : Kiln_InferredOp<"fully_connected",
    [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "fully connected layer: flatten, multiply by weights, add bias";
  let description = [{
    Flattens the dimensions of `input` from `axis` on into one of size `C`,
    multiplies by the transposed `K x C` weights and adds the optional `K`
    bias values. The result keeps the dimensions before `axis` and appends `K`.

    ```mlir
    %y = kiln.fully_connected %x, %w, %b
         : (tensor<1x50x4x4xf32>, tensor<500x800xf32>, tensor<500xf32>) -> tensor<1x500xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                   Optional<Kiln_FloatTensor>:$bias,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_MatmulOp : Kiln_InferredOp<"matmul", [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "batched matrix product with numpy broadcasting of batch dimensions";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs` (each optionally
    transposed first); the leading batch dimensions broadcast as in numpy.
    Both operands have rank 2 or more (an importer reshapes vectors).

    ```mlir
    %y = kiln.matmul %a, %b {transpose_rhs = true}
         : (tensor<12x128x64xf16>, tensor<12x128x64xf16>) -> tensor<12x128x128xf16>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_lhs,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_rhs);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_GemmOp : Kiln_InferredOp<"gemm", [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "alpha * op(a) * op(b) + beta * c on matrices";
  let description = [{
    The BLAS/ONNX Gemm: `a` and `b` are matrices, each optionally transposed;
    the optional `c` broadcasts to the `M x N` result.

    ```mlir
    %y = kiln.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transpose_b = true}
         : (tensor<1x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$a, Kiln_FloatTensor:$b,
                   Optional<Kiln_FloatTensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Kiln_ActivationOp : Kiln_InferredOp<"activation",
    [Kiln_Elementwise, Kiln_DynamicShapes, DeclareOpInterfaceMethods<Kiln_PrecisionOpInterface, ["allowsReducedPrecision"]>]> {
  let summary = "activation function with optional alpha and beta parameters";
  let description = [{
    Applies an activation elementwise. Kinds and their parameters:

    | kind | function | alpha | beta |
    |---|---|---|---|
    | relu | max(x, 0) | - | - |
    | leaky_relu | x < 0 ? alpha*x : x | slope | - |
    | sigmoid | 1 / (1 + exp(-x)) | - | - |
    | tanh | tanh(x) | - | - |
    | elu | x < 0 ? alpha*(exp(x)-1) : x | alpha | - |
    | selu | beta * (x < 0 ? alpha*(exp(x)-1) : x) | alpha | gamma |
    | softplus | log(1 + exp(x)) | - | - |
    | softsign | x / (1 + abs(x)) | - | - |
    | clip | min(max(x, alpha), beta) | min | max |
    | hard_sigmoid | max(0, min(1, alpha*x + beta)) | alpha | beta |
    | gelu_erf | x/2 * (1 + erf(x/sqrt(2))) | - | - |
    | gelu_tanh | x/2 * (1 + tanh(sqrt(2/pi)*(x + 0.044715x^3))) | - | - |
    | scaled_tanh | alpha * tanh(beta*x) | alpha | beta |
    | thresholded_relu | x > alpha ? x : 0 | threshold | - |
    | hard_swish | x * max(0, min(1, x/6 + 1/2)) | - | - |

    A kind that takes a parameter requires it; one that does not rejects it.

    ```mlir
    %y = kiln.activation leaky_relu %x {alpha = 0.1 : f32} : tensor<1x64xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Kiln_ActivationKindAttr:$kind, Kiln_FloatTensor:$input,
                   OptionalAttr<F32Attr>:$alpha, OptionalAttr<F32Attr>:$beta);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
  let hasVerifier = 1;
}

def Kiln_UnaryOp : Kiln_InferredOp<"unary", [Kiln_Elementwise, Kiln_DynamicShapes]> {
  let summary = "unary elementwise math";
  let description = [{
    Applies a unary function elementwise. `abs`, `neg` and `sign` take any
    numeric type; `not` takes `i1`; all other kinds take floats.

    ```mlir
    %y = kiln.unary exp %x : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_UnaryKindAttr:$kind, Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
  let hasVerifier = 1;
}

def Kiln_BinaryOp : Kiln_InferredOp<"binary",
    [SameOperandsElementType, Kiln_Elementwise, Kiln_DynamicShapes, DeclareOpInterfaceMethods<Kiln_PrecisionOpInterface, ["allowsReducedPrecision"]>]> {
  let summary = "binary elementwise operation with numpy broadcasting";
  let description = [{
    Combines two tensors of one element type, broadcasting them as numpy does
    (dimensions aligned from the right; a dimension of 1 stretches).
    Comparisons (`equal`, `less`, ...) give `i1`; `and`, `or` and `xor` take
    `i1`; integer `pow` is exact (negative exponents give 0 unless the base
    is 1 or -1); `mod` is the floored integer remainder and `fmod` the truncated
    remainder (C `fmod`; for integers, the sign follows the dividend).

    ```mlir
    %y = kiln.binary add %a, %b : (tensor<1x64x56x56xf32>, tensor<64x1x1xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Kiln_BinaryKindAttr:$kind, Kiln_Tensor:$lhs,
                   Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Kiln_SelectOp : Kiln_InferredOp<"select",
    [Kiln_DynamicShapes, Kiln_Elementwise, Kiln_PrecisionOpInterface]> {
  let summary = "elementwise choice between two tensors, with broadcasting";
  let description = [{
    `condition ? on_true : on_false` elementwise; all three broadcast together.

    ```mlir
    %y = kiln.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$condition, Kiln_Tensor:$on_true,
                   Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_ScaleOp : Kiln_InferredOp<"scale", [Kiln_DynamicShapes, AttrSizedOperandSegments]> {
  let summary = "(x * scale + shift) ^ power, uniform, per channel or elementwise";
  let description = [{
    The TensorRT scale layer. `shift`, `scale` and `power` are optional 1-D
    weights (absent means 0, 1 and 1). Their size follows `mode`: `uniform`
    takes 1 value, `channel` one per channel (the dimension `channel_axis`),
    `elementwise` one per element of a batch item (the dimensions from
    `channel_axis` on).

    ```mlir
    %y = kiln.scale uniform %x scale(%s) : (tensor<1x1x28x28xf32>, tensor<1xf32>) -> tensor<1x1x28x28xf32>
    ```
  }];
  let arguments = (ins Kiln_ScaleModeAttr:$mode, Kiln_FloatTensor:$input,
                   Optional<Kiln_FloatTensor>:$shift,
                   Optional<Kiln_FloatTensor>:$scale,
                   Optional<Kiln_FloatTensor>:$power,
                   DefaultValuedAttr<I64Attr, "1">:$channel_axis);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $mode $input (`shift` `(` $shift^ `)`)? (`scale` `(` $scale^ `)`)?
    (`power` `(` $power^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Kiln_CastOp : Kiln_TypedOp<"cast", [Kiln_DynamicShapes, Kiln_Elementwise]> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape stays.
    Float to integer rounds toward zero; to `i1` tests for non-zero. Floats
    round to nearest even. To an 8-bit float (f8E4M3FN, f8E4M3FNUZ, f8E5M2,
    f8E5M2FNUZ) with `saturate` (the default), values beyond the largest
    finite one, infinities included, become that value; without it they
    become NaN, or infinity for f8E5M2 (ONNX Cast-19). f4E2M1FN has no NaN
    or infinity and always saturates. A float cast to a sub-byte integer
    (i4, ui4, i2, ui2) is truncated toward zero, and 0 where that is out of
    the type's range, as onnx's reference implementation does.

    ```mlir
    %y = kiln.cast %x : tensor<8xf32> to tensor<8xf16>
    %z = kiln.cast %x {saturate = false} : tensor<8xf32> to tensor<8xf8E4M3FN>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Normalization and softmax
//===----------------------------------------------------------------------===//

class Kiln_SoftmaxBase<string mnemonic, string what>
    : Kiln_InferredOp<mnemonic, [Kiln_DynamicShapes]> {
  let summary = what # " along one axis";
  let arguments = (ins Kiln_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
}

def Kiln_SoftmaxOp : Kiln_SoftmaxBase<"softmax", "softmax"> {
  let description = [{
    `exp(x) / sum(exp(x))` along `axis` (0 <= axis < rank).

    ```mlir
    %y = kiln.softmax %x {axis = 1 : i64} : tensor<1x10xf32> -> tensor<1x10xf32>
    ```
  }];
}

def Kiln_LogSoftmaxOp : Kiln_SoftmaxBase<"log_softmax", "log of softmax"> {
  let description = [{
    `x - log(sum(exp(x)))` along `axis` (0 <= axis < rank).

    ```mlir
    %y = kiln.log_softmax %x {axis = 1 : i64} : tensor<1x10xf32> -> tensor<1x10xf32>
    ```
  }];
}

def Kiln_LrnOp : Kiln_InferredOp<"lrn", [Kiln_DynamicShapes]> {
  let summary = "local response normalization across channels";
  let description = [{
    `x / (bias + alpha/size * sum of x^2 over size neighbouring channels)^beta`
    on an `N x C x ...` input (AlexNet, ONNX LRN).

    ```mlir
    %y = kiln.lrn %x {size = 5 : i64, alpha = 1.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32}
         : tensor<1x96x55x55xf32> -> tensor<1x96x55x55xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, I64Attr:$size,
                   F32Attr:$alpha, F32Attr:$beta, F32Attr:$bias);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
}

def Kiln_BatchNormOp : Kiln_InferredOp<"batch_norm", [Kiln_DynamicShapes]> {
  let summary = "batch normalization with stored statistics (inference)";
  let description = [{
    `(x - mean) / sqrt(variance + epsilon) * scale + bias` per channel of an
    `N x C x ...` input; the four parameter tensors have `C` values.

    ```mlir
    %y = kiln.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-5 : f32}
         : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
         -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Kiln_FloatTensor:$bias, Kiln_FloatTensor:$mean,
                   Kiln_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
}

def Kiln_InstanceNormOp : Kiln_InferredOp<"instance_norm", [Kiln_DynamicShapes]> {
  let summary = "instance normalization";
  let description = [{
    Normalizes each channel of each batch item over its spatial dimensions,
    then applies the per-channel `scale` and `bias` (`C` values each).

    ```mlir
    %y = kiln.instance_norm %x, %s, %b {epsilon = 1.0e-5 : f32}
         : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Kiln_FloatTensor:$bias, F32Attr:$epsilon);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_LayerNormOp : Kiln_InferredOp<"layer_norm", [Kiln_DynamicShapes]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes over the dimensions from `axis` on, then multiplies by `scale`
    and adds the optional `bias`; both broadcast to those trailing dimensions.

    ```mlir
    %y = kiln.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-12 : f32}
         : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Optional<Kiln_FloatTensor>:$bias, I64Attr:$axis,
                   F32Attr:$epsilon);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_ReduceOp : Kiln_InferredOp<"reduce", [Kiln_DynamicShapes]> {
  let summary = "reduction over a set of axes";
  let description = [{
    Reduces `input` over `axes` (distinct, each in `[0, rank)`, at least one).
    `keep_dims` keeps reduced dimensions as 1.

    ```mlir
    %y = kiln.reduce mean %x {axes = array<i64: 2, 3>, keep_dims = true}
         : tensor<1x64x7x7xf32> -> tensor<1x64x1x1xf32>
    ```
  }];
  let arguments = (ins Kiln_ReduceKindAttr:$kind, Kiln_NumericTensor:$input,
                   DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "false">:$keep_dims);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
}

def Kiln_CumSumOp : Kiln_InferredOp<"cumsum", [Kiln_DynamicShapes]> {
  let summary = "running sum along one axis";
  let description = [{
    `result[..., i, ...]` is the sum of `input[..., j, ...]` over `j <= i`
    along `axis` (`j < i` with `exclusive`; from the end, `j >= i`, with
    `reverse`). Exported transformers compute position ids this way.

    ```mlir
    %y = kiln.cumsum %x {axis = 1 : i64} : tensor<1x128xi64> -> tensor<1x128xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
}

def Kiln_CumProdOp : Kiln_InferredOp<"cumprod", [Kiln_DynamicShapes]> {
  let summary = "running product along one axis";
  let description = [{
    `result[..., i, ...]` is the product of `input[..., j, ...]` over
    `j <= i` along `axis` (`j < i` with `exclusive`, where the first is 1;
    from the end, `j >= i`, with `reverse`).

    ```mlir
    %y = kiln.cumprod %x {axis = 0 : i64} : tensor<5xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
}

def Kiln_ArgReduceOp : Kiln_InferredOp<"arg_reduce", [Kiln_DynamicShapes]> {
  let summary = "index of the largest or smallest element along an axis";
  let description = [{
    The `i64` index of the maximum (or minimum) along `axis`; the first such
    index, or the last with `select_last_index`. `keep_dims` keeps the axis
    as 1.

    ```mlir
    %y = kiln.arg_reduce max %x {axis = 1 : i64} : tensor<1x1000xf32> -> tensor<1xi64>
    ```
  }];
  let arguments = (ins Kiln_ArgReduceKindAttr:$kind, Kiln_NumericTensor:$input,
                   I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$keep_dims,
                   DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = Kiln_KindUnaryFormat;
}

//===----------------------------------------------------------------------===//
// Generated tensors
//===----------------------------------------------------------------------===//

def Kiln_IotaOp : Kiln_TypedOp<"iota", [Kiln_DynamicShapes]> {
  let summary = "a tensor that counts along one dimension";
  let description = [{
    `result[i...] = start + step * i[dimension]`: the positions, ramps and
    angles that eye matrices, one-hot codes, windows, ranges, band masks and
    block indices are built from (with kiln.binary, kiln.unary, kiln.select
    and kiln.cast). It is computed where it is used, on the GPU and the CPU
    reference alike, so a large generated tensor is never a constant in the
    IR or the plan. An integer result takes `start` and `step` as `i64` and
    computes in 64-bit integers (then truncates); a float result takes them
    as `f64`, computes in `f64` and rounds once to its element type.

    ```mlir
    %rows = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1 : i64} : tensor<65536x1xi64>
    %x = kiln.iota {dimension = 0 : i64, start = 0.0 : f64, step = 0.25 : f64} : tensor<1024xf32>
    ```

    A result with dimensions that vary at run time (a range up to the
    sequence length, a mask of the input's shape) gives them in `shape`, as
    expressions of the function's dynamic argument dimensions (see
    kiln.reshape).
  }];
  let arguments = (ins I64Attr:$dimension, TypedAttrInterface:$start,
                   TypedAttrInterface:$step, OptionalAttr<AffineMapAttr>:$shape);
  let results = (outs RankedTensorOf<[F32, F16, BF16, F64, I8, I16, I32, I64]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Kiln_ConcatOp : Kiln_InferredOp<"concat",
    [Kiln_DynamicShapes, SameOperandsElementType, Kiln_PrecisionOpInterface]> {
  let summary = "joins tensors along one axis";
  let description = [{
    All inputs have the same rank and agree on every dimension but `axis`.

    ```mlir
    %y = kiln.concat %a, %b {axis = 1 : i64}
         : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_SliceOp : Kiln_InferredOp<"slice", [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "strided window of a tensor";
  let description = [{
    Takes `size[i]` elements along each dimension `i`, from `start[i]` with
    step `stride[i]` (non-zero; negative walks backwards). Every index read
    lies inside the input. A dimension that varies at run time is taken
    whole: start 0, stride 1 and size `?` (ShapedType::kDynamic).

    ```mlir
    %y = kiln.slice %x {start = array<i64: 0, 2>, size = array<i64: 4, 3>, stride = array<i64: 1, 1>}
         : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$start,
                   DenseI64ArrayAttr:$size, DenseI64ArrayAttr:$stride);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasFolder = 1;
}

def Kiln_ReshapeOp : Kiln_TypedOp<"reshape",
    [Kiln_DynamicShapes, Kiln_ReshapeLike, Kiln_PrecisionOpInterface]> {
  let summary = "same elements, new shape";
  let description = [{
    Reinterprets the elements (in row-major order) with the result's shape;
    the element count and type stay.

    ```mlir
    %y = kiln.reshape %x : tensor<1x50x4x4xf32> -> tensor<1x800xf32>
    ```

    Run-time shapes: a result with one `?` takes what the input's element
    count leaves (ONNX's -1). A result with more gives every dimension in
    `shape`, a map whose symbols are the dynamic dimensions of the
    function's arguments, in order (argument by argument, dimension by
    dimension); a static dimension is a constant there.

    ```mlir
    // %x : tensor<?x?x64xf32> is argument 0, so s0 is its dim 0, s1 its dim 1
    %y = kiln.reshape %x {shape = affine_map<()[s0, s1] -> (s0, s1, 4, 16)>}
         : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, OptionalAttr<AffineMapAttr>:$shape);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasFolder = 1;
}

def Kiln_FlattenOp : Kiln_InferredOp<"flatten",
    [Kiln_DynamicShapes, Kiln_ReshapeLike, Kiln_PrecisionOpInterface]> {
  let summary = "flattens into a matrix at an axis";
  let description = [{
    Result is `prod(dims[:axis]) x prod(dims[axis:])` (0 <= axis <= rank).

    ```mlir
    %y = kiln.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasCanonicalizer = 1;
}

def Kiln_SqueezeOp : Kiln_InferredOp<"squeeze",
    [Kiln_DynamicShapes, Kiln_ReshapeLike, Kiln_PrecisionOpInterface]> {
  let summary = "removes dimensions of size 1";
  let description = [{
    Removes the listed dimensions, each of which has size 1.

    ```mlir
    %y = kiln.squeeze %x {axes = array<i64: 2, 3>} : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasCanonicalizer = 1;
}

def Kiln_UnsqueezeOp : Kiln_InferredOp<"unsqueeze",
    [Kiln_DynamicShapes, Kiln_ReshapeLike, Kiln_PrecisionOpInterface]> {
  let summary = "inserts dimensions of size 1";
  let description = [{
    Inserts a dimension of size 1 at each listed position of the result.

    ```mlir
    %y = kiln.unsqueeze %x {axes = array<i64: 0>} : tensor<64xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasCanonicalizer = 1;
}

def Kiln_TransposeOp : Kiln_InferredOp<"transpose",
    [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "permutes dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %y = kiln.transpose %x {permutation = array<i64: 0, 2, 3, 1>}
         : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = Kiln_UnaryFormat;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_PadOp : Kiln_InferredOp<"pad", [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "pads (or, with negative amounts, crops) each dimension";
  let description = [{
    `pads` holds all begins then all ends. `constant` fills with `value`,
    `reflect` mirrors without repeating the edge (pads smaller than the
    dimension), `edge` repeats the edge. A dimension that varies at run time
    is not padded.

    ```mlir
    %y = kiln.pad constant %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0}
         : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
    ```
  }];
  let arguments = (ins Kiln_PadModeAttr:$mode, Kiln_Tensor:$input,
                   DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$mode $input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Kiln_ResizeOp : Kiln_TypedOp<"resize", [Kiln_PrecisionOpInterface]> {
  let summary = "resizes (upsamples) with nearest, linear or cubic interpolation";
  let description = [{
    Resamples every dimension to the result's extent. `scales`, when present,
    are the factors the coordinate mapping uses (ONNX Resize with scales),
    and each result extent is floor(input extent * scale), or that product
    rounded half up (ONNX's keep_aspect_ratio_policy); otherwise the factor
    of each dimension is output extent / input extent.

    ```mlir
    %y = kiln.resize nearest %x {coordinate_transform = #kiln<coordinate_transform asymmetric>,
           nearest_rounding = #kiln<nearest_rounding floor>}
         : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_ResizeModeAttr:$mode, Kiln_FloatTensor:$input,
                   DefaultValuedAttr<Kiln_CoordinateTransformAttr,
                                     "CoordinateTransform::HalfPixel">:$coordinate_transform,
                   DefaultValuedAttr<Kiln_NearestRoundingAttr,
                                     "NearestRounding::RoundPreferFloor">:$nearest_rounding,
                   DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                   OptionalAttr<DenseF32ArrayAttr>:$scales);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$mode $input attr-dict `:` type($input) `->` type($result)";
}

def Kiln_GatherOp : Kiln_InferredOp<"gather", [Kiln_DynamicShapes, Kiln_PrecisionOpInterface]> {
  let summary = "gathers slices along an axis by index";
  let description = [{
    Result shape is `data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    Negative indices count from the end; an index out of range is an error
    when it is known (constant folding) and is clamped by generated code.

    ```mlir
    %y = kiln.gather %table, %ids {axis = 0 : i64}
         : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_GatherElementsOp : Kiln_InferredOp<"gather_elements",
    [Kiln_PrecisionOpInterface]> {
  let summary = "gathers single elements along an axis by index";
  let description = [{
    `result[i...] = data[i... with i[axis] replaced by indices[i...]]`: the
    result has the shape of `indices`, which has the rank of `data`. Negative
    indices count from the end; generated code clamps out-of-range ones.

    ```mlir
    %y = kiln.gather_elements %data, %ids {axis = 1 : i64}
         : (tensor<3x5xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Plugins
//===----------------------------------------------------------------------===//

def Kiln_PluginOp : Kiln_TypedOp<"plugin"> {
  let summary = "a layer a registered plugin implements";
  let description = [{
    A layer kiln does not generate code for: the plugin creator registered
    as `plugin`, `version` and `plugin_namespace` (kiln/runtime/Plugin.h)
    implements it. `fields` are the plugin's fields (an array of i64 for
    integers, of f64 for floats, a string for text). The importer that made
    the op asked the plugin for the result types and its `workspace` bytes;
    the plan records the plugin by name, version and namespace, and the
    runtime creates it again from the fields at load.

    ```mlir
    %y = kiln.plugin "LReLU_TRT" (%x) {
           fields = {negSlope = array<f64: 0.1>}, version = "1"}
         : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, StrAttr:$plugin,
                       DefaultValuedAttr<StrAttr, "\"1\"">:$version,
                       DefaultValuedAttr<StrAttr, "\"\"">:$plugin_namespace,
                       DictionaryAttr:$fields,
                       DefaultValuedAttr<I64Attr, "0">:$workspace);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let assemblyFormat = [{
    $plugin `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
