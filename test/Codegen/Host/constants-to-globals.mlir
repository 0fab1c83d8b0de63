// RUN: kiln-opt %s --kiln-constants-to-globals | FileCheck %s

// Each tensor constant reads a private constant global; equal constants
// share one; a name already taken gets the next suffix; a scalar stays.
// CHECK:     memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 64 : i64}
// CHECK:     memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<3.000000e+00> {alignment = 64 : i64}
// CHECK-NOT: memref.global "private" constant
// CHECK-LABEL: func.func @net(
// CHECK:     %[[G0:.*]] = memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK:     %[[A:.*]] = bufferization.to_tensor %[[G0]] restrict : memref<2xf32> to tensor<2xf32>
// CHECK:     %[[G1:.*]] = memref.get_global @__constant_2xf32_0 : memref<2xf32>
// CHECK:     %[[B:.*]] = bufferization.to_tensor %[[G1]] restrict
// CHECK:     %[[G2:.*]] = memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK:     %[[C:.*]] = bufferization.to_tensor %[[G2]] restrict
// CHECK:     arith.constant 1.000000e+00 : f32
// CHECK:     return %[[A]], %[[B]], %[[C]]
func.func @net() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, f32) {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<3.0> : tensor<2xf32>
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = arith.constant 1.0 : f32
  return %a, %b, %c, %s : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, f32
}
