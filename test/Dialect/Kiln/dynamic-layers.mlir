// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Run-time shapes (issue 32): the layers of CNNs and MLPs take a dynamic
// batch (and other dimensions that do not size their weights or loops); a
// dynamic dimension passes through to the result, products with one are
// dynamic, and a reshape's one `?` is resolved when the shape is known.

// CHECK-LABEL: func.func @cnn
func.func @cnn(%x: tensor<?x3x12x12xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %fw: tensor<5x8xf32>) -> tensor<?x5xf32> {
  // CHECK: kiln.convolution {{.*}} -> tensor<?x8x12x12xf32>
  %c = kiln.convolution %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<?x3x12x12xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x12x12xf32>
  // CHECK: kiln.batch_norm {{.*}} -> tensor<?x8x12x12xf32>
  %n = kiln.batch_norm %c, %b, %b, %b, %b {epsilon = 1.0e-5 : f32} : (tensor<?x8x12x12xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x12x12xf32>
  // CHECK: kiln.pool max {{.*}} : tensor<?x8x12x12xf32> -> tensor<?x8x6x6xf32>
  %p = kiln.pool max %n {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<?x8x12x12xf32> -> tensor<?x8x6x6xf32>
  // CHECK: kiln.global_pool average {{.*}} : tensor<?x8x6x6xf32> -> tensor<?x8x1x1xf32>
  %g = kiln.global_pool average %p : tensor<?x8x6x6xf32> -> tensor<?x8x1x1xf32>
  // CHECK: kiln.flatten {{.*}} : tensor<?x8x1x1xf32> -> tensor<?x8xf32>
  %f = kiln.flatten %g {axis = 1 : i64} : tensor<?x8x1x1xf32> -> tensor<?x8xf32>
  // CHECK: kiln.gemm {{.*}} -> tensor<?x5xf32>
  %l = kiln.gemm %f, %fw {alpha = 1.0 : f32, beta = 1.0 : f32, transpose_b = true} : (tensor<?x8xf32>, tensor<5x8xf32>) -> tensor<?x5xf32>
  // CHECK: kiln.softmax {{.*}} : tensor<?x5xf32> -> tensor<?x5xf32>
  %s = kiln.softmax %l {axis = 1 : i64} : tensor<?x5xf32> -> tensor<?x5xf32>
  return %s : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @mlp
func.func @mlp(%x: tensor<?x4x6xf32>, %w: tensor<24x16xf32>, %v: tensor<10x24xf32>) -> (tensor<?x2x13xf32>, tensor<?xf32>) {
  // CHECK: kiln.flatten {{.*}} : tensor<?x4x6xf32> -> tensor<?x24xf32>
  %f = kiln.flatten %x {axis = 1 : i64} : tensor<?x4x6xf32> -> tensor<?x24xf32>
  // CHECK: kiln.matmul {{.*}} -> tensor<?x16xf32>
  %m = kiln.matmul %f, %w : (tensor<?x24xf32>, tensor<24x16xf32>) -> tensor<?x16xf32>
  // CHECK: kiln.fully_connected {{.*}} -> tensor<?x10xf32>
  %fc = kiln.fully_connected %x, %v : (tensor<?x4x6xf32>, tensor<10x24xf32>) -> tensor<?x10xf32>
  // CHECK: kiln.concat {{.*}} -> tensor<?x26xf32>
  %cat = kiln.concat %m, %fc {axis = 1 : i64} : (tensor<?x16xf32>, tensor<?x10xf32>) -> tensor<?x26xf32>
  // CHECK: kiln.reshape {{.*}} : tensor<?x26xf32> -> tensor<?x2x13xf32>
  %r = kiln.reshape %cat : tensor<?x26xf32> -> tensor<?x2x13xf32>
  // CHECK: kiln.transpose {{.*}} : tensor<?x2x13xf32> -> tensor<13x2x?xf32>
  %t = kiln.transpose %r {permutation = array<i64: 2, 1, 0>} : tensor<?x2x13xf32> -> tensor<13x2x?xf32>
  // CHECK: kiln.reduce sum {{.*}} : tensor<13x2x?xf32> -> tensor<?xf32>
  %s = kiln.reduce sum %t {axes = array<i64: 0, 1>} : tensor<13x2x?xf32> -> tensor<?xf32>
  return %r, %s : tensor<?x2x13xf32>, tensor<?xf32>
}

// -----

// Concatenating along the dynamic dimension gives a dynamic one; a static
// dimension against a dynamic one keeps the static size.
// CHECK-LABEL: func.func @concat_batch
func.func @concat_batch(%x: tensor<?x4xf32>, %y: tensor<2x4xf32>, %z: tensor<3x?xf32>) -> (tensor<?x4xf32>, tensor<5x4xf32>) {
  // CHECK: kiln.concat {{.*}} -> tensor<?x4xf32>
  %0 = kiln.concat %x, %y {axis = 0 : i64} : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln.concat {{.*}} -> tensor<5x4xf32>
  %1 = kiln.concat %z, %y {axis = 0 : i64} : (tensor<3x?xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<5x4xf32>
}

// -----

// The channel count sizes the filter: it must be static.
func.func @conv_dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.convolution' op expects the channel count (dimension 1 of 1x?x8x8) to be static: it sizes the layer's weights or its loops}}
  // expected-error @+1 {{'kiln.convolution' op failed to infer returned types}}
  %y = kiln.convolution %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x?x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @fully_connected_dynamic_inner(%x: tensor<2x?xf32>, %w: tensor<10x24xf32>) {
  // expected-error @+2 {{'kiln.fully_connected' op expects a dimension the weight multiplies (dimension 1 of 2x?) to be static: it sizes the layer's weights or its loops}}
  // expected-error @+1 {{'kiln.fully_connected' op failed to infer returned types}}
  %y = kiln.fully_connected %x, %w : (tensor<2x?xf32>, tensor<10x24xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @reshape_two_dynamic(%x: tensor<?x24xf32>) {
  // expected-error @+1 {{'kiln.reshape' op expects a result with one dynamic dimension when the input has dynamic ones, got ?x24 to ?x?}}
  %y = kiln.reshape %x : tensor<?x24xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_static_to_dynamic(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'kiln.reshape' op expects a result with one dynamic dimension when the input has dynamic ones, got 4x6 to ?x6}}
  %y = kiln.reshape %x : tensor<4x6xf32> -> tensor<?x6xf32>
  return
}

// -----

func.func @squeeze_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+2 {{'kiln.squeeze' op expects squeezed dimension 0 to have size 1, got ?}}
  // expected-error @+1 {{'kiln.squeeze' op failed to infer returned types}}
  %y = kiln.squeeze %x {axes = array<i64: 0>} : tensor<?x4xf32> -> tensor<4xf32>
  return
}

// -----

// Layers that do not take run-time shapes yet are refused by name.
func.func @gather_elements_dynamic(%x: tensor<?x4xf32>, %i: tensor<?x4xi64>) {
  // expected-error @+1 {{'kiln.gather_elements' op does not take dynamic dimensions yet (run-time shapes): operand #0 is 'tensor<?x4xf32>'}}
  %y = kiln.gather_elements %x, %i {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xi64>) -> tensor<?x4xf32>
  return
}
