func.func @overflow(%a: memref<4611686018427387904x4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<4611686018427387904x4xf32>)
  return
}
