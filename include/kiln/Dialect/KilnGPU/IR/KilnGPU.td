//===- KilnGPU.td - kiln code generation dialect ------------*- tablegen -*-===//
//
// The kiln_gpu dialect holds what code generation decides and the graph
// dialect does not know about: how a kernel covers its iteration space (the
// tile configuration), and where host buffers live in the activation arena.
// Its ops are library calls (cuBLASLt and plugins) and the rebasing of a
// buffer's part for a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILNGPU_IR_KILNGPU_TD
#define KILN_DIALECT_KILNGPU_IR_KILNGPU_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

def KilnGPU_Dialect : Dialect {
  let name = "kiln_gpu";
  let cppNamespace = "::mlir::kiln";
  let summary = "Code generation decisions of kiln's GPU back end";
  let description = [{
    Attributes that the GPU back end's passes attach and later passes or the
    plan translation read:

    - `kiln_gpu.tile_config = #kiln_gpu.tile_config<...>` on a linalg op (a
      request) or a generated `gpu.func` and its `gpu.launch_func` (the
      configuration used);
    - `kiln_gpu.arg_access = ["read", "write", ...]` on a `gpu.launch_func`:
      what the kernel does with each buffer argument ("read", "write" or
      "readwrite"), which the plan records so that the runtime can check
      every launch's extents and refuse writes into the weights;
    - `kiln_gpu.fusion_group = ["conv1", "relu1", ...]` on the `scf.forall`
      of a fusion group (`kiln-gpu-form-fusion-groups`) and on the
      `gpu.launch_func` of the kernel made of it: the layers it computes;
    - `kiln_gpu.in_place = array<i64: x0, y0, x1, y1, ...>` on a
      `gpu.launch_func` (`kiln-gpu-form-kernels`): pairs of argument indices
      whose kernel stays correct when output `y` is written over input `x`
      (see lib/Codegen/GPU/InPlace.cpp); `kiln-plan-memory` places `y` where
      `x` was when `x` is not used after the launch;
    - `kiln_gpu.lanes = 32 : i64` on a `gpu.func` and its `gpu.launch_func`:
      each iteration of the kernel's fusion group runs on one warp (lanes
      threads), not one thread (`kiln-gpu-form-kernels`, WarpRows.h);
    - `kiln_gpu.flops = N : i64` on a `gpu.launch_func`: the kernel's
      floating-point operations, counted statically (lib/Codegen/GPU/Flops.h)
      for `kiln-compile --report`;
    - `kiln_gpu.library = "cublaslt.matmul"` on a linalg op
      (`kiln-gpu-select-library-calls`): a request that the op run as that
      library call instead of a generated kernel; fusion leaves it alone and
      `kiln-gpu-form-library-calls` makes it a `kiln_gpu.library_call`;
    - `kiln_gpu.arena_offset = N : i64` on a host `memref.alloc`: the byte
      offset of the buffer in the execution context's activation arena, and
      `kiln_gpu.arena_bytes = N : i64` on the host function: the arena's size
      (both set by `kiln-plan-memory`).

    The dialect verifies these discardable attributes wherever they appear.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// `kiln_gpu.tile_config`: a kernel's #kiln_gpu.tile_config.
    static constexpr ::llvm::StringLiteral getTileConfigAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.tile_config");
    }
    /// `kiln_gpu.arg_access`: what a launch's kernel does with each buffer.
    static constexpr ::llvm::StringLiteral getArgAccessAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.arg_access");
    }
    /// `kiln_gpu.fusion_group`: the layers (names) of a fusion group's
    /// scf.forall, and of the launch of the kernel made of it.
    static constexpr ::llvm::StringLiteral getFusionGroupAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.fusion_group");
    }
    /// `kiln_gpu.lanes`: threads per iteration of a kernel (32: one warp per
    /// row of a fusion group).
    static constexpr ::llvm::StringLiteral getLanesAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.lanes");
    }
    /// `kiln_gpu.in_place`: pairs (input, output) of a launch's arguments
    /// that may share memory.
    static constexpr ::llvm::StringLiteral getInPlaceAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.in_place");
    }
    /// `kiln_gpu.flops`: a launch's floating-point operations.
    static constexpr ::llvm::StringLiteral getFlopsAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.flops");
    }
    /// `kiln_gpu.library`: the library call a linalg op is to become.
    static constexpr ::llvm::StringLiteral getLibraryAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.library");
    }
    /// `kiln_gpu.arena_offset`: a host allocation's offset in the arena.
    static constexpr ::llvm::StringLiteral getArenaOffsetAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.arena_offset");
    }
    /// `kiln_gpu.arena_bytes`: the arena size of a host function.
    static constexpr ::llvm::StringLiteral getArenaBytesAttrName() {
      return ::llvm::StringLiteral("kiln_gpu.arena_bytes");
    }
  }];
}

