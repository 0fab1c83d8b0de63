// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-expand-builtin-plugins | FileCheck %s
// The numbers are checked against numpy, on the CPU reference executor, by
// test/Reference/builtin-plugins.test.

// CHECK-LABEL: func.func @leaky_relu_and_clip
// CHECK: %[[L:.+]] = kiln.activation leaky_relu %arg0 {alpha = 1.000000e-01 : f32} : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK: %[[C:.+]] = kiln.activation clip %[[L]] {alpha = -5.000000e-01 : f32, beta = 1.500000e+00 : f32}
// CHECK-NOT: kiln.plugin
// CHECK: return %[[C]]
func.func @leaky_relu_and_clip(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %l = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = kiln.plugin "Clip_TRT" (%l) {fields = {clipMin = array<f64: -0.5>, clipMax = array<f64: 1.5>}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// -----

// Darknet's reorg with stride 2: [1, 8, 4, 6] read as [1, 2, 4, 2, 6, 2],
// transposed to [1, 2, 2, 2, 4, 6], is [1, 32, 2, 3].
// CHECK-LABEL: func.func @reorg
// CHECK: %[[V:.+]] = kiln.reshape %arg0 : tensor<1x8x4x6xf32> -> tensor<1x2x4x2x6x2xf32>
// CHECK: %[[T:.+]] = kiln.transpose %[[V]] {permutation = array<i64: 0, 3, 5, 1, 2, 4>} : tensor<1x2x4x2x6x2xf32> -> tensor<1x2x2x2x4x6xf32>
// CHECK: %[[Y:.+]] = kiln.reshape %[[T]] : tensor<1x2x2x2x4x6xf32> -> tensor<1x32x2x3xf32>
// CHECK: return %[[Y]]
func.func @reorg(%x: tensor<1x8x4x6xf32>) -> tensor<1x32x2x3xf32> {
  %y = kiln.plugin "Reorg_TRT" (%x) {fields = {stride = array<i64: 2>}} : (tensor<1x8x4x6xf32>) -> tensor<1x32x2x3xf32>
  return %y : tensor<1x32x2x3xf32>
}

// -----

// Across channels, a weight per channel: x / sqrt(sum over C of x^2 + eps)
// * weights, the norm in f64 (as the plugin computes it).
// CHECK-LABEL: func.func @normalize_channels
// CHECK: %[[X64:.+]] = kiln.cast %arg0 : tensor<1x3x2x2xf32> to tensor<1x3x2x2xf64>
// CHECK: %[[SQ:.+]] = kiln.binary mul %[[X64]], %[[X64]]
// CHECK: %[[SUM:.+]] = kiln.reduce sum %[[SQ]] {axes = array<i64: 1>, keep_dims = true} : tensor<1x3x2x2xf64> -> tensor<1x1x2x2xf64>
// CHECK: %[[EPS:.+]] = kiln.constant dense<1.000000013351432E-10> : tensor<f64>
// CHECK: %[[PLUS:.+]] = kiln.binary add %[[SUM]], %[[EPS]]
// CHECK: %[[ROOT:.+]] = kiln.unary sqrt %[[PLUS]]
// CHECK: %[[NORM:.+]] = kiln.cast %[[ROOT]] : tensor<1x1x2x2xf64> to tensor<1x1x2x2xf32>
// CHECK: %[[DIV:.+]] = kiln.binary div %arg0, %[[NORM]]
// CHECK: %[[W:.+]] = kiln.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<1x3x1x1xf32>
// CHECK: %[[Y:.+]] = kiln.binary mul %[[DIV]], %[[W]]
// CHECK: return %[[Y]]
func.func @normalize_channels(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %y = kiln.plugin "Normalize_TRT" (%x) {fields = {weights = array<f64: 2.0, 3.0, 4.0>, nbWeights = array<i64: 3>, acrossSpatial = array<i64: 0>, channelShared = array<i64: 0>, eps = array<f64: 1.0e-10>}} : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// -----

// Across space, one shared weight: the sum runs over C, H and W.
// CHECK-LABEL: func.func @normalize_spatial_shared
// CHECK: kiln.reduce sum %{{.+}} {axes = array<i64: 1, 2, 3>, keep_dims = true} : tensor<2x3x2x2xf64> -> tensor<2x1x1x1xf64>
// CHECK: kiln.constant dense<5.000000e-01> : tensor<1x1x1x1xf32>
func.func @normalize_spatial_shared(%x: tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32> {
  %y = kiln.plugin "Normalize_TRT" (%x) {fields = {weights = array<f64: 0.5>, nbWeights = array<i64: 1>, acrossSpatial = array<i64: 1>, channelShared = array<i64: 1>, eps = array<f64: 0.0>}} : (tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  return %y : tensor<2x3x2x2xf32>
}

// -----

// Two anchors of 4 box channels, the objectness and 3 classes: per anchor,
// the sigmoid of x and y, w and h copied, the sigmoid of the objectness and
// the softmax of the classes.
// CHECK-LABEL: func.func @region
// CHECK: %[[V:.+]] = kiln.reshape %arg0 : tensor<1x16x3x3xf32> -> tensor<1x2x8x3x3xf32>
// CHECK: %[[XY:.+]] = kiln.slice %[[V]] {size = array<i64: 1, 2, 2, 3, 3>, start = array<i64: 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1, 1, 1>}
// CHECK: %[[SXY:.+]] = kiln.activation sigmoid %[[XY]]
// CHECK: %[[WH:.+]] = kiln.slice %[[V]] {size = array<i64: 1, 2, 2, 3, 3>, start = array<i64: 0, 0, 2, 0, 0>
// CHECK: %[[OBJ:.+]] = kiln.slice %[[V]] {size = array<i64: 1, 2, 1, 3, 3>, start = array<i64: 0, 0, 4, 0, 0>
// CHECK: %[[SOBJ:.+]] = kiln.activation sigmoid %[[OBJ]]
// CHECK: %[[CLS:.+]] = kiln.slice %[[V]] {size = array<i64: 1, 2, 3, 3, 3>, start = array<i64: 0, 0, 5, 0, 0>
// CHECK: %[[SCLS:.+]] = kiln.softmax %[[CLS]] {axis = 2 : i64}
// CHECK: %[[CAT:.+]] = kiln.concat %[[SXY]], %[[WH]], %[[SOBJ]], %[[SCLS]] {axis = 2 : i64}
// CHECK: %[[Y:.+]] = kiln.reshape %[[CAT]] : tensor<1x2x8x3x3xf32> -> tensor<1x16x3x3xf32>
// CHECK: return %[[Y]]
func.func @region(%x: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %y = kiln.plugin "Region_TRT" (%x) {fields = {num = array<i64: 2>, coords = array<i64: 4>, classes = array<i64: 3>}} : (tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %y : tensor<1x16x3x3xf32>
}

// -----

// Left alone: another version or namespace, a plugin kiln has no layers
// for, and f16 (the built-in plugins take f32).
// CHECK-LABEL: func.func @left_alone
// CHECK: kiln.plugin "LReLU_TRT"(%arg0) {{{.*}}version = "2"}
// CHECK: kiln.plugin "LReLU_TRT"(%arg0) {{{.*}}plugin_namespace = "mine"
// CHECK: kiln.plugin "PriorBox_TRT"
// CHECK: kiln.plugin "LReLU_TRT"(%arg1)
// CHECK-NOT: kiln.activation
func.func @left_alone(%x: tensor<1x2x4x4xf32>, %h: tensor<4xf16>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x32x1xf32>, tensor<4xf16>) {
  %a = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}, version = "2"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}, plugin_namespace = "mine"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = kiln.plugin "PriorBox_TRT" (%x, %x) {fields = {minSize = array<f64: 2.0>, variance = array<f64: 0.1, 0.1, 0.2, 0.2>}} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x32x1xf32>
  %d = kiln.plugin "LReLU_TRT" (%h) {fields = {negSlope = array<f64: 0.1>}} : (tensor<4xf16>) -> tensor<4xf16>
  return %a, %b, %c, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x32x1xf32>, tensor<4xf16>
}

// -----

func.func @clip_min_above_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{plugin Clip_TRT: clipMin 2 > clipMax 1}}
  %y = kiln.plugin "Clip_TRT" (%x) {fields = {clipMin = array<f64: 2.0>, clipMax = array<f64: 1.0>}} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @missing_field(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{plugin LReLU_TRT: field 'negSlope' is missing}}
  %y = kiln.plugin "LReLU_TRT" (%x) {fields = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_field(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{plugin LReLU_TRT: 'slope' is not one of its fields (negSlope)}}
  %y = kiln.plugin "LReLU_TRT" (%x) {fields = {slope = array<f64: 0.1>}} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @wrong_field_type(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{plugin Reorg_TRT: field 'stride' must be one integer}}
  %y = kiln.plugin "Reorg_TRT" (%x) {fields = {stride = array<f64: 2.0>}} : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32>
  return %y : tensor<1x4x1x1xf32>
}

// -----

func.func @reorg_indivisible(%x: tensor<1x4x3x2xf32>) -> tensor<1x16x1x1xf32> {
  // expected-error @+1 {{plugin Reorg_TRT: the input must be [N, C, H, W] with H and W divisible by stride 2 and C by stride * stride}}
  %y = kiln.plugin "Reorg_TRT" (%x) {fields = {stride = array<i64: 2>}} : (tensor<1x4x3x2xf32>) -> tensor<1x16x1x1xf32>
  return %y : tensor<1x16x1x1xf32>
}

// -----

func.func @normalize_weight_count(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @+1 {{plugin Normalize_TRT: expects a [N, C, H, W] input, nbWeights equal to the number of weights, 1 with channelShared = 1 and C without, and eps >= 0}}
  %y = kiln.plugin "Normalize_TRT" (%x) {fields = {weights = array<f64: 2.0, 3.0>, nbWeights = array<i64: 2>, acrossSpatial = array<i64: 0>, channelShared = array<i64: 0>, eps = array<f64: 1.0e-10>}} : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// -----

func.func @region_channels(%x: tensor<1x15x3x3xf32>) -> tensor<1x15x3x3xf32> {
  // expected-error @+1 {{plugin Region_TRT: expects a [N, C, H, W] input with C = num * (coords + 1 + classes) = 16}}
  %y = kiln.plugin "Region_TRT" (%x) {fields = {num = array<i64: 2>, coords = array<i64: 4>, classes = array<i64: 3>}} : (tensor<1x15x3x3xf32>) -> tensor<1x15x3x3xf32>
  return %y : tensor<1x15x3x3xf32>
}

// -----

func.func @result_type_mismatch(%x: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
  // expected-error @+1 {{plugin Reorg_TRT: its result type 'tensor<1x8x2x2xf32>' is not the layer's, 'tensor<1x32x1x1xf32>'}}
  %y = kiln.plugin "Reorg_TRT" (%x) {fields = {stride = array<i64: 2>}} : (tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return %y : tensor<1x8x2x2xf32>
}
