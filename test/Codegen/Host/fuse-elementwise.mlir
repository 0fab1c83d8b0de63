// RUN: kiln-opt %s --split-input-file --kiln-fuse-elementwise=max-body-ops=6 | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fuse-elementwise=max-body-ops=3 | FileCheck %s --check-prefix=BOUND

// A chain of elementwise layers fuses into one layer when the bodies fit
// the bound (here six operations, yields counted: 2 + 2 + 2 + 2 less the
// three yields that fusion drops). With a bound of three, no two bodies of
// two operations fit together, and each layer stays.
// CHECK-LABEL: func.func @chain(
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>)
// CHECK:           arith.negf
// CHECK-NEXT:      math.cos
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      math.sin
// CHECK-NEXT:      linalg.yield
// CHECK-NOT:     linalg.generic
// BOUND-LABEL: func.func @chain(
// BOUND-COUNT-4: linalg.generic
// BOUND-NOT:     linalg.generic
// BOUND-LABEL: func.func @shared(
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.cos %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.sin %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A result with two readers is not fused into either: it is computed once.
// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.cos %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.sin %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// A window's index arithmetic fuses into the reader of its iota: the
// intermediate tensor of indices is never stored.
// CHECK-LABEL: func.func @iota(
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
// CHECK:           arith.sitofp
// CHECK:           math.cos
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @iota() -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %i = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %j = arith.index_cast %n : index to i64
    %f = arith.sitofp %j : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%i : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.cos %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}
