// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-fusion-groups | FileCheck %s

// A matmul with its bias and ReLU: the epilogue is fused into one generic
// (located at both ops, so the group names all three layers), which is
// tiled one element per iteration with
// the matmul (and the fill of its accumulator) computed in each iteration.
// The original ops are gone.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (4, 8) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x8xf32>)
// CHECK:           %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x1xf32>
// CHECK:           %[[MM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%[[ZERO]] : tensor<1x1xf32>)
// CHECK:           %[[EPI:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<1x1xf32>, tensor<1xf32>)
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:           tensor.parallel_insert_slice %[[EPI]] into %[[OUT]][%[[I]], %[[J]]] [1, 1] [1, 1]
// CHECK:         } {kiln_gpu.fusion_group = ["fc", "relu", "bias"]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @matmul_bias_relu(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32> loc("fc")
  %e1 = tensor.empty() : tensor<4x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32> loc("bias")
  %e2 = tensor.empty() : tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32> loc("relu")
  return %relu : tensor<4x8xf32>
}

// -----

// Softmax over rows: the max, the exponentials, their sum and the division
// are one group. The division reads the sum through a broadcast along the
// row, so the loop is over rows only (tile [1, 0]): each iteration computes
// its row's sum once, and exp(x - max), read by the sum and the division,
// once for each (with its max).
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.
// CHECK:         scf.forall (%[[I:.*]]) in (3) shared_outs
// CHECK-COUNT-3:   iterator_types = ["parallel", "reduction"]
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [1, 10] [1, 1]
// CHECK:         } {kiln_gpu.fusion_group = ["max", "exp", "sum", "div"]
// CHECK-NOT:     linalg.generic
#id2 = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<3x10xf32>) -> tensor<3x10xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e0 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [#id2, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x10xf32>) outs(%m0 : tensor<3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %o : f32
    linalg.yield %m : f32
  } -> tensor<3xf32> loc("max")
  %e1 = tensor.empty() : tensor<3x10xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #r, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<3x10xf32>, tensor<3xf32>) outs(%e1 : tensor<3x10xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %d = arith.subf %p, %q : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<3x10xf32> loc("exp")
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #r], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<3x10xf32>) outs(%s0 : tensor<3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32> loc("sum")
  %div = linalg.generic {indexing_maps = [#id2, #r, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<3x10xf32>, tensor<3xf32>) outs(%e1 : tensor<3x10xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.divf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<3x10xf32> loc("div")
  return %div : tensor<3x10xf32>
}

// -----

// Must not fuse: a reduction the next op reduces over (a global pool read
// by a matmul) would be computed again for each of the matmul's outputs;
// each op is its own group.
// CHECK-LABEL: func.func @pool_then_matmul
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:         } {kiln_gpu.fusion_group = ["pool"]
// CHECK:         scf.forall (%{{.*}}) in (5) shared_outs
// CHECK:         } {kiln_gpu.fusion_group = ["fc"]
#in3 = affine_map<(c, h) -> (c, h)>
#out3 = affine_map<(c, h) -> (c)>
#v = affine_map<(j, k) -> (k)>
#wt = affine_map<(j, k) -> (k, j)>
#o = affine_map<(j, k) -> (j)>
func.func @pool_then_matmul(%x: tensor<4x49xf32>, %w: tensor<4x5xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %pool = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x49xf32>) outs(%a0 : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32> loc("pool")
  %e1 = tensor.empty() : tensor<5xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<5xf32>) -> tensor<5xf32>
  %fc = linalg.generic {indexing_maps = [#v, #wt, #o], iterator_types = ["parallel", "reduction"]}
      ins(%pool, %w : tensor<4xf32>, tensor<4x5xf32>) outs(%a1 : tensor<5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<5xf32> loc("fc")
  return %fc : tensor<5xf32>
}

// -----

// Must not fuse: an op read by two groups stays a kernel of its own, and an
// op without producers to fuse is left alone (no loop).
// CHECK-LABEL: func.func @shared_producer
// CHECK:         %[[T:.*]] = linalg.generic
// CHECK:           math.tanh
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic {{.*}} ins(%[[T]] :
// CHECK-NOT:     scf.forall
#i1 = affine_map<(i) -> (i)>
func.func @shared_producer(%x: tensor<64xf32>, %w: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#i1, #i1], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [#i1, #i1, #i1], iterator_types = ["parallel"]}
      ins(%t, %t : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.mulf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %t, %sq : tensor<64xf32>, tensor<64xf32>
}

// -----

// A reduction read through a keepdims view (an expand_shape that adds a unit
// dimension), then centered by a broadcast: the reader reads the reduction
// directly, so the sum and the subtraction are one group over rows, with the
// sum computed once per row.
// CHECK-LABEL: func.func @keepdims_view
// CHECK-NOT:     tensor.expand_shape
// CHECK:         scf.forall (%[[I:.*]]) in (3) shared_outs
// CHECK:           iterator_types = ["parallel", "reduction"]
// CHECK:           iterator_types = ["parallel", "parallel"]
// CHECK:         } {kiln_gpu.fusion_group = ["sum", "center"]
// CHECK-NOT:     linalg.generic
#k2 = affine_map<(i, j) -> (i, j)>
#k1 = affine_map<(i, j) -> (i)>
#kb = affine_map<(i, j) -> (i, 0)>
func.func @keepdims_view(%x: tensor<3x10xf32>) -> tensor<3x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [#k2, #k1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x10xf32>) outs(%s0 : tensor<3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32> loc("sum")
  %keep = tensor.expand_shape %sum [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %e1 = tensor.empty() : tensor<3x10xf32>
  %c = linalg.generic {indexing_maps = [#k2, #kb, #k2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %keep : tensor<3x10xf32>, tensor<3x1xf32>) outs(%e1 : tensor<3x10xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %d = arith.subf %p, %q : f32
    linalg.yield %d : f32
  } -> tensor<3x10xf32> loc("center")
  return %c : tensor<3x10xf32>
}

// -----

// A reduction over an empty set (a loop of no iterations: ReduceL2 of a
// 2 x 0 x 4 tensor) and the square root after it: nothing to tile, so no
// group forms; each op stays a kernel (or a fill) of its own. (Tiling it
// crashed before.)
// CHECK-LABEL: func.func @empty_reduction
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         math.sqrt
// CHECK-NOT:     scf.forall
func.func @empty_reduction(%x: tensor<2x0x4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k, j)>, affine_map<(i, k, j) -> (i, j)>],
                         iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<2x0x4xf32>) outs(%acc : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %b, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x4xf32>) outs(%e2 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %q = math.sqrt %a : f32
    linalg.yield %q : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
