// RUN: kiln-opt %s --split-input-file --kiln-channels-last | FileCheck %s
// The numbers of channels-last networks are checked against ONNX's expected
// outputs and the channels-first path by test/Reference/channels-last.test.

// A convolution with a constant filter: the input converted to N x H x W x C,
// the filter re-laid out on the host from K x C x R x S (2 x 1 x 1 x 2:
// [[1, 2]], [[3, 4]]) to R x S x C x K (1 x 2 x 1 x 2: s = 0 takes k = 0, 1
// = 1, 3; s = 1 takes 2, 4), the bias as it was, the result converted back.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[X:.+]] = kiln.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x1x3x3xf32> -> tensor<1x3x3x1xf32>
// CHECK: %[[C:.+]] = kiln.convolution %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, layout = #kiln<layout channels_last>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x3x1xf32>, tensor<1x2x1x2xf32>, tensor<2xf32>) -> tensor<1x3x2x2xf32>
// CHECK: %[[Y:.+]] = kiln.transpose %[[C]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x3x2x2xf32> -> tensor<1x2x3x2xf32>
// CHECK: return %[[Y]]
func.func @conv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = kiln.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}

// -----

// A filter computed when the network runs is transposed then; a grouped
// 1-D convolution keeps its groups (N x L x C, filter R x C/g x K).
// CHECK-LABEL: func.func @runtime_filter_groups
// CHECK: %[[W:.+]] = kiln.transpose %arg1 {permutation = array<i64: 2, 1, 0>} : tensor<4x1x3xf32> -> tensor<3x1x4xf32>
// CHECK: kiln.convolution %{{.+}}, %[[W]] {dilations = array<i64: 2>, groups = 2 : i64, layout = #kiln<layout channels_last>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : (tensor<1x8x2xf32>, tensor<3x1x4xf32>) -> tensor<1x6x4xf32>
func.func @runtime_filter_groups(%x: tensor<1x2x8xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x4x6xf32> {
  %y = kiln.convolution %x, %w {strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 2>, groups = 2 : i64}
       : (tensor<1x2x8xf32>, tensor<4x1x3xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// Pools and global pools: max and average, integers too.
// CHECK-LABEL: func.func @pools
// CHECK: kiln.pool  max %{{.+}} {{{.*}}layout = #kiln<layout channels_last>{{.*}}} : tensor<2x6x6x3xi8> -> tensor<2x3x3x3xi8>
// CHECK: kiln.pool  average %{{.+}} {ceil_mode = true, count_include_pad = true, {{.*}}layout = #kiln<layout channels_last>{{.*}}} : tensor<2x6x6x3xf32> -> tensor<2x4x4x3xf32>
// CHECK: kiln.global_pool  average %{{.+}} {layout = #kiln<layout channels_last>} : tensor<2x6x6x3xf32> -> tensor<2x1x1x3xf32>
// CHECK: kiln.transpose %{{.+}} {permutation = array<i64: 0, 3, 1, 2>} : tensor<2x1x1x3xf32> -> tensor<2x3x1x1xf32>
func.func @pools(%i: tensor<2x3x6x6xi8>, %x: tensor<2x3x6x6xf32>) -> (tensor<2x3x3x3xi8>, tensor<2x3x4x4xf32>, tensor<2x3x1x1xf32>) {
  %m = kiln.pool max %i {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : tensor<2x3x6x6xi8> -> tensor<2x3x3x3xi8>
  %a = kiln.pool average %x {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true}
       : tensor<2x3x6x6xf32> -> tensor<2x3x4x4xf32>
  %g = kiln.global_pool average %x : tensor<2x3x6x6xf32> -> tensor<2x3x1x1xf32>
  return %m, %a, %g : tensor<2x3x3x3xi8>, tensor<2x3x4x4xf32>, tensor<2x3x1x1xf32>
}

// -----

// Must not fire: a layer channels last already, and a deconvolution.
// CHECK-LABEL: func.func @not_converted
// CHECK-NOT: kiln.transpose
// CHECK: kiln.global_pool  max %arg0 {layout = #kiln<layout channels_last>}
// CHECK: kiln.deconvolution
// CHECK-NOT: kiln.transpose
func.func @not_converted(%x: tensor<1x4x4x2xf32>, %d: tensor<1x2x3x3xf32>, %w: tensor<2x2x2x2xf32>) -> (tensor<1x1x1x2xf32>, tensor<1x2x4x4xf32>) {
  %g = kiln.global_pool max %x {layout = #kiln<layout channels_last>} : tensor<1x4x4x2xf32> -> tensor<1x1x1x2xf32>
  %y = kiln.deconvolution %d, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
       : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %g, %y : tensor<1x1x1x2xf32>, tensor<1x2x4x4xf32>
}
