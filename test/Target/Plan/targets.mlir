// Kernels as PTX for the first target; one plan with code for several
// architectures; clear errors for a bad target list.
// REQUIRES: libdevice
// RUN: kiln-compile %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: kiln-compile %s --emit=ptx --target=sm_80,sm_90 | FileCheck %s --check-prefix=PTX80
// RUN: kiln-compile %s -o %t.kplan --target=sm_80,sm_90 --no-cubin
// RUN: kiln-plan-info %t.kplan | FileCheck %s --check-prefix=MULTI
// RUN: not kiln-compile %s -o %t.kplan --target=sm_9x 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-compile %s -o %t.kplan --target= 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not kiln-compile %s --emit=cuda 2>&1 | FileCheck %s --check-prefix=EMIT

// PTX:      .version 8.0
// PTX:      .target sm_90
// PTX:      .entry k0_unary(
// PTX:      .maxntid 128, 1, 1
// PTX:      ex2.approx

// PTX80:    .target sm_80

// MULTI:    archs: 80, 90
// MULTI:    image 0: PTX compute_80
// MULTI:    image 1: PTX compute_90

// BAD:      kiln-compile: error: --target: bad target 'sm_9x': expected sm_<major><minor> such as sm_80 or sm_90
// EMPTY:    kiln-compile: error: --target: no target architecture given
// EMIT:     kiln-compile: error: unknown --emit=cuda (expected import, kiln, linalg, buffers, kernels, memory, target, reference, ptx or plan)
func.func @f(%x: tensor<128xf32> {kiln.name = "x"}) -> (tensor<128xf32> {kiln.name = "y"}) {
  %y = kiln.unary exp %x : tensor<128xf32> -> tensor<128xf32>
  return %y : tensor<128xf32>
}
