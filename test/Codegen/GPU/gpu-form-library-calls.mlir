// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-form-library-calls | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-form-library-calls="tf32=false workspace=1024" | FileCheck %s --check-prefix=NOTF32

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#d = affine_map<(m, n, k) -> (m, n)>

// A chosen product on buffers becomes a cuBLASLt call with a workspace;
// the zero fill of its output goes. B is transposed (stored n x k).
// CHECK-LABEL: func.func @product
// CHECK-NOT:     linalg.fill
// CHECK:         %[[WS:.*]] = memref.alloc() : memref<65536xi8>
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %arg2, %[[WS]]) {access = ["read", "read", "write", "readwrite"], params = {batch = 1 : i64, compute = "tf32", k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldd = 32 : i64, m = 64 : i64, n = 32 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 0 : i64, trans_a = false, trans_b = true, type = "f32"}} : memref<64x16xf32>, memref<32x16xf32>, memref<64x32xf32>, memref<65536xi8>
// CHECK-NOT:     linalg.generic
// NOTF32-LABEL: func.func @product
// NOTF32:         memref.alloc() : memref<1024xi8>
// NOTF32:         compute = "f32"
func.func @product(%a: memref<64x16xf32>, %b: memref<32x16xf32>, %d: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%d : memref<64x32xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf32>, memref<32x16xf32>) outs(%d : memref<64x32xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#a3 = affine_map<(b, m, n, k) -> (b, m, k)>
#b2 = affine_map<(b, m, n, k) -> (k, n)>
#b3 = affine_map<(b, m, n, k) -> (b, k, n)>
#d3 = affine_map<(b, m, n, k) -> (b, m, n)>
// Batches of A that share B are one product of 4 * 8 rows; batches of both
// operands stay a batch of 4, with the strides of the buffers (D is a slice
// of a wider buffer: rows 24 apart). f16 products accumulate in f32.
// CHECK-LABEL: func.func @batched
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %arg3, %{{.*}}) {{.*}}params = {batch = 1 : i64, compute = "f32", k = 16 : i64, lda = 16 : i64, ldb = 8 : i64, ldd = 8 : i64, m = 32 : i64, n = 8 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 0 : i64, trans_a = false, trans_b = false, type = "f16"}}
// CHECK:         %[[VIEW:.*]] = memref.subview
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg2, %[[VIEW]], %{{.*}}) {{.*}}params = {batch = 4 : i64, compute = "f32", k = 16 : i64, lda = 16 : i64, ldb = 8 : i64, ldd = 24 : i64, m = 8 : i64, n = 8 : i64, stride_a = 128 : i64, stride_b = 128 : i64, stride_d = 192 : i64, trans_a = false, trans_b = false, type = "f16"}}
func.func @batched(%a: memref<4x8x16xf16>, %b: memref<16x8xf16>, %bb: memref<4x16x8xf16>,
                   %d: memref<4x8x8xf16>, %wide: memref<4x8x24xf16>) {
  linalg.generic {indexing_maps = [#a3, #b2, #d3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8x16xf16>, memref<16x8xf16>) outs(%d : memref<4x8x8xf16>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f16, %y: f16, %s: f16):
    %m = arith.mulf %x, %y : f16
    %r = arith.addf %s, %m : f16
    linalg.yield %r : f16
  }
  %view = memref.subview %wide[0, 0, 8] [4, 8, 8] [1, 1, 1]
      : memref<4x8x24xf16> to memref<4x8x8xf16, strided<[192, 24, 1], offset: 8>>
  linalg.generic {indexing_maps = [#a3, #b3, #d3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %bb : memref<4x8x16xf16>, memref<4x16x8xf16>)
      outs(%view : memref<4x8x8xf16, strided<[192, 24, 1], offset: 8>>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f16, %y: f16, %s: f16):
    %m = arith.mulf %x, %y : f16
    %r = arith.addf %s, %m : f16
    linalg.yield %r : f16
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#d = affine_map<(m, n, k) -> (m, n)>
// A column of a buffer (rows not contiguous: stride 2 between elements)
// cannot go to cuBLASLt: the product stays a generic without the mark, and
// its fill stays too.
// CHECK-LABEL: func.func @strided
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK-NOT:     kiln_gpu.library
func.func @strided(%a: memref<4x8xf32, strided<[16, 2]>>, %b: memref<8x4xf32>, %d: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%d : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32, strided<[16, 2]>>, memref<8x4xf32>) outs(%d : memref<4x4xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An op marked but no longer a product (canonicalization folded a splat
// operand into its body) loses the mark and stays a kernel.
// CHECK-LABEL: func.func @not_a_product
// CHECK-NOT:     kiln_gpu
// CHECK:         linalg.generic
// CHECK-NOT:     kiln_gpu
#id = affine_map<(i) -> (i)>
func.func @not_a_product(%a: memref<4xf32>, %d: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%d : memref<4xf32>) attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#d = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// A bias add (then a ReLU) after the product, from scratch D into the
// output: cuBLASLt's epilogue computes it, writes the output and the add is
// gone. The second product's D is read again after its bias add, so the
// add stays a kernel of its own.
// CHECK-LABEL: func.func @epilogues
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %arg3, %{{.*}}, %arg2) {access = ["read", "read", "write", "readwrite", "read"], params = {{{.*}}epilogue = "relu_bias"
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %[[D2:.*]], %{{.*}}) {access = ["read", "read", "write", "readwrite"]
// CHECK-NOT:     epilogue
// CHECK:         linalg.generic {{.*}} ins(%[[D2]], %arg2
// NOTF32-LABEL: func.func @epilogues
// NOTF32:         epilogue = "relu_bias"
func.func @epilogues(%a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<32xf32>,
                     %out: memref<64x32xf32>, %out2: memref<64x32xf32>, %out3: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %d = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<64x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%d : memref<64x32xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %d : memref<32xf32>, memref<64x32xf32>) outs(%out : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %y, %x : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  %d2 = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%d2 : memref<64x32xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d2, %bias : memref<64x32xf32>, memref<32xf32>) outs(%out2 : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.copy %d2, %out3 : memref<64x32xf32> to memref<64x32xf32>
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#d = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// The epilogue's output is allocated after the product (as bufferization
// leaves it): the allocation moves up so that the call can write it.
// CHECK-LABEL: func.func @late_output
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %[[E:[a-z0-9_]+]], %{{.*}}, %arg2) {{.*}}epilogue = "bias"
// CHECK-NEXT:    memref.copy %[[E]], %arg3
func.func @late_output(%a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<32xf32>,
                       %out: memref<64x32xf32>) {
  %d = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%d : memref<64x32xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %bias : memref<64x32xf32>, memref<32xf32>) outs(%e : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.copy %e, %out : memref<64x32xf32> to memref<64x32xf32>
  return
}

// -----

#a = affine_map<(n, m, p, k) -> (m, k)>
#b = affine_map<(n, m, p, k) -> (n, k, p)>
#d = affine_map<(n, m, p, k) -> (n, m, p)>
#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#id3 = affine_map<(a, b, c) -> (a, b, c)>
// f16 products into an f32 accumulator (a convolution as a product: one
// filter for every image). Rounded right after, through a view of D: the
// call writes f16 itself. Not rounded: it writes D in f32.
// CHECK-LABEL: func.func @rounded
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %[[R:[a-z0-9_]+]], %{{.*}}) {{.*}}batch = 2 : i64{{.*}}stride_a = 0 : i64{{.*}}type = "f16"}} : memref<8x16xf16>, memref<2x16x12xf16>, memref<2x8x3x4xf16>
// CHECK-NOT:     out_type
// CHECK-NOT:     linalg.generic
// CHECK:         memref.copy %[[R]], %arg2
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %arg3, %{{.*}}) {{.*}}out_type = "f32"{{.*}}type = "f16"}} : memref<8x16xf16>, memref<2x16x12xf16>, memref<2x8x12xf32>
func.func @rounded(%w: memref<8x16xf16>, %x: memref<2x16x12xf16>, %out: memref<2x8x3x4xf16>,
                   %wide: memref<2x8x12xf32>) {
  %d = memref.alloc() : memref<2x8x12xf32>
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %x : memref<8x16xf16>, memref<2x16x12xf16>) outs(%d : memref<2x8x12xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%p: f16, %q: f16, %s: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %v = memref.expand_shape %d [[0], [1], [2, 3]] output_shape [2, 8, 3, 4] : memref<2x8x12xf32> into memref<2x8x3x4xf32>
  %e = memref.alloc() : memref<2x8x3x4xf16>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : memref<2x8x3x4xf32>) outs(%e : memref<2x8x3x4xf16>) {
  ^bb0(%i: f32, %o: f16):
    %t = arith.truncf %i : f32 to f16
    linalg.yield %t : f16
  }
  memref.copy %e, %out : memref<2x8x3x4xf16> to memref<2x8x3x4xf16>
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %x : memref<8x16xf16>, memref<2x16x12xf16>) outs(%wide : memref<2x8x12xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%p: f16, %q: f16, %s: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#d = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// f16 products rounded, then bias, residual and ReLU (computed in f32, as
// the lowering of an f16 ReLU does): one call that writes the output, C
// the residual (beta 1), epilogue relu_bias, in f16.
// CHECK-LABEL: func.func @residual
// CHECK:         kiln_gpu.library_call "cublaslt.matmul"(%arg0, %arg1, %arg4, %{{.*}}, %arg2, %arg3) {access = ["read", "read", "write", "readwrite", "read", "read"], params = {{{.*}}epilogue = "relu_bias"{{.*}}residual = true{{.*}}type = "f16"}}
// CHECK-NOT:     out_type
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @residual(%a: memref<64x16xf16>, %b: memref<16x32xf16>, %bias: memref<32xf16>,
                    %res: memref<64x32xf16>, %out: memref<64x32xf16>) {
  %zero = arith.constant 0.0 : f32
  %d = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf16>, memref<16x32xf16>) outs(%d : memref<64x32xf32>)
      attrs = {kiln_gpu.library = "cublaslt.matmul"} {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %m = arith.mulf %xe, %ye : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %h = memref.alloc() : memref<64x32xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<64x32xf32>) outs(%h : memref<64x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %bias, %res : memref<64x32xf16>, memref<32xf16>, memref<64x32xf16>) outs(%out : memref<64x32xf16>) {
  ^bb0(%x: f16, %y: f16, %z: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %t = arith.addf %s, %z : f16
    %w = arith.extf %t : f16 to f32
    %r = arith.maximumf %w, %zero : f32
    %n = arith.truncf %r : f32 to f16
    linalg.yield %n : f16
  }
  return
}
