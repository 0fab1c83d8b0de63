// With ptxas, a plan carries a cubin per target and PTX for the newest one
// (which the driver JIT-compiles on newer GPUs).
// REQUIRES: libdevice, ptxas
// RUN: kiln-compile %s -o %t.kplan --target=sm_80,sm_90
// RUN: kiln-plan-info %t.kplan | FileCheck %s
// CHECK: archs: 80, 90
// CHECK: images: 3
// CHECK-NEXT: image 0: cubin sm_80
// CHECK-NEXT: image 1: cubin sm_90
// CHECK-NEXT: image 2: PTX compute_90
// A ptxas that does not work is an error that says so.
// RUN: not kiln-compile %s -o %t.kplan --ptxas=/bin/false 2>&1 | FileCheck %s --check-prefix=BROKEN
// BROKEN: kiln-compile: error: {{.*}}ptxas failed for sm_90
func.func @f(%x: tensor<4xf32> {kiln.name = "x"}) -> (tensor<4xf32> {kiln.name = "y"}) {
  %y = kiln.activation relu %x : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
