// RUN: kiln-opt %s --split-input-file --kiln-join-output-parts | FileCheck %s

// Three outputs are parts of %x (two rows, and the middle of row 2 with
// whole dimensions after it); %y is a result of its own and keeps its name.
// The joined outputs come back in %x, once, after the other results.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.+]]: tensor<3x2x4xf32>, %[[Y:.+]]: tensor<4xf32>)
// CHECK-SAME: -> (tensor<4xf32> {kiln.name = "y"}, tensor<3x2x4xf32>)
// CHECK-SAME: kiln.output_parts = array<i64: 1, 8, 0, -1, 1, 0, 1, 16>
// CHECK-NOT: kiln.slice
// CHECK: return %[[Y]], %[[X]]
func.func @split(%x: tensor<3x2x4xf32>, %y: tensor<4xf32>)
    -> (tensor<1x2x4xf32>, tensor<4xf32> {kiln.name = "y"}, tensor<1x2x4xf32>, tensor<1x1x4xf32>) {
  %a = kiln.slice %x {start = array<i64: 1, 0, 0>, size = array<i64: 1, 2, 4>, stride = array<i64: 1, 1, 1>}
       : tensor<3x2x4xf32> -> tensor<1x2x4xf32>
  %b = kiln.slice %x {start = array<i64: 0, 0, 0>, size = array<i64: 1, 2, 4>, stride = array<i64: 1, 1, 1>}
       : tensor<3x2x4xf32> -> tensor<1x2x4xf32>
  %c = kiln.slice %x {start = array<i64: 2, 0, 0>, size = array<i64: 1, 1, 4>, stride = array<i64: 1, 1, 1>}
       : tensor<3x2x4xf32> -> tensor<1x1x4xf32>
  return %a, %y, %b, %c : tensor<1x2x4xf32>, tensor<4xf32>, tensor<1x2x4xf32>, tensor<1x1x4xf32>
}

// -----

// Not parts: a strided slice, a slice that is not one run of elements (a
// column), a lone part of a tensor (nothing to join), an empty slice. A
// slice that is also read by another op stays for that op.
// CHECK-LABEL: func.func @not_parts
// CHECK-SAME: -> (tensor<2x1xf32>, tensor<4x1xf32>, tensor<1x2xf32>, tensor<0x2xf32>, tensor<4x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>)
// CHECK-SAME: kiln.output_parts = array<i64: 0, -1, 1, -1, 2, -1, 3, -1, 6, 0, 4, -1, 6, 2, 5, -1>
// CHECK: %[[R:.+]] = kiln.slice %{{.+}} {size = array<i64: 1, 2>, start = array<i64: 0, 0>
// CHECK: %[[N:.+]] = kiln.activation relu %[[R]]
// CHECK: return %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[N]], %{{.+}}
func.func @not_parts(%x: tensor<4x2xf32>, %z: tensor<4x2xf32>)
    -> (tensor<2x1xf32>, tensor<4x1xf32>, tensor<1x2xf32>, tensor<0x2xf32>,
        tensor<1x2xf32>, tensor<4x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %strided = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 2, 1>, stride = array<i64: 2, 1>}
       : tensor<4x2xf32> -> tensor<2x1xf32>
  %column = kiln.slice %x {start = array<i64: 0, 1>, size = array<i64: 4, 1>, stride = array<i64: 1, 1>}
       : tensor<4x2xf32> -> tensor<4x1xf32>
  %lone = kiln.slice %z {start = array<i64: 1, 0>, size = array<i64: 1, 2>, stride = array<i64: 1, 1>}
       : tensor<4x2xf32> -> tensor<1x2xf32>
  %empty = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 0, 2>, stride = array<i64: 1, 1>}
       : tensor<4x2xf32> -> tensor<0x2xf32>
  %r0 = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 1, 2>, stride = array<i64: 1, 1>}
       : tensor<4x2xf32> -> tensor<1x2xf32>
  %r1 = kiln.slice %x {start = array<i64: 1, 0>, size = array<i64: 1, 2>, stride = array<i64: 1, 1>}
       : tensor<4x2xf32> -> tensor<1x2xf32>
  %n = kiln.activation relu %r0 : tensor<1x2xf32> -> tensor<1x2xf32>
  return %strided, %column, %lone, %empty, %r0, %z, %r1, %n
       : tensor<2x1xf32>, tensor<4x1xf32>, tensor<1x2xf32>, tensor<0x2xf32>,
         tensor<1x2xf32>, tensor<4x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// Parts of a tensor that is an output itself: they point into that output;
// nothing is returned twice.
// CHECK-LABEL: func.func @parts_of_an_output
// CHECK-SAME: -> (tensor<2x2xf32> {kiln.name = "t"})
// CHECK-SAME: kiln.output_parts = array<i64: 0, 2, 0, -1, 0, 0>
// CHECK: %[[T:.+]] = kiln.activation relu
// CHECK: return %[[T]] : tensor<2x2xf32>
func.func @parts_of_an_output(%x: tensor<2x2xf32>)
    -> (tensor<1x2xf32>, tensor<2x2xf32> {kiln.name = "t"}, tensor<1x2xf32>) {
  %t = kiln.activation relu %x : tensor<2x2xf32> -> tensor<2x2xf32>
  %a = kiln.slice %t {start = array<i64: 1, 0>, size = array<i64: 1, 2>, stride = array<i64: 1, 1>}
       : tensor<2x2xf32> -> tensor<1x2xf32>
  %b = kiln.slice %t {start = array<i64: 0, 0>, size = array<i64: 1, 2>, stride = array<i64: 1, 1>}
       : tensor<2x2xf32> -> tensor<1x2xf32>
  return %a, %t, %b : tensor<1x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>
}
