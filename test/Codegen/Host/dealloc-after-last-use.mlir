// RUN: kiln-opt %s --split-input-file --kiln-dealloc-after-last-use | FileCheck %s

// Two allocations of the block, freed at its end under true: each is freed
// right after its last use (a call, a view's use) instead.
// CHECK-LABEL: func.func @chain(
// CHECK:         %[[T1:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         call @layer(%arg0, %[[T1]])
// CHECK:         %[[T2:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         call @layer(%[[T1]], %[[T2]])
// CHECK-NEXT:    memref.dealloc %[[T1]] : memref<4xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[T2]][0] [2] [1]
// CHECK:         memref.copy %[[V]], %arg1
// CHECK-NEXT:    memref.dealloc %[[T2]] : memref<4xf32>
// CHECK-NOT:     bufferization.dealloc
// CHECK:         return
func.func private @layer(memref<4xf32>, memref<4xf32>)
func.func @chain(%a: memref<4xf32>, %b: memref<2xf32>) {
  %true = arith.constant true
  %t1 = memref.alloc() : memref<4xf32>
  call @layer(%a, %t1) : (memref<4xf32>, memref<4xf32>) -> ()
  %t2 = memref.alloc() : memref<4xf32>
  call @layer(%t1, %t2) : (memref<4xf32>, memref<4xf32>) -> ()
  %v = memref.subview %t2[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.copy %v, %b : memref<2xf32, strided<[1]>> to memref<2xf32>
  %base1, %o1, %s1, %st1 = memref.extract_strided_metadata %t1 : memref<4xf32> -> memref<f32>, index, index, index
  %base2, %o2, %s2, %st2 = memref.extract_strided_metadata %t2 : memref<4xf32> -> memref<f32>, index, index, index
  bufferization.dealloc (%base1, %base2 : memref<f32>, memref<f32>) if (%true, %true)
  return
}

// -----

// Must not fire: a buffer under a condition that is not constant true, a
// buffer that is not an allocation of the block (an argument), one stored
// into memory (it could outlive the block), and two entries of one
// allocation. They stay in the dealloc; a dealloc with retained values is
// left alone.
// CHECK-LABEL: func.func @stays(
// CHECK-NOT:     memref.dealloc
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}}, %{{.*}} : memref<f32>, memref<f32>, memref<f32>) if (%arg2, %true, %true)
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<f32>, memref<f32>) if (%true, %true)
// CHECK:         bufferization.dealloc (%{{.*}} : memref<f32>) if (%true) retain (%arg1 : memref<4xf32>)
func.func @stays(%a: memref<4xf32>, %r: memref<4xf32>, %c: i1, %p: memref<1xmemref<4xf32>>) {
  %true = arith.constant true
  %i = arith.constant 0 : index
  %t1 = memref.alloc() : memref<4xf32>
  %t2 = memref.alloc() : memref<4xf32>
  memref.store %t2, %p[%i] : memref<1xmemref<4xf32>>
  %t3 = memref.alloc() : memref<4xf32>
  %t4 = memref.alloc() : memref<4xf32>
  %b1, %o1, %s1, %st1 = memref.extract_strided_metadata %t1 : memref<4xf32> -> memref<f32>, index, index, index
  %b2, %o2, %s2, %st2 = memref.extract_strided_metadata %t2 : memref<4xf32> -> memref<f32>, index, index, index
  %b3, %o3, %s3, %st3 = memref.extract_strided_metadata %a : memref<4xf32> -> memref<f32>, index, index, index
  %b4, %o4, %s4, %st4 = memref.extract_strided_metadata %t3 : memref<4xf32> -> memref<f32>, index, index, index
  %b5, %o5, %s5, %st5 = memref.extract_strided_metadata %t4 : memref<4xf32> -> memref<f32>, index, index, index
  bufferization.dealloc (%b1, %b2, %b3 : memref<f32>, memref<f32>, memref<f32>) if (%c, %true, %true)
  bufferization.dealloc (%b4, %b4 : memref<f32>, memref<f32>) if (%true, %true)
  %u = bufferization.dealloc (%b5 : memref<f32>) if (%true) retain (%r : memref<4xf32>)
  return
}
