// RUN: kiln-opt %s --split-input-file --kiln-fold-batch-norm | FileCheck %s
// The numbers of folded networks are checked against numpy by
// test/Reference/fold-batch-norm.test.

// Two output channels with scale [4, 9], variance [3, 8] and epsilon 1:
// f = scale / sqrt(variance + epsilon) = [4 / 2, 9 / 3] = [2, 3]. The
// filter's channels are multiplied by 2 and 3, the bias becomes
// (bias - mean) * f + shift = ((1 - 1) * 2 + 5, (2 - 4) * 3 + 6) = (5, 0).
// CHECK-LABEL: func.func @conv_bias_bn
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}9.000000e+00, 1.200000e+01]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[5.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = kiln.convolution %arg0, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT: kiln.batch_norm
// CHECK: return %[[Y]]
func.func @conv_bias_bn(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = kiln.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %t = kiln.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %m = kiln.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %v = kiln.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = kiln.batch_norm %c, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<1x2x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}

// -----

// Without a bias the folded one is (0 - mean) * f + shift.
// CHECK-LABEL: func.func @conv_no_bias_bn
// CHECK: %[[B:.+]] = kiln.constant dense<[1.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK: kiln.convolution %arg0, %{{.+}}, %[[B]]
// CHECK-NOT: kiln.batch_norm
func.func @conv_no_bias_bn(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x1x1x1xf32>
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %t = kiln.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %m = kiln.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %v = kiln.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = kiln.batch_norm %c, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Must not fire: the convolution's output is also returned.
// CHECK-LABEL: func.func @conv_used_twice
// CHECK: kiln.convolution
// CHECK: kiln.batch_norm
func.func @conv_used_twice(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = kiln.constant dense<1.0> : tensor<2x1x1x1xf32>
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %p = kiln.constant dense<1.0> : tensor<2xf32>
  %y = kiln.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32}
       : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %c, %y : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Must not fire: statistics computed at run time, weights that are an
// input, and f16.
// CHECK-LABEL: func.func @not_constant
// CHECK-COUNT-2: kiln.batch_norm
func.func @not_constant(%x: tensor<1x1x3x3xf32>, %v: tensor<2xf32>, %w: tensor<2x1x1x1xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %k = kiln.constant dense<1.0> : tensor<2x1x1x1xf32>
  %c = kiln.convolution %x, %k {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %p = kiln.constant dense<1.0> : tensor<2xf32>
  %y = kiln.batch_norm %c, %p, %p, %p, %v {epsilon = 1.0e-5 : f32}
       : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %d = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = kiln.batch_norm %d, %p, %p, %p, %p {epsilon = 1.0e-5 : f32}
       : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y, %z : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// A filter of more than 64 elements becomes a resource blob.
// CHECK-LABEL: func.func @large_filter
// CHECK: kiln.constant dense_resource<bn_folded_filter{{.*}}> : tensor<4x2x3x3xf32>
// CHECK-NOT: kiln.batch_norm
func.func @large_filter(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x3x3xf32> {
  %w = kiln.constant dense<0.5> : tensor<4x2x3x3xf32>
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %p = kiln.constant dense<2.0> : tensor<4xf32>
  %y = kiln.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-5 : f32}
       : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}

// -----

// A 2-D fully connected layer (a Gemm) followed by batch normalization over
// its features folds the same way: f = [2, 3], the weight rows are scaled
// by 2 and 3, the bias becomes (5, 0).
// CHECK-LABEL: func.func @fully_connected_bn
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00], [9.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[5.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = kiln.fully_connected %arg0, %[[W]], %[[B]] : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NOT: kiln.batch_norm
// CHECK: return %[[Y]]
func.func @fully_connected_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %f = kiln.fully_connected %x, %w, %b : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %t = kiln.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %m = kiln.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %v = kiln.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = kiln.batch_norm %f, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A fully connected layer with a 3-D result: batch normalization's channels
// (dimension 1) are not its features; nothing folds.
// CHECK-LABEL: func.func @fully_connected_3d
// CHECK: kiln.fully_connected
// CHECK: kiln.batch_norm
func.func @fully_connected_3d(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %f = kiln.fully_connected %x, %w {axis = 2 : i64} : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %y = kiln.batch_norm %f, %s, %s, %s, %s {epsilon = 1.0 : f32}
       : (tensor<1x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

// -----

// A Gemm A * B^T + C folds like a fully connected layer (B's rows are the
// features); with alpha 2 it does not.
// CHECK-LABEL: func.func @gemm_bn
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00], [9.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[5.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = kiln.gemm %arg0, %[[W]], %[[B]] {transpose_b = true}
// CHECK: %[[G:.+]] = kiln.gemm %arg0, %{{.+}}, %{{.+}} {alpha = 2.000000e+00 : f32, transpose_b = true}
// CHECK: %[[Z:.+]] = kiln.batch_norm %[[G]]
// CHECK: return %[[Y]], %[[Z]]
func.func @gemm_bn(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = kiln.gemm %x, %w, %b {transpose_b = true} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %g2 = kiln.gemm %x, %w, %b {transpose_b = true, alpha = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %t = kiln.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %m = kiln.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %v = kiln.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = kiln.batch_norm %g, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z = kiln.batch_norm %g2, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A Gemm whose C is one value broadcast over the columns: not one bias per
// feature; nothing folds (and nothing reads past C).
// CHECK-LABEL: func.func @gemm_scalar_c
// CHECK: kiln.gemm
// CHECK: kiln.batch_norm
func.func @gemm_scalar_c(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = kiln.constant dense<[1.0]> : tensor<1xf32>
  %g = kiln.gemm %x, %w, %c {transpose_b = true} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1xf32>) -> tensor<3x2xf32>
  %s = kiln.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %y = kiln.batch_norm %g, %s, %s, %s, %s {epsilon = 1.0 : f32}
       : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A splat filter of 80 MB (more than the 64 MiB a pass expands a splat
// to): the batch norm stays, and nothing is expanded.
// CHECK-LABEL: func.func @huge_splat_filter
// CHECK: kiln.constant dense<1.000000e+00> : tensor<20000000x1x1x1xf32>
// CHECK: kiln.batch_norm
func.func @huge_splat_filter(%x: tensor<1x1x1x1xf32>) -> tensor<1x20000000x1x1xf32> {
  %w = kiln.constant dense<1.0> : tensor<20000000x1x1x1xf32>
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x1x1xf32>, tensor<20000000x1x1x1xf32>) -> tensor<1x20000000x1x1xf32>
  %s = kiln.constant dense<4.0> : tensor<20000000xf32>
  %t = kiln.constant dense<5.0> : tensor<20000000xf32>
  %m = kiln.constant dense<1.0> : tensor<20000000xf32>
  %v = kiln.constant dense<3.0> : tensor<20000000xf32>
  %y = kiln.batch_norm %c, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<1x20000000x1x1xf32>, tensor<20000000xf32>, tensor<20000000xf32>, tensor<20000000xf32>, tensor<20000000xf32>) -> tensor<1x20000000x1x1xf32>
  return %y : tensor<1x20000000x1x1xf32>
}
