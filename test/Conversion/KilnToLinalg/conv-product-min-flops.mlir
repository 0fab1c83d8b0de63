// RUN: kiln-opt %s --split-input-file --kiln-convert-to-linalg=conv-product-min-flops=0 | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-convert-to-linalg=conv-product-min-flops=100000 | FileCheck %s --check-prefix=SMALL
// Convolutions as matrix products (for cuBLASLt). Their numbers are checked
// on the GPU against the ONNX backend tests and PyTorch (scripts/gpu-check.sh
// with --cublaslt-min-flops=0, benchmarks/networks.py).

// A strided, padded 3x3 convolution: its columns are gathered (im2col) by
// one generic that reads the input through the padding (zero outside), then
// the 4 x 27 filter multiplies each image's 27 x 9 columns, in f32 for f16
// values, rounded once.
// CHECK-DAG: #[[ID6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[D:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @im2col
// CHECK:       %[[G:.+]] = linalg.generic {indexing_maps = [#[[ID6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<2x3x3x3x3x3xf16>)
// CHECK:         tensor.extract %arg0
// CHECK:         arith.select
// CHECK:       tensor.expand_shape {{.*}} : tensor<486xf16> into tensor<2x27x9xf16>
// CHECK:       tensor.expand_shape {{.*}} : tensor<108xf16> into tensor<4x27xf16>
// CHECK:       %[[P:.+]] = linalg.generic {indexing_maps = [#[[W]], #[[C]], #[[D]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<4x27xf16>, tensor<2x27x9xf16>) outs(%{{.+}} : tensor<2x4x9xf32>)
// CHECK:         arith.extf
// CHECK:         arith.extf
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       linalg.generic {{.*}} ins(%[[P]] : tensor<2x4x9xf32>) outs(%{{.+}} : tensor<2x4x9xf16>)
// CHECK:         arith.truncf
// CHECK:       tensor.expand_shape {{.*}} into tensor<2x4x3x3xf16>
// Below the threshold (2 * 72 * 27 = 3888 operations): the direct form.
// SMALL-LABEL: func.func @im2col
// SMALL-NOT:   tensor<2x27x9xf16>
// SMALL:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @im2col(%x: tensor<2x3x5x5xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x3x3xf16> {
  %c = kiln.convolution %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : (tensor<2x3x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x3x3xf16>
  return %c : tensor<2x4x3x3xf16>
}

// -----

// A 1x1 convolution of stride 1: the input is its own columns (a reshape).
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT:   tensor.extract
// CHECK:       tensor.expand_shape %{{.+}} {{.*}} : tensor<150xf32> into tensor<2x3x25xf32>
// CHECK:       linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<2x3x25xf32>) outs(%{{.+}} : tensor<2x4x25xf32>)
// CHECK-NOT:   arith.truncf
// CHECK:       tensor.expand_shape {{.*}} into tensor<2x4x5x5xf32>
func.func @pointwise(%x: tensor<2x3x5x5xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<2x4x5x5xf32> {
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<2x3x5x5xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x5x5xf32>
  return %c : tensor<2x4x5x5xf32>
}

// -----

// Grouped convolutions stay direct.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT:   tensor<2x
// CHECK:       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %c = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64}
       : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %c : tensor<1x4x3x3xf32>
}
