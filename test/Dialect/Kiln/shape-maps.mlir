// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Run-time shapes (issue 32): a reshape to several `?` and a generated
// tensor of a shape that varies carry their dimensions as a shape map, whose
// symbols are the dynamic dimensions of the function's arguments in order.
// A slice takes a dimension that varies whole; a pad leaves it alone; a
// gather passes the indices' `?` on.

// CHECK-LABEL: func.func @maps
func.func @maps(%x: tensor<?x?x64xf32>, %row: tensor<1x64xf32>, %ids: tensor<?x?xi64>) -> (tensor<?x?x4x16xf32>, tensor<?xi64>, tensor<?x?x64xf32>, tensor<?x?x1xf32>, tensor<?x?x3xf32>) {
  // CHECK: kiln.reshape %{{.*}} {shape = #{{.*}}} : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  %r = kiln.reshape %x {shape = affine_map<()[s0, s1, s2, s3] -> (s0, s1, 4, 16)>} : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  // CHECK: kiln.iota {{.*}} : tensor<?xi64>
  %p = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1 : i64, shape = affine_map<()[s0, s1, s2, s3] -> (s1)>} : tensor<?xi64>
  // CHECK: kiln.gather {{.*}} -> tensor<?x?x64xf32>
  %g = kiln.gather %row, %ids {axis = 0 : i64} : (tensor<1x64xf32>, tensor<?x?xi64>) -> tensor<?x?x64xf32>
  // CHECK: kiln.slice {{.*}} -> tensor<?x?x1xf32>
  %s = kiln.slice %x {start = array<i64: 0, 0, 3>, size = array<i64: -9223372036854775808, -9223372036854775808, 1>, stride = array<i64: 1, 1, 1>} : tensor<?x?x64xf32> -> tensor<?x?x1xf32>
  // CHECK: kiln.pad constant {{.*}} -> tensor<?x?x3xf32>
  %q = kiln.pad constant %s {pads = array<i64: 0, 0, 1, 0, 0, 1>} : tensor<?x?x1xf32> -> tensor<?x?x3xf32>
  return %r, %p, %g, %s, %q : tensor<?x?x4x16xf32>, tensor<?xi64>, tensor<?x?x64xf32>, tensor<?x?x1xf32>, tensor<?x?x3xf32>
}

// -----

func.func @reshape_without_map(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  // expected-error @+1 {{'kiln.reshape' op expects a result with one dynamic dimension when the input has dynamic ones, got ?x?x64 to ?x?x4x16}}
  %r = kiln.reshape %x : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  return %r : tensor<?x?x4x16xf32>
}

// -----

func.func @map_rank(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  // expected-error @+1 {{'kiln.reshape' op expects a shape map with no dimension inputs and one result per dimension of 'tensor<?x?x4x16xf32>', got affine_map<()[s0, s1] -> (s0, s1)>}}
  %r = kiln.reshape %x {shape = affine_map<()[s0, s1] -> (s0, s1)>} : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  return %r : tensor<?x?x4x16xf32>
}

// -----

func.func @map_static(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  // expected-error @+1 {{'kiln.reshape' op expects its shape map to give the static dimensions of 'tensor<?x?x4x16xf32>' as constants and only those, but result 2 is 8}}
  %r = kiln.reshape %x {shape = affine_map<()[s0, s1] -> (s0, s1, 8, 8)>} : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  return %r : tensor<?x?x4x16xf32>
}

// -----

func.func @iota_without_map() -> tensor<?xi64> {
  // expected-error @+1 {{'kiln.iota' op expects a shape map for its dynamic result 'tensor<?xi64>'}}
  %p = kiln.iota {dimension = 0 : i64, start = 0 : i64, step = 1 : i64} : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

func.func @slice_part(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+2 {{'kiln.slice' op expects dimension 0, which varies at run time, to be taken whole (start 0, size ?, stride 1)}}
  // expected-error @+1 {{'kiln.slice' op failed to infer returned types}}
  %s = kiln.slice %x {start = array<i64: 1, 0>, size = array<i64: -9223372036854775808, 8>, stride = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

// -----

func.func @pad_dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+2 {{'kiln.pad' op cannot pad dimension 0, which varies at run time (pads 1, 0)}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %p = kiln.pad constant %x {pads = array<i64: 1, 0, 0, 0>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}