def KilnGPU_TileConfigAttr : AttrDef<KilnGPU_Dialect, "TileConfig"> {
  let mnemonic = "tile_config";
  let summary = "How a generated GPU kernel covers its iteration space";
  let description = [{
    The tile configuration of one generated kernel, an explicit parameter so
    that a tuner can search over it. `kiln-gpu-form-kernels` reads it from a
    linalg op's `kiln_gpu.tile_config` attribute (or picks one) and records
    it on the `gpu.func` it generates and on the `gpu.launch_func` of it.

    v1 kernels walk the op's parallel loops as one collapsed, row-major 1-D
    space: each block covers `tile` consecutive iterations with `threads`
    threads (so each thread computes `tile / threads` of them, `threads` apart,
    for coalesced access); reduction loops run inside each thread. `stages`
    is the software-pipelining depth (1: none).

    ```mlir
    #kiln_gpu.tile_config<tile = [1024], threads = [256], stages = 1>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile,
                        ArrayRefParameter<"int64_t">:$threads,
                        "int64_t":$stages);
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `threads` `=` `[` $threads `]` `,`
    `stages` `=` $stages `>`
  }];
  let genVerifyDecl = 1;
}

def KilnGPU_LibraryCallOp : Op<KilnGPU_Dialect, "library_call",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A call into a library (cuBLASLt) on device buffers";
  let description = [{
    One plan step that the runtime's handler for `callee` runs
    (runtime/include/kiln/runtime/LibraryCall.h) instead of a generated
    kernel. `access` says what the call does with each buffer ("read",
    "write" or "readwrite"); `params` are the callee's parameters, which the
    plan translation encodes into the step's payload. For
    `"cublaslt.matmul"` (runtime/include/kiln/runtime/CublasLtMatmul.h) the
    buffers are A, B, D and a workspace, and the parameters describe
    D = op(A) op(B) in row-major terms, per batch:

    ```mlir
    kiln_gpu.library_call "cublaslt.matmul"(%a, %b, %d, %ws) {
        access = ["read", "read", "write", "readwrite"],
        params = {type = "f16", compute = "f32", m = 64 : i64, n = 32 : i64,
                  k = 16 : i64, batch = 1 : i64, trans_a = false,
                  trans_b = false, lda = 16 : i64, ldb = 32 : i64,
                  ldd = 32 : i64, stride_a = 0 : i64, stride_b = 0 : i64,
                  stride_d = 0 : i64}}
        : memref<64x16xf16>, memref<16x32xf16>, memref<64x32xf16>,
          memref<33554432xi8>
    ```
  }];
  let arguments = (ins StrAttr:$callee, Variadic<AnyMemRef>:$buffers,
                       StrArrayAttr:$access, DictionaryAttr:$params);
  let assemblyFormat = "$callee `(` $buffers `)` attr-dict `:` type($buffers)";
  let hasVerifier = 1;
}

def KilnGPU_RebaseOp : Op<KilnGPU_Dialect, "rebase",
    [Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "The same elements, addressed from a later base";
  let description = [{
    A view of the elements of `source` whose base (the pointer a kernel is
    given) lies `source`'s offset minus the result's offset elements after
    `source`'s base. Shape, strides and element type are kept; only the
    static offset shrinks. `kiln-gpu-form-kernels` passes the parts of a
    buffer (a concatenation's inputs, a split's outputs) to kernels this
    way, so that kernels which differ only by where their part starts are
    one kernel; the offset kept is the part's offset modulo a vector's
    elements, so a kernel's aligned accesses stay aligned, and the plan
    translation gives the kernel the address of the result's base. The CPU
    reference's `kiln-outline-linalg-ops` rebases parts to offset 0, and
    `kiln-lower-rebase` lowers the op there.

    ```mlir
    %part = kiln_gpu.rebase %view
        : memref<1x4xf32, strided<[4, 1], offset: 8>> to memref<1x4xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILNGPU_IR_KILNGPU_TD
