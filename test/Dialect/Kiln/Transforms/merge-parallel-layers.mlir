// RUN: kiln-opt %s --split-input-file --kiln-merge-parallel-layers | FileCheck %s
// The numbers of merged networks are checked against the unmerged ones by
// test/Reference/merge-parallel-layers.test.

// Two fully connected layers reading %x: one layer over the weights
// concatenated along the output features (rows 0-1 from %w1, row 2 from
// %w2), the biases likewise, and a slice of the result for each.
// CHECK-LABEL: func.func @fully_connected
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK: %[[Y:.+]] = kiln.fully_connected %arg0, %[[W]], %[[B]] : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: %[[Y1:.+]] = kiln.slice %[[Y]] {size = array<i64: 4, 2>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<4x3xf32> -> tensor<4x2xf32>
// CHECK: %[[Y2:.+]] = kiln.slice %[[Y]] {size = array<i64: 4, 1>, start = array<i64: 0, 2>, stride = array<i64: 1, 1>} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NOT: kiln.fully_connected
// CHECK: return %[[Y1]], %[[Y2]]
func.func @fully_connected(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x1xf32>) {
  %w1 = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b1 = kiln.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %w2 = kiln.constant dense<[[5.0, 6.0]]> : tensor<1x2xf32>
  %b2 = kiln.constant dense<[0.3]> : tensor<1xf32>
  %y1 = kiln.fully_connected %x, %w1, %b1 : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y2 = kiln.fully_connected %x, %w2, %b2 : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  return %y1, %y2 : tensor<4x2xf32>, tensor<4x1xf32>
}

// -----

// Three 1x1 convolutions with a ReLU each: one convolution over the filters
// concatenated along the output channels (a splat expands), one ReLU, the
// channels sliced out; the third reads another tensor and stays.
// CHECK-LABEL: func.func @convolution_relu
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}5.000000e-01]], {{\[\[}}5.000000e-01]]], {{\[\[\[}}5.000000e-01]], {{\[\[}}5.000000e-01]]]]> : tensor<4x2x1x1xf32>
// CHECK: %[[C:.+]] = kiln.convolution %arg0, %[[W]] {{.*}} -> tensor<1x4x3x3xf32>
// CHECK: %[[R:.+]] = kiln.activation  relu %[[C]] : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
// CHECK: kiln.slice %[[R]] {size = array<i64: 1, 2, 3, 3>, start = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1, 1, 1>}
// CHECK: kiln.slice %[[R]] {size = array<i64: 1, 2, 3, 3>, start = array<i64: 0, 2, 0, 0>, stride = array<i64: 1, 1, 1, 1>}
// CHECK: kiln.convolution %arg1
// CHECK-NOT: kiln.convolution
func.func @convolution_relu(%x: tensor<1x2x3x3xf32>, %z: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w1 = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %w2 = kiln.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c1 = kiln.convolution %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r1 = kiln.activation relu %c1 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %c2 = kiln.convolution %x, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r2 = kiln.activation relu %c2 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %c3 = kiln.convolution %z, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %r1, %r2, %c3 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Not merged: different strides; different activations; one feeds a
// concat (written in place into the concat's buffer); a grouped
// convolution; weights that are not constants.
// CHECK-LABEL: func.func @not_merged
// CHECK-COUNT-2: kiln.convolution %arg0
// CHECK-COUNT-2: kiln.fully_connected %arg1
// CHECK-COUNT-2: kiln.fully_connected %arg2
// CHECK-COUNT-2: kiln.convolution %arg3
// CHECK-COUNT-2: kiln.fully_connected %arg4
// CHECK-NOT: kiln.slice
func.func @not_merged(%x: tensor<1x2x4x4xf32>, %y: tensor<4x2xf32>, %u: tensor<4x2xf32>, %g: tensor<1x2x4x4xf32>, %v: tensor<4x2xf32>, %wv: tensor<2x2xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = kiln.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c1 = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c2 = kiln.convolution %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %f = kiln.constant dense<1.0> : tensor<2x2xf32>
  %f1 = kiln.fully_connected %y, %f : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %a1 = kiln.activation relu %f1 : tensor<4x2xf32> -> tensor<4x2xf32>
  %f2 = kiln.fully_connected %y, %f : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %a2 = kiln.activation sigmoid %f2 : tensor<4x2xf32> -> tensor<4x2xf32>
  %f3 = kiln.fully_connected %u, %f : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %f4 = kiln.fully_connected %u, %f : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %cat = kiln.concat %f3, %f4 {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %gw = kiln.constant dense<1.0> : tensor<2x1x1x1xf32>
  %g1 = kiln.convolution %g, %gw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %g2 = kiln.convolution %g, %gw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %v1 = kiln.fully_connected %v, %wv : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %v2 = kiln.fully_connected %v, %wv : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %c1, %c2, %a1, %a2, %cat, %g1, %g2, %v1, %v2 : tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Linear layers as exporters write them, MatMul by C x K weights then Add of
// a K bias: the weights' columns are concatenated (row i of the merged
// weights is row i of %w1 then row i of %w2), the biases likewise, and the
// add is done once on the merged result.
// CHECK-LABEL: func.func @matmul_add
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK: %[[M:.+]] = kiln.matmul %arg0, %[[W]] : (tensor<1x4x2xf32>, tensor<2x3xf32>) -> tensor<1x4x3xf32>
// CHECK: %[[A:.+]] = kiln.binary  add %[[M]], %[[B]] : (tensor<1x4x3xf32>, tensor<3xf32>) -> tensor<1x4x3xf32>
// CHECK: kiln.slice %[[A]] {size = array<i64: 1, 4, 2>, start = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>}
// CHECK: kiln.slice %[[A]] {size = array<i64: 1, 4, 1>, start = array<i64: 0, 0, 2>, stride = array<i64: 1, 1, 1>}
// CHECK-NOT: kiln.matmul
func.func @matmul_add(%x: tensor<1x4x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4x1xf32>) {
  %w1 = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b1 = kiln.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %w2 = kiln.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %b2 = kiln.constant dense<[0.3]> : tensor<1xf32>
  %m1 = kiln.matmul %x, %w1 : (tensor<1x4x2xf32>, tensor<2x2xf32>) -> tensor<1x4x2xf32>
  %y1 = kiln.binary add %m1, %b1 : (tensor<1x4x2xf32>, tensor<2xf32>) -> tensor<1x4x2xf32>
  %m2 = kiln.matmul %x, %w2 : (tensor<1x4x2xf32>, tensor<2x1xf32>) -> tensor<1x4x1xf32>
  %y2 = kiln.binary add %b2, %m2 : (tensor<1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  return %y1, %y2 : tensor<1x4x2xf32>, tensor<1x4x1xf32>
}

// -----

// Not merged, without failing: empty weights (nothing to concatenate).
// CHECK-LABEL: func.func @empty_weights
// CHECK-COUNT-2: kiln.fully_connected %arg0
// CHECK-NOT: kiln.slice
func.func @empty_weights(%e: tensor<2x0xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %z = kiln.constant dense<1.0> : tensor<2x0xf32>
  %c = kiln.fully_connected %e, %z : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x2xf32>
  %d = kiln.fully_connected %e, %z : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x2xf32>
  return %c, %d : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A splat weight of 80 MB (more than the 64 MiB a pass expands a splat to):
// the layers are not merged, and nothing is expanded.
// CHECK-LABEL: func.func @huge_splat_weight
// CHECK-COUNT-2: kiln.fully_connected
// CHECK-NOT: kiln.slice
func.func @huge_splat_weight(%x: tensor<4x2xf32>) -> (tensor<4x10000000xf32>, tensor<4x1xf32>) {
  %w1 = kiln.constant dense<1.0> : tensor<10000000x2xf32>
  %b1 = kiln.constant dense<0.1> : tensor<10000000xf32>
  %w2 = kiln.constant dense<[[5.0, 6.0]]> : tensor<1x2xf32>
  %b2 = kiln.constant dense<[0.3]> : tensor<1xf32>
  %y1 = kiln.fully_connected %x, %w1, %b1 : (tensor<4x2xf32>, tensor<10000000x2xf32>, tensor<10000000xf32>) -> tensor<4x10000000xf32>
  %y2 = kiln.fully_connected %x, %w2, %b2 : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  return %y1, %y2 : tensor<4x10000000xf32>, tensor<4x1xf32>
}
