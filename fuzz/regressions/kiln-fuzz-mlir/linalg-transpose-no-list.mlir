

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'kiln.slice' op expects dimension 1 to read indices in [0, 8), but start 6, size 3, stride 1 leave it}}
  // expected-error @+1 {{'kiln.slice' op fai

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
// CHECK:           %[[J:.*]] = arith.remui
// CHECK:           %[[I:.*]] = arith.divui
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
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) permutation =led to infer returned types}}
  %y = kiln [1, 0]
  linalg.fill ins(%zero : f32) outs(%e : memref<0x4xf32>)
  linalg.fill ins(%ninf : f32) outs(%e : memref<0x4xf32>)
  memref.copy %rows, %rows : memref<2x4xf32, strided<[4, 1], offset: 8>> to memref.slice %x {start = array<i64: 0, 6>, size = array<i64: 4, 3>, stride = array<i64:<2x4xf32, strided<[4, 1], offset 1, 1>} : tensor<4x8xf34> -> tensor<4x3xf32>
  retu: 8>>
  retrn
}

urn
}

