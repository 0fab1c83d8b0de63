// RUN: kiln-opt %s --split-input-file --kiln-elementwise-in-place | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-elementwise-in-place=max-chain=1 | FileCheck %s --check-prefix=ONE

// A linalg result read only by an elementwise generic becomes its init; the
// body reads it through the init's argument.
// CHECK-LABEL: func.func @chain(
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%[[A]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[OUT:.*]]: f32):
// CHECK-NEXT:      math.cos %[[OUT]] : f32
// CHECK:         return %[[B]]
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// Of two inputs, the one that is a dead linalg result is written over; the
// function argument stays an input.
// CHECK-LABEL: func.func @binary(
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:         linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x3xf32>) outs(%[[A]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      arith.mulf %[[IN]], %[[OUT]] : f32
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @binary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x3xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<2x3xf32>
  %b = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

// -----

// Not written over: a result read twice, a function argument, an input
// read transposed, and an input of another element type.
// CHECK-LABEL: func.func @kept(
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %arg0 : tensor<2x2xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf16>)
// CHECK:         linalg.generic {{.*}} ins(%[[F]] : tensor<2x2xf16>) outs(%{{.*}} : tensor<2x2xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @kept(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %e0 = tensor.empty() : tensor<2x2xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x2xf32>) outs(%e0 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<2x2xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e1 : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<2x2xf32>
  %d = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<2x2xf32>) outs(%e3 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = math.cos %in : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  %e4 = tensor.empty() : tensor<2x2xf16>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x2xf32>) outs(%e4 : tensor<2x2xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x2xf16>
  %e5 = tensor.empty() : tensor<2x2xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%f : tensor<2x2xf16>) outs(%e5 : tensor<2x2xf32>) {
  ^bb0(%in: f16, %out: f32):
    %t = arith.extf %in : f16 to f32
    linalg.yield %t : f32
  } -> tensor<2x2xf32>
  return %a, %b, %d, %g : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A reduction is not elementwise: its input is not written over.
// CHECK-LABEL: func.func @reduction(
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @reduction(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%a : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Three layers in a row: by default the second and third write over the
// first's buffer; with max-chain=1 the third starts a buffer of its own.
// CHECK-LABEL: func.func @long(
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>)
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} outs(%[[A]] : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[B]] : tensor<4xf32>)
// ONE-LABEL:   func.func @long(
// ONE:           %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>)
// ONE:           %[[B:.*]] = linalg.generic {{.*}} outs(%[[A]] : tensor<4xf32>)
// ONE:           linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @long(%x: tensor<4xf32>) -> tensor<4xf32> {
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
    %v = math.sin %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %c : tensor<4xf32>
}
