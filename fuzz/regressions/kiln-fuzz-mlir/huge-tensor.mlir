func.func @huge(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %y = kiln.activation relu %x : tensor<4611686018427387904x4xf32> -> tensor<4611686018427387904x4xf32>
  return %y : tensor<4611686018427387904x4xf32>
}
