// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-plan-memory | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-plan-memory=alignment=1024 | FileCheck %s --check-prefix=ALIGN
// RUN: not kiln-opt %s --split-input-file --kiln-plan-memory=alignment=96 2>&1 | FileCheck %s --check-prefix=BADALIGN
// BADALIGN: kiln-plan-memory: alignment must be a power of two of at least 16 bytes, got 96
// RUN: not kiln-opt %s --split-input-file --kiln-plan-memory=alignment=8 2>&1 | FileCheck %s --check-prefix=SMALLALIGN
// SMALLALIGN: kiln-plan-memory: alignment must be a power of two of at least 16 bytes, got 8

// Buffers whose steps overlap get disjoint bytes; buffers whose lifetimes do
// not overlap share them. %a lives over steps 0-2 (step 2 reads a view of
// it), %b over step 1, %c over steps 3-4: %a and %c share offset 0, %b goes
// after %a. An allocation no step uses gets offset 0. The arena ends at
// 4096 + 400 bytes, rounded up to the alignment.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME:  kiln_gpu.arena_bytes = 4608 : i64
// CHECK:       %[[A:.+]] = memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       %[[B:.+]] = memref.alloc() {kiln_gpu.arena_offset = 4096 : i64} : memref<100xf32>
// CHECK:       %[[C:.+]] = memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       %[[U:.+]] = memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<64xf32>
// ALIGN-LABEL: func.func @reuse
// ALIGN-SAME:  kiln_gpu.arena_bytes = 5120 : i64
// ALIGN:       memref.alloc() {kiln_gpu.arena_offset = 4096 : i64} : memref<100xf32>
func.func @reuse(%x: memref<1024xf32>, %y: memref<1024xf32>, %z: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1024xf32>
  memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() : memref<100xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<100xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [32, 32] : memref<1024xf32> into memref<32x32xf32>
  memref.copy %v, %z : memref<32x32xf32> to memref<32x32xf32>
  %c = memref.alloc() : memref<1024xf32>
  memref.copy %y, %c : memref<1024xf32> to memref<1024xf32>
  memref.copy %c, %y : memref<1024xf32> to memref<1024xf32>
  %unused = memref.alloc() : memref<64xf32>
  return
}

// -----

// A copy of a buffer onto the same bytes is no step: it does not keep %a
// alive, so %b reuses %a's bytes.
// CHECK-LABEL: func.func @self_copy
// CHECK-SAME:  kiln_gpu.arena_bytes = 256 : i64
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<16xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<16xf32>
func.func @self_copy(%x: memref<16xf32>, %y: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %x, %b : memref<16xf32> to memref<16xf32>
  memref.copy %b, %y : memref<16xf32> to memref<16xf32>
  %view = memref.subview %a[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>
  memref.copy %view, %a : memref<16xf32, strided<[1]>> to memref<16xf32>
  return
}

// -----

// No allocation: an empty arena, nothing else changes.
// CHECK-LABEL: func.func @no_buffers
// CHECK-SAME:  kiln_gpu.arena_bytes = 0 : i64
// CHECK-NEXT:  memref.copy %arg0, %arg1
func.func @no_buffers(%x: memref<8xi64>, %y: memref<8xi64>) {
  memref.copy %x, %y : memref<8xi64> to memref<8xi64>
  return
}

// -----

// A buffer of unknown size cannot be placed.
func.func @dynamic(%n: index, %y: memref<?xf32>) {
  // expected-error @+1 {{kiln-plan-memory: allocation of 'memref<?xf32>' is not static}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// In place: the launch may write %b over %a (kiln_gpu.in_place), %a is not
// used after it and %b not before, so %b takes %a's bytes; %c, written over
// %b the same way, too: one buffer of 4096 bytes from step 0 to step 3. %d
// is read by the launch that writes %e over it, but also after it: %e gets
// its own bytes.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME:  kiln_gpu.arena_bytes = 8192 : i64
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 4096 : i64} : memref<1024xf32>
module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    gpu.func @k(%in: memref<1024xf32>, %out: memref<1024xf32>) kernel {
      gpu.return
    }
  }
  func.func @in_place(%x: memref<1024xf32>, %y: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1024xf32>
    memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
    %b = memref.alloc() : memref<1024xf32>
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<1024xf32>, %b : memref<1024xf32>) {kiln_gpu.in_place = array<i64: 0, 1>}
    %c = memref.alloc() : memref<1024xf32>
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<1024xf32>, %c : memref<1024xf32>) {kiln_gpu.in_place = array<i64: 0, 1>}
    %d = memref.alloc() : memref<1024xf32>
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<1024xf32>, %d : memref<1024xf32>) {kiln_gpu.in_place = array<i64: 0, 1>}
    %e = memref.alloc() : memref<1024xf32>
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<1024xf32>, %e : memref<1024xf32>) {kiln_gpu.in_place = array<i64: 0, 1>}
    memref.copy %d, %y : memref<1024xf32> to memref<1024xf32>
    memref.copy %e, %y : memref<1024xf32> to memref<1024xf32>
    return
  }
}

// -----

// Not in place: the launch also reads %a through a view (another argument),
// which the kernel's analysis did not see; %b gets its own bytes.
// CHECK-LABEL: func.func @in_place_view
// CHECK-SAME:  kiln_gpu.arena_bytes = 8192 : i64
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 0 : i64} : memref<1024xf32>
// CHECK:       memref.alloc() {kiln_gpu.arena_offset = 4096 : i64} : memref<1024xf32>
module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    gpu.func @k(%in: memref<1024xf32>, %view: memref<32x32xf32>, %out: memref<1024xf32>) kernel {
      gpu.return
    }
  }
  func.func @in_place_view(%x: memref<1024xf32>, %y: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1024xf32>
    memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
    %v = memref.expand_shape %a [[0, 1]] output_shape [32, 32] : memref<1024xf32> into memref<32x32xf32>
    %b = memref.alloc() : memref<1024xf32>
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<1024xf32>, %v : memref<32x32xf32>, %b : memref<1024xf32>) {kiln_gpu.in_place = array<i64: 0, 2>}
    memref.copy %b, %y : memref<1024xf32> to memref<1024xf32>
    return
  }
}
