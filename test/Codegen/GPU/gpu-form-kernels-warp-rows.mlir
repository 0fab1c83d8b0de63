// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-kernels | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-kernels=warp-rows=0 | FileCheck %s --check-prefix=THREAD
// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-kernels=warp-rows=128 | FileCheck %s --check-prefix=THREAD
// Softmax's rows, one warp each. Its numbers are checked on the GPU by the
// ONNX backend tests of softmax, LayerNorm and the reductions
// (scripts/gpu-check.sh).

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
// 8 rows of 64 elements: 8 warps of a 256-thread block, one block. Lane l
// reads elements l + 32 k for k = 0, 1 (a loop of constant trip count, which
// LLVM unrolls); the row's maximum and sum go through a shuffle tree (xor
// 16, 8, 4, 2, 1) and into the output once; the row of exponentials each
// lane keeps is its 2 elements, not 64.
// CHECK-LABEL: func.func @softmax
// CHECK:       gpu.launch_func @kiln_kernels::@[[K:k0_[a-z]+]] blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME:    kiln_gpu.lanes = 32 : i64
// CHECK:       gpu.func @[[K]]
// CHECK-SAME:    kiln_gpu.lanes = 32 : i64
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c32
// CHECK:         %[[WARP:.+]] = arith.divui %[[TID]], %c32
// CHECK:         %[[ROW:.+]] = arith.addi %{{.+}}, %[[WARP]]
// CHECK:         arith.cmpi ult, %[[ROW]], %c8
// CHECK:         %[[MAX:.+]] = scf.for %[[K0:.+]] = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%{{.+}} = %cst{{.*}}) -> (f32)
// CHECK:           %[[OFF0:.+]] = arith.muli %[[K0]], %c32
// CHECK:           %[[I0:.+]] = arith.addi %[[LANE]], %[[OFF0]]
// CHECK:           memref.load %{{.+}}[%c0{{.*}}, %[[I0]]]
// CHECK:           arith.maximumf
// CHECK:         gpu.shuffle xor %[[MAX]], %c16_i32, %c32_i32{{.*}} : f32
// CHECK:         gpu.shuffle xor {{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK:         memref.alloca() : memref<1x2xf32>
// CHECK:         scf.for %[[K1:.+]] = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK:           %[[OFF1:.+]] = arith.muli %[[K1]], %c32
// CHECK:           %[[I:.+]] = arith.addi %[[LANE]], %[[OFF1]]
// CHECK:           math.exp
// CHECK:           %[[K:.+]] = arith.divui %[[I]], %c32
// CHECK:           memref.store %{{.+}}, %{{.+}}[%c0{{.*}}, %[[K]]] : memref<1x2xf32>
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           arith.addf
// CHECK:         gpu.shuffle xor
// CHECK-NOT:     memref.alloca() : memref<1x64xf32>
// One thread per row, the row walked inside it.
// THREAD-LABEL: func.func @softmax
// THREAD-NOT:   kiln_gpu.lanes
// THREAD-NOT:   gpu.shuffle
// THREAD:       memref.alloca() : memref<1x64xf32>
func.func @softmax(%arg0: memref<8x64xf32>, %arg1: memref<8x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  scf.forall (%arg2) in (8) {
    %x = memref.subview %arg0[%arg2, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %max = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%cst_0 : f32) outs(%max : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x64xf32, strided<[64, 1], offset: ?>>) outs(%max : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %out, %in : f32
      linalg.yield %0 : f32
    }
    %e = memref.alloc() {alignment = 64 : i64} : memref<1x64xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %max : memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<1xf32>) outs(%e : memref<1x64xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %0 = arith.subf %in, %in_10 : f32
      %1 = math.exp %0 : f32
      linalg.yield %1 : f32
    }
    %sum = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%cst : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : memref<1x64xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
    %y = memref.subview %arg1[%arg2, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : memref<1x64xf32>, memref<1xf32>) outs(%y : memref<1x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %0 = arith.divf %in, %in_10 : f32
      linalg.yield %0 : f32
    }
  } {kiln_gpu.fusion_group = ["softmax"], mapping = [#gpu.thread<linear_dim_0>]}
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// An iteration that covers a 4 x 64 tile (two loops of more than one
// iteration) stays one thread per iteration.
// CHECK-LABEL: func.func @tile
// CHECK-NOT:   kiln_gpu.lanes
// CHECK-NOT:   gpu.shuffle
func.func @tile(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>) {
  scf.forall (%r) in (16) {
    %x = memref.subview %arg0[%r, 0] [4, 64] [1, 1] : memref<64x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %y = memref.subview %arg1[%r, 0] [4, 64] [1, 1] : memref<64x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x64xf32, strided<[64, 1], offset: ?>>) outs(%y : memref<4x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %in : f32
      linalg.yield %0 : f32
    }
  } {kiln_gpu.fusion_group = ["square"], mapping = [#gpu.thread<linear_dim_0>]}
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// Rows of 40: each lane has ceil(40 / 32) = 2 elements but lanes 8 to 31
// have only one, so the second is guarded and the sum carried past it.
// CHECK-LABEL: func.func @ragged
// CHECK:         %[[SUM:.+]] = scf.for %[[K:.+]] = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32)
// CHECK:           %[[I:.+]] = arith.addi
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[I]], %c40
// CHECK:           %[[NEXT:.+]] = scf.if %[[IN]] -> (f32)
// CHECK:             memref.load %{{.+}}[%c0{{.*}}, %[[I]]]
// CHECK:             arith.addf
// CHECK:           } else {
// CHECK:             scf.yield %[[ACC]] : f32
// CHECK:           scf.yield %[[NEXT]] : f32
// CHECK:         gpu.shuffle xor %[[SUM]], %c16_i32
func.func @ragged(%arg0: memref<4x40xf32>, %arg1: memref<4xf32>) {
  scf.forall (%r) in (4) {
    %x = memref.subview %arg0[%r, 0] [1, 40] [1, 1] : memref<4x40xf32> to memref<1x40xf32, strided<[40, 1], offset: ?>>
    %y = memref.subview %arg1[%r] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x40xf32, strided<[40, 1], offset: ?>>) outs(%y : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
  } {kiln_gpu.fusion_group = ["sum"], mapping = [#gpu.thread<linear_dim_0>]}
  return
}
