// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-form-kernels --canonicalize --cse | FileCheck %s

// An elementwise op: one kernel over the collapsed 2x300 space, 256 threads
// per block, ceil(600 / 256) = 3 blocks; the launch takes the op's buffers.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic blocks in (%[[C3]], %{{.*}}, %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}}) args(%arg0 : memref<2x300xf32>, %arg1 : memref<2x300xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:       gpu.module @kiln_kernels
// CHECK:         gpu.func @k0_generic(%[[A:.*]]: memref<2x300xf32>, %[[B:.*]]: memref<2x300xf32>) kernel attributes {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [256], threads = [256], stages = 1>, known_block_size = array<i32: 256, 1, 1>}
// The iteration and its split into indices are 32-bit (600 iterations fit).
// The buffers are the function's arguments (a network's inputs and outputs):
// their accesses stay one element each (gpu-form-kernels-vectors.mlir).
// CHECK-DAG:       %[[BID:.*]] = gpu.block_id x
// CHECK-DAG:       %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG:       %[[BID32:.*]] = arith.index_castui %[[BID]] : index to i32
// CHECK-DAG:       %[[TID32:.*]] = arith.index_castui %[[TID]] : index to i32
// CHECK:           %[[BASE:.*]] = arith.muli %[[BID32]], %{{.*}} : i32
// CHECK:           %[[LIN:.*]] = arith.addi %[[BASE]], %[[TID32]] : i32
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %{{.*}} : i32
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[J32:.*]] = arith.remui %[[LIN]], %{{.*}} : i32
// CHECK:             %[[I32:.*]] = arith.divui %[[LIN]], %{{.*}} : i32
// CHECK-DAG:         %[[I:.*]] = arith.index_castui %[[I32]] : i32 to index
// CHECK-DAG:         %[[J:.*]] = arith.index_castui %[[J32]] : i32 to index
// CHECK:             %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]]]
// CHECK:             %[[Y:.*]] = math.exp %[[X]] : f32
// CHECK:             memref.store %[[Y]], %[[B]][%[[I]], %[[J]]]
// CHECK:           gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<2x300xf32>, %y: memref<2x300xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x300xf32>) outs(%y : memref<2x300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A reduction listed first is moved inside: the kernel covers the parallel
// dimension (8 iterations: one block of 32 threads) and each thread loops over
// the reduction. A given tile_config is used and recorded: 4 iterations per
// thread (tile 128, threads 32) give a loop over the block's tile.
// CHECK-LABEL: func.func @reduction_first
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @k0_generic(%[[A:.*]]: memref<16x8xf32>, %[[B:.*]]: memref<8xf32>) kernel attributes {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [128], threads = [32], stages = 1>, known_block_size = array<i32: 32, 1, 1>}
// CHECK:         scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[LIN:.*]] = arith.addi %{{.*}}, %[[E]] : i32
// CHECK:           scf.if
// CHECK:             %[[COL:.*]] = arith.index_castui %[[LIN]] : i32 to index
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               memref.load %[[A]][%[[K]], %[[COL]]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @reduction_first(%x: memref<16x8xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<16x8xf32>) outs(%y : memref<8xf32>)
      attrs = {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [128], threads = [32], stages = 1>} {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Copies between contiguous buffers (a view with an offset is contiguous
// too) and byte-pattern fills stay for the runtime (a device copy, a memset);
// a strided copy, a fill with -inf and a named op become kernels; ops over an
// empty space and a copy of a buffer onto itself disappear.
// CHECK-LABEL: func.func @copies_and_fills
// CHECK:         memref.copy %arg0, %arg1 : memref<4x4xf32> to memref<4x4xf32>
// CHECK:         %[[ROWS:.*]] = memref.subview %arg0[2, 0] [2, 4] [1, 1]
// CHECK:         memref.copy %[[ROWS]], %arg2 : memref<2x4xf32, strided<[4, 1], offset: 8>> to memref<2x4xf32>
// CHECK:         %[[COLS:.*]] = memref.subview %arg0[0, 1] [4, 2] [1, 1]
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%[[COLS]] : memref<4x2xf32, strided<[4, 1], offset: 1>>, %arg4 : memref<4x2xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<4x4xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k1_generic {{.*}} args(%arg1 : memref<4x4xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k2_generic {{.*}} args(%arg0 : memref<4x4xf32>, %arg1 : memref<4x4xf32>)
// CHECK-NOT:     gpu.launch_func
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     memref.copy
// CHECK:         return
// CHECK:       gpu.func @k0_generic(%[[SRC:.*]]: memref<4x2xf32, strided<[4, 1], offset: 1>>, %[[DST:.*]]: memref<4x2xf32>)
// CHECK:         memref.load %[[SRC]]
// CHECK:       gpu.func @k1_generic
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         memref.store %[[NEGINF]]
// CHECK:       gpu.func @k2_generic
// CHECK:           %[[J32:.*]] = arith.remui
// CHECK:           %[[I32:.*]] = arith.divui
// CHECK-DAG:       %[[I:.*]] = arith.index_castui %[[I32]]
// CHECK-DAG:       %[[J:.*]] = arith.index_castui %[[J32]]
// CHECK:           %[[V:.*]] = memref.load %arg0[%[[J]], %[[I]]]
// CHECK:           memref.store %[[V]], %arg1[%[[I]], %[[J]]]
func.func @copies_and_fills(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<2x4xf32>, %e: memref<0x4xf32>, %d: memref<4x2xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  %rows = memref.subview %a[2, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 8>>
  memref.copy %rows, %c : memref<2x4xf32, strided<[4, 1], offset: 8>> to memref<2x4xf32>
  %cols = memref.subview %a[0, 1] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 1>>
  memref.copy %cols, %d : memref<4x2xf32, strided<[4, 1], offset: 1>> to memref<4x2xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<4x4xf32>)
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%b : memref<4x4xf32>)
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%e : memref<0x4xf32>)
  linalg.fill ins(%ninf : f32) outs(%e : memref<0x4xf32>)
  memref.copy %rows, %rows : memref<2x4xf32, strided<[4, 1], offset: 8>> to memref<2x4xf32, strided<[4, 1], offset: 8>>
  return
}

// -----

// A gather reads its data buffer from inside the body: that buffer becomes a
// kernel argument too. Integer powers are expanded (NVVM has no ipowi).
// CHECK-LABEL: func.func @gather_and_ipowi
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg1 : memref<3xi64>, %arg2 : memref<3xi64>, %arg0 : memref<5xi64>)
// CHECK:       gpu.func @k0_generic(%[[IDX:.*]]: memref<3xi64>, %[[OUT:.*]]: memref<3xi64>, %[[DATA:.*]]: memref<5xi64>)
// CHECK:         memref.load %[[DATA]]
// CHECK-NOT:     math.ipowi
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           arith.shrui
#v = affine_map<(d0) -> (d0)>
func.func @gather_and_ipowi(%data: memref<5xi64>, %idx: memref<3xi64>, %out: memref<3xi64>) {
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%idx : memref<3xi64>) outs(%out : memref<3xi64>) {
  ^bb0(%i: i64, %o: i64):
    %j = arith.index_cast %i : i64 to index
    %d = memref.load %data[%j] : memref<5xi64>
    %p = math.ipowi %d, %i : i64
    linalg.yield %p : i64
  }
  return
}

