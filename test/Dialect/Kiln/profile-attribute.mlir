// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// An input's shape range (--shapes, --max-batch) on its argument: a dynamic
// dimension over [min, max], a static one of that size only.
// CHECK: kiln.profile = {max = array<i64: 64, 4>, min = array<i64: 1, 4>, opt = array<i64: 8, 4>}
func.func @ranged(%x: tensor<?x4xf32> {kiln.profile = {min = array<i64: 1, 4>, opt = array<i64: 8, 4>, max = array<i64: 64, 4>}}) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{'kiln.profile' on argument 0 gives dimension 1 of 'tensor<?x4xf32>' min 4, opt 4 and max 5}}
func.func @static_ranged(%x: tensor<?x4xf32> {kiln.profile = {min = array<i64: 1, 4>, opt = array<i64: 8, 4>, max = array<i64: 64, 5>}}) {
  return
}

// -----

// expected-error @+1 {{'kiln.profile' on argument 0 gives dimension 0 of 'tensor<?x4xf32>' min 8, opt 1 and max 64}}
func.func @unordered(%x: tensor<?x4xf32> {kiln.profile = {min = array<i64: 8, 4>, opt = array<i64: 1, 4>, max = array<i64: 64, 4>}}) {
  return
}

// -----

// expected-error @+1 {{'kiln.profile' on argument 0 must have 2 sizes in each of min, opt and max}}
func.func @rank(%x: tensor<?x4xf32> {kiln.profile = {min = array<i64: 1>, opt = array<i64: 8>, max = array<i64: 64>}}) {
  return
}

// -----

// expected-error @+1 {{'kiln.profile' on argument 0 must be {min, opt, max} (array<i64>) on a ranked tensor}}
func.func @missing(%x: tensor<?x4xf32> {kiln.profile = {min = array<i64: 1, 4>, max = array<i64: 64, 4>}}) {
  return
}
