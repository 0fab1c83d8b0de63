// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-kernels --canonicalize --cse | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-gpu-form-kernels=vectors=false --canonicalize --cse | FileCheck %s --check-prefix=SCALAR
// Kernels contiguous along their innermost loop run several of its
// iterations per thread, on vectors of up to 16 bytes. Their numbers are
// checked on the GPU by the ONNX backend tests and the networks of
// scripts/gpu-check.sh (channels-last convolutions gather through such
// kernels).

#id = affine_map<(d0, d1) -> (d0, d1)>
// f16 in arena buffers: 8 elements (16 bytes) per thread, so 4 x 64 / 8 = 32
// iterations, one block of 32 threads; the f32 ReLU in between works on
// vector<8xf32>.
// CHECK-LABEL: func.func @half_relu
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @k0_generic(%[[A:.*]]: memref<4x64xf16>, %[[B:.*]]: memref<4x64xf16>)
// CHECK:         %[[J:.*]] = arith.remui %{{.*}}, %c8_i32 : i32
// CHECK:         %[[I:.*]] = arith.divui %{{.*}}, %c8_i32 : i32
// CHECK-DAG:     %[[ROW:.*]] = arith.index_castui %[[I]] : i32 to index
// CHECK-DAG:     %[[COL:.*]] = arith.index_castui %[[J]] : i32 to index
// CHECK:         %[[FIRST:.*]] = arith.muli %[[COL]], %c8 : index
// CHECK:         %[[X:.*]] = vector.load %[[A]][%[[ROW]], %[[FIRST]]] {alignment = 16 : i64} : memref<4x64xf16>, vector<8xf16>
// CHECK:         %[[W:.*]] = arith.extf %[[X]] : vector<8xf16> to vector<8xf32>
// CHECK:         %[[R:.*]] = arith.maximumf %[[W]], %{{.*}} : vector<8xf32>
// CHECK:         %[[N:.*]] = arith.truncf %[[R]] : vector<8xf32> to vector<8xf16>
// CHECK:         vector.store %[[N]], %[[B]][%[[ROW]], %[[FIRST]]] {alignment = 16 : i64} : memref<4x64xf16>, vector<8xf16>
// SCALAR-LABEL: func.func @half_relu
// SCALAR:         gpu.launch_func @kiln_kernels::@k0_generic blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
// SCALAR-NOT:     vector.
// SCALAR:         memref.load
// SCALAR-NOT:     vector.
func.func @half_relu(%out: memref<4x64xf16>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x64xf16>
  %b = memref.alloc() {alignment = 64 : i64} : memref<4x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x64xf16>) outs(%b : memref<4x64xf16>) {
  ^bb0(%x: f16, %y: f16):
    %zero = arith.constant 0.0 : f32
    %w = arith.extf %x : f16 to f32
    %r = arith.maximumf %w, %zero : f32
    %n = arith.truncf %r : f32 to f16
    linalg.yield %n : f16
  }
  memref.copy %b, %out : memref<4x64xf16> to memref<4x64xf16>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// The output is the network's (a pointer the user gives, aligned only to
// its element): it is written one element at a time from the vector; the
// widest type (f32) sets 4 per thread; the bias broadcast along the rows is
// read as a vector too.
// CHECK-LABEL: func.func @to_output
// CHECK:       gpu.func @k0_generic(%[[A:.*]]: memref<8x32xf16>, %[[BIAS:.*]]: memref<32xf16>, %[[OUT:.*]]: memref<8x32xf32>)
// CHECK:         %[[FIRST:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK-DAG:     %[[X:.*]] = vector.load %[[A]][%{{.*}}, %[[FIRST]]] {alignment = 8 : i64} : memref<8x32xf16>, vector<4xf16>
// CHECK-DAG:     %[[C:.*]] = vector.load %[[BIAS]][%[[FIRST]]] {alignment = 8 : i64} : memref<32xf16>, vector<4xf16>
// CHECK:         %[[S:.*]] = arith.addf %[[X]], %[[C]] : vector<4xf16>
// CHECK:         %[[W:.*]] = arith.extf %[[S]] : vector<4xf16> to vector<4xf32>
// CHECK:         %[[E0:.*]] = vector.extract %[[W]][0] : f32 from vector<4xf32>
// CHECK:         memref.store %[[E0]], %[[OUT]][%{{.*}}, %[[FIRST]]] : memref<8x32xf32>
// CHECK:         %[[E3:.*]] = vector.extract %[[W]][3] : f32 from vector<4xf32>
// CHECK:         memref.store %[[E3]], %[[OUT]]
func.func @to_output(%out: memref<8x32xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<8x32xf16>
  %bias = memref.get_global @bias : memref<32xf16>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bias : memref<8x32xf16>, memref<32xf16>) outs(%out : memref<8x32xf32>) {
  ^bb0(%x: f16, %c: f16, %y: f32):
    %s = arith.addf %x, %c : f16
    %w = arith.extf %s : f16 to f32
    linalg.yield %w : f32
  }
  return
}
memref.global "private" constant @bias : memref<32xf16> = dense<1.0> {alignment = 64 : i64}

// -----

