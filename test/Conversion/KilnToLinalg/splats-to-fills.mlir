// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-splats-to-fills | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-splats-to-fills=min-bytes=16 | FileCheck %s --check-prefix=SMALL
// RUN: not kiln-opt %s --split-input-file --kiln-splats-to-fills=min-bytes=0 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: kiln-splats-to-fills: min-bytes must be positive, got 0

// A splat of 64 KiB or more is written with a fill, not stored.
// CHECK-LABEL: func.func @large
// CHECK:      %[[V:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:      %[[E:.+]] = tensor.empty() : tensor<1024x1024xf32>
// CHECK:      %[[F:.+]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
// CHECK:      return %[[F]]
func.func @large() -> tensor<1024x1024xf32> {
  %c = arith.constant dense<1.0> : tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}

// -----

// Small splats and constants that are not splats stay; so do scalars.
// CHECK-LABEL: func.func @small
// CHECK:      arith.constant dense<2> : tensor<4xi64>
// CHECK:      arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT:  linalg.fill
// SMALL-LABEL: func.func @small
// SMALL:      %[[V:.+]] = arith.constant 2 : i64
// SMALL:      linalg.fill ins(%[[V]] : i64)
// SMALL:      arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @small() -> (tensor<4xi64>, tensor<2xf32>, f32) {
  %a = arith.constant dense<2> : tensor<4xi64>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = arith.constant 3.0 : f32
  return %a, %b, %s : tensor<4xi64>, tensor<2xf32>, f32
}
