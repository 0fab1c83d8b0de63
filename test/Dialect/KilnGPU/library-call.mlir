// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// kiln_gpu.library_call round-trips; its access list gives its memory
// effects (a read and a write here), so canonicalization keeps it.
// CHECK-LABEL: func.func @call
// CHECK:         kiln_gpu.library_call "test.copy"(%arg0, %arg1) {access = ["read", "write"], params = {bytes = 64 : i64}} : memref<16xf32>, memref<16xf32>
func.func @call(%a: memref<16xf32>, %b: memref<16xf32>) {
  kiln_gpu.library_call "test.copy"(%a, %b) {access = ["read", "write"], params = {bytes = 64 : i64}} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @short_access(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{'kiln_gpu.library_call' op has 2 buffers but 1 access entries}}
  kiln_gpu.library_call "test.copy"(%a, %b) {access = ["read"], params = {}} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @bad_access(%a: memref<16xf32>) {
  // expected-error @+1 {{'kiln_gpu.library_call' op access must be "read", "write" or "readwrite" per buffer, got ["append"]}}
  kiln_gpu.library_call "test.copy"(%a) {access = ["append"], params = {}} : memref<16xf32>
  return
}

// -----

func.func @no_callee(%a: memref<16xf32>) {
  // expected-error @+1 {{'kiln_gpu.library_call' op needs a callee}}
  kiln_gpu.library_call ""(%a) {access = ["read"], params = {}} : memref<16xf32>
  return
}

// -----

func.func @bad_mark(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln_gpu.library' must name a library call, got 3 : i64}}
  %0 = arith.addf %a, %a {kiln_gpu.library = 3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
