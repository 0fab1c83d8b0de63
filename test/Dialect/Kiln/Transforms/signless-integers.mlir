// RUN: kiln-opt %s --split-input-file --kiln-signless-integers | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-signless-integers --kiln-convert-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: not kiln-opt %s --split-input-file --kiln-convert-to-linalg 2>&1 | FileCheck %s --check-prefix=REFUSED

// Unsigned inputs, outputs, ops and constants become signless; what was
// unsigned is marked, and the lowering reads the marks.
// CHECK-LABEL: func.func @max_u8
// CHECK-SAME: (%[[X:.*]]: tensor<4xi8> {kiln.name = "x", kiln.unsigned}) -> (tensor<4xi8> {kiln.unsigned})
// CHECK: %[[C:.*]] = kiln.constant dense<[1, -56, -1, 0]> : tensor<4xi8>
// CHECK: kiln.binary  max %[[X]], %[[C]] {kiln.unsigned_operands, kiln.unsigned_results} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// LOWER-LABEL: func.func @max_u8
// LOWER: arith.maxui
// REFUSED: error: 'kiln.binary' op has unsigned integer types; run kiln-signless-integers before kiln-convert-to-linalg
func.func @max_u8(%x: tensor<4xui8> {kiln.name = "x"}) -> tensor<4xui8> {
  %c = kiln.constant dense<[1, 200, 255, 0]> : tensor<4xui8>
  %m = kiln.binary max %x, %c : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %m : tensor<4xui8>
}

// -----

// Comparisons, division and remainder of unsigned operands; the i1 result
// is not marked.
// CHECK-LABEL: func.func @compare_div_u32
// CHECK: kiln.binary  less %{{.*}}, %{{.*}} {kiln.unsigned_operands} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// LOWER-LABEL: func.func @compare_div_u32
// LOWER: arith.cmpi ult
// LOWER: arith.divui
// LOWER: arith.remui
func.func @compare_div_u32(%x: tensor<3xui32>, %y: tensor<3xui32>) -> (tensor<3xi1>, tensor<3xui32>, tensor<3xui32>) {
  %l = kiln.binary less %x, %y : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
  %d = kiln.binary div %x, %y : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %r = kiln.binary mod %x, %y : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  return %l, %d, %r : tensor<3xi1>, tensor<3xui32>, tensor<3xui32>
}

// -----

// Casts read the source and write the result by their own signedness.
// CHECK-LABEL: func.func @casts
// CHECK: kiln.cast %{{.*}} {kiln.unsigned_operands} : tensor<2xi16> to tensor<2xf32>
// CHECK: kiln.cast %{{.*}} {kiln.unsigned_results} : tensor<2xf32> to tensor<2xi64>
// CHECK: kiln.cast %{{.*}} {kiln.unsigned_operands} : tensor<2xi16> to tensor<2xi64>
// LOWER-LABEL: func.func @casts
// LOWER: arith.uitofp
// LOWER: arith.fptoui
// LOWER: arith.extui
func.func @casts(%x: tensor<2xui16>, %f: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xui64>, tensor<2xi64>) {
  %a = kiln.cast %x : tensor<2xui16> to tensor<2xf32>
  %b = kiln.cast %f : tensor<2xf32> to tensor<2xui64>
  %c = kiln.cast %x : tensor<2xui16> to tensor<2xi64>
  return %a, %b, %c : tensor<2xf32>, tensor<2xui64>, tensor<2xi64>
}

// -----

// Signed and float code is left as it is.
// CHECK-LABEL: func.func @signed
// CHECK-NOT: kiln.unsigned
// CHECK: kiln.binary  max
// LOWER-LABEL: func.func @signed
// LOWER: arith.maxsi
func.func @signed(%x: tensor<4xi8>, %y: tensor<4xi8>) -> tensor<4xi8> {
  %m = kiln.binary max %x, %y : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %m : tensor<4xi8>
}
