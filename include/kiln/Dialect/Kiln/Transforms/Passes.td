//===- Passes.td - kiln graph passes -----------------------*- tablegen -*-===//
//
// The graph passes of the kiln dialect. Every pass is registered once and is
// available both in kiln-opt and in the pipelines kiln-compile builds.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnEliminateDeadLayersPass
    : Pass<"kiln-eliminate-dead-layers", "func::FuncOp"> {
  let summary = "Remove every layer that does not reach a network output";
  let description = [{
    The network outputs are the values the function returns (the outputs the
    TensorRT builder calls *marked*). This pass walks back from them and
    erases every layer and weight whose result cannot reach one of them, as
    the builder's dead-layer elimination does. Ops with side effects are kept
    and count as roots. Inputs stay; `kiln-remove-unused-inputs` drops those
    nothing reads.

    Before:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      %dead = kiln.activation sigmoid %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numLayersRemoved", "layers-removed", "Number of dead layers removed">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnFoldBatchNormPass : Pass<"kiln-fold-batch-norm", "func::FuncOp"> {
  let summary = "Fold inference batch normalization into the convolution before it";
  let description = [{
    A `kiln.batch_norm` whose input is a `kiln.convolution` used by nothing
    else, with constant f32 filter, bias (if any) and statistics, is a
    per-channel affine map of the convolution's output: with
    `f = scale / sqrt(variance + epsilon)`, each output channel `k` of the
    filter is multiplied by `f[k]` and the bias becomes
    `(bias[k] - mean[k]) * f[k] + shift[k]` (a zero bias when the
    convolution had none). The convolution takes the new weights and the
    normalization goes: one layer, one kernel, less memory traffic (the
    TensorRT builder's "vertical" BN fusion). Computed in double, stored as
    f32; large filters become resource blobs like the importer's weights.

    Before:
    ```mlir
    %w = kiln.constant dense<...> : tensor<8x3x3x3xf32>
    %c = kiln.convolution %x, %w {...} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
    %y = kiln.batch_norm %c, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : (...) -> tensor<1x8x6x6xf32>
    ```
    After:
    ```mlir
    %w2 = kiln.constant dense<...> : tensor<8x3x3x3xf32>   // %w scaled per channel
    %b2 = kiln.constant dense<...> : tensor<8xf32>
    %y = kiln.convolution %x, %w2, %b2 {...} : (...) -> tensor<1x8x6x6xf32>
    ```
    A 2-D `kiln.fully_connected`, or a `kiln.gemm` `A * B^T + C` (alpha and
    beta 1, C one value per column or none: an exported Linear layer),
    followed by batch normalization over its features (dimension 1) folds
    the same way, each weight row scaled. Weights or statistics that are not constants, other
    element types, a fully connected layer of another rank, and a layer
    whose output is used elsewhere too stay as they are.
  }];
  let statistics = [
    Statistic<"numFolded", "batch-norms-folded", "Number of batch normalizations folded into convolutions">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnMergeParallelLayersPass : Pass<"kiln-merge-parallel-layers", "func::FuncOp"> {
  let summary = "Merge layers that read one tensor with the same parameters into one wider layer";
  let description = [{
    The TensorRT builder's "horizontal" fusion. `kiln.fully_connected`,
    `kiln.convolution` (one group) or `kiln.matmul` by 2-D constant weights
    (with its bias as a following `kiln.binary add` of a 1-D constant, as
    exporters write a Linear layer) that read the same tensor, with the
    same attributes, constant weights of the same shape but for the output
    features, a bias each or none, and the same activation as their only
    user or none, become one layer whose weights (and biases) are theirs
    concatenated along the output features, the common activation once, and
    a `kiln.slice` of the result per original layer: one kernel instead of
    several, each reading the input once. A transformer's Q, K and V
    projections and an Inception module's 1x1 convolutions are the cases.
    The new weights are built on the host (byte blocks concatenated, any
    float type), as resource blobs named after the parts' keys joined by
    `+`.

    Before:
    ```mlir
    %q = kiln.fully_connected %x, %wq, %bq {axis = 2 : i64} : (tensor<1x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
    %k = kiln.fully_connected %x, %wk, %bk {axis = 2 : i64} : (tensor<1x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
    ```
    After:
    ```mlir
    %w = kiln.constant dense_resource<"wq+wk"> : tensor<128x64xf32>
    %qk = kiln.fully_connected %x, %w, %b {axis = 2 : i64} : (...) -> tensor<1x16x128xf32>
    %q = kiln.slice %qk {start = array<i64: 0, 0, 0>, size = array<i64: 1, 16, 64>, stride = array<i64: 1, 1, 1>} : ...
    %k = kiln.slice %qk {start = array<i64: 0, 0, 64>, size = array<i64: 1, 16, 64>, stride = array<i64: 1, 1, 1>} : ...
    ```
    Not merged: a layer whose result (or activation) feeds a `kiln.concat`
    (its producer writes in place into the concat's buffer, which a slice
    of a merged result would have to be copied to), a grouped convolution,
    weights that are not constants, and layers whose parameters differ.
  }];
  let statistics = [
    Statistic<"numMerged", "merged-sets", "Number of merged layers made">,
    Statistic<"numLayers", "layers-merged", "Number of layers merged into them">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnChannelsLastPass : Pass<"kiln-channels-last", "func::FuncOp"> {
  let summary = "Give convolutions and pools the channels-last layout (NHWC), re-laying out their weights at build time";
  let description = [{
    A layout per kernel, as the TensorRT builder chooses formats: every
    op with a layout (`LayoutOpInterface`: `kiln.convolution`, `kiln.pool`
    and `kiln.global_pool`) in the channels-first layout that ONNX writes (N x C x D1..Dk) becomes the same
    layer with `layout = #kiln<layout channels_last>` (N x D1..Dk x C), the
    layout tensor-core convolutions read, between two explicit layout
    conversions (`kiln.transpose`). A constant filter is re-laid out on the
    host from K x C/g x R1..Rk to R1..Rk x C/g x K ("weight preformatting",
    a resource blob named after the filter with `.hwcf`); a filter computed
    at run time gets a transpose instead. `kiln-sink-transposes` then
    removes the conversions that meet between consecutive layers.

    Before:
    ```mlir
    %y = kiln.convolution %x, %w, %b {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    ```
    After:
    ```mlir
    %0 = kiln.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x8xf32> -> tensor<1x8x8x3xf32>
    %1 = kiln.convolution %0, %w_hwcf, %b {..., layout = #kiln<layout channels_last>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
    %y = kiln.transpose %1 {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
    ```
    Deconvolutions stay channels first.
  }];
  let statistics = [
    Statistic<"numLayers", "layers-converted", "Number of layers given the channels-last layout">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnAssignPrecisionPass : Pass<"kiln-assign-precision", "func::FuncOp"> {
  let summary = "Run each layer in the lowest precision allowed (fp16 or bf16), with casts only at the edges of precision regions";
  let description = [{
    The TensorRT builder's reduced precision (`--fp16`, `--bf16`): every
    layer that is safe in 16 bits computes on f16 (or bf16) tensors, the
    rest stays f32, and a `kiln.cast` goes only where a value crosses from
    one region to the other (one cast per value and direction, however many
    readers). The function's inputs and outputs keep their types.

    In 16 bits, the ops whose `PrecisionOpInterface` allows it
    (`KilnBase.td`): convolutions, deconvolutions, fully connected layers,
    matmuls and gemms (their lowering accumulates in f32 and rounds once),
    pools, ReLU-like activations (relu, leaky_relu, clip, hard_sigmoid,
    hard_swish, thresholded_relu), add, sub, mul, div, max, min, select,
    and data movement (concat, slice, reshape, flatten, squeeze, unsqueeze,
    transpose, pad, resize, gather). In f32: softmax and log-softmax,
    normalizations and their statistics (batch, instance, layer norm, LRN),
    reductions, global pools, cumulative sums and products, pow, unary math
    (exp, log, erf, sqrt, ...), the other activations (sigmoid, tanh, GELU,
    ...), scale layers and casts. Only f32 tensors change: integer, boolean
    and other float tensors (an fp16 model's) stay as they are.

    Weights read by a 16-bit layer are rounded on the host (round to
    nearest even) into new constants named after the old plus `.f16` or
    `.bf16`. `layer-precision` overrides layers by name (the name of the
    op's location, the ONNX node's name): `NAME=fp32` keeps one layer in
    f32; `NAME=fp16` or `NAME=bf16` runs one in 16 bits even where the list
    above keeps it in f32 (a softmax, say). A name that matches no layer is
    an error.

    Before (`precision=fp16`):
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>) -> tensor<1x4xf32> {
      %y = kiln.fully_connected %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
      %s = kiln.softmax %y {axis = 1 : i64} : tensor<1x4xf32> -> tensor<1x4xf32>
      return %s : tensor<1x4xf32>
    }
    ```
    After:
    ```mlir
      %0 = kiln.cast %x : tensor<1x8xf32> to tensor<1x8xf16>
      %1 = kiln.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
      %y = kiln.fully_connected %0, %1 : (tensor<1x8xf16>, tensor<4x8xf16>) -> tensor<1x4xf16>
      %2 = kiln.cast %y : tensor<1x4xf16> to tensor<1x4xf32>
      %s = kiln.softmax %2 {axis = 1 : i64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "::mlir::kiln::Precision",
           /*default=*/"::mlir::kiln::Precision::FP16",
           "The reduced precision: fp16, bf16 or fp32 (nothing changes)",
           [{::mlir::kiln::precisionCLValues()}]>,
    ListOption<"layerPrecision", "layer-precision", "std::string",
               "NAME=fp32|fp16|bf16: one layer's precision">,
  ];
  let statistics = [
    Statistic<"numReduced", "layers-reduced", "Layers run in 16 bits">,
    Statistic<"numCasts", "casts", "Casts inserted at region edges">,
    Statistic<"numWeights", "weights-rounded", "Constants rounded to 16 bits">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnSinkTransposesPass : Pass<"kiln-sink-transposes", "func::FuncOp"> {
  let summary = "Move layout conversions below elementwise layers, concats and slices, so that opposite pairs cancel";
  let description = [{
    Removes redundant layout conversions: a conversion back to channels
    first (`kiln.transpose` by (0, k+1, 1, ..., k)) that feeds an
    elementwise layer (an op with the `Kiln_Elementwise` trait:
    `kiln.activation`, `kiln.unary`, `kiln.binary`, `kiln.select`,
    `kiln.cast`), a `kiln.concat` or a `kiln.slice` moves
    below it, so that the conversion back to channels first after one
    channels-last layer meets the conversion to channels last before the
    next, and the two compose into the identity (the transpose
    canonicalization). The other operands of an elementwise layer must be
    the same transpose, constants (transposed on the host) or tensors whose
    transposition only moves dimensions of size 1 (a reshape). A transpose
    that only moves dimensions of size 1 becomes a `kiln.reshape`.

    Before:
    ```mlir
    %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
    %r = kiln.activation relu %t : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
    %u = kiln.transpose %r {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32> -> tensor<1x6x6x4xf32>
    ```
    After:
    ```mlir
    %u = kiln.activation relu %a : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numSunk", "transposes-sunk", "Number of layers a transpose moved below">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnFoldConstantsPass : Pass<"kiln-fold-constants", "func::FuncOp"> {
  let summary = "Compute on the host every layer whose inputs are all constants";
  let description = [{
    Replaces each kiln op whose operands are all `kiln.constant`s with a
    `kiln.constant` holding its value, in program order, so a chain of such
    ops (an exported network's shape arithmetic: Shape, Gather, Unsqueeze,
    Concat, Where, Equal, ...) folds in one walk. The importer folds the same
    way as it goes, where a node needs a constant input; this pass folds what
    later graph passes expose. Constants left without users are erased.

    Elementwise math, casts, select, concat, slice, transpose, gather,
    reductions, constant padding and the reshape family are computed; other
    ops stay. A result with more than `max-elements` elements stays a layer
    (it costs less to compute on the GPU than to store in the plan), and so
    does one that generated code defines differently (integer division by
    zero, an out-of-range index or float-to-integer cast). Weights held in
    resource blobs fold only into results of at most 65,536 elements (a mask
    sliced out of a buffer), and a reshape of them stays (it is free).

    Before:
    ```mlir
    %s = kiln.constant dense<[1, 128, 768]> : tensor<3xi64>
    %i = kiln.constant dense<1> : tensor<1xi64>
    %d = kiln.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
    ```
    After:
    ```mlir
    %d = kiln.constant dense<128> : tensor<1xi64>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"::mlir::kiln::kDefaultMaxFoldedElements",
           "The most elements a folded result may have">
  ];
  let statistics = [
    Statistic<"numFolded", "layers-folded", "Number of layers folded to constants">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnExpandBuiltinPluginsPass
    : Pass<"kiln-expand-builtin-plugins", "func::FuncOp"> {
  let summary = "Rewrite the cheap built-in plugins as kiln layers";
  let description = [{
    The built-in plugins (`libkiln_plugins.so`, TensorRT's names, version
    "1", the empty namespace) are CUDA code. Five of them are a few kiln
    layers each, with the plugin's exact semantics
    (`runtime/plugins/<Name>.cu` states them):
    - `LReLU_TRT` (negSlope): `kiln.activation leaky_relu`;
    - `Clip_TRT` (clipMin, clipMax): `kiln.activation clip`;
    - `Reorg_TRT` (stride s), Darknet's reorg: the input [N, C, H, W] read
      as [N, C/s^2, H, s, W, s], transposed to [N, s, s, C/s^2, H, W] and
      reshaped to [N, C*s^2, H/s, W/s];
    - `Normalize_TRT` (weights, nbWeights, acrossSpatial, channelShared,
      eps): `x / sqrt(sum of x^2 + eps) * weights`, the sum over channels or
      over channels and space, the norm computed in f64 as the plugin does;
    - `Region_TRT` (num, coords, classes): per anchor, the sigmoid of x, y
      and the objectness, the other box channels copied, the softmax of the
      class scores.
    The CPU reference pipeline runs this pass first, so networks with these
    plugins run there too; the GPU pipelines keep the plugins. f32 plugins
    of static shape are rewritten; other plugins are left alone. Fields
    that contradict each other, or the input's shape, are an error naming
    the plugin and the field (the importers have asked the plugin already,
    so this happens only with hand-written IR).

    Before:
    ```mlir
    %y = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}}
         : (tensor<1x8xf32>) -> tensor<1x8xf32>
    ```
    After:
    ```mlir
    %y = kiln.activation leaky_relu %x {alpha = 1.000000e-01 : f32}
         : tensor<1x8xf32> -> tensor<1x8xf32>
    ```
  }];
  let statistics = [
    Statistic<"numExpanded", "plugins-expanded", "Number of plugin layers rewritten as kiln layers">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnRemoveUnusedInputsPass
    : Pass<"kiln-remove-unused-inputs", "ModuleOp"> {
  let summary = "Drop network inputs that nothing reads";
  let description = [{
    Removes from the signature of every network function the inputs that no
    op reads (run `kiln-eliminate-dead-layers` first, so that dead layers do
    not keep them). A module pass, because whether a signature may change
    depends on the other functions: a function that is called keeps its
    inputs, with a remark.

    Before:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numInputsRemoved", "inputs-removed", "Number of unused inputs removed">
  ];
}

def KilnSignlessIntegersPass
    : Pass<"kiln-signless-integers", "ModuleOp"> {
  let summary = "Make unsigned integer tensors signless, recording where they were unsigned";
  let description = [{
    ONNX's UINT8 to UINT64 are `ui8` to `ui64` tensors in the kiln dialect.
    The arith dialect, which the kiln-to-linalg lowering builds, computes on
    signless integers and takes signedness from the operation (`divui`,
    `cmpi ult`, `uitofp`, ...), as LLVM does. This pass makes every tensor
    type, block argument and constant signless (the bits stay) and records
    what was unsigned:
    - `kiln.unsigned_operands` on an op whose integer operands were
      unsigned, and `kiln.unsigned_results` on one whose results were; the
      lowering then picks the unsigned comparison, division, remainder,
      min/max, shift, reduction start value and conversion;
    - `kiln.unsigned` on a network input or output, so that plans and the
      reference executor describe it as u8 ... u64.
    A module pass: function signatures change. The kiln-to-linalg lowering
    refuses unsigned types, so the linalg pipeline runs this pass first.

    Before:
    ```mlir
    func.func @net(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
      %m = kiln.binary max %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
      return %m : tensor<4xui8>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<4xi8> {kiln.unsigned}, %y: tensor<4xi8> {kiln.unsigned})
        -> (tensor<4xi8> {kiln.unsigned}) {
      %m = kiln.binary max %x, %y {kiln.unsigned_operands, kiln.unsigned_results}
           : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
      return %m : tensor<4xi8>
    }
    ```
  }];
  let statistics = [
    Statistic<"numMarked", "ops-marked", "Number of ops marked unsigned">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
