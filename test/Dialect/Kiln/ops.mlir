// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Every kiln op round-trips through its custom form and the generic form.

// CHECK-LABEL: func.func @weights
func.func @weights() -> (tensor<2x3xf32>, tensor<4xi64>, tensor<2xbf16>, tensor<3xi1>) {
  // CHECK: kiln.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
  %0 = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  // CHECK: kiln.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %1 = kiln.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  // CHECK: kiln.constant dense_resource<blob> : tensor<2xbf16>
  %2 = kiln.constant dense_resource<blob> : tensor<2xbf16>
  // CHECK: kiln.constant dense<[true, false, true]> : tensor<3xi1>
  %3 = kiln.constant dense<[true, false, true]> : tensor<3xi1>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<4xi64>, tensor<2xbf16>, tensor<3xi1>
}

// CHECK-LABEL: func.func @conv_pool
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x32x32xf16>, %[[W:.+]]: tensor<8x3x3x3xf16>, %[[B:.+]]: tensor<8xf16>, %[[DW:.+]]: tensor<8x1x3x3xf16>, %[[TW:.+]]: tensor<8x4x2x2xf16>)
func.func @conv_pool(%x: tensor<1x3x32x32xf16>, %w: tensor<8x3x3x3xf16>, %b: tensor<8xf16>,
                     %dw: tensor<8x1x3x3xf16>, %tw: tensor<8x4x2x2xf16>) -> tensor<1x8x1x1xf16> {
  // CHECK: %[[C:.+]] = kiln.convolution %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x32x32xf16>, tensor<8x3x3x3xf16>, tensor<8xf16>) -> tensor<1x8x32x32xf16>
  %c = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x32x32xf16>, tensor<8x3x3x3xf16>, tensor<8xf16>) -> tensor<1x8x32x32xf16>
  // CHECK: %[[D:.+]] = kiln.convolution %[[C]], %[[DW]] {dilations = array<i64: 2, 2>, groups = 8 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf16>, tensor<8x1x3x3xf16>) -> tensor<1x8x14x14xf16>
  %d = kiln.convolution %c, %dw {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 8 : i64}
       : (tensor<1x8x32x32xf16>, tensor<8x1x3x3xf16>) -> tensor<1x8x14x14xf16>
  // CHECK: %[[T:.+]] = kiln.deconvolution %[[D]], %[[TW]] {dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x14x14xf16>, tensor<8x4x2x2xf16>) -> tensor<1x8x29x29xf16>
  %t = kiln.deconvolution %d, %tw {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 2 : i64}
       : (tensor<1x8x14x14xf16>, tensor<8x4x2x2xf16>) -> tensor<1x8x29x29xf16>
  // CHECK: %[[P:.+]] = kiln.pool  max %[[T]] {ceil_mode = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : tensor<1x8x29x29xf16> -> tensor<1x8x14x14xf16>
  %p = kiln.pool max %t {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true}
       : tensor<1x8x29x29xf16> -> tensor<1x8x14x14xf16>
  // CHECK: %[[A:.+]] = kiln.pool  average %[[P]] {count_include_pad = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : tensor<1x8x14x14xf16> -> tensor<1x8x14x14xf16>
  %a = kiln.pool average %p {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = true}
       : tensor<1x8x14x14xf16> -> tensor<1x8x14x14xf16>
  // CHECK: kiln.global_pool  average %[[A]] : tensor<1x8x14x14xf16> -> tensor<1x8x1x1xf16>
  %g = kiln.global_pool average %a : tensor<1x8x14x14xf16> -> tensor<1x8x1x1xf16>
  return %g : tensor<1x8x1x1xf16>
}

