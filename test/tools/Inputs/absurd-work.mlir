// Input of test/tools/absurd-work-warning.test.
#window = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @wide_pool(%x: tensor<1x1x4x4xf32>, %w: tensor<30000x30000xf32>,
                     %o: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-warning @+1 {{layer work of 14400000000 operations is absurd for the 32 elements it reads and writes (more than 2^20 operations an element and 2^32 in all)}}
  %0 = linalg.generic {indexing_maps = [#window, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%w : tensor<30000x30000xf32>) outs(%o : tensor<1x1x4x4xf32>) {
  ^bb0(%unused: f32, %acc: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c0 = arith.constant 0 : index
    %v = tensor.extract %x[%c0, %c0, %i, %j] : tensor<1x1x4x4xf32>
    %m = arith.maximumf %acc, %v : f32
    linalg.yield %m : f32
  } -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

func.func @big_matmul(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>,
                      %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>)
                     outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
