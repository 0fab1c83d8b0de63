// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// kiln_gpu.rebase round-trips.
// CHECK-LABEL: func.func @rebase
// CHECK:         %[[R:.*]] = kiln_gpu.rebase %arg0 : memref<1x6xf32, strided<[6, 1], offset: 6>> to memref<1x6xf32, strided<[6, 1], offset: 2>>
// CHECK:         return %[[R]]
func.func @rebase(%a: memref<1x6xf32, strided<[6, 1], offset: 6>>) -> memref<1x6xf32, strided<[6, 1], offset: 2>> {
  %r = kiln_gpu.rebase %a : memref<1x6xf32, strided<[6, 1], offset: 6>> to memref<1x6xf32, strided<[6, 1], offset: 2>>
  return %r : memref<1x6xf32, strided<[6, 1], offset: 2>>
}

// -----

func.func @later_offset(%a: memref<4xf32, strided<[1], offset: 2>>) {
  // expected-error @+1 {{'kiln_gpu.rebase' op result 'memref<4xf32, strided<[1], offset: 3>>' must keep the shape, element type and strides of 'memref<4xf32, strided<[1], offset: 2>>' with a static offset in [0, 2]}}
  %r = kiln_gpu.rebase %a : memref<4xf32, strided<[1], offset: 2>> to memref<4xf32, strided<[1], offset: 3>>
  return
}

// -----

func.func @other_strides(%a: memref<2x4xf32, strided<[8, 1], offset: 8>>) {
  // expected-error @+1 {{must keep the shape, element type and strides}}
  %r = kiln_gpu.rebase %a : memref<2x4xf32, strided<[8, 1], offset: 8>> to memref<2x4xf32>
  return
}

// -----

func.func @other_shape(%a: memref<4xf32, strided<[1], offset: 4>>) {
  // expected-error @+1 {{must keep the shape, element type and strides}}
  %r = kiln_gpu.rebase %a : memref<4xf32, strided<[1], offset: 4>> to memref<2xf32>
  return
}

// -----

func.func @dynamic_offset(%a: memref<4xf32, strided<[1], offset: ?>>) {
  // expected-error @+1 {{'kiln_gpu.rebase' op needs a source of static shape, strides and offset, got 'memref<4xf32, strided<[1], offset: ?>>'}}
  %r = kiln_gpu.rebase %a : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  return
}