// Channels last: N x H x W x C, the filter R x S x C/groups x K.
// CHECK-LABEL: func.func @channels_last
func.func @channels_last(%x: tensor<1x14x14x8xf32>, %w: tensor<3x3x4x6xf32>, %b: tensor<6xf32>) -> tensor<1x1x1x6xf32> {
  // CHECK: kiln.convolution %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, groups = 2 : i64, layout = #kiln<layout channels_last>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x14x14x8xf32>, tensor<3x3x4x6xf32>, tensor<6xf32>) -> tensor<1x7x7x6xf32>
  %c = kiln.convolution %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64, layout = #kiln<layout channels_last>}
       : (tensor<1x14x14x8xf32>, tensor<3x3x4x6xf32>, tensor<6xf32>) -> tensor<1x7x7x6xf32>
  // CHECK: kiln.pool  max %{{.+}} {{{.*}}layout = #kiln<layout channels_last>{{.*}}} : tensor<1x7x7x6xf32> -> tensor<1x3x3x6xf32>
  %p = kiln.pool max %c {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = #kiln<layout channels_last>}
       : tensor<1x7x7x6xf32> -> tensor<1x3x3x6xf32>
  // CHECK: kiln.global_pool  average %{{.+}} {layout = #kiln<layout channels_last>} : tensor<1x3x3x6xf32> -> tensor<1x1x1x6xf32>
  %g = kiln.global_pool average %p {layout = #kiln<layout channels_last>} : tensor<1x3x3x6xf32> -> tensor<1x1x1x6xf32>
  return %g : tensor<1x1x1x6xf32>
}

// CHECK-LABEL: func.func @conv1d_and_3d
func.func @conv1d_and_3d(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>,
                         %v: tensor<1x2x4x4x4xf32>, %k: tensor<2x2x2x2x2xf32>) -> (tensor<2x6x8xf32>, tensor<1x2x3x3x3xf32>) {
  // CHECK: kiln.convolution {{.*}} -> tensor<2x6x8xf32>
  %0 = kiln.convolution %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
  // CHECK: kiln.convolution {{.*}} -> tensor<1x2x3x3x3xf32>
  %1 = kiln.convolution %v, %k {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>}
       : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x3x3x3xf32>
  return %0, %1 : tensor<2x6x8xf32>, tensor<1x2x3x3x3xf32>
}

// CHECK-LABEL: func.func @matrices
func.func @matrices(%x: tensor<2x5x4x4xf32>, %w: tensor<10x80xf32>, %b: tensor<10xf32>,
                    %q: tensor<12x128x64xbf16>, %k: tensor<1x128x64xbf16>,
                    %a: tensor<3x4xf32>, %bb: tensor<5x4xf32>, %c: tensor<5xf32>)
    -> (tensor<2x10xf32>, tensor<12x128x128xbf16>, tensor<3x5xf32>, tensor<2x5x4x7xf32>) {
  // CHECK: kiln.fully_connected %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x5x4x4xf32>, tensor<10x80xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %0 = kiln.fully_connected %x, %w, %b : (tensor<2x5x4x4xf32>, tensor<10x80xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  // CHECK: kiln.matmul %{{.+}}, %{{.+}} {transpose_rhs = true} : (tensor<12x128x64xbf16>, tensor<1x128x64xbf16>) -> tensor<12x128x128xbf16>
  %1 = kiln.matmul %q, %k {transpose_rhs = true} : (tensor<12x128x64xbf16>, tensor<1x128x64xbf16>) -> tensor<12x128x128xbf16>
  // CHECK: kiln.gemm %{{.+}}, %{{.+}}, %{{.+}} {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transpose_b = true} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %2 = kiln.gemm %a, %bb, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transpose_b = true}
       : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  // CHECK: kiln.fully_connected {{.*}} {axis = 3 : i64} : (tensor<2x5x4x4xf32>, tensor<7x4xf32>) -> tensor<2x5x4x7xf32>
  %w2 = kiln.constant dense<1.0> : tensor<7x4xf32>
  %3 = kiln.fully_connected %x, %w2 {axis = 3 : i64} : (tensor<2x5x4x4xf32>, tensor<7x4xf32>) -> tensor<2x5x4x7xf32>
  return %0, %1, %2, %3 : tensor<2x10xf32>, tensor<12x128x128xbf16>, tensor<3x5xf32>, tensor<2x5x4x7xf32>
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: kiln.activation  relu %{{.+}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %0 = kiln.activation relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  leaky_relu %{{.+}} {alpha = 0.00999999977 : f32}
  %1 = kiln.activation leaky_relu %0 {alpha = 0.01 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  sigmoid
  %2 = kiln.activation sigmoid %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  tanh
  %3 = kiln.activation tanh %2 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  elu %{{.+}} {alpha = 1.000000e+00 : f32}
  %4 = kiln.activation elu %3 {alpha = 1.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  selu %{{.+}} {alpha = 1.67326319 : f32, beta = 1.05070102 : f32}
  %5 = kiln.activation selu %4 {alpha = 1.67326319 : f32, beta = 1.05070102 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  softplus
  %6 = kiln.activation softplus %5 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  softsign
  %7 = kiln.activation softsign %6 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  clip %{{.+}} {alpha = 0.000000e+00 : f32, beta = 6.000000e+00 : f32}
  %8 = kiln.activation clip %7 {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  hard_sigmoid %{{.+}} {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
  %9 = kiln.activation hard_sigmoid %8 {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  gelu_erf
  %10 = kiln.activation gelu_erf %9 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  gelu_tanh
  %11 = kiln.activation gelu_tanh %10 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  scaled_tanh %{{.+}} {alpha = 1.715900e+00 : f32, beta = 0.666666686 : f32}
  %12 = kiln.activation scaled_tanh %11 {alpha = 1.7159 : f32, beta = 0.666666686 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  thresholded_relu %{{.+}} {alpha = 1.000000e+00 : f32}
  %13 = kiln.activation thresholded_relu %12 {alpha = 1.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: kiln.activation  hard_swish
  %14 = kiln.activation hard_swish %13 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %14 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x3xi32>, %m: tensor<2x1xi1>)
    -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf16>, tensor<2x3xi1>) {
  // CHECK: kiln.unary  exp %{{.+}} : tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = kiln.unary exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: kiln.unary  erf
  %1 = kiln.unary erf %0 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: kiln.binary  add %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = kiln.binary add %1, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.binary  less %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = kiln.binary less %2, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: kiln.binary  mod %{{.+}}, %{{.+}} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %4 = kiln.binary mod %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK: kiln.unary  abs %{{.+}} : tensor<2x3xi32> -> tensor<2x3xi32>
  %5 = kiln.unary abs %4 : tensor<2x3xi32> -> tensor<2x3xi32>
  // CHECK: kiln.select %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = kiln.select %m, %2, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.cast %{{.+}} : tensor<2x3xf32> to tensor<2x3xf16>
  %7 = kiln.cast %6 : tensor<2x3xf32> to tensor<2x3xf16>
  // CHECK: kiln.binary  and %{{.+}}, %{{.+}} : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %8 = kiln.binary and %3, %m : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  // CHECK: kiln.unary  not
  %9 = kiln.unary not %8 : tensor<2x3xi1> -> tensor<2x3xi1>
  return %2, %3, %5, %6, %7, %9 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf16>, tensor<2x3xi1>
}

// The storage types: float8 (saturate elided when true), float4 and the
// sub-byte integers.
// CHECK-LABEL: func.func @small_types
func.func @small_types(%x: tensor<4xf32>) -> (tensor<4xf8E4M3FN>, tensor<4xf8E5M2>, tensor<4xf4E2M1FN>, tensor<2x2xi4>, tensor<4xui2>) {
  // CHECK: kiln.cast %{{.+}} {saturate = false} : tensor<4xf32> to tensor<4xf8E4M3FN>
  %0 = kiln.cast %x {saturate = false} : tensor<4xf32> to tensor<4xf8E4M3FN>
  // CHECK: kiln.cast %{{.+}} : tensor<4xf32> to tensor<4xf8E5M2>
  %1 = kiln.cast %x {saturate = true} : tensor<4xf32> to tensor<4xf8E5M2>
  // CHECK: kiln.cast %{{.+}} : tensor<4xf8E5M2> to tensor<4xf4E2M1FN>
  %2 = kiln.cast %1 : tensor<4xf8E5M2> to tensor<4xf4E2M1FN>
  %3 = kiln.cast %x : tensor<4xf32> to tensor<4xi4>
  // CHECK: kiln.reshape %{{.+}} : tensor<4xi4> -> tensor<2x2xi4>
  %4 = kiln.reshape %3 : tensor<4xi4> -> tensor<2x2xi4>
  // CHECK: kiln.cast %{{.+}} : tensor<4xf32> to tensor<4xui2>
  %5 = kiln.cast %x : tensor<4xf32> to tensor<4xui2>
  return %0, %1, %2, %4, %5 : tensor<4xf8E4M3FN>, tensor<4xf8E5M2>, tensor<4xf4E2M1FN>, tensor<2x2xi4>, tensor<4xui2>
}

// CHECK-LABEL: func.func @scale
func.func @scale(%x: tensor<1x3x4x4xf32>, %u: tensor<1xf32>, %c: tensor<3xf32>, %e: tensor<48xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: kiln.scale  uniform %{{.+}} scale(%{{.+}}) : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
  %0 = kiln.scale uniform %x scale(%u) : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: kiln.scale  channel %{{.+}} shift(%{{.+}}) scale(%{{.+}}) power(%{{.+}}) : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %1 = kiln.scale channel %0 shift(%c) scale(%c) power(%c) : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: kiln.scale  elementwise %{{.+}} shift(%{{.+}}) : (tensor<1x3x4x4xf32>, tensor<48xf32>) -> tensor<1x3x4x4xf32>
  %2 = kiln.scale elementwise %1 shift(%e) : (tensor<1x3x4x4xf32>, tensor<48xf32>) -> tensor<1x3x4x4xf32>
  return %2 : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>, %t: tensor<2x5x8xf32>, %g: tensor<8xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) {
  // CHECK: kiln.batch_norm %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {epsilon = 9.99999974E-6 : f32}
  %0 = kiln.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32}
       : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: kiln.instance_norm
  %1 = kiln.instance_norm %0, %p, %p {epsilon = 1.0e-5 : f32}
       : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: kiln.lrn %{{.+}} {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64}
  %2 = kiln.lrn %1 {size = 3 : i64, alpha = 1.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  // CHECK: kiln.layer_norm %{{.+}}, %{{.+}}, %{{.+}} {axis = 2 : i64, epsilon = 9.99999996E-13 : f32}
  %3 = kiln.layer_norm %t, %g, %g {axis = 2 : i64, epsilon = 1.0e-12 : f32}
       : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  // CHECK: kiln.layer_norm %{{.+}}, %{{.+}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %4 = kiln.layer_norm %3, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  // CHECK: kiln.softmax %{{.+}} {axis = 2 : i64}
  %5 = kiln.softmax %4 {axis = 2 : i64} : tensor<2x5x8xf32> -> tensor<2x5x8xf32>
  // CHECK: kiln.log_softmax %{{.+}} {axis = 0 : i64}
  %6 = kiln.log_softmax %5 {axis = 0 : i64} : tensor<2x5x8xf32> -> tensor<2x5x8xf32>
  return %2, %4, %5, %6 : tensor<2x3x4x4xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi64>) -> (tensor<2x1x1xf32>, tensor<3xf32>, tensor<2xi64>) {
  // CHECK: kiln.reduce  mean %{{.+}} {axes = array<i64: 1, 2>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  %0 = kiln.reduce mean %x {axes = array<i64: 1, 2>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  // CHECK: kiln.reduce  log_sum_exp %{{.+}} {axes = array<i64: 2, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = kiln.reduce log_sum_exp %x {axes = array<i64: 2, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: kiln.reduce  max %{{.+}} {axes = array<i64: 1>} : tensor<2x3xi64> -> tensor<2xi64>
  %2 = kiln.reduce max %i {axes = array<i64: 1>} : tensor<2x3xi64> -> tensor<2xi64>
  return %0, %1, %2 : tensor<2x1x1xf32>, tensor<3xf32>, tensor<2xi64>
}

// CHECK-LABEL: func.func @arg_reductions
func.func @arg_reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>) -> (tensor<2x4xi64>, tensor<1xi64>) {
  // CHECK: kiln.arg_reduce  max %{{.+}} {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x4xi64>
  %0 = kiln.arg_reduce max %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x4xi64>
  // CHECK: kiln.arg_reduce  min %{{.+}} {axis = 0 : i64, keep_dims = true, select_last_index = true} : tensor<5xi32> -> tensor<1xi64>
  %1 = kiln.arg_reduce min %i {axis = 0 : i64, keep_dims = true, select_last_index = true} : tensor<5xi32> -> tensor<1xi64>
  return %0, %1 : tensor<2x4xi64>, tensor<1xi64>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<1x8xi64>, %f: tensor<2x3xf32>) -> (tensor<1x8xi64>, tensor<2x3xf32>) {
  // CHECK: kiln.cumsum %{{.+}} {axis = 1 : i64} : tensor<1x8xi64> -> tensor<1x8xi64>
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<1x8xi64> -> tensor<1x8xi64>
  // CHECK: kiln.cumsum %{{.+}} {axis = 0 : i64, exclusive = true, reverse = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = kiln.cumsum %f {axis = 0 : i64, exclusive = true, reverse = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<1x8xi64>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<1x4x6x6xf32>, %y: tensor<1x2x6x6xf32>, %ids: tensor<3x2xi32>)
    -> (tensor<1x6x6x6xf32>, tensor<1x2x3x6xf32>, tensor<1x144xf32>, tensor<8x9xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x8x8xf32>, tensor<1x4x12x12xf32>, tensor<3x2x4x6x6xf32>) {
  // CHECK: kiln.concat %{{.+}}, %{{.+}} {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x6x6x6xf32>
  %0 = kiln.concat %x, %y {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x6x6x6xf32>
  // CHECK: kiln.slice %{{.+}} {size = array<i64: 1, 2, 3, 6>, start = array<i64: 0, 3, 4, 0>, stride = array<i64: 1, -2, -2, 1>} : tensor<1x4x6x6xf32> -> tensor<1x2x3x6xf32>
  %1 = kiln.slice %x {start = array<i64: 0, 3, 4, 0>, size = array<i64: 1, 2, 3, 6>, stride = array<i64: 1, -2, -2, 1>}
       : tensor<1x4x6x6xf32> -> tensor<1x2x3x6xf32>
  // CHECK: kiln.reshape %{{.+}} : tensor<1x4x6x6xf32> -> tensor<1x144xf32>
  %2 = kiln.reshape %x : tensor<1x4x6x6xf32> -> tensor<1x144xf32>
  // CHECK: kiln.flatten %{{.+}} {axis = 2 : i64} : tensor<1x2x6x6xf32> -> tensor<2x36xf32>
  %3 = kiln.flatten %y {axis = 2 : i64} : tensor<1x2x6x6xf32> -> tensor<2x36xf32>
  // CHECK: kiln.unsqueeze %{{.+}} {axes = array<i64: 0, 3>} : tensor<2x36xf32> -> tensor<1x2x36x1xf32>
  %4 = kiln.unsqueeze %3 {axes = array<i64: 0, 3>} : tensor<2x36xf32> -> tensor<1x2x36x1xf32>
  // CHECK: kiln.squeeze %{{.+}} {axes = array<i64: 3, 0>} : tensor<1x2x36x1xf32> -> tensor<2x36xf32>
  %5 = kiln.squeeze %4 {axes = array<i64: 3, 0>} : tensor<1x2x36x1xf32> -> tensor<2x36xf32>
  %6 = kiln.reshape %5 : tensor<2x36xf32> -> tensor<8x9xf32>
  // CHECK: kiln.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32> -> tensor<1x6x6x4xf32>
  %7 = kiln.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32> -> tensor<1x6x6x4xf32>
  // CHECK: kiln.pad  reflect %{{.+}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x4x6x6xf32> -> tensor<1x4x8x8xf32>
  %8 = kiln.pad reflect %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x4x6x6xf32> -> tensor<1x4x8x8xf32>
  // CHECK: kiln.pad  constant %{{.+}} {pads = array<i64: 0, 0, -1, 0, 0, 0, 0, 1>, value = -1.500000e+00 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x7x9xf32>
  %9 = kiln.pad constant %8 {pads = array<i64: 0, 0, -1, 0, 0, 0, 0, 1>, value = -1.5} : tensor<1x4x8x8xf32> -> tensor<1x4x7x9xf32>
  // CHECK: kiln.resize  nearest %{{.+}} {coordinate_transform = #kiln<coordinate_transform asymmetric>, nearest_rounding = #kiln<nearest_rounding floor>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x4x6x6xf32> -> tensor<1x4x12x12xf32>
  %10 = kiln.resize nearest %x {coordinate_transform = #kiln<coordinate_transform asymmetric>,
                                nearest_rounding = #kiln<nearest_rounding floor>,
                                scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x4x6x6xf32> -> tensor<1x4x12x12xf32>
  // CHECK: kiln.resize  linear %{{.+}} : tensor<1x4x6x6xf32> -> tensor<1x4x8x8xf32>
  %11 = kiln.resize linear %x : tensor<1x4x6x6xf32> -> tensor<1x4x8x8xf32>
  // CHECK: kiln.gather_elements %{{.+}}, %{{.+}} {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<1x2x6x6xi64>) -> tensor<1x2x6x6xf32>
  %ge_idx = kiln.constant dense<1> : tensor<1x2x6x6xi64>
  %ge = kiln.gather_elements %x, %ge_idx {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<1x2x6x6xi64>) -> tensor<1x2x6x6xf32>
  // CHECK: kiln.gather %{{.+}}, %{{.+}} {axis = 0 : i64} : (tensor<1x4x6x6xf32>, tensor<3x2xi32>) -> tensor<3x2x4x6x6xf32>
  %12 = kiln.gather %x, %ids {axis = 0 : i64} : (tensor<1x4x6x6xf32>, tensor<3x2xi32>) -> tensor<3x2x4x6x6xf32>
  return %0, %1, %2, %6, %7, %11, %10, %12 : tensor<1x6x6x6xf32>, tensor<1x2x3x6xf32>, tensor<1x144xf32>, tensor<8x9xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x8x8xf32>, tensor<1x4x12x12xf32>, tensor<3x2x4x6x6xf32>
}

// CHECK-LABEL: func.func @plugin
func.func @plugin(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<1x7xf32>, tensor<1xi32>) {
  // CHECK: kiln.plugin "LReLU_TRT"(%{{.*}}) {fields = {negSlope = array<f64: 1.000000e-01>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.plugin "Detect"(%{{.*}}, %{{.*}}) {fields = {mode = "fast", top = array<i64: 1, 2>}, plugin_namespace = "acme", version = "3", workspace = 1024 : i64} : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<1x7xf32>, tensor<1xi32>)
  %1:2 = kiln.plugin "Detect" (%x, %y) {fields = {top = array<i64: 1, 2>, mode = "fast"}, plugin_namespace = "acme", version = "3", workspace = 1024} : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<1x7xf32>, tensor<1xi32>)
  return %0, %1#0, %1#1 : tensor<2x3xf32>, tensor<1x7xf32>, tensor<1xi32>
}

// CHECK-LABEL: func.func @names
// CHECK-SAME: {kiln.name = "input.1"}
// CHECK-SAME: {kiln.name = "output"}
func.func @names(%x: tensor<2xf32> {kiln.name = "input.1"}) -> (tensor<2xf32> {kiln.name = "output"}) {
  return %x : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x02000000803F0040"
    }
  }
#-}

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<4x1xi64>, tensor<1024xf32>, tensor<3x2xi32>) {
  // CHECK: kiln.iota {dimension = 0 : i64, start = -2 : i64, step = 1 : i64} : tensor<4x1xi64>
  %0 = kiln.iota {dimension = 0 : i64, start = -2 : i64, step = 1 : i64} : tensor<4x1xi64>
  // CHECK: kiln.iota {dimension = 0 : i64, start = 5.000000e-01 : f64, step = 2.500000e-01 : f64} : tensor<1024xf32>
  %1 = kiln.iota {dimension = 0 : i64, start = 0.5 : f64, step = 0.25 : f64} : tensor<1024xf32>
  // CHECK: kiln.iota {dimension = 1 : i64, start = 0 : i64, step = 3 : i64} : tensor<3x2xi32>
  %2 = kiln.iota {dimension = 1 : i64, start = 0 : i64, step = 3 : i64} : tensor<3x2xi32>
  return %0, %1, %2 : tensor<4x1xi64>, tensor<1024xf32>, tensor<3x2xi32>
}
