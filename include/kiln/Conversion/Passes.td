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
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}


def KilnGpuFormKernelsPass : Pass<"kiln-gpu-form-kernels", "ModuleOp"> {
  let summary = "Turn each linalg op on buffers into a GPU kernel and a launch";
  let description = [{
    Runs on the bufferized network function (memrefs in destination-passing
    style, as the plan compiler produces it). Every linalg op becomes a
    `gpu.func` kernel in the `gpu.module @kiln_kernels` and is replaced by a
    `gpu.launch_func` of it, with the op's buffers as kernel arguments (bare
    pointers: every buffer has a static shape and layout).

    The kernel covers the op's parallel loops as one collapsed 1-D space
    according to its `#kiln.tile_config` (taken from the op's
    `kiln.tile_config` attribute, or `tile = [threads * items-per-thread]`,
    `threads = [min(threads, iterations rounded up to 32)]`), which is
    recorded on the `gpu.func`; reduction loops run inside each thread.
    Named ops are generalized and loops interchanged so that parallel loops
    come first.

    Copies and fills that the runtime does with the driver stay as they are:
    a `memref.copy` between contiguous buffers of one type (a device copy)
    and a `linalg.fill` of a contiguous buffer with a value whose bytes are
    all equal (a memset). Ops with an empty iteration space, and copies of a
    buffer onto itself (which bufferization can leave), are erased.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block of kernels without a tile_config">,
    Option<"itemsPerThread", "items-per-thread", "int64_t", /*default=*/"1",
           "Iterations per thread of kernels without a tile_config">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::kiln::KilnDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
