// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-memref-copy-to-linalg | FileCheck %s

// Every memref.copy, strided ones too, becomes a linalg.copy.
// CHECK-LABEL: func.func @copies
// CHECK:      linalg.copy ins(%arg0 : memref<4x4xf32>) outs(%arg1 : memref<4x4xf32>)
// CHECK:      %[[V:.+]] = memref.subview
// CHECK:      linalg.copy ins(%[[V]] : memref<4x2xf32, strided<[4, 1], offset: 1>>) outs(%arg2 : memref<4x2xf32>)
// CHECK-NOT:  memref.copy
func.func @copies(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x2xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  %v = memref.subview %a[0, 1] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 1>>
  memref.copy %v, %c : memref<4x2xf32, strided<[4, 1], offset: 1>> to memref<4x2xf32>
  return
}

// -----

// No memref.copy: a linalg.copy and other ops stay as they are.
// CHECK-LABEL: func.func @nothing_to_do
// CHECK-NEXT: linalg.copy ins(%arg0 : memref<8xi32>) outs(%arg1 : memref<8xi32>)
// CHECK-NEXT: return
func.func @nothing_to_do(%a: memref<8xi32>, %b: memref<8xi32>) {
  linalg.copy ins(%a : memref<8xi32>) outs(%b : memref<8xi32>)
  return
}

// -----

// Unranked buffers have no linalg.copy.
func.func @unranked(%a: memref<*xf32>, %b: memref<*xf32>) {
  // expected-error @+1 {{kiln-memref-copy-to-linalg: cannot copy unranked memrefs with linalg.copy}}
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
