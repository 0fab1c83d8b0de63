// RUN: kiln-opt %s --split-input-file --kiln-fold-constants | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fold-constants="max-elements=4" | FileCheck %s --check-prefix=SMALL

// An exported transformer's shape arithmetic: Shape -> Gather -> Unsqueeze
// -> Concat -> the target of a Reshape, in one walk.
// CHECK-LABEL: func.func @shape_chain
// CHECK-NEXT: %[[C:.+]] = kiln.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_chain() -> tensor<4xi64> {
  %shape = kiln.constant dense<[1, 128, 768]> : tensor<3xi64>
  %i0 = kiln.constant dense<0> : tensor<i64>
  %i1 = kiln.constant dense<1> : tensor<i64>
  %b = kiln.gather %shape, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %s = kiln.gather %shape, %i1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b1 = kiln.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %s1 = kiln.unsqueeze %s {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %heads = kiln.constant dense<[12, 64]> : tensor<2xi64>
  %target = kiln.concat %b1, %s1, %heads {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  return %target : tensor<4xi64>
}

// -----

// Expand's shape as the exporter writes it: Where(Equal(s, -1), ones, s).
// CHECK-LABEL: func.func @where_equal
// CHECK-NEXT: kiln.constant dense<[1, 128]> : tensor<2xi64>
// CHECK-NEXT: return
func.func @where_equal() -> tensor<2xi64> {
  %s = kiln.constant dense<[-1, 128]> : tensor<2xi64>
  %m1 = kiln.constant dense<-1> : tensor<i64>
  %one = kiln.constant dense<1> : tensor<2xi64>
  %c = kiln.binary equal %s, %m1 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi1>
  %r = kiln.select %c, %one, %s : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// Integer division truncates, mod is floored (the divisor's sign), fmod
// truncated; i32 wraps.
// CHECK-LABEL: func.func @integer_math
// CHECK-DAG: kiln.constant dense<-3> : tensor<2xi64>
// CHECK-DAG: kiln.constant dense<[2, 1]> : tensor<2xi64>
// CHECK-DAG: kiln.constant dense<[-1, 1]> : tensor<2xi64>
// CHECK-DAG: kiln.constant dense<-2147483648> : tensor<1xi32>
// CHECK-NOT: kiln.binary
func.func @integer_math() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<1xi32>) {
  %a = kiln.constant dense<[-7, 7]> : tensor<2xi64>
  %b = kiln.constant dense<[2, -2]> : tensor<2xi64>
  %three = kiln.constant dense<3> : tensor<i64>
  %div = kiln.binary div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %mod = kiln.binary mod %a, %three : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %neg = kiln.constant dense<[-7, 7]> : tensor<2xi64>
  %fmod = kiln.binary fmod %neg, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %max = kiln.constant dense<2147483647> : tensor<1xi32>
  %one = kiln.constant dense<1> : tensor<1xi32>
  %wrap = kiln.binary add %max, %one : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
  return %div, %mod, %fmod, %wrap : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<1xi32>
}

// -----

// Casts: float to integer rounds toward zero, to i1 tests for non-zero,
// f32 to f16 rounds to nearest even.
// CHECK-LABEL: func.func @casts
// CHECK-DAG: kiln.constant dense<[-2, 2, 0]> : tensor<3xi64>
// CHECK-DAG: kiln.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: kiln.constant dense<[-2.500000e+00, 2.900390e+00, 0.000000e+00]> : tensor<3xf16>
func.func @casts() -> (tensor<3xi64>, tensor<3xi1>, tensor<3xf16>) {
  %x = kiln.constant dense<[-2.5, 2.9, 0.0]> : tensor<3xf32>
  %i = kiln.cast %x : tensor<3xf32> to tensor<3xi64>
  %b = kiln.cast %x : tensor<3xf32> to tensor<3xi1>
  %h = kiln.cast %x : tensor<3xf32> to tensor<3xf16>
  return %i, %b, %h : tensor<3xi64>, tensor<3xi1>, tensor<3xf16>
}

// -----

// Data movement: a reversed slice, a transpose, a gather of rows, constant
// padding and a product.
// CHECK-LABEL: func.func @data_movement
// CHECK-DAG: kiln.constant dense<[4, 3, 2]> : tensor<3xi64>
// CHECK-DAG: kiln.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-DAG: kiln.constant dense<{{\[}}[4, 5, 6], [1, 2, 3]]> : tensor<2x3xi64>
// CHECK-DAG: kiln.constant dense<[0, 1, 2, 3, 4, 0]> : tensor<6xi64>
// CHECK-DAG: kiln.constant dense<[6, 120]> : tensor<2xi64>
func.func @data_movement() -> (tensor<3xi64>, tensor<3x2xi64>, tensor<2x3xi64>, tensor<6xi64>, tensor<2xi64>) {
  %v = kiln.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %r = kiln.slice %v {start = array<i64: 3>, size = array<i64: 3>, stride = array<i64: -1>} : tensor<4xi64> -> tensor<3xi64>
  %m = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %t = kiln.transpose %m {permutation = array<i64: 1, 0>} : tensor<2x3xi64> -> tensor<3x2xi64>
  %rows = kiln.constant dense<[1, -2]> : tensor<2xi64>
  %g = kiln.gather %m, %rows {axis = 0 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  %p = kiln.pad constant %v {pads = array<i64: 1, 1>, value = 0.0} : tensor<4xi64> -> tensor<6xi64>
  %prod = kiln.reduce prod %m {axes = array<i64: 1>} : tensor<2x3xi64> -> tensor<2xi64>
  return %r, %t, %g, %p, %prod : tensor<3xi64>, tensor<3x2xi64>, tensor<2x3xi64>, tensor<6xi64>, tensor<2xi64>
}

// -----

// A causal mask: Where(Less(col, row), -inf, 0) over a broadcast.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NEXT: kiln.constant dense<{{\[}}[0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x3xf32>
// CHECK-NEXT: return
// SMALL-LABEL: func.func @causal_mask
// SMALL: kiln.select
func.func @causal_mask() -> tensor<3x3xf32> {
  %row = kiln.constant dense<[[0], [1], [2]]> : tensor<3x1xi64>
  %col = kiln.constant dense<[0, 1, 2]> : tensor<3xi64>
  %above = kiln.binary greater %col, %row : (tensor<3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %inf = kiln.constant dense<0xFF800000> : tensor<f32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %m = kiln.select %above, %inf, %zero : (tensor<3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<3x3xf32>
  return %m : tensor<3x3xf32>
}

// -----

// Weights held in a resource blob fold into small results; a reshape of
// them stays (it is free, and folding would copy them).
// CHECK-LABEL: func.func @blob
// CHECK-DAG: kiln.constant dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK-DAG: kiln.reshape
func.func @blob() -> (tensor<2xf32>, tensor<1x2xf32>) {
  %w = kiln.constant dense_resource<w> : tensor<2xf32>
  %s = kiln.binary add %w, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = kiln.reshape %w : tensor<2xf32> -> tensor<1x2xf32>
  return %s, %r : tensor<2xf32>, tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000C03F00002040"
    }
  }
#-}

// -----

// What stays: a layer that reads an input, an integer division by zero, an
// index out of range, a float too large for i32, and a splat too large to
// expand (it is one value in the IR, 4e9 once computed).
// CHECK-LABEL: func.func @not_folded
// CHECK: kiln.binary add %arg0
// CHECK: kiln.binary div
// CHECK: kiln.gather
// CHECK: kiln.cast
// CHECK: kiln.unary neg
func.func @not_folded(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<1xi32>, tensor<4000000000xi8>) {
  %c = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %z = kiln.constant dense<[1, 0]> : tensor<2xi64>
  %a = kiln.binary add %x, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %d = kiln.binary div %c, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %i = kiln.constant dense<2> : tensor<i64>
  %g = kiln.gather %c, %i {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %big = kiln.constant dense<3.0e9> : tensor<1xf32>
  %n = kiln.cast %big : tensor<1xf32> to tensor<1xi32>
  %huge = kiln.constant dense<1> : tensor<4000000000xi8>
  %h = kiln.unary neg %huge : tensor<4000000000xi8> -> tensor<4000000000xi8>
  return %a, %d, %g, %n, %h : tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<1xi32>, tensor<4000000000xi8>
}
