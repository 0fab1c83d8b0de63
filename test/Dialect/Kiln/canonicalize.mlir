// RUN: kiln-opt %s --split-input-file --canonicalize | FileCheck %s

// The canonicalization patterns and folds of kiln ops.

// CHECK-LABEL: func.func @shape_ops_become_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = kiln.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<1x2x12xf32>
// CHECK-NEXT: return %[[R]]
func.func @shape_ops_become_reshape(%x: tensor<2x3x4xf32>) -> tensor<1x2x12xf32> {
  %0 = kiln.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %1 = kiln.unsqueeze %0 {axes = array<i64: 0, 3>} : tensor<2x12xf32> -> tensor<1x2x12x1xf32>
  %2 = kiln.squeeze %1 {axes = array<i64: 3>} : tensor<1x2x12x1xf32> -> tensor<1x2x12xf32>
  return %2 : tensor<1x2x12xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_round_trip_is_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip_is_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = kiln.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  %2 = kiln.reshape %1 : tensor<3x2xf32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NEXT: %[[C:.+]] = kiln.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_of_constant() -> tensor<2x3xi32> {
  %c = kiln.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = kiln.reshape %c : tensor<6xi32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Resource-backed weights are not copied to fold a reshape.
// CHECK-LABEL: func.func @reshape_of_resource_stays
// CHECK: kiln.constant dense_resource<w> : tensor<2xf32>
// CHECK: kiln.reshape
func.func @reshape_of_resource_stays() -> tensor<1x2xf32> {
  %c = kiln.constant dense_resource<w> : tensor<2xf32>
  %0 = kiln.reshape %c : tensor<2xf32> -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000080BF00000040"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @compose_transposes
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = kiln.transpose %[[X]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x2x3x4xf32> -> tensor<1x4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @compose_transposes(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  // NCHW -> NHWC, then swap H and W: the composition is [0, 3, 1, 2] of the input.
  %0 = kiln.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x2x3x4xf32> -> tensor<1x3x4x2xf32>
  %1 = kiln.transpose %0 {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x2xf32> -> tensor<1x4x2x3xf32>
  return %1 : tensor<1x4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_inverse_pair_folds
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse_pair_folds(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = kiln.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x2x3x4xf32> -> tensor<1x3x4x2xf32>
  %1 = kiln.transpose %0 {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x3x4x2xf32> -> tensor<1x2x3x4xf32>
  return %1 : tensor<1x2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @identity_folds
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identity_folds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 2, 3>, stride = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = kiln.pad constant %0 {pads = array<i64: 0, 0, 0, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = kiln.cast %1 : tensor<2x3xf32> to tensor<2x3xf32>
  %3 = kiln.concat %2 {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = kiln.scale uniform %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = kiln.transpose %4 {permutation = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A reversing slice of the same shape is not an identity.
// CHECK-LABEL: func.func @reversing_slice_stays
// CHECK: kiln.slice
func.func @reversing_slice_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.slice %x {start = array<i64: 3>, size = array<i64: 4>, stride = array<i64: -1>} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @binary_identities
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]]
func.func @binary_identities(%x: tensor<2x3xf32>, %i: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>) {
  %one = kiln.constant dense<1.0> : tensor<3xf32>
  %zero = kiln.constant dense<0.0> : tensor<1xf32>
  %izero = kiln.constant dense<0> : tensor<4xi32>
  %0 = kiln.binary mul %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.binary mul %one, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = kiln.binary div %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = kiln.binary sub %x, %zero : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %4 = kiln.binary add %izero, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>
}

// -----

// Not identities: float x + 0 (x = -0.0), 1 / x, 0 - x, a broadcasting
// constant, a non-splat constant.
// CHECK-LABEL: func.func @binary_non_identities
// CHECK-COUNT-5: kiln.binary
func.func @binary_non_identities(%x: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<3xf32>
  %one = kiln.constant dense<1.0> : tensor<3xf32>
  %wide = kiln.constant dense<1.0> : tensor<2x3xf32>
  %mixed = kiln.constant dense<[1.0, 1.0, 2.0]> : tensor<3xf32>
  %0 = kiln.binary add %x, %zero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.binary div %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = kiln.binary sub %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = kiln.binary mul %x, %wide : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = kiln.binary mul %x, %mixed : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Unused pure layers are erased by the canonicalizer too.
// CHECK-LABEL: func.func @unused_constant_erased
// CHECK-NOT: kiln.constant
func.func @unused_constant_erased(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = kiln.constant dense<2.0> : tensor<3xf32>
  return %x : tensor<3xf32>
}

// -----

// A run of copies of one concat input is one broadcast of it over a new
// dimension, reshaped back; x, y, x (no run) stays a concat of three.
// CHECK-LABEL: func.func @concat_runs_become_broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[Y:.+]]: tensor<2x1xf32>)
// CHECK-DAG: %[[T3:.+]] = kiln.constant dense<true> : tensor<1x3x1xi1>
// CHECK-DAG: %[[T2:.+]] = kiln.constant dense<true> : tensor<1x2x1xi1>
// CHECK: %[[UX:.+]] = kiln.reshape %[[X]] : tensor<2x3xf32> -> tensor<2x1x3xf32>
// CHECK: %[[BX:.+]] = kiln.select %[[T3]], %[[UX]], %[[UX]] : (tensor<1x3x1xi1>, tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x3x3xf32>
// CHECK: %[[RX:.+]] = kiln.reshape %[[BX]] : tensor<2x3x3xf32> -> tensor<2x9xf32>
// CHECK: %[[UY:.+]] = kiln.reshape %[[Y]] : tensor<2x1xf32> -> tensor<2x1x1xf32>
// CHECK: %[[BY:.+]] = kiln.select %[[T2]], %[[UY]], %[[UY]]
// CHECK: %[[RY:.+]] = kiln.reshape %[[BY]] : tensor<2x2x1xf32> -> tensor<2x2xf32>
// CHECK: %[[C:.+]] = kiln.concat %[[RX]], %[[RY]] {axis = 1 : i64} : (tensor<2x9xf32>, tensor<2x2xf32>) -> tensor<2x11xf32>
// CHECK: %[[N:.+]] = kiln.concat %[[X]], %[[Y]], %[[X]] {axis = 1 : i64}
// CHECK: return %[[C]], %[[N]]
func.func @concat_runs_become_broadcast(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>)
    -> (tensor<2x11xf32>, tensor<2x7xf32>) {
  %0 = kiln.concat %x, %x, %x, %y, %y {axis = 1 : i64}
       : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x11xf32>
  %1 = kiln.concat %x, %y, %x {axis = 1 : i64}
       : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  return %0, %1 : tensor<2x11xf32>, tensor<2x7xf32>
}

// -----

// Copies of one input only: the broadcast is the result. A rank-8 input
// would need a ninth dimension: its copies stay a concat.
// CHECK-LABEL: func.func @concat_copies_only
// CHECK-SAME: (%[[X:.+]]: tensor<1x1xf32>, %[[Z:.+]]: tensor<1x1x1x1x1x1x1x2xf32>)
// CHECK: %[[U:.+]] = kiln.reshape %[[X]] : tensor<1x1xf32> -> tensor<1x1x1xf32>
// CHECK: %[[B:.+]] = kiln.select %{{.+}}, %[[U]], %[[U]] : (tensor<4x1x1xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<4x1x1xf32>
// CHECK: %[[R:.+]] = kiln.reshape %[[B]] : tensor<4x1x1xf32> -> tensor<4x1xf32>
// CHECK: %[[C:.+]] = kiln.concat %[[Z]], %[[Z]] {axis = 7 : i64}
// CHECK: return %[[R]], %[[C]]
func.func @concat_copies_only(%x: tensor<1x1xf32>, %z: tensor<1x1x1x1x1x1x1x2xf32>)
    -> (tensor<4x1xf32>, tensor<1x1x1x1x1x1x1x4xf32>) {
  %0 = kiln.concat %x, %x, %x, %x {axis = 0 : i64}
       : (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %1 = kiln.concat %z, %z {axis = 7 : i64}
       : (tensor<1x1x1x1x1x1x1x2xf32>, tensor<1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x4xf32>
  return %0, %1 : tensor<4x1xf32>, tensor<1x1x1x1x1x1x1x4xf32>
}
