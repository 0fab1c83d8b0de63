//===- Passes.td - kiln GPU code generation passes ---------*- tablegen -*-===//
//
// Passes that turn the bufferized network function into GPU kernels: kernel
// formation today; tile-config selection, tiling, shared-memory promotion
// and tensor cores come next and live here too.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_PASSES_TD
#define KILN_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGpuFormFusionGroupsPass
    : Pass<"kiln-gpu-form-fusion-groups", "func::FuncOp"> {
  let summary = "Fuse linalg ops on tensors into groups that become one "
                "kernel each";
  let description = [{
    Runs on the network function in linalg on tensors (as
    `kiln-linalg-pipeline` leaves it) and forms the groups that
    `kiln-gpu-form-kernels` turns into one kernel each:

    1. Elementwise fusion (upstream linalg's): an all-parallel
       `linalg.generic` read by one op is fused into it (an elementwise
       chain becomes one generic; a bias, activation or residual add folds
       into the op that consumes it, and a transpose or cast of at most 3
       body ops into the reduction that reads it). Named ops but fills are
       generalized, reshapes fold past generics, and a generic reads a
       unit-dimension view (keepdims) of a reduction directly.
    2. Tile and fuse (upstream scf's): each remaining op that has producers
       it alone reads (a convolution, matmul or reduction before its
       epilogue; the fill of an accumulator) is the *root* of a group. The
       root is tiled into an `scf.forall` with one iteration per element of
       its parallel loops, and its producers are computed in each iteration
       (tile and fuse), down to values the group does not compute. A
       parallel loop of the root along which it reads the result of a fused
       reduction (softmax's row sum, LayerNorm's mean) is not tiled: one
       iteration then does a whole row. A producer is computed at most 4
       times per iteration (2 if it reduces). The `scf.forall` carries
       `kiln_gpu.fusion_group` (the names of the layers it holds) and a
       `#gpu.thread` mapping, so that a loop of one iteration stays a loop.

    Ops that no fusion applies to are left as they are (one kernel each).

    Before:
    ```mlir
    %conv = linalg.generic {... ["parallel", ..., "reduction", ...]}
        ins(%w : tensor<16x16x3x3xf32>) outs(%zeros : tensor<1x16x16x16xf32>)
    %bias = linalg.generic {...} ins(%conv, %b : ...) outs(%e0 : ...)  // add
    %relu = linalg.generic {...} ins(%bias : ...) outs(%e1 : ...)       // max
    ```
    After:
    ```mlir
    %r = scf.forall (%n, %k, %y, %x) in (1, 16, 16, 16)
        shared_outs(%out = %e : tensor<1x16x16x16xf32>) {
      %zero = linalg.fill ... -> tensor<1x1x1x1xf32>
      %c = linalg.generic {...} ins(%w_slice ...) outs(%zero ...)
      %y = linalg.generic {...} ins(%c, %b_slice ...) { add, max }
      scf.forall.in_parallel { tensor.parallel_insert_slice %y into %out ... }
    } {kiln_gpu.fusion_group = ["conv1", "relu1"]}
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::kiln::KilnGPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def KilnGpuSelectLibraryCallsPass
    : Pass<"kiln-gpu-select-library-calls", "func::FuncOp"> {
  let summary = "Choose cuBLASLt for the matrix products";
  let description = [{
    Runs on linalg on tensors, before `kiln-gpu-form-fusion-groups`. Each
    `linalg.generic` that is a matrix product (what `kiln.matmul`,
    `kiln.gemm` and `kiln.fully_connected` lower to: loops batch..., m, n, k
    with D += A * B, either operand transposed, an operand's batch dimensions
    all there or all broadcast, f32, f16 or bf16, static sizes) and whose
    accumulator is a zero `linalg.fill` gets
    `kiln_gpu.library = "cublaslt.matmul"`, when it does at least
    `min-flops` floating-point operations (a smaller product is cheaper as
    a generated kernel fused with its neighbours than as a call of its own). Fusion then leaves it out of
    every group (its epilogue becomes a kernel of its own), and
    `kiln-gpu-form-library-calls` makes it a cuBLASLt call on its buffers.

    ```mlir
    %p = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (k, n),
                                          (m, n, k) -> (m, n)], ...}
        ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>)
        outs(%zero : tensor<64x32xf32>) {kiln_gpu.library = "cublaslt.matmul"}
    ```
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"1048576",
           "Smaller products (2 m n k per batch, summed) stay generated "
           "kernels, fused with their neighbours">,
  ];
  let statistics = [
    Statistic<"numSelected", "selected", "Products chosen for cuBLASLt">
  ];
  let dependentDialects = ["::mlir::kiln::KilnGPUDialect"];
}

def KilnGpuFormLibraryCallsPass
    : Pass<"kiln-gpu-form-library-calls", "func::FuncOp"> {
  let summary = "Turn the products chosen for cuBLASLt into library calls";
  let description = [{
    Runs on the bufferized network function, before `kiln-gpu-form-kernels`.
    Each `linalg.generic` marked `kiln_gpu.library = "cublaslt.matmul"`
    becomes a `kiln_gpu.library_call "cublaslt.matmul"` on its buffers A, B
    and D and a new workspace buffer (placed in the arena like any buffer)
    with room for four f32 copies of D (at least 64 KiB, at most
    `workspace` bytes), with the parameters of
    runtime/include/kiln/runtime/CublasLtMatmul.h: sizes, transposes,
    leading dimensions and batch strides read from the buffers' layouts, and
    `compute = "tf32"` for f32 products when `tf32` is set (else "f32").
    When the next op that touches D (itself or a reshape of all of it) is
    `D + bias` (a vector along D's last dimension, as a fully connected
    layer's or a gemm's bias) and/or `D + residual` (a buffer of D's shape),
    maybe followed by `max(x, 0)`, into a buffer of D's shape, and D is
    written over or is scratch that nothing touches afterwards, cuBLASLt
    computes it too: `epilogue = "bias"` or `"relu_bias"` with the bias as
    the next buffer, `residual = true` with the residual as C (beta 1) the
    last buffer, the op's output as D, and the op is erased
    (`bias-epilogues=false` keeps it). A product of f16 or bf16 inputs into
    an f32 accumulator (what kiln-convert-to-linalg makes of them) writes D
    in f32 (`out_type = "f32"`), unless that next op rounds D to the inputs'
    type (`arith.truncf`): then cuBLASLt rounds instead and writes the op's
    f16 or bf16 output, and a bias/residual/ReLU op after the rounding folds
    in as well.

    Batches of A one after another that share one B (a layer applied to
    every row) become one product of all their rows. The zero `linalg.fill`
    of D right before it is erased. A product whose
    rows are not contiguous, or whose batch dimensions are not one stride
    apart, loses the mark and stays a generic (one kernel).

    ```mlir
    kiln_gpu.library_call "cublaslt.matmul"(%a, %b, %d, %ws) {
        access = ["read", "read", "write", "readwrite"],
        params = {batch = 1 : i64, compute = "tf32", k = 16 : i64, lda = 16 : i64, ...}}
        : memref<64x16xf32>, memref<16x32xf32>, memref<64x32xf32>, memref<33554432xi8>
    ```
  }];
  let options = [
    Option<"tf32", "tf32", "bool", /*default=*/"true",
           "f32 products on TF32 tensor cores (f32 accumulation)">,
    Option<"workspace", "workspace", "int64_t", /*default=*/"33554432",
           "The most bytes of cuBLASLt workspace per call">,
    Option<"biasEpilogues", "bias-epilogues", "bool", /*default=*/"true",
           "Fold a following bias add (and ReLU), or a rounding of an f32 "
           "accumulator, into the call">,
  ];
  let statistics = [
    Statistic<"numFormed", "formed", "Library calls formed">,
    Statistic<"numEpilogues", "epilogues",
              "Epilogues (bias, ReLU, rounding) folded into the calls">,
    Statistic<"numKept", "kept", "Marked products whose buffers cuBLASLt "
              "cannot take (left as generics)">
  ];
  let dependentDialects = [
    "::mlir::kiln::KilnGPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def KilnGpuFormKernelsPass : Pass<"kiln-gpu-form-kernels", "ModuleOp"> {
  let summary = "Turn each linalg op on buffers into a GPU kernel and a launch";
  let description = [{
    Runs on the bufferized network function (memrefs in destination-passing
    style, as `kiln-buffers-pipeline` leaves it). Every linalg op becomes a
    `gpu.func` kernel in the `gpu.module @kiln_kernels` and is replaced by a
    `gpu.launch_func` of it, with the op's buffers as kernel arguments (bare
    pointers: every buffer has a static shape and layout).

    The kernel covers the op's parallel loops as one collapsed 1-D space
    according to its `#kiln_gpu.tile_config` (taken from the op's
    `kiln_gpu.tile_config` attribute, or `tile = [threads * items-per-thread]`,
    `threads = [min(threads, iterations rounded up to 32)]`), which is
    recorded on the `gpu.func` and on its `gpu.launch_func` (where the plan
    translation reads it); reduction loops run inside each thread. Named ops
    are generalized and loops interchanged so that parallel loops come first.
    Identical kernels (of layers that repeat) are then merged as
    `kiln-gpu-dedup-kernels` does.

    A fusion group whose iterations each work on one row (softmax,
    LayerNorm, reductions along an axis, with what is fused into them) of at
    least `warp-rows` elements runs one warp per iteration instead
    (lib/Codegen/GPU/WarpRows.h): lane l computes the row's elements l,
    l + 32, ... in every op of the group, and a reduction over the row is
    combined across the warp with `gpu.shuffle xor`. Its kernel and launch
    get `kiln_gpu.lanes = 32` (a block of `threads` threads runs
    `threads / 32` iterations). `warp-rows=0` turns this off.

    An op whose loads and stores are contiguous along its innermost parallel
    loop (elementwise ops on channels-last tensors, a convolution's im2col
    gather, channels-last pools and depthwise convolutions, whose reduction
    loops run inside the thread) runs V consecutive iterations of that loop
    per thread (lib/Codegen/GPU/InnerVectors.h): its loads and
    stores move vector<V x T> (V * sizeof(T) <= 16 bytes, `vector.load` /
    `vector.store` with that alignment on the buffers the plan places; the
    network's inputs and outputs, whose addresses the user gives, are
    accessed one element at a time), and what it computes from them works
    on vectors. V divides the loop, and the offsets and strides of the
    aligned buffers. `vectors=false` turns this off. When all of a kernel's
    iterations fit in 31 bits, its index arithmetic (the split of the
    thread's iteration into loop indices) is done in 32 bits.

    Copies and fills that the runtime does with the driver stay as they are:
    a `memref.copy` between contiguous buffers of one type (a device copy)
    and a `linalg.fill` of a contiguous buffer with a value whose bytes are
    all equal (a memset). Ops with an empty iteration space, and copies of a
    buffer onto itself (the same bytes, which bufferization can leave), are
    erased.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<300xf32>) outs(%b : memref<300xf32>) { ... }
    ```
    After:
    ```mlir
    gpu.launch_func @kiln_kernels::@k0_generic blocks in (%c2, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%a : memref<300xf32>, %b : memref<300xf32>)
        {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [256], threads = [256], stages = 1>}
    gpu.module @kiln_kernels {
      gpu.func @k0_generic(...) kernel attributes {kiln_gpu.tile_config = ..., known_block_size = array<i32: 256, 1, 1>} { ... }
    }
    ```
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block of kernels without a tile_config">,
    Option<"itemsPerThread", "items-per-thread", "int64_t", /*default=*/"1",
           "Iterations per thread of kernels without a tile_config">,
    Option<"warpRows", "warp-rows", "int64_t", /*default=*/"32",
           "Groups whose iterations work on rows of at least this many "
           "elements run one warp per row (0: never)">,
    Option<"vectors", "vectors", "bool", /*default=*/"true",
           "Kernels whose accesses are contiguous along their innermost "
           "loop run several of its iterations per thread, on vectors of "
           "up to 16 bytes">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::kiln::KilnGPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KilnGpuDedupKernelsPass : Pass<"kiln-gpu-dedup-kernels", "ModuleOp"> {
  let summary = "Keep one kernel of each set of identical gpu.func kernels";
  let description = [{
    Two kernels of a `gpu.module` are the same when they have the same
    signature, the same attributes (but for their names) and equivalent
    bodies (locations ignored). Of each set of the same kernels the first is
    kept; the launches of the others launch it, and the others are erased.
    A network whose layers repeat (a ResNet's blocks, a transformer's layers,
    a chain of the same activation) then has one kernel per distinct layer,
    which the target phase compiles once: PTX, cubins and plans shrink, and
    compile time grows with the distinct layers, not all of them. Profiles
    name a step by its kernel, so the steps of the layers that share a
    kernel carry the kept kernel's (the first layer's) name.

    Before:
    ```mlir
    gpu.launch_func @kiln_kernels::@k0_relu0 ... args(%a, %b)
    gpu.launch_func @kiln_kernels::@k1_relu1 ... args(%b, %c)
    gpu.module @kiln_kernels {
      gpu.func @k0_relu0(...) kernel { <body> }
      gpu.func @k1_relu1(...) kernel { <the same body> }
    }
    ```
    After:
    ```mlir
    gpu.launch_func @kiln_kernels::@k0_relu0 ... args(%a, %b)
    gpu.launch_func @kiln_kernels::@k0_relu0 ... args(%b, %c)
    gpu.module @kiln_kernels {
      gpu.func @k0_relu0(...) kernel { <body> }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // KILN_CODEGEN_GPU_PASSES_TD
