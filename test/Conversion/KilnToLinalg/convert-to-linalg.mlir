// RUN: kiln-opt %s --split-input-file --kiln-convert-to-linalg --verify-diagnostics | FileCheck %s
// The numbers these lowerings compute are checked against the ONNX backend
// tests' expected outputs by kiln-conformance (test/Reference).

// CHECK: #[[ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%{{.+}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.maximumf %{{.+}}, %[[Z]] : f32
// CHECK-NOT: kiln.
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.activation relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Broadcasting is in the maps: the 3-vector is read at (d1).
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_add
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
func.func @broadcast_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.binary add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A splat condition (Expand's broadcast): the chosen input broadcast, the
// condition neither stored nor read; a condition that varies is read.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @select_splat_condition
// CHECK-SAME: (%[[A:.+]]: tensor<2x1xf32>, %[[B:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x3xi1>)
// CHECK: %[[T:.+]] = linalg.generic {indexing_maps = [#[[COL]], #[[ID3]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[F:.+]] = linalg.generic {{.+}} ins(%[[B]] : tensor<2x3xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[C]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x1xf32>, tensor<2x3xf32>)
// CHECK: arith.select
func.func @select_splat_condition(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xi1>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %t = kiln.constant dense<true> : tensor<2x3xi1>
  %f = kiln.constant dense<false> : tensor<1x3xi1>
  %0 = kiln.select %t, %a, %b : (tensor<2x3xi1>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = kiln.select %f, %a, %b : (tensor<1x3xi1>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = kiln.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Grouped, strided, padded convolution: one generic over the filter,
// (n, k, oh, ow | c, kh, kw), whose body reads the input in place: channel
// (k / 3) * 2 + c, position oh * 2 + kh - 1 (zero outside the input), no
// padded copy and no reshape; then the per-channel bias.
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv
// CHECK-NOT: tensor.pad
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.+}} : tensor<6x2x3x3xf32>)
// CHECK: %[[K:.+]] = linalg.index 1
// CHECK: arith.divui %[[K]], %c3
// CHECK: arith.cmpi ult
// CHECK: %[[V:.+]] = tensor.extract %{{.+}} : tensor<1x4x9x9xf32>
// CHECK: arith.select %{{.+}}, %[[V]], %{{.+}} : f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.expand_shape {{.*}} output_shape [6, 1, 1]
// CHECK: arith.addf
func.func @conv(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  %0 = kiln.convolution %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
       : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// Channels last, unpadded: loops (n, oh, ow, k | c, kh, kw) with the output
// channel innermost of the parallel loops (consecutive threads write
// consecutive channels and read consecutive filter elements), the filter
// read as kh x kw x c x k; the bias broadcast along the last dimension.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d5, d2 + d6, d4)>
// CHECK-DAG: #[[F:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d4, d3)>
// CHECK-DAG: #[[Y:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (0, 0, d3)>
// CHECK-LABEL: func.func @conv_channels_last
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[F]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>)
// CHECK: tensor.expand_shape %arg2 {{.*}} output_shape [1, 1, 4]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[BIAS]], #{{.+}}]
func.func @conv_channels_last(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %b: tensor<4xf32>) -> tensor<1x3x3x4xf32> {
  %y = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = #kiln<layout channels_last>}
       : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

// Channels last, padded and grouped: the body reads x[n, pos, pos, channel]
// in place with the channel last.
// CHECK-LABEL: func.func @conv_channels_last_padded
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<3x3x1x4xf32>) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[C:.+]] = linalg.index 4
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x4x4x2xf32>
func.func @conv_channels_last_padded(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64, layout = #kiln<layout channels_last>}
       : (tensor<1x4x4x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Max pooling reads the input in place (a position outside it would be
// -inf): the generic's operand is the window.
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @maxpool
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: %[[WINDOW:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[WIN]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[WINDOW]]
// CHECK: tensor.extract
// CHECK: arith.maximumf
func.func @maxpool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = kiln.pool max %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Average pooling divides by a count that pooled ones (padding not counted).
// CHECK-LABEL: func.func @avgpool
// CHECK: tensor.pad {{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32) {{.*}} -> tensor<1x1x4x4xf32>
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @avgpool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = kiln.pool average %x {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A batched product broadcasting the matrix over the batch.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: tensor.expand_shape {{.*}} into tensor<2x1xf32>
// CHECK: %[[N:.+]] = arith.constant 3.000000e+00 : f32
// CHECK: arith.divf %{{.+}}, %[[N]]
func.func @reduce_mean(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = kiln.reduce mean %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @slices
// CHECK: tensor.extract_slice %{{.+}}[1] [2] [2] : tensor<5xf32> to tensor<2xf32>
// CHECK: %[[I:.+]] = linalg.index 0
// CHECK-DAG: %[[START:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[STEP:.+]] = arith.constant -2 : index
// CHECK: %[[S:.+]] = arith.muli %[[I]], %[[STEP]]
// CHECK: %[[J:.+]] = arith.addi %[[S]], %[[START]]
// CHECK: tensor.extract %{{.+}}[%[[J]]]
func.func @slices(%x: tensor<5xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %0 = kiln.slice %x {start = array<i64: 1>, size = array<i64: 2>, stride = array<i64: 2>} : tensor<5xf32> -> tensor<2xf32>
  %1 = kiln.slice %x {start = array<i64: 4>, size = array<i64: 3>, stride = array<i64: -2>} : tensor<5xf32> -> tensor<3xf32>
  return %0, %1 : tensor<2xf32>, tensor<3xf32>
}

// -----

// A slice of an empty tensor reads nothing (and any offset would be out of
// bounds for tensor.extract_slice): an empty tensor.
// CHECK-LABEL: func.func @empty_slice
// CHECK: %[[E:.+]] = tensor.empty() : tensor<0x3xf32>
// CHECK: return %[[E]]
func.func @empty_slice(%x: tensor<0x5xf32>) -> tensor<0x3xf32> {
  %0 = kiln.slice %x {start = array<i64: 0, 1>, size = array<i64: 0, 3>, stride = array<i64: 1, 1>} : tensor<0x5xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = kiln.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// CHECK-LABEL: func.func @weights
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @weights() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Linear resize of the two spatial dims: 4 reads blended by weights.
// CHECK-LABEL: func.func @bilinear
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @bilinear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = kiln.resize linear %x : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Without a lowering (cubic over 5 dimensions would read 4^5 elements per
// output), the pass fails and names the op.
func.func @cubic5d(%x: tensor<2x2x2x2x2xf32>) -> tensor<4x4x4x4x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'kiln.resize' that was explicitly marked illegal}}
  %0 = kiln.resize cubic %x : tensor<2x2x2x2x2xf32> -> tensor<4x4x4x4x4xf32>
  return %0 : tensor<4x4x4x4x4xf32>
}

// -----

// An empty operand of a concat adds nothing: only the non-empty one is
// inserted (ONNX RotaryEmbedding's expanded body concatenates the empty
// pass-through part after the rotated one).
// CHECK-LABEL: func.func @concat_empty
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<2x8xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @concat_empty(%a: tensor<2x8xf32>, %b: tensor<2x0xf32>) -> tensor<2x8xf32> {
  %0 = kiln.concat %a, %b {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x0xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A cast to a float8 rounds the f32 bits with integer arithmetic
// (SmallFloats.cpp): no arith.truncf to f8 remains, which neither LLVM
// lowering handles. Without saturation an overflow is the NaN code 0x7f
// with the sign.
// CHECK-LABEL: func.func @cast_to_float8
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f8E4M3FN):
// CHECK: arith.bitcast %[[IN]] : f32 to i32
// CHECK-NOT: arith.minimumf
// CHECK: %[[NAN:.+]] = arith.constant 127 : i32
// CHECK: %[[CODE:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK: %[[F8:.+]] = arith.bitcast %[[CODE]] : i8 to f8E4M3FN
// CHECK: linalg.yield %[[F8]] : f8E4M3FN
// CHECK-NOT: arith.truncf
func.func @cast_to_float8(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = kiln.cast %x {saturate = false} : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Saturation clamps to the largest finite value first (NaN stays NaN).
// CHECK-LABEL: func.func @cast_to_float8_saturated
// CHECK: %[[LO:.+]] = arith.constant -5.734400e+04 : f32
// CHECK: arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK: %[[HI:.+]] = arith.constant 5.734400e+04 : f32
// CHECK: arith.minimumf %{{.+}}, %[[HI]] : f32
// CHECK: arith.bitcast %{{.+}} : i8 to f8E5M2
func.func @cast_to_float8_saturated(%x: tensor<4xf16>) -> tensor<4xf8E5M2> {
  %0 = kiln.cast %x : tensor<4xf16> to tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

// From a float8: the code's fields rebuilt as f32 bits, then narrowed.
// CHECK-LABEL: func.func @cast_from_float8
// CHECK: ^bb0(%[[IN:.+]]: f8E5M2, %{{.+}}: f16):
// CHECK: %[[BITS:.+]] = arith.bitcast %[[IN]] : f8E5M2 to i8
// CHECK: arith.extui %[[BITS]] : i8 to i32
// CHECK: %[[F32:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: arith.truncf %[[F32]] : f32 to f16
func.func @cast_from_float8(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = kiln.cast %x : tensor<4xf8E5M2> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// A float to a 4-bit integer: 0 outside [-8, 7] after truncation.
// CHECK-LABEL: func.func @cast_to_int4
// CHECK: %[[HI:.+]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[BELOW:.+]] = arith.cmpf olt, %{{.+}}, %[[HI]] : f32
// CHECK: %[[LO:.+]] = arith.constant -9.000000e+00 : f32
// CHECK: %[[ABOVE:.+]] = arith.cmpf ogt, %{{.+}}, %[[LO]] : f32
// CHECK: %[[IN:.+]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK: %[[SAFE:.+]] = arith.select %[[IN]]
// CHECK: %[[WHOLE:.+]] = arith.fptosi %[[SAFE]] : f32 to i32
// CHECK: arith.trunci %[[WHOLE]] : i32 to i4
func.func @cast_to_int4(%x: tensor<4xf32>) -> tensor<4xi4> {
  %0 = kiln.cast %x : tensor<4xf32> to tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

// iota: a generic with no inputs; start + step * index in i64, truncated.
// CHECK-LABEL: func.func @iota_int
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[I:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK-DAG: %[[START:.+]] = arith.constant -2 : i64
// CHECK-DAG: %[[STEP:.+]] = arith.constant 3 : i64
// CHECK: %[[M:.+]] = arith.muli %[[I]], %[[STEP]] : i64
// CHECK: %[[V:.+]] = arith.addi %[[M]], %[[START]] : i64
// CHECK: arith.trunci %[[V]] : i64 to i32
func.func @iota_int() -> tensor<4x3xi32> {
  %0 = kiln.iota {dimension = 1 : i64, start = -2 : i64, step = 3 : i64} : tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

// A float iota is computed in f64 and rounded once.
// CHECK-LABEL: func.func @iota_float
// CHECK: %[[J:.+]] = linalg.index 0 : index
// CHECK: %[[I:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[F:.+]] = arith.sitofp %[[I]] : i64 to f64
// CHECK-DAG: %[[START:.+]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG: %[[STEP:.+]] = arith.constant 2.500000e-01 : f64
// CHECK: %[[M:.+]] = arith.mulf %[[F]], %[[STEP]] : f64
// CHECK: %[[V:.+]] = arith.addf %[[M]], %[[START]] : f64
// CHECK: arith.truncf %[[V]] : f64 to f16
func.func @iota_float() -> tensor<5xf16> {
  %0 = kiln.iota {dimension = 0 : i64, start = 0.5 : f64, step = 0.25 : f64} : tensor<5xf16>
  return %0 : tensor<5xf16>
}
