// RUN: kiln-opt %s --split-input-file --kiln-gpu-select-library-calls="min-flops=0" | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-gpu-select-library-calls="min-flops=0" --kiln-gpu-form-fusion-groups | FileCheck %s --check-prefix=GROUPS
// By default a product of fewer than 2^20 operations stays a generated
// kernel (these have at most 2 * 64 * 32 * 16 = 65536).
// RUN: kiln-opt %s --split-input-file --kiln-gpu-select-library-calls | FileCheck %s --check-prefix=SMALL
// SMALL-NOT: kiln_gpu.library
// The bound counts every batch: 2 * 4 * 8 * 8 * 16 = 8192.
// RUN: kiln-opt %s --split-input-file --kiln-gpu-select-library-calls="min-flops=8192" | FileCheck %s --check-prefix=BOUND
// RUN: kiln-opt %s --split-input-file --kiln-gpu-select-library-calls="min-flops=8193" | FileCheck %s --check-prefix=ABOVE
// BOUND-LABEL: func.func @batched
// BOUND-COUNT-2: kiln_gpu.library
// ABOVE-LABEL: func.func @batched
// ABOVE-NOT: kiln_gpu.library

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#bt = affine_map<(m, n, k) -> (n, k)>
#d = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>

// A product into a zero accumulator is chosen; so is one with B transposed
// (a gemm's weights). Fusion then leaves both out of its groups: the bias
// add after the first is a kernel of its own, and the relu before the
// second is not fused into it.
// CHECK-LABEL: func.func @products
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<64x16xf32>, tensor<16x32xf32>) {{.*}} attrs = {kiln_gpu.library = "cublaslt.matmul"}
// CHECK:         linalg.generic {{.*}} attrs = {kiln_gpu.library = "cublaslt.matmul"}
// GROUPS-LABEL: func.func @products
// GROUPS:         %[[P:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}} attrs = {kiln_gpu.library = "cublaslt.matmul"}
// GROUPS:         linalg.generic {{.*}} ins(%[[P]], %arg2 :
// GROUPS:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<64x16xf32>)
// GROUPS:           arith.maximumf
// GROUPS:         linalg.generic {{.*}} ins(%[[R]], %arg3 : {{.*}} attrs = {kiln_gpu.library = "cublaslt.matmul"}
func.func @products(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<64x32xf32>,
                    %w: tensor<32x16xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e2 : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %e3 = tensor.empty() : tensor<64x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x16xf32>) outs(%e3 : tensor<64x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %q = linalg.generic {indexing_maps = [#a, #bt, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%relu, %w : tensor<64x16xf32>, tensor<32x16xf32>) outs(%acc2 : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %y, %x : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  return %sum, %q : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A batched product of f16 (both operands batched) and one whose A is
// shared by every batch (rank 2 against a batch of B).
#a3 = affine_map<(b, m, n, k) -> (b, m, k)>
#b3 = affine_map<(b, m, n, k) -> (b, k, n)>
#a2 = affine_map<(b, m, n, k) -> (m, k)>
#d3 = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @batched
// CHECK-COUNT-2: attrs = {kiln_gpu.library = "cublaslt.matmul"}
func.func @batched(%a: tensor<4x8x16xf16>, %b: tensor<4x16x8xf16>, %s: tensor<8x16xf16>)
    -> (tensor<4x8x8xf16>, tensor<4x8x8xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x8x8xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x8x8xf16>) -> tensor<4x8x8xf16>
  %p = linalg.generic {indexing_maps = [#a3, #b3, #d3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8x16xf16>, tensor<4x16x8xf16>) outs(%acc : tensor<4x8x8xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %m = arith.mulf %x, %y : f16
    %r = arith.addf %o, %m : f16
    linalg.yield %r : f16
  } -> tensor<4x8x8xf16>
  %q = linalg.generic {indexing_maps = [#a2, #b3, #d3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %b : tensor<8x16xf16>, tensor<4x16x8xf16>) outs(%acc : tensor<4x8x8xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %m = arith.mulf %x, %y : f16
    %r = arith.addf %o, %m : f16
    linalg.yield %r : f16
  } -> tensor<4x8x8xf16>
  return %p, %q : tensor<4x8x8xf16>, tensor<4x8x8xf16>
}

// -----

// Not chosen: integers (cuBLASLt's integer products are not used), an
// accumulator that does not start at zero, a product whose body is not
// acc + a * b, and a batch that A has only partly.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#d = affine_map<(m, n, k) -> (m, n)>
#a4 = affine_map<(b, c, m, n, k) -> (0, c, m, k)>
#b4 = affine_map<(b, c, m, n, k) -> (b, c, k, n)>
#d4 = affine_map<(b, c, m, n, k) -> (b, c, m, n)>
// CHECK-LABEL: func.func @not_products
// CHECK-NOT:     kiln_gpu.library
func.func @not_products(%ia: tensor<4x8xi32>, %ib: tensor<8x4xi32>, %a: tensor<4x8xf32>,
                        %b: tensor<8x4xf32>, %c: tensor<4x4xf32>, %a4: tensor<1x3x4x8xf32>,
                        %b4: tensor<2x3x8x4xf32>)
    -> (tensor<4x4xi32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x3x4x4xf32>) {
  %izero = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %ie = tensor.empty() : tensor<4x4xi32>
  %iacc = linalg.fill ins(%izero : i32) outs(%ie : tensor<4x4xi32>) -> tensor<4x4xi32>
  %ip = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ia, %ib : tensor<4x8xi32>, tensor<8x4xi32>) outs(%iacc : tensor<4x4xi32>) {
  ^bb0(%x: i32, %y: i32, %s: i32):
    %m = arith.muli %x, %y : i32
    %r = arith.addi %s, %m : i32
    linalg.yield %r : i32
  } -> tensor<4x4xi32>
  %p = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.subf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<2x3x4x4xf32>
  %acc4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %r = linalg.generic {indexing_maps = [#a4, #b4, #d4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a4, %b4 : tensor<1x3x4x8xf32>, tensor<2x3x8x4xf32>) outs(%acc4 : tensor<2x3x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x4x4xf32>
  return %ip, %p, %q, %r : tensor<4x4xi32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x3x4x4xf32>
}
