// RUN: kiln-opt %s --split-input-file --kiln-eliminate-dead-layers | FileCheck %s

// CHECK-LABEL: func.func @dead_branch
// CHECK-SAME: (%[[X:.+]]: tensor<1x8xf32>, %[[U:.+]]: tensor<2xf32>)
// CHECK-NEXT: %[[A:.+]] = kiln.activation  relu %[[X]]
// CHECK-NEXT: return %[[A]]
func.func @dead_branch(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
  %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
  // A whole dead subgraph, weights included: three layers and one constant.
  %w = kiln.constant dense<1.0> : tensor<4x8xf32>
  %d0 = kiln.fully_connected %a, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %d1 = kiln.activation sigmoid %d0 : tensor<1x4xf32> -> tensor<1x4xf32>
  %d2 = kiln.softmax %d1 {axis = 1 : i64} : tensor<1x4xf32> -> tensor<1x4xf32>
  return %a : tensor<1x8xf32>
}

// -----

// Every output keeps its whole cone, shared layers included.
// CHECK-LABEL: func.func @two_outputs
// CHECK: %[[S:.+]] = kiln.activation  sigmoid
// CHECK: %[[T:.+]] = kiln.activation  tanh %[[S]]
// CHECK: %[[R:.+]] = kiln.activation  relu %[[S]]
// CHECK-NOT: kiln.unary
// CHECK: return %[[T]], %[[R]]
func.func @two_outputs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = kiln.activation sigmoid %x : tensor<4xf32> -> tensor<4xf32>
  %t = kiln.activation tanh %s : tensor<4xf32> -> tensor<4xf32>
  %r = kiln.activation relu %s : tensor<4xf32> -> tensor<4xf32>
  %dead = kiln.unary exp %t : tensor<4xf32> -> tensor<4xf32>
  return %t, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops with side effects are roots: they stay, with what they read.
// CHECK-LABEL: func.func @effects_are_roots
// CHECK: kiln.activation  relu
// CHECK: call @sink
func.func private @sink(tensor<4xf32>)
func.func @effects_are_roots(%x: tensor<4xf32>) {
  %r = kiln.activation relu %x : tensor<4xf32> -> tensor<4xf32>
  call @sink(%r) : (tensor<4xf32>) -> ()
  return
}
