func.func @conv_bn(%x: tensor<1x1x1x1xf32>) -> tensor<1x4000000000x1x1xf32> {
  %w = kiln.constant dense<1.0> : tensor<4000000000x1x1x1xf32>
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x1x1x1xf32>, tensor<4000000000x1x1x1xf32>) -> tensor<1x4000000000x1x1xf32>
  %s = kiln.constant dense<4.0> : tensor<4000000000xf32>
  %t = kiln.constant dense<5.0> : tensor<4000000000xf32>
  %m = kiln.constant dense<1.0> : tensor<4000000000xf32>
  %v = kiln.constant dense<3.0> : tensor<4000000000xf32>
  %y = kiln.batch_norm %c, %s, %t, %m, %v {epsilon = 1.0 : f32}
       : (tensor<1x4000000000x1x1xf32>, tensor<4000000000xf32>, tensor<4000000000xf32>, tensor<4000000000xf32>, tensor<4000000000xf32>) -> tensor<1x4000000000x1x1xf32>
  return %y : tensor<1x4000000000x1x1xf32>
}
