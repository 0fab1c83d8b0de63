// RUN: kiln-opt %s --split-input-file --one-shot-bufferize | FileCheck %s

// kiln.plugin bufferizes into a kiln_gpu.library_call "kiln.plugin": the
// inputs' buffers are read, a new buffer per result is written, and a
// workspace buffer follows when the plugin asked for one.

// CHECK-LABEL: func.func @one_output
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[XB:.+]] = bufferization.to_buffer %[[X]]
// CHECK: %[[Y:.+]] = memref.alloc() {{.*}}: memref<2x3xf32>
// CHECK: kiln_gpu.library_call "kiln.plugin"(%[[XB]], %[[Y]])
// CHECK-SAME: access = ["read", "write"]
// CHECK-SAME: params = {fields = {negSlope = array<f64: 1.000000e-01>}, namespace = "", plugin = "LReLU_TRT", version = "1", workspace = 0 : i64}
// CHECK: bufferization.to_tensor %[[Y]]
func.func @one_output(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = array<f64: 0.1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @outputs_and_workspace
// CHECK: %[[D:.+]] = memref.alloc() {{.*}}: memref<1x1x4x7xf32>
// CHECK: %[[K:.+]] = memref.alloc() {{.*}}: memref<1xi32>
// CHECK: %[[WS:.+]] = memref.alloc() {{.*}}: memref<512xi8>
// CHECK: kiln_gpu.library_call "kiln.plugin"(%{{.*}}, %{{.*}}, %[[D]], %[[K]], %[[WS]])
// CHECK-SAME: access = ["read", "read", "write", "write", "readwrite"]
// CHECK-SAME: namespace = "acme", plugin = "Detect", version = "2", workspace = 512 : i64
func.func @outputs_and_workspace(%a: tensor<1x8xf32>, %b: tensor<1x4xf32>) -> (tensor<1x1x4x7xf32>, tensor<1xi32>) {
  %d, %k = kiln.plugin "Detect" (%a, %b) {fields = {keepTopK = array<i64: 4>}, plugin_namespace = "acme", version = "2", workspace = 512} : (tensor<1x8xf32>, tensor<1x4xf32>) -> (tensor<1x1x4x7xf32>, tensor<1xi32>)
  return %d, %k : tensor<1x1x4x7xf32>, tensor<1xi32>
}
