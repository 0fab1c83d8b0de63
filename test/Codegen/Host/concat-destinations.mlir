// RUN: kiln-opt %s --split-input-file --kiln-concat-destinations | FileCheck %s

// A chain of insert_slice ops from a tensor.empty: one buffer and a view
// per part before the first part's producer, each part written into its
// view where it was inserted, the result read through the buffer. A reader
// of a part after the concat reads the part's view (not writable).
// CHECK-LABEL: func.func @concat(
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<3x4xf32>
// CHECK:         %[[V0:.*]] = memref.subview %[[BUF]][0, 0] [1, 4] [1, 1]
// CHECK:         %[[V1:.*]] = memref.subview %[[BUF]][1, 0] [2, 4] [1, 1]
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:         %[[B:.*]] = linalg.generic
// CHECK-NOT:     tensor.insert_slice
// CHECK:         bufferization.materialize_in_destination %[[A]] in restrict writable %[[V0]]
// CHECK:         bufferization.materialize_in_destination %[[B]] in restrict writable %[[V1]]
// CHECK:         %[[CAT:.*]] = bufferization.to_tensor %[[BUF]] restrict : memref<3x4xf32> to tensor<3x4xf32>
// CHECK:         %[[AGAIN:.*]] = bufferization.to_tensor %[[V0]] restrict
// CHECK:         return %[[CAT]], %[[AGAIN]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat(%x: tensor<1x4xf32>, %y: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<1x4xf32>) {
  %e0 = tensor.empty() : tensor<1x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x4xf32>) outs(%e0 : tensor<1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x4xf32>
  %e1 = tensor.empty() : tensor<2x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x4xf32>) outs(%e1 : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x4xf32>
  %e = tensor.empty() : tensor<3x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %1 = tensor.insert_slice %b into %0[1, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x4xf32>
  return %1, %a : tensor<3x4xf32>, tensor<1x4xf32>
}

// -----

// A link read by another op (a partial concat) ends the chain: one insert
// is left, which is no chain; a single insert stays too.
// CHECK-LABEL: func.func @partial(
// CHECK-NOT:     memref.alloc
// CHECK:         tensor.insert_slice
// CHECK:         tensor.insert_slice
func.func @partial(%x: tensor<1x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %0 = tensor.insert_slice %x into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %1 = tensor.insert_slice %x into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
