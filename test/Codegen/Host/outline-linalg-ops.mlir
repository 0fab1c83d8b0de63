// RUN: kiln-opt %s --split-input-file --kiln-outline-linalg-ops | FileCheck %s

// Each linalg op on buffers, and each memref.copy, becomes a no_inline call of a private function
// holding only it: its buffers are the arguments, the constants it uses are
// cloned in, a non-constant scalar is an argument too.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[S:.*]]: f32)
// CHECK:         %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         call @main_fill_0(%[[T]]) {no_inline} : (memref<4xf32>) -> ()
// CHECK:         call @main_generic_1(%[[A]], %[[T]], %[[S]]) {no_inline} : (memref<4xf32>, memref<4xf32>, f32) -> ()
// CHECK:         call @main_copy_2(%[[T]], %[[B]]) {no_inline}
// CHECK:         call @main_copy_3(%[[B]], %[[T]]) {no_inline}
// CHECK-NOT:     linalg.
// CHECK-NOT:     memref.copy
// CHECK:         return
// CHECK:       func.func private @main_fill_0(%[[O:.*]]: memref<4xf32>)
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill ins(%[[Z]] : f32) outs(%[[O]] : memref<4xf32>)
// CHECK:         return
// CHECK:       func.func private @main_generic_1(%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>, %[[V:.*]]: f32)
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[C]] : f32
// CHECK:           arith.addf %{{.*}}, %[[V]] : f32
// CHECK:       func.func private @main_copy_2(
// CHECK:         linalg.copy
// CHECK:       func.func private @main_copy_3(%[[S:.*]]: memref<4xf32>, %[[D:.*]]: memref<4xf32>)
// CHECK:         memref.copy %[[S]], %[[D]] : memref<4xf32> to memref<4xf32>
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>, %s: f32) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  }
  linalg.copy ins(%t : memref<4xf32>) outs(%b : memref<4xf32>)
  memref.copy %b, %t : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Must not fire: an op on a buffer of dynamic shape (a bare pointer cannot
// carry it) and an op on tensors stay where they are.
// CHECK-LABEL: func.func @stays(
// CHECK:         linalg.fill {{.*}} outs(%{{.*}} : memref<?xf32>)
// CHECK:         linalg.fill {{.*}} -> tensor<4xf32>
// CHECK-NOT:     call
// CHECK-NOT:   func.func private
func.func @stays(%a: memref<?xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  %r = linalg.fill ins(%zero : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Layers that are the same op on the same types call one function; a layer
// that differs (another constant) gets its own.
// CHECK-LABEL: func.func @same(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK:         call @same_generic_0(%[[A]], %[[B]]) {no_inline}
// CHECK:         call @same_generic_0(%[[B]], %[[A]]) {no_inline}
// CHECK:         call @same_generic_2(%[[A]], %[[B]]) {no_inline}
// CHECK:       func.func private @same_generic_0(
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK-NOT:   func.func private @same_generic_1(
// CHECK:       func.func private @same_generic_2(
// CHECK:         arith.constant 3.000000e+00 : f32
#id = affine_map<(d0) -> (d0)>
func.func @same(%a: memref<4xf32>, %b: memref<4xf32>) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %three : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// The parts of a buffer (a concat's inputs) are passed rebased
// (kiln_gpu.rebase to offset 0), so that their copies share one function;
// the part at offset 0 is passed as it is.
// CHECK-LABEL: func.func @parts(
// CHECK:         %[[P1:.*]] = memref.subview %arg1[1, 0] [1, 3] [1, 1]
// CHECK:         %[[R1:.*]] = kiln_gpu.rebase %[[P1]] : memref<1x3xf32, strided<[3, 1], offset: 3>> to memref<1x3xf32>
// CHECK:         call @parts_copy_0(%arg0, %[[R1]]) {no_inline} : (memref<1x3xf32>, memref<1x3xf32>) -> ()
// CHECK:         %[[P2:.*]] = memref.subview %arg1[2, 0] [1, 3] [1, 1]
// CHECK:         %[[R2:.*]] = kiln_gpu.rebase %[[P2]] : memref<1x3xf32, strided<[3, 1], offset: 6>> to memref<1x3xf32>
// CHECK:         call @parts_copy_0(%arg0, %[[R2]]) {no_inline} : (memref<1x3xf32>, memref<1x3xf32>) -> ()
// CHECK:       func.func private @parts_copy_0(%{{.*}}: memref<1x3xf32>, %{{.*}}: memref<1x3xf32>)
// CHECK-NOT:   func.func private @parts_copy_1
func.func @parts(%x: memref<1x3xf32>, %y: memref<3x3xf32>) {
  %p1 = memref.subview %y[1, 0] [1, 3] [1, 1] : memref<3x3xf32> to memref<1x3xf32, strided<[3, 1], offset: 3>>
  memref.copy %x, %p1 : memref<1x3xf32> to memref<1x3xf32, strided<[3, 1], offset: 3>>
  %p2 = memref.subview %y[2, 0] [1, 3] [1, 1] : memref<3x3xf32> to memref<1x3xf32, strided<[3, 1], offset: 6>>
  memref.copy %x, %p2 : memref<1x3xf32> to memref<1x3xf32, strided<[3, 1], offset: 6>>
  return
}

// -----

// A buffer copied onto itself (the output the last layer wrote in place)
// is erased; a copy to another buffer is outlined.
// CHECK-LABEL: func.func @self_copy(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK-NEXT:    call @self_copy_copy_0(%[[A]], %[[B]]) {no_inline}
// CHECK-NEXT:    return
func.func @self_copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}