#out = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// A padded gather (a convolution's im2col along its 16 channels): the row
// it reads and whether it is inside the padding are the same for the 8
// channels a thread gathers, so they stay scalar, and the select keeps its
// one-bit condition.
// CHECK-LABEL: func.func @gather
// CHECK:       gpu.func @k0_generic(%[[COLS:.*]]: memref<4x3x16xf16>, %[[X:.*]]: memref<4x16xf16>)
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %c4 : index
// CHECK:         %[[AT:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK:         %[[V:.*]] = vector.load %[[X]][%[[AT]], %{{.*}}] {alignment = 16 : i64} : memref<4x16xf16>, vector<8xf16>
// CHECK:         %[[P:.*]] = arith.select %[[OK]], %[[V]], %{{.*}} : vector<8xf16>
// CHECK:         vector.store %[[P]], %[[COLS]]
func.func @gather(%out: memref<4x3x16xf16>) {
  %x = memref.alloc() {alignment = 64 : i64} : memref<4x16xf16>
  %cols = memref.alloc() {alignment = 64 : i64} : memref<4x3x16xf16>
  linalg.generic {indexing_maps = [#out], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%cols : memref<4x3x16xf16>) {
  ^bb0(%y: f16):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f16
    %o = linalg.index 0 : index
    %r = linalg.index 1 : index
    %c = linalg.index 2 : index
    %sum = arith.addi %o, %r : index
    %pos = arith.subi %sum, %c1 : index
    %ok = arith.cmpi ult, %pos, %c4 : index
    %at = arith.select %ok, %pos, %c0 : index
    %v = memref.load %x[%at, %c] : memref<4x16xf16>
    %p = arith.select %ok, %v, %zero : f16
    linalg.yield %p : f16
  }
  memref.copy %cols, %out : memref<4x3x16xf16> to memref<4x3x16xf16>
  return
}

// -----

// A channels-last max pool: the window loops run inside the thread on
// vectors of 8 channels (the window's row and column are the same for them).
// CHECK-LABEL: func.func @pool
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @k0_generic(%[[X:.*]]: memref<1x4x4x16xf16>, %{{.*}}: memref<2x2xf16>, %[[Y:.*]]: memref<1x2x2x16xf16>)
// CHECK:         scf.for %[[KH:.*]] = %c0 to %c2 step %c1 {
// CHECK:           scf.for %[[KW:.*]] = %c0 to %c2 step %c1 {
// CHECK:             %[[V:.*]] = vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<1x4x4x16xf16>, vector<8xf16>
// CHECK:             %[[ACC:.*]] = vector.load %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<1x2x2x16xf16>, vector<8xf16>
// CHECK:             %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : vector<8xf16>
// CHECK:             vector.store %[[M]], %[[Y]]
func.func @pool(%out: memref<1x2x2x16xf16>) {
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x16xf16>
  %w = memref.alloc() {alignment = 64 : i64} : memref<2x2xf16>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x2x16xf16>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x16xf16>, memref<2x2xf16>) outs(%y : memref<1x2x2x16xf16>)
  memref.copy %y, %out : memref<1x2x2x16xf16> to memref<1x2x2x16xf16>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Rows of 6 halves: 8 and 4 do not divide 6, 2 does (4-byte vectors).
// A view starting 4 elements in: 4 per thread keep every vector aligned.
// CHECK-LABEL: func.func @narrower
// CHECK:       gpu.func @k0_generic
// CHECK:         vector.load {{.*}} : memref<8x6xf16>, vector<2xf16>
// CHECK:       gpu.func @k1_generic
// CHECK:         vector.load {{.*}} : memref<2x8xf16, strided<[16, 1], offset: 4>>, vector<4xf16>
// CHECK:         vector.store {{.*}} : memref<2x8xf16>, vector<4xf16>
func.func @narrower(%o1: memref<8x6xf16>, %o2: memref<2x8xf16>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<8x6xf16>
  %b = memref.alloc() {alignment = 64 : i64} : memref<8x6xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x6xf16>) outs(%b : memref<8x6xf16>) {
  ^bb0(%x: f16, %y: f16):
    %n = arith.negf %x : f16
    linalg.yield %n : f16
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<2x16xf16>
  %d = memref.alloc() {alignment = 64 : i64} : memref<2x8xf16>
  %v = memref.subview %c[0, 4] [2, 8] [1, 1] : memref<2x16xf16> to memref<2x8xf16, strided<[16, 1], offset: 4>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<2x8xf16, strided<[16, 1], offset: 4>>) outs(%d : memref<2x8xf16>) {
  ^bb0(%x: f16, %y: f16):
    %n = arith.negf %x : f16
    linalg.yield %n : f16
  }
  memref.copy %b, %o1 : memref<8x6xf16> to memref<8x6xf16>
  memref.copy %d, %o2 : memref<2x8xf16> to memref<2x8xf16>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
// Stay one element per thread: a transpose (the inner loop indexes a row
// of its input), rows of 3 elements, an op on the inner index itself,
// buffers that are all the network's, and booleans (a byte each in memory,
// a bit each in a vector).
// CHECK-LABEL: func.func @scalar
// CHECK-NOT:     vector.
// CHECK:         return
// CHECK-NOT:     vector.
// CHECK:       gpu.func @k4_generic
// CHECK-NOT:     vector.
// CHECK:         gpu.return
func.func @scalar(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<8x3xf32>
  %d = memref.alloc() {alignment = 64 : i64} : memref<8x3xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x3xf32>) outs(%d : memref<8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %j : index to i32
    %f = arith.sitofp %i : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %e = memref.alloc() {alignment = 64 : i64} : memref<8x16xi1>
  %f = memref.alloc() {alignment = 64 : i64} : memref<8x16xi1>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : memref<8x16xi1>) outs(%f : memref<8x16xi1>) {
  ^bb0(%in: i1, %out: i1):
    %true = arith.constant true
    %n = arith.xori %in, %true : i1
    linalg.yield %n : i1
  }
  return
}
