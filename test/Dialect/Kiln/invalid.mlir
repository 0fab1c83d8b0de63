// RUN: kiln-opt %s --split-input-file --verify-diagnostics

// Bad forms of every kiln op and attribute, with the exact diagnostics.
func.func @conv_rank(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects input of rank >= 3 (N x C x spatial), got 4x4}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Channels last, the filter is R x S x C/groups x K: a filter in the
// channels-first order (K x C x R x S) does not fit.
func.func @conv_channels_last_filter(%x: tensor<1x8x8x4xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects filter dimension 1 to be input channels / groups = 4, got 3}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = #kiln<layout channels_last>} : (tensor<1x8x8x4xf32>, tensor<16x4x3x3xf32>) -> tensor<1x6x6x16xf32>
  return
}

// -----

// A layout that does not exist.
func.func @bad_layout(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+2 {{expected ::mlir::kiln::Layout to be one of: channels_first, channels_last}}
  // expected-error @+1 {{failed to parse Kiln_LayoutAttr parameter 'value' which is to be a `::mlir::kiln::Layout`}}
  %g = kiln.global_pool average %x {layout = #kiln<layout nhwc>} : tensor<1x8x8x4xf32> -> tensor<1x1x1x4xf32>
  return
}

// -----

func.func @conv_strides_len(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects 'strides' to have 2 entries, got 1}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_stride_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects 'strides' entries to be positive, got 0 at index 1}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_neg_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects 'pads' entries to be non-negative, got -1 at index 1}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects filter dimension 1 to be input channels / groups = 3, got 2}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects input channels (3) and output channels (4) to be divisible by groups (2)}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects 'groups' to be positive, got 0}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects bias to have shape 4, got 5}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_too_big(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects the dilated filter (3) to fit the padded input (2) in spatial dimension 0}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_eltype(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+2 {{'kiln.convolution' op expects filter to have the input's element type}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_int(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error @+1 {{'kiln.convolution' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<1x3x8x8xi32>'}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

func.func @conv_missing_attr(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.convolution' op requires attribute 'dilations'}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @deconv_filter(%x: tensor<1x8x4x4xf32>, %w: tensor<4x3x2x2xf32>) {
  // expected-error @+2 {{'kiln.deconvolution' op expects filter dimension 0 to equal input channels (8), got 4}}
  // expected-error @+1 {{'kiln.deconvolution' op failed to infer returned types}}
  %y = kiln.deconvolution %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<4x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @deconv_outpad(%x: tensor<1x8x4x4xf32>, %w: tensor<8x3x2x2xf32>) {
  // expected-error @+2 {{'kiln.deconvolution' op expects 'output_padding' entries to be smaller than the stride or the dilation, got 2 at index 0}}
  // expected-error @+1 {{'kiln.deconvolution' op failed to infer returned types}}
  %y = kiln.deconvolution %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 2, 0>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @deconv_pads(%x: tensor<1x8x4x4xf32>, %w: tensor<8x3x2x2xf32>) {
  // expected-error @+2 {{'kiln.deconvolution' op expects pads to leave a positive output extent in spatial dimension 0}}
  // expected-error @+1 {{'kiln.deconvolution' op failed to infer returned types}}
  %y = kiln.deconvolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 3, 0, 3, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_window_len(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'kiln.pool' op expects 'window' to have 2 entries, got 1}}
  // expected-error @+1 {{'kiln.pool' op failed to infer returned types}}
  %y = kiln.pool max %x {window = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_pad_window(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'kiln.pool' op expects pads to be smaller than the window extent (2) in spatial dimension 0}}
  // expected-error @+1 {{'kiln.pool' op failed to infer returned types}}
  %y = kiln.pool max %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x5x4xf32>
  return
}

// -----

func.func @pool_count_pad(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.pool' op 'count_include_pad' applies to average pooling only}}
  %y = kiln.pool max %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'kiln.pool' op inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x3x3xf32>'}}
  // expected-error @+1 {{'kiln.pool' op failed to infer returned types}}
  %y = kiln.pool average %x {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x3x8x8xf32> -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<3x8xf32>) {
  // expected-error @+2 {{'kiln.global_pool' op expects input of rank >= 3 (N x C x spatial), got 3x8}}
  // expected-error @+1 {{'kiln.global_pool' op failed to infer returned types}}
  %y = kiln.global_pool max %x : tensor<3x8xf32> -> tensor<3x1xf32>
  return
}

// -----

func.func @fc_weight(%x: tensor<2x5x4xf32>, %w: tensor<10x21xf32>) {
  // expected-error @+2 {{'kiln.fully_connected' op expects weight of shape K x 20 (the input flattened from axis 1), got 10x21}}
  // expected-error @+1 {{'kiln.fully_connected' op failed to infer returned types}}
  %y = kiln.fully_connected %x, %w : (tensor<2x5x4xf32>, tensor<10x21xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @fc_axis(%x: tensor<2x5x4xf32>, %w: tensor<10x20xf32>) {
  // expected-error @+2 {{'kiln.fully_connected' op expects 'axis' in [0, 3), got 3}}
  // expected-error @+1 {{'kiln.fully_connected' op failed to infer returned types}}
  %y = kiln.fully_connected %x, %w {axis = 3 : i64} : (tensor<2x5x4xf32>, tensor<10x20xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @fc_bias(%x: tensor<2x5x4xf32>, %w: tensor<10x20xf32>, %b: tensor<2x10xf32>) {
  // expected-error @+2 {{'kiln.fully_connected' op expects bias to have shape 10, got 2x10}}
  // expected-error @+1 {{'kiln.fully_connected' op failed to infer returned types}}
  %y = kiln.fully_connected %x, %w, %b : (tensor<2x5x4xf32>, tensor<10x20xf32>, tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{'kiln.matmul' op expects operands of rank >= 2, got 4 and 4x3}}
  // expected-error @+1 {{'kiln.matmul' op failed to infer returned types}}
  %y = kiln.matmul %a, %b : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<2x4xf32>, %b: tensor<5x3xf32>) {
  // expected-error @+2 {{'kiln.matmul' op expects contracted dimensions to match, got 4 and 5}}
  // expected-error @+1 {{'kiln.matmul' op failed to infer returned types}}
  %y = kiln.matmul %a, %b : (tensor<2x4xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x4xf32>, %b: tensor<3x4x3xf32>) {
  // expected-error @+2 {{'kiln.matmul' op expects batch dimensions that broadcast, got 2 and 3}}
  // expected-error @+1 {{'kiln.matmul' op failed to infer returned types}}
  %y = kiln.matmul %a, %b : (tensor<2x2x4xf32>, tensor<3x4x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @matmul_types(%a: tensor<2x4xf32>, %b: tensor<4x3xf16>) {
  // expected-error @+2 {{'kiln.matmul' op expects operands of one element type}}
  // expected-error @+1 {{'kiln.matmul' op failed to infer returned types}}
  %y = kiln.matmul %a, %b : (tensor<2x4xf32>, tensor<4x3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<1x2x4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{'kiln.gemm' op expects matrices, got 1x2x4 and 4x3}}
  // expected-error @+1 {{'kiln.gemm' op failed to infer returned types}}
  %y = kiln.gemm %a, %b : (tensor<1x2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) {
  // expected-error @+2 {{'kiln.gemm' op expects c to broadcast to 2x3, got 4}}
  // expected-error @+1 {{'kiln.gemm' op failed to infer returned types}}
  %y = kiln.gemm %a, %b, %c : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @act_missing_alpha(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.activation' op 'leaky_relu' requires attribute 'alpha'}}
  %y = kiln.activation leaky_relu %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @act_extra_alpha(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.activation' op 'relu' does not take attribute 'alpha'}}
  %y = kiln.activation relu %x {alpha = 1.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @act_missing_beta(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.activation' op 'clip' requires attribute 'beta'}}
  %y = kiln.activation clip %x {alpha = 0.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @act_clip_order(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.activation' op 'clip' expects alpha (min) <= beta (max)}}
  %y = kiln.activation clip %x {alpha = 6.0 : f32, beta = 0.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @act_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.activation' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xi32>'}}
  %y = kiln.activation relu %x : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @act_result(%x: tensor<4xf32>) {
  // expected-error @+2 {{'kiln.activation' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'kiln.activation' op failed to infer returned types}}
  %y = kiln.activation relu %x : tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

func.func @act_bad_kind(%x: tensor<4xf32>) {
  // expected-error @+2 {{custom op 'kiln.activation' expected ::mlir::kiln::ActivationKind to be one of: relu, leaky_relu, sigmoid, tanh, elu, selu, softplus, softsign, clip, hard_sigmoid, gelu_erf, gelu_tanh, scaled_tanh, thresholded_relu, hard_swish}}
  // expected-error @+1 {{custom op 'kiln.activation' failed to parse Kiln_ActivationKindAttr parameter 'value' which is to be a `::mlir::kiln::ActivationKind`}}
  %y = kiln.activation swish %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @unary_not(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.unary' op 'not' expects integer elements}}
  %y = kiln.unary not %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @unary_exp_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.unary' op 'exp' expects floating-point elements}}
  %y = kiln.unary exp %x : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @unary_abs_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'kiln.unary' op 'abs' expects numeric elements}}
  %y = kiln.unary abs %x : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{'kiln.binary' op expects operands that broadcast, got 2x3 and 2}}
  // expected-error @+1 {{'kiln.binary' op failed to infer returned types}}
  %y = kiln.binary add %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{'kiln.binary' op requires the same element type for all operands}}
  %y = kiln.binary add %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_compare_result(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.binary' op inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'kiln.binary' op failed to infer returned types}}
  %y = kiln.binary equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @binary_and(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.binary' op 'and' expects integer elements}}
  %y = kiln.binary and %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @binary_mod_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'kiln.binary' op 'mod' expects numeric elements}}
  %y = kiln.binary mod %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @binary_pow_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'kiln.binary' op 'pow' expects numeric elements}}
  %y = kiln.binary pow %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @binary_add_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'kiln.binary' op 'add' expects numeric elements}}
  %y = kiln.binary add %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @select_types(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+2 {{'kiln.select' op expects on_true and on_false of one element type}}
  // expected-error @+1 {{'kiln.select' op failed to infer returned types}}
  %y = kiln.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @select_broadcast(%c: tensor<2xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.select' op expects operands that broadcast, got 2, 3 and 3}}
  // expected-error @+1 {{'kiln.select' op failed to infer returned types}}
  %y = kiln.select %c, %a, %b : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @scale_uniform(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.scale' op expects scale to have shape 1, got 3}}
  // expected-error @+1 {{'kiln.scale' op failed to infer returned types}}
  %y = kiln.scale uniform %x scale(%s) : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @scale_channel(%x: tensor<1x3x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+2 {{'kiln.scale' op expects shift to have shape 3, got 4}}
  // expected-error @+1 {{'kiln.scale' op failed to infer returned types}}
  %y = kiln.scale channel %x shift(%s) : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @scale_axis(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.scale' op expects 'channel_axis' in [0, 4), got 4}}
  // expected-error @+1 {{'kiln.scale' op failed to infer returned types}}
  %y = kiln.scale channel %x shift(%s) {channel_axis = 4 : i64} : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op expects the result to have the input's shape 4, got 5}}
  %y = kiln.cast %x : tensor<4xf32> to tensor<5xf16>
  return
}

// -----

func.func @cast_unsupported(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer or 1-bit signless integer or f8E4M3FN type or f8E4M3FNUZ type or f8E5M2 type or f8E5M2FNUZ type or f4E2M1FN type or 4-bit signless integer or 4-bit unsigned integer or 2-bit signless integer or 2-bit unsigned integer values, but got 'tensor<4xi3>'}}
  %y = kiln.cast %x : tensor<4xf32> to tensor<4xi3>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.softmax' op expects 'axis' in [0, 2), got 2}}
  // expected-error @+1 {{'kiln.softmax' op failed to infer returned types}}
  %y = kiln.softmax %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.log_softmax' op expects 'axis' in [0, 2), got -1}}
  // expected-error @+1 {{'kiln.log_softmax' op failed to infer returned types}}
  %y = kiln.log_softmax %x {axis = -1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @lrn_size(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{'kiln.lrn' op expects 'size' to be positive, got 0}}
  // expected-error @+1 {{'kiln.lrn' op failed to infer returned types}}
  %y = kiln.lrn %x {size = 0 : i64, alpha = 1.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_params(%x: tensor<1x3x4x4xf32>, %p: tensor<3xf32>, %q: tensor<4xf32>) {
  // expected-error @+2 {{'kiln.batch_norm' op expects variance to have shape 3, got 4}}
  // expected-error @+1 {{'kiln.batch_norm' op failed to infer returned types}}
  %y = kiln.batch_norm %x, %p, %p, %p, %q {epsilon = 1.0e-5 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<1x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.instance_norm' op expects input of rank >= 3 (N x C x ...), got 1x3}}
  // expected-error @+1 {{'kiln.instance_norm' op failed to infer returned types}}
  %y = kiln.instance_norm %x, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x5x8xf32>, %g: tensor<5xf32>) {
  // expected-error @+2 {{'kiln.layer_norm' op expects scale to broadcast to the normalized dimensions 8, got 5}}
  // expected-error @+1 {{'kiln.layer_norm' op failed to infer returned types}}
  %y = kiln.layer_norm %x, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x5x8xf32>, tensor<5xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @reduce_empty(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.reduce' op expects at least one axis to reduce}}
  // expected-error @+1 {{'kiln.reduce' op failed to infer returned types}}
  %y = kiln.reduce sum %x {axes = array<i64>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_dup(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.reduce' op expects 'axes' to be distinct, 1 appears twice}}
  // expected-error @+1 {{'kiln.reduce' op failed to infer returned types}}
  %y = kiln.reduce sum %x {axes = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_l2_int(%x: tensor<2x3xi32>) {
  // expected-error @+2 {{'kiln.reduce' op 'l2' expects floating-point elements}}
  // expected-error @+1 {{'kiln.reduce' op failed to infer returned types}}
  %y = kiln.reduce l2 %x {axes = array<i64: 1>} : tensor<2x3xi32> -> tensor<2xi32>
  return
}

// -----

func.func @concat_mismatch(%a: tensor<1x4x6xf32>, %b: tensor<1x2x5xf32>) {
  // expected-error @+2 {{'kiln.concat' op expects input 1 (1x2x5) to match input 0 (1x4x6) in every dimension but 1}}
  // expected-error @+1 {{'kiln.concat' op failed to infer returned types}}
  %y = kiln.concat %a, %b {axis = 1 : i64} : (tensor<1x4x6xf32>, tensor<1x2x5xf32>) -> tensor<1x6x6xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<1x4x6xf32>, %b: tensor<1x2x6xf32>) {
  // expected-error @+2 {{'kiln.concat' op expects 'axis' in [0, 3), got 3}}
  // expected-error @+1 {{'kiln.concat' op failed to infer returned types}}
  %y = kiln.concat %a, %b {axis = 3 : i64} : (tensor<1x4x6xf32>, tensor<1x2x6xf32>) -> tensor<1x6x6xf32>
  return
}

// -----

func.func @concat_types(%a: tensor<1x4x6xf32>, %b: tensor<1x2x6xf16>) {
  // expected-error @+1 {{'kiln.concat' op requires the same element type for all operands}}
  %y = kiln.concat %a, %b {axis = 1 : i64} : (tensor<1x4x6xf32>, tensor<1x2x6xf16>) -> tensor<1x6x6xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.slice' op expects dimension 1 to read indices in [0, 8), but start 6, size 3, stride 1 leave it}}
  // expected-error @+1 {{'kiln.slice' op failed to infer returned types}}
  %y = kiln.slice %x {start = array<i64: 0, 6>, size = array<i64: 4, 3>, stride = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.slice' op expects non-zero 'stride' entries, got 0 at index 1}}
  // expected-error @+1 {{'kiln.slice' op failed to infer returned types}}
  %y = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 4, 3>, stride = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_len(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.slice' op expects 'start' to have 2 entries, got 1}}
  // expected-error @+1 {{'kiln.slice' op failed to infer returned types}}
  %y = kiln.slice %x {start = array<i64: 0>, size = array<i64: 4, 3>, stride = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.reshape' op expects the same number of elements, but 4x8 and 33 differ}}
  %y = kiln.reshape %x : tensor<4x8xf32> -> tensor<33xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.reshape' op expects the result to have the input's element type}}
  %y = kiln.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @flatten_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.flatten' op expects 'axis' in [0, 3), got 3}}
  // expected-error @+1 {{'kiln.flatten' op failed to infer returned types}}
  %y = kiln.flatten %x {axis = 3 : i64} : tensor<4x8xf32> -> tensor<32x1xf32>
  return
}

// -----

func.func @squeeze_dim(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.squeeze' op expects squeezed dimension 1 to have size 1, got 8}}
  // expected-error @+1 {{'kiln.squeeze' op failed to infer returned types}}
  %y = kiln.squeeze %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @unsqueeze_axes(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.unsqueeze' op expects 'axes' in [0, 3), got 3}}
  // expected-error @+1 {{'kiln.unsqueeze' op failed to infer returned types}}
  %y = kiln.unsqueeze %x {axes = array<i64: 3>} : tensor<4x8xf32> -> tensor<4x8x1xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.transpose' op expects 'permutation' to be distinct, 0 appears twice}}
  // expected-error @+1 {{'kiln.transpose' op failed to infer returned types}}
  %y = kiln.transpose %x {permutation = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @pad_len(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.pad' op expects 'pads' to have 4 entries, got 2}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %y = kiln.pad constant %x {pads = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<6x8xf32>
  return
}

// -----

func.func @pad_reflect(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.pad' op expects reflect pads smaller than the dimension (4) in dimension 0}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %y = kiln.pad reflect %x {pads = array<i64: 4, 0, 0, 0>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @pad_value(%x: tensor<4x8xi32>) {
  // expected-error @+2 {{'kiln.pad' op expects a pad value representable in the element type, got 0.5}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %y = kiln.pad constant %x {pads = array<i64: 1, 0, 0, 0>, value = 0.5} : tensor<4x8xi32> -> tensor<5x8xi32>
  return
}

// -----

func.func @pad_crop(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.pad' op expects pads to leave a non-negative extent in dimension 0}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %y = kiln.pad constant %x {pads = array<i64: -3, 0, -2, 0>} : tensor<4x8xf32> -> tensor<0x8xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'kiln.resize' op expects a result of the input's rank 4, got 3}}
  %y = kiln.resize nearest %x : tensor<1x3x4x4xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @resize_scales(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'kiln.resize' op expects result dimension 3 to be floor(4 * 3) = 12 (or that product rounded), got 8}}
  %y = kiln.resize nearest %x {scales = array<f32: 1.0, 1.0, 2.0, 3.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @resize_scales_len(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'kiln.resize' op expects 'scales' to have 4 entries, got 2}}
  %y = kiln.resize linear %x {scales = array<f32: 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'kiln.gather' op expects 'axis' in [0, 2), got 2}}
  // expected-error @+1 {{'kiln.gather' op failed to infer returned types}}
  %y = kiln.gather %x, %i {axis = 2 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gather_indices(%x: tensor<4x8xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %y = kiln.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'kiln.constant' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer or 1-bit signless integer or f8E4M3FN type or f8E4M3FNUZ type or f8E5M2 type or f8E5M2FNUZ type or f4E2M1FN type or 4-bit signless integer or 4-bit unsigned integer or 2-bit signless integer or 2-bit unsigned integer values, but got 'tensor<4xi3>'}}
  %y = kiln.constant dense<1> : tensor<4xi3>
  return
}

// -----

// expected-error @+1 {{'kiln.name' on argument 0 must be a non-empty string}}
func.func @name_empty(%x: tensor<2xf32> {kiln.name = ""}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'kiln.name' on result 0 must be a non-empty string}}
func.func @name_type(%x: tensor<2xf32>) -> (tensor<2xf32> {kiln.name = 3 : i64}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{unknown kiln argument attribute 'kiln.layout'}}
func.func @unknown_attr(%x: tensor<2xf32> {kiln.layout = "nchw"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.cumsum' op expects 'axis' in [0, 2), got -1}}
  // expected-error @+1 {{'kiln.cumsum' op failed to infer returned types}}
  %y = kiln.cumsum %x {axis = -1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @arg_reduce_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.arg_reduce' op expects 'axis' in [0, 2), got 2}}
  // expected-error @+1 {{'kiln.arg_reduce' op failed to infer returned types}}
  %y = kiln.arg_reduce max %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @arg_reduce_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'kiln.arg_reduce' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xi1>'}}
  %y = kiln.arg_reduce max %x {axis = 0 : i64} : tensor<3xi1> -> tensor<i64>
  return
}

// -----

func.func @arg_reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.arg_reduce' op result #0 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %y = kiln.arg_reduce min %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'kiln.gather_elements' op expects indices of the data's rank 2, got 3}}
  // expected-error @+1 {{'kiln.gather_elements' op failed to infer returned types}}
  %y = kiln.gather_elements %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_dim(%x: tensor<4x8xf32>, %i: tensor<2x9xi64>) {
  // expected-error @+2 {{'kiln.gather_elements' op expects indices dimension 1 (9) not to exceed the data's (8)}}
  // expected-error @+1 {{'kiln.gather_elements' op failed to infer returned types}}
  %y = kiln.gather_elements %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2x9xi64>) -> tensor<2x9xf32>
  return
}

// -----

func.func @average_pool_int(%x: tensor<1x1x4x4xi32>) {
  // expected-error @+1 {{'kiln.pool' op average pooling expects floating-point elements}}
  %y = kiln.pool average %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>
  return
}

// -----

func.func @plugin_no_name(%x: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.plugin' op expects a plugin name}}
  %y = kiln.plugin "" (%x) {fields = {}} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @plugin_field_kind(%x: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.plugin' op expects field 'slope' to be an array<i64>, an array<f64> or a string, got 1.000000e-01 : f32}}
  %y = kiln.plugin "LReLU_TRT" (%x) {fields = {slope = 0.1 : f32}} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @plugin_workspace(%x: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.plugin' op expects a workspace of at least 0 bytes, got -4}}
  %y = kiln.plugin "LReLU_TRT" (%x) {fields = {}, workspace = -4} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @plugin_no_result(%x: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.plugin' op expects at least one result}}
  kiln.plugin "Sink" (%x) {fields = {}} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @iota_dimension() {
  // expected-error @+1 {{'kiln.iota' op dimension 2 is out of range for a result of rank 2}}
  %y = kiln.iota {dimension = 2 : i64, start = 0 : i64, step = 1 : i64} : tensor<4x8xi64>
  return
}

// -----

func.func @iota_start_type() {
  // expected-error @+1 {{'kiln.iota' op expects start as 'f64' for a result of 'f32'}}
  %y = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @iota_step_type() {
  // expected-error @+1 {{'kiln.iota' op expects step as 'i64' for a result of 'i32'}}
  %y = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1 : i32} : tensor<4xi32>
  return
}

// -----

func.func @iota_result_type() {
  // expected-error @+1 {{'kiln.iota' op result #0 must be ranked tensor of}}
  %y = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1 : i64} : tensor<4xi1>
  return
}
