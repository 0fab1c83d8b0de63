//===- Passes.td - kiln CUDA target passes -----------------*- tablegen -*-===//
//
// Serialization of kernels for NVIDIA GPUs beyond what upstream's
// gpu-module-to-binary does: cubins for every target from its PTX.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_CUDA_PASSES_TD
#define KILN_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnAssembleCubinsPass : Pass<"kiln-assemble-cubins", "ModuleOp"> {
  let summary = "Add a cubin made by ptxas for every PTX object of a gpu.binary";
  let description = [{
    Runs after `gpu-module-to-binary{format=isa}`, whose `gpu.binary` ops
    hold one PTX (assembly) object per `#nvvm.target`. For each of them this
    pass runs the CUDA toolkit's `ptxas -O3 -arch=sm_XY` and adds the cubin
    as a `bin` object for the same target, just before the PTX. PTX stays
    only for the newest target (the driver JIT-compiles it for newer GPUs),
    unless `keep-all-ptx`.

    ptxas is `ptxas` when given (an error when it cannot be run), else
    `<cuda-path>/bin/ptxas`, else the first on `PATH`. When none is found
    the binaries are left as they are (PTX only). A ptxas failure is an
    error with its log.

    Before:
    ```mlir
    gpu.binary @kiln_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, assembly = "...">,
                              #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, assembly = "...">]
    ```
    After:
    ```mlir
    gpu.binary @kiln_kernels [#gpu.object<#nvvm.target<... chip = "sm_80" ...>, bin = "...">,
                              #gpu.object<#nvvm.target<... chip = "sm_90" ...>, bin = "...">,
                              #gpu.object<#nvvm.target<... chip = "sm_90" ...>, assembly = "...">]
    ```
  }];
  let options = [
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"\"",
           "ptxas to run (default: <cuda-path>/bin/ptxas, then PATH)">,
    Option<"cudaPath", "cuda-path", "std::string",
           /*default=*/"\"/usr/local/cuda\"", "The CUDA toolkit">,
    Option<"keepAllPtx", "keep-all-ptx", "bool", /*default=*/"false",
           "Keep the PTX of every target, not only of the newest">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // KILN_TARGET_CUDA_PASSES_TD
