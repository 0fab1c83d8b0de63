// RUN: kiln-opt %s --split-input-file --kiln-sink-transposes | FileCheck %s

// Between two channels-last layers: the conversion back to channels first
// moves below the ReLU and meets the conversion to channels last, and the
// two cancel.
// CHECK-LABEL: func.func @cancel_through_relu
// CHECK-NOT: kiln.transpose
// CHECK: %[[R:.+]] = kiln.activation  relu %arg0 : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
// CHECK-NOT: kiln.transpose
// CHECK: return %[[R]]
func.func @cancel_through_relu(%a: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
  %r = kiln.activation relu %t : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %u = kiln.transpose %r {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32> -> tensor<1x6x6x4xf32>
  return %u : tensor<1x6x6x4xf32>
}

// -----

// A residual add: one operand converted back from channels last, the other
// the block input that the block's first convolution converted already
// (that conversion is reused), a constant per channel (4 x 1 x 1, made
// 1 x 1 x 1 x 4 on the host) and a tensor of one element (its reshape
// folds). One conversion is left, after the last layer.
// CHECK-LABEL: func.func @residual
// CHECK-DAG: %[[C:.+]] = kiln.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK-DAG: %[[IN:.+]] = kiln.transpose %arg1 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A:.+]] = kiln.binary  add %arg0, %[[IN]] : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK: %[[M:.+]] = kiln.binary  mul %[[A]], %[[C]] : (tensor<1x6x6x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK: %[[D:.+]] = kiln.binary  sub %[[M]], %arg2 : (tensor<1x6x6x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x6x6x4xf32>
// CHECK: %[[Y:.+]] = kiln.transpose %[[D]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
// CHECK: return %[[Y]], %[[IN]]
func.func @residual(%a: tensor<1x6x6x4xf32>, %in: tensor<1x4x6x6xf32>, %s: tensor<1x1x1x1xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x6x6x4xf32>) {
  %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
  %sum = kiln.binary add %t, %in : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = kiln.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %m = kiln.binary mul %sum, %c : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %d = kiln.binary sub %m, %s : (tensor<1x4x6x6xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x6x6xf32>
  %x = kiln.transpose %in {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32> -> tensor<1x6x6x4xf32>
  return %d, %x : tensor<1x4x6x6xf32>, tensor<1x6x6x4xf32>
}

// -----

// Concat along the channels of converted tensors: one concat along the last
// dimension, then one conversion; a slice of a converted tensor: the slice
// first, its window permuted (its conversion moves a dimension of size 1
// only: a reshape).
// CHECK-LABEL: func.func @concat_slice
// CHECK: %[[J:.+]] = kiln.concat %arg0, %arg1 {axis = 3 : i64} : (tensor<1x5x5x2xf32>, tensor<1x5x5x3xf32>) -> tensor<1x5x5x5xf32>
// CHECK: kiln.transpose %[[J]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: %[[S:.+]] = kiln.slice %arg0 {size = array<i64: 1, 5, 5, 1>, start = array<i64: 0, 0, 0, 1>, stride = array<i64: 1, 1, 1, 1>} : tensor<1x5x5x2xf32> -> tensor<1x5x5x1xf32>
// CHECK: kiln.reshape %[[S]] : tensor<1x5x5x1xf32> -> tensor<1x1x5x5xf32>
func.func @concat_slice(%a: tensor<1x5x5x2xf32>, %b: tensor<1x5x5x3xf32>) -> (tensor<1x5x5x5xf32>, tensor<1x1x5x5xf32>) {
  %ta = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x5x5x2xf32> -> tensor<1x2x5x5xf32>
  %tb = kiln.transpose %b {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x5x5x3xf32> -> tensor<1x3x5x5xf32>
  %j = kiln.concat %ta, %tb {axis = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<1x3x5x5xf32>) -> tensor<1x5x5x5xf32>
  %s = kiln.slice %ta {start = array<i64: 0, 1, 0, 0>, size = array<i64: 1, 1, 5, 5>, stride = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x1x5x5xf32>
  return %j, %s : tensor<1x5x5x5xf32>, tensor<1x1x5x5xf32>
}

// -----

// A transpose that moves only dimensions of size 1 is a reshape.
// CHECK-LABEL: func.func @unit_dims
// CHECK: kiln.reshape %arg0 : tensor<2x1x1x8xf32> -> tensor<2x8x1x1xf32>
// CHECK-NOT: kiln.transpose
func.func @unit_dims(%a: tensor<2x1x1x8xf32>) -> tensor<2x8x1x1xf32> {
  %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<2x1x1x8xf32> -> tensor<2x8x1x1xf32>
  return %t : tensor<2x8x1x1xf32>
}

// -----

// Must not fire: the other operand is a tensor the network has only
// channels first (moving the transpose would need a new one), two
// different permutations, and a reduction (not elementwise).
// CHECK-LABEL: func.func @not_sunk
// CHECK: %[[T:.+]] = kiln.transpose %arg0
// CHECK: kiln.binary  add %[[T]], %arg1
// CHECK: %[[U:.+]] = kiln.transpose %arg2
// CHECK: kiln.binary  mul %[[T]], %[[U]]
// CHECK: kiln.reduce  sum %[[T]]
func.func @not_sunk(%a: tensor<1x6x6x4xf32>, %b: tensor<1x4x6x6xf32>, %c: tensor<1x6x4x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) {
  %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
  %s = kiln.binary add %t, %b : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %u = kiln.transpose %c {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x6xf32> -> tensor<1x4x6x6xf32>
  %m = kiln.binary mul %t, %u : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = kiln.reduce sum %t {axes = array<i64: 2, 3>, keep_dims = true} : tensor<1x4x6x6xf32> -> tensor<1x4x1x1xf32>
  return %s, %m, %r : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>
}

// -----

// Unary math, select (its condition broadcasts) and casts are elementwise
// too (Kiln_Elementwise): the conversion moves below each of them.
// CHECK-LABEL: func.func @unary_select_cast
// CHECK: %[[E:.+]] = kiln.unary  exp %arg0 : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
// CHECK: %[[S:.+]] = kiln.select %arg1, %[[E]], %arg0 : (tensor<1x1x1x1xi1>, tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK: %[[C:.+]] = kiln.cast %[[S]] : tensor<1x6x6x4xf32> to tensor<1x6x6x4xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[C]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf16> -> tensor<1x4x6x6xf16>
// CHECK: return %[[Y]]
func.func @unary_select_cast(%a: tensor<1x6x6x4xf32>, %c: tensor<1x1x1x1xi1>) -> tensor<1x4x6x6xf16> {
  %t = kiln.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
  %e = kiln.unary exp %t : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %s = kiln.select %c, %e, %t : (tensor<1x1x1x1xi1>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = kiln.cast %s : tensor<1x4x6x6xf32> to tensor<1x4x6x6xf16>
  return %y : tensor<1x4x6x6xf16>
}
