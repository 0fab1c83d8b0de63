//===- Passes.td - kiln conversion passes ------------------*- tablegen -*-===//
//
// Passes that lower kiln ops to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnConvertToLinalgPass
    : Pass<"kiln-convert-to-linalg", "func::FuncOp"> {
  let summary = "Lower kiln layers to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every kiln op into upstream ops on tensors: elementwise layers
    become `linalg.generic` ops with numpy-broadcasting indexing maps;
    convolution, pooling, matrix products and reductions become
    `linalg.generic` ops with reduction iterators (groups, strides and
    dilations in the indexing maps, padding through `tensor.pad`); shape ops
    become `tensor` reshapes, slices and `linalg.transpose`. The result is the
    common input of the CPU reference executor and of GPU code generation.

    Before:
    ```mlir
    %y = kiln.activation relu %x : tensor<4xf32> -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
           ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %zero = arith.constant 0.0 : f32
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4xf32>
    ```
    An op without a lowering (cubic resize) is an error naming it.

    With `conv-product-min-flops` at 0 or more, a channels-first,
    ungrouped convolution of at least that many operations becomes a matrix
    product that a library computes (kiln-gpu-select-library-calls): the
    filter as a K x (C R...) matrix times, for each image, its columns
    (C R...) x (O...). A 1x1 convolution of stride 1 without padding reads
    the input as its columns (a reshape); any other gathers them first into
    one tensor (im2col: one generic that reads the input through its
    padding, stride and dilation). Off (-1) by default, and always for the
    CPU reference.
  }];
  let options = [
    Option<"convProductMinFlops", "conv-product-min-flops", "int64_t",
           /*default=*/"-1",
           "Convolutions of at least this many operations become matrix "
           "products (-1: none)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def KilnSplatsToFillsPass : Pass<"kiln-splats-to-fills", "func::FuncOp"> {
  let summary = "Make large splat constants fills instead of stored data";
  let description = [{
    A splat constant (every element the same) of `min-bytes` or more becomes
    a `linalg.fill` of a `tensor.empty`, so that the value is written where
    it is needed instead of being stored: a small model whose
    ConstantOfShape or Expand names a large shape does not become a large
    plan, or a large constant for the host JIT. Smaller splats stay
    constants.

    Before:
    ```mlir
    %c = arith.constant dense<1.0> : tensor<1024x1024xf32>
    ```
    After:
    ```mlir
    %v = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<1024x1024xf32>
    %c = linalg.fill ins(%v : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"65536",
           "Splat constants of at least this many bytes become fills">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
