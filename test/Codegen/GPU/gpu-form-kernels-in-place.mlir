// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-form-kernels | FileCheck %s

// kiln-gpu-form-kernels records on a launch which outputs its kernel may
// write over which inputs (kiln_gpu.in_place, pairs of argument indices):
// every element of the input is read before, or by the same elementwise step
// as, the write of the same element of the output, and no other element.

// A residual add fused after a computation: in each iteration the group
// reads element (i, j) of %x and of %r and writes element (i, j) of %y in
// one elementwise step, so %y may take %x's bytes (first pair found) .
// CHECK-LABEL: func.func @residual
// CHECK:         gpu.launch_func @kiln_kernels::@k0_{{.*}} args(%arg0 : memref<4x8xf32>, %arg1 : memref<4x8xf32>, %arg2 : memref<4x8xf32>)
// CHECK-SAME:      kiln_gpu.in_place = array<i64: 0, 2>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual(%x: memref<4x8xf32>, %r: memref<4x8xf32>, %y: memref<4x8xf32>) {
  scf.forall (%i, %j) in (4, 8) {
    %xs = memref.subview %x[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    %rs = memref.subview %r[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs, %rs : memref<1x1xf32, strided<[8, 1], offset: ?>>, memref<1x1xf32, strided<[8, 1], offset: ?>>)
        outs(%ys : memref<1x1xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      %m = arith.maximumf %s, %a : f32
      linalg.yield %m : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}

// -----

// A row-wise group (a normalization): each iteration reduces its row of %x
// into a temporary before it writes the row of %y, then writes it
// elementwise from the same row: in place.
// CHECK-LABEL: func.func @row
// CHECK:         gpu.launch_func @kiln_kernels::@k0_{{.*}} args(%arg0 : memref<4x8xf32>, %arg1 : memref<4x8xf32>)
// CHECK-SAME:      kiln_gpu.in_place = array<i64: 0, 1>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %xs = memref.subview %x[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %sum = memref.alloc() : memref<1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<1x8xf32, strided<[8, 1], offset: ?>>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs, %sum : memref<1x8xf32, strided<[8, 1], offset: ?>>, memref<1xf32>)
        outs(%ys : memref<1x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %d = arith.divf %a, %s : f32
      linalg.yield %d : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>]}
  return
}

// -----

// Not in place: the group reads a window of %x (a convolution's loads from
// the whole buffer), which other iterations' writes would overwrite.
// CHECK-LABEL: func.func @window
// CHECK-NOT:     kiln_gpu.in_place
// CHECK:         gpu.module
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @window(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  scf.forall (%i, %j) in (4, 8) {
    %xs = memref.subview %x[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs : memref<1x1xf32, strided<[8, 1], offset: ?>>) outs(%ys : memref<1x1xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %first = memref.load %x[%i, %c0] : memref<4x8xf32>
      %s = arith.addf %a, %first : f32
      linalg.yield %s : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}

// -----

// Not in place: the group writes its element of %y (a fill) before it
// reads the element of %x.
// CHECK-LABEL: func.func @read_after_write
// CHECK-NOT:     kiln_gpu.in_place
// CHECK:         gpu.module
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_after_write(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (4, 8) {
    %xs = memref.subview %x[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, %j] [1, 1] [1, 1] : memref<4x8xf32> to memref<1x1xf32, strided<[8, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%ys : memref<1x1xf32, strided<[8, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs : memref<1x1xf32, strided<[8, 1], offset: ?>>) outs(%ys : memref<1x1xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}

// -----

// Not in place: the slices do not depend on %j, so the iterations of one
// row would read the row of %x after another wrote it.
// CHECK-LABEL: func.func @shared_slice
// CHECK-NOT:     kiln_gpu.in_place
// CHECK:         gpu.module
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_slice(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  scf.forall (%i, %j) in (4, 8) {
    %xs = memref.subview %x[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs : memref<1x8xf32, strided<[8, 1], offset: ?>>) outs(%ys : memref<1x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}

// -----

// One generic op: in place when an input and the init have one type and the
// same permutation over all-parallel loops (%y over %x); not over an input
// read transposed, nor one of another type, nor when the loops reduce.
// CHECK-LABEL: func.func @generic
// CHECK:         gpu.launch_func @kiln_kernels::@k0_{{.*}} args(%arg0 : memref<8x8xf32>, %arg1 : memref<8x8xf32>)
// CHECK-SAME:      kiln_gpu.in_place = array<i64: 0, 1>
// CHECK:         gpu.launch_func @kiln_kernels::@k1_{{.*}} args(%arg0 : memref<8x8xf32>, %arg1 : memref<8x8xf32>)
// CHECK-NOT:       kiln_gpu.in_place
// CHECK:         gpu.launch_func @kiln_kernels::@k2_{{.*}} args(%arg2 : memref<8x8xf16>, %arg1 : memref<8x8xf32>)
// CHECK-NOT:       kiln_gpu.in_place
// CHECK:         gpu.launch_func @kiln_kernels::@k3_{{.*}} args(%arg0 : memref<8x8xf32>, %arg3 : memref<8xf32>)
// CHECK-NOT:       kiln_gpu.in_place
// CHECK:         gpu.module
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @generic(%x: memref<8x8xf32>, %y: memref<8x8xf32>, %h: memref<8x8xf16>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<8x8xf16>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.addf %a, %o : f32
    linalg.yield %e : f32
  }
  return
}