// -----

// Two views of the same bytes: copying one onto the other is nothing to do.
// CHECK-LABEL: func.func @self_copy_through_views
// CHECK-NOT:     memref.copy
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @self_copy_through_views(%a: memref<4x4xf32>) {
  %v = memref.subview %a[1, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  %w = memref.subview %a[1, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  memref.copy %v, %w : memref<2x4xf32, strided<[4, 1], offset: 4>> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  return
}

// -----

// Kernels are formed from ops on buffers only.
func.func @on_tensors(%t: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{kiln-gpu-form-kernels: expects linalg ops on buffers}}
  %r = linalg.copy ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A kernel needs static shapes (bare-pointer arguments).
func.func @dynamic(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{kiln-gpu-form-kernels: dynamic loop range}}
  linalg.copy ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
  return
}

// -----

// An iteration space whose count does not fit in 64 bits is an error, not a
// wrapped count.
func.func @overflow(%a: memref<4611686018427387904x4xf32>) {
  %zero = arith.constant 1.0 : f32
  // expected-error @+1 {{kiln-gpu-form-kernels: the op's parallel iterations overflow 64 bits}}
  linalg.fill ins(%zero : f32) outs(%a : memref<4611686018427387904x4xf32>)
  return
}

// -----

// Two layers of the same op and shapes form the same kernel: it is kept
// once and launched twice; the third op (another shape) has its own.
// CHECK-LABEL: func.func @repeated_layers
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg0 : memref<8xf32>, %arg1 : memref<8xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg1 : memref<8xf32>, %arg0 : memref<8xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k2_generic {{.*}} args(%arg2 : memref<16xf32>, %arg3 : memref<16xf32>)
// CHECK:       gpu.module @kiln_kernels
// CHECK-NEXT:    gpu.func @k0_generic(
// CHECK-NOT:     gpu.func @k1_generic
// CHECK:         gpu.func @k2_generic(
#id1 = affine_map<(d0) -> (d0)>
func.func @repeated_layers(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<16xf32>, %d: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%c : memref<16xf32>) outs(%d : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// Parts of one buffer (a concatenation's inputs): a kernel takes a part that
// starts a vector (16 bytes, 4 f32) or more into its buffer rebased, its base
// at the vector-aligned element before it and only the remainder in its type:
// row 1 (offset 6) keeps offset 2, row 2 (offset 12) none. Row 0 starts the
// buffer and is passed as it is. Kernels differ by the remainder only.
// CHECK-LABEL: func.func @parts
// CHECK:         %[[R0:.*]] = memref.subview %arg1[0, 0] [1, 6] [1, 1]
// CHECK:         %[[R1:.*]] = memref.subview %arg1[1, 0] [1, 6] [1, 1]
// CHECK:         %[[R2:.*]] = memref.subview %arg1[2, 0] [1, 6] [1, 1]
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg0 : memref<1x6xf32>, %[[R0]] : memref<1x6xf32, strided<[6, 1]>>)
// CHECK:         %[[B1:.*]] = kiln_gpu.rebase %[[R1]] : memref<1x6xf32, strided<[6, 1], offset: 6>> to memref<1x6xf32, strided<[6, 1], offset: 2>>
// CHECK:         gpu.launch_func @kiln_kernels::@k1_generic {{.*}} args(%arg0 : memref<1x6xf32>, %[[B1]] : memref<1x6xf32, strided<[6, 1], offset: 2>>)
// CHECK:         %[[B2:.*]] = kiln_gpu.rebase %[[R2]] : memref<1x6xf32, strided<[6, 1], offset: 12>> to memref<1x6xf32>
// CHECK:         gpu.launch_func @kiln_kernels::@k2_generic {{.*}} args(%arg0 : memref<1x6xf32>, %[[B2]] : memref<1x6xf32>)
// CHECK:         gpu.func @k2_generic(%{{.*}}: memref<1x6xf32>, %{{.*}}: memref<1x6xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @parts(%x: memref<1x6xf32>, %y: memref<3x6xf32>) {
  %r0 = memref.subview %y[0, 0] [1, 6] [1, 1] : memref<3x6xf32> to memref<1x6xf32, strided<[6, 1]>>
  %r1 = memref.subview %y[1, 0] [1, 6] [1, 1] : memref<3x6xf32> to memref<1x6xf32, strided<[6, 1], offset: 6>>
  %r2 = memref.subview %y[2, 0] [1, 6] [1, 1] : memref<3x6xf32> to memref<1x6xf32, strided<[6, 1], offset: 12>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1x6xf32>) outs(%r0 : memref<1x6xf32, strided<[6, 1]>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1x6xf32>) outs(%r1 : memref<1x6xf32, strided<[6, 1], offset: 6>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1x6xf32>) outs(%r2 : memref<1x6xf32, strided<[6, 1], offset: 12>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A generic alike one formed before is launched as that kernel, without
// forming another (kiln-gpu-form-kernels keeps what it formed): the second
// add of 1.0 reuses the first's kernel; the add of 2.0 (another constant,
// cloned into its kernel) gets its own.
// CHECK-LABEL: func.func @formed_once
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg0 : memref<8xf32>, %arg1 : memref<8xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k0_generic {{.*}} args(%arg1 : memref<8xf32>, %arg0 : memref<8xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k2_generic {{.*}} args(%arg0 : memref<8xf32>, %arg1 : memref<8xf32>)
// CHECK:       gpu.module @kiln_kernels
// CHECK:         gpu.func @k0_generic(
// CHECK:           arith.constant 1.000000e+00 : f32
// CHECK-NOT:     gpu.func @k1_generic
// CHECK:         gpu.func @k2_generic(
// CHECK:           arith.constant 2.000000e+00 : f32
#id3 = affine_map<(d0) -> (d0)>
func.func @formed_once(%a: memref<8xf32>, %b: memref<8xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = arith.addf %in, %one : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = arith.addf %in, %one : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = arith.addf %in, %two : f32
    linalg.yield %e : f32
  }
  return
}
