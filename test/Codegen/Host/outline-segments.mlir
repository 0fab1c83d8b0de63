// RUN: kiln-opt %s --split-input-file --kiln-outline-segments="max-ops=2" | FileCheck %s

// Runs of at most two operations (constants and globals' addresses are
// cloned where used, and go where none is left) become no_inline calls of private functions: what a
// run uses from before is an argument, what it defines and is used after is
// a result; the last run holds the rest.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = call @main_segment_0(%[[X]]) {no_inline} : (memref<4xf32>) -> memref<4xf32>
// CHECK:         %[[B:.*]] = call @main_segment_1(%[[A]]) {no_inline} : (memref<4xf32>) -> memref<4xf32>
// CHECK:         call @main_segment_2(%[[B]], %[[Y]], %[[A]]) {no_inline} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @main_segment_0(%[[X0:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT:    %[[G0:.*]] = memref.get_global @w : memref<4xf32>
// CHECK-NEXT:    %[[A0:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    call @layer(%[[X0]], %[[G0]], %[[A0]])
// CHECK-NEXT:    return %[[A0]] : memref<4xf32>
// CHECK:       func.func private @main_segment_1(%[[A1:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT:    %[[B1:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    call @layer2(%[[A1]], %[[B1]])
// CHECK-NEXT:    return %[[B1]] : memref<4xf32>
// CHECK:       func.func private @main_segment_2(%[[B2:.*]]: memref<4xf32>, %[[Y2:.*]]: memref<4xf32>, %[[A2:.*]]: memref<4xf32>)
// CHECK-NEXT:    %[[G2:.*]] = memref.get_global @w : memref<4xf32>
// CHECK-NEXT:    call @layer(%[[B2]], %[[G2]], %[[Y2]])
// CHECK-NEXT:    memref.dealloc %[[A2]] : memref<4xf32>
// CHECK-NEXT:    return
memref.global "private" constant @w : memref<4xf32> = dense<1.0>
func.func private @layer(memref<4xf32>, memref<4xf32>, memref<4xf32>)
func.func private @layer2(memref<4xf32>, memref<4xf32>)
func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
  %w = memref.get_global @w : memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  call @layer(%x, %w, %a) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  %b = memref.alloc() : memref<4xf32>
  call @layer2(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  call @layer(%b, %w, %y) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// Must not fire: a function of at most max-ops operations, and one of more
// than one block.
// CHECK-LABEL: func.func @short(
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @blocks(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-NOT:   _segment_
func.func @short() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
func.func @blocks(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %d : memref<4xf32>
  return
}

// -----

// Must not fire: a run whose result the bare-pointer calling convention
// cannot carry (a dynamic shape) stays in place; the runs around it move.
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[D:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         call @main_use
// CHECK:         call @dynamic_segment_1
func.func private @main_use(memref<?xf32>)
func.func @dynamic(%n: index) {
  %d = memref.alloc(%n) : memref<?xf32>
  call @main_use(%d) : (memref<?xf32>) -> ()
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %d : memref<?xf32>
  return
}

// -----

// A run does not end right after a kiln_gpu.rebase: the call that takes the
// rebased part goes with it (a segment's result is passed back as its
// allocated pointer, which a rebased part does not start at). Each run
// takes three operations here.
// CHECK-LABEL: func.func @rebased(
// CHECK-NEXT:    call @rebased_segment_0(%arg1, %arg0) {no_inline}
// CHECK-NEXT:    call @rebased_segment_1(%arg1, %arg0) {no_inline}
// CHECK-NEXT:    return
// CHECK:       func.func private @rebased_segment_0(
// CHECK-NEXT:    memref.subview
// CHECK-NEXT:    kiln_gpu.rebase
// CHECK-NEXT:    call @part
// CHECK-NEXT:    return
func.func private @part(memref<4xf32>, memref<4xf32>)
func.func @rebased(%x: memref<4xf32>, %y: memref<12xf32>) {
  %p = memref.subview %y[4] [4] [1] : memref<12xf32> to memref<4xf32, strided<[1], offset: 4>>
  %r = kiln_gpu.rebase %p : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
  call @part(%x, %r) : (memref<4xf32>, memref<4xf32>) -> ()
  %q = memref.subview %y[8] [4] [1] : memref<12xf32> to memref<4xf32, strided<[1], offset: 8>>
  %s = kiln_gpu.rebase %q : memref<4xf32, strided<[1], offset: 8>> to memref<4xf32>
  call @part(%x, %s) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
