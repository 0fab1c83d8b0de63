func.func @fully_connected(%x: tensor<4x2xf32>) -> (tensor<4x3000000000xf32>, tensor<4x1xf32>) {
  %w1 = kiln.constant dense<1.0> : tensor<3000000000x2xf32>
  %b1 = kiln.constant dense<0.1> : tensor<3000000000xf32>
  %w2 = kiln.constant dense<[[5.0, 6.0]]> : tensor<1x2xf32>
  %b2 = kiln.constant dense<[0.3]> : tensor<1xf32>
  %y1 = kiln.fully_connected %x, %w1, %b1 : (tensor<4x2xf32>, tensor<3000000000x2xf32>, tensor<3000000000xf32>) -> tensor<4x3000000000xf32>
  %y2 = kiln.fully_connected %x, %w2, %b2 : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  return %y1, %y2 : tensor<4x3000000000xf32>, tensor<4x1xf32>
}
