// REQUIRES: ptxas
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-assemble-cubins | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-assemble-cubins=keep-all-ptx | FileCheck %s --check-prefix=ALL
// Without ptxas anywhere the binaries stay PTX only.
// RUN: env PATH=/nonexistent %kiln_obj_root/bin/kiln-opt %s --split-input-file --kiln-assemble-cubins=cuda-path=/nonexistent | FileCheck %s --check-prefix=NOPTXAS
// An explicit ptxas that cannot be run is an error.
// RUN: not kiln-opt %s --split-input-file --kiln-assemble-cubins=ptxas=/nonexistent/ptxas 2>&1 | FileCheck %s --check-prefix=BADPTXAS
// BADPTXAS: error: kiln-assemble-cubins: ptxas '/nonexistent/ptxas' cannot be run

// Every PTX object gets a cubin for its target, just before it; PTX stays
// for the newest target only (or for all with keep-all-ptx).
// CHECK-LABEL: gpu.binary @kiln_kernels
// CHECK-SAME: [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, bin = "{{[^"]+}}">,
// CHECK-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, bin = "{{[^"]+}}">,
// CHECK-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, assembly = "{{[^"]+}}">]
// ALL-LABEL: gpu.binary @kiln_kernels
// ALL-SAME: [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, bin = "{{[^"]+}}">,
// ALL-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, assembly = "{{[^"]+}}">,
// ALL-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, bin = "{{[^"]+}}">,
// ALL-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, assembly = "{{[^"]+}}">]
// NOPTXAS-LABEL: gpu.binary @kiln_kernels
// NOPTXAS-SAME: [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, assembly = "{{[^"]+}}">,
// NOPTXAS-SAME:  #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, assembly = "{{[^"]+}}">]
module attributes {gpu.container_module} {
  gpu.binary @kiln_kernels [
    #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, assembly = ".version 8.0\0A.target sm_80\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">,
    #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, assembly = ".version 8.0\0A.target sm_90\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">
  ]
}

// -----

// Objects that are not PTX stay as they are; a module without binaries is
// left alone.
// CHECK-LABEL: gpu.binary @already_cubin
// CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "not really a cubin">]
// ALL-LABEL: gpu.binary @already_cubin
// NOPTXAS-LABEL: gpu.binary @already_cubin
module attributes {gpu.container_module} {
  gpu.binary @already_cubin [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "not really a cubin">]
}

// -----

// PTX that ptxas rejects: its log is the error.
module attributes {gpu.container_module} {
  // expected-error @+1 {{kiln-assemble-cubins: ptxas failed for sm_90}}
  gpu.binary @broken [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".version 8.0\0A.target sm_90\0A.address_size 64\0A.visible .entry k()\0A{\0A\09not_an_instruction;\0A}\0A">]
}
