//===- Passes.td - kiln host code generation passes --------*- tablegen -*-===//
//
// Passes on the host side of a compiled network: the function's calling
// convention (destination passing, outlined weights), the copies the CPU
// reference lowers itself, and the memory plan of the activation arena.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_HOST_PASSES_TD
#define KILN_CODEGEN_HOST_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnDestinationPassingPass
    : Pass<"kiln-destination-passing", "ModuleOp"> {
  let summary = "Make the network function write its results into buffers";
  let description = [{
    Rewrites every function of the module (tensors in, tensors out; none may
    be called) to take identity-layout memrefs: its inputs, then one output
    buffer per result, and to return nothing. Both executors run networks in
    this form: the CPU reference and GPU plans. The body reads the inputs
    through `bufferization.to_tensor restrict` and writes each result with
    `bufferization.materialize_in_destination`, so one-shot bufferization
    computes results in place in the output buffers.

    The function gets `kiln.num_inputs`, the number of buffers before the
    outputs, and each buffer's location takes its name. With `keep-names`
    (the default), the output buffers also take the results' `kiln.name`
    attributes; otherwise all argument and result attributes are dropped.

    Before:
    ```mlir
    func.func @net(%x: tensor<4xf32> {kiln.name = "x"}) -> (tensor<4xf32> {kiln.name = "y"}) {
      %y = linalg.generic ... ins(%x : tensor<4xf32>) ... -> tensor<4xf32>
      return %y : tensor<4xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: memref<4xf32> {kiln.name = "x"}, %out: memref<4xf32> {kiln.name = "y"})
        attributes {kiln.num_inputs = 1 : i64} {
      %t = bufferization.to_tensor %x restrict : memref<4xf32> to tensor<4xf32>
      %y = linalg.generic ... ins(%t : tensor<4xf32>) ... -> tensor<4xf32>
      bufferization.materialize_in_destination %y in restrict writable %out : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
    ```
    A function whose inputs or results are not statically shaped tensors,
    or one that is called, is an error.
  }];
  let options = [
    Option<"keepNames", "keep-names", "bool", /*default=*/"true",
           "Keep the kiln.name attributes">
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def KilnConstantsToGlobalsPass
    : Pass<"kiln-constants-to-globals", "ModuleOp"> {
  let summary = "Give each tensor constant a memref.global, in linear time";
  let description = [{
    Every `arith.constant` of a ranked tensor type in the module's functions
    becomes a read of a private constant `memref.global` (64-byte aligned,
    as one-shot bufferization makes them): `memref.get_global` and
    `bufferization.to_tensor restrict`, which one-shot bufferization folds.
    Equal constants share one global. One-shot bufferization would make the
    same globals itself, but it looks for an equal global among all of the
    module's globals for each constant, and names each by trying suffixes
    one by one: quadratic in the weights of a network. Here the globals
    are found by value in a hash map and named by a counter.

    Before:
    ```mlir
    %w = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
    After:
    ```mlir
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64 : i64}
    ...
    %0 = memref.get_global @__constant_2xf32 : memref<2xf32>
    %w = bufferization.to_tensor %0 restrict : memref<2xf32> to tensor<2xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def KilnConcatDestinationsPass
    : Pass<"kiln-concat-destinations", "func::FuncOp"> {
  let summary = "Write the parts of a concatenation into one buffer";
  let description = [{
    A concatenation lowers to a chain of `tensor.insert_slice` ops that
    starts at a `tensor.empty` (each link read only by the next). One-shot
    bufferization puts every link of the chain in one alias set, and checks
    each in-place decision against every member: a concat of n inputs cost
    about n^4 (200 inputs took 40 s). This pass gives the chain its buffer
    before bufferization: a `memref.alloc` at the start of the block, one
    `memref.subview` of it per part, also there, and a
    `bufferization.materialize_in_destination` of each part into its view
    where the part was inserted. The chain's result reads the buffer
    through `bufferization.to_tensor restrict` (not writable: a reader that
    would write into it in place gets a copy). Each part is then analyzed
    alone, and empty-tensor elimination still makes each part's producer
    write into its view: the concat writes its inputs in place.

    Before:
    ```mlir
    %e = tensor.empty() : tensor<2x4xf32>
    %0 = tensor.insert_slice %a into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
    %1 = tensor.insert_slice %b into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
    ```
    After:
    ```mlir
    %buf = memref.alloc() : memref<2x4xf32>
    %v0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<1x4xf32, strided<[4, 1]>>
    %v1 = memref.subview %buf[1, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<1x4xf32, strided<[4, 1], offset: 4>>
    ...
    bufferization.materialize_in_destination %a in restrict writable %v0 : ...
    bufferization.materialize_in_destination %b in restrict writable %v1 : ...
    %1 = bufferization.to_tensor %buf restrict : memref<2x4xf32> to tensor<2x4xf32>
    ```
    Only chains of static shapes, offsets, sizes and strides, whose parts
    have the destination's rank, are rewritten.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let statistics = [
    Statistic<"numChains", "chains", "Number of insert_slice chains rewritten">
  ];
}

def KilnFuseElementwisePass
    : Pass<"kiln-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise layers into their one reader, with a "
                "bounded body";
  let description = [{
    For the CPU reference, on tensors: upstream's elementwise fusion
    (`linalg::populateElementwiseOpsFusionPatterns`) fuses a
    `linalg.generic` of parallel loops into the linalg op that reads it,
    where the producer's result has that one use and both are in one block,
    and the fused body would have at most `max-body-ops` operations. The
    intermediate tensor is never stored: a window's iota, cos, mul and sub
    are one loop over the output, and a chain of activations reads its
    input and writes its output once. The bound keeps each fusion's cost
    (a copy of both bodies) constant, so a chain of 20,000 layers fuses in
    linear time, into layers of at most `max-body-ops` operations.
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "int64_t", /*default=*/"64",
           "The most operations a fused body may have">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KilnElementwiseInPlacePass
    : Pass<"kiln-elementwise-in-place", "func::FuncOp"> {
  let summary = "Write an elementwise layer's result over an input that "
                "nothing else reads";
  let description = [{
    For the CPU reference, on tensors before bufferization: an elementwise
    `linalg.generic` (parallel loops only) whose one init is a
    `tensor.empty` its body does not read takes as its init an input of the
    result's type, read through the same (permutation) indexing map, that
    is the result of a linalg op of the same block and has no other use.
    The body reads the element through the init instead, and the input is
    dropped. One-shot bufferization then writes the result over the input's
    buffer, in place, instead of a new one: a chain of elementwise layers
    (a window's iota, cos, mul and sub) takes one buffer, not one per
    layer, and empty-tensor elimination puts it in the output's buffer when
    the chain ends in an output. Network inputs, weights and tensors read
    twice are never written. After `max-chain` layers over one buffer the
    next layer takes a new one: one-shot bufferization checks each in-place
    write against every alias of its buffer, so chains of bounded length
    keep that analysis linear in the number of layers.

    Before:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %c = linalg.generic {... ["parallel"]} ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.cos %in : f32
      linalg.yield %v : f32
    } -> tensor<4xf32>
    ```
    After (`%t`, a linalg result read only here):
    ```mlir
    %c = linalg.generic {... ["parallel"]} outs(%t : tensor<4xf32>) {
    ^bb0(%out: f32):
      %v = math.cos %out : f32
      linalg.yield %v : f32
    } -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"maxChain", "max-chain", "unsigned", /*default=*/"16",
           "The most layers written over one buffer in a row">
  ];
}

def KilnSharedReadsPass : Pass<"kiln-shared-reads", "func::FuncOp"> {
  let summary = "Read a tensor that many ops read through a buffer of its own";
  let description = [{
    One-shot bufferization checks every operand that reads a tensor against
    all the other uses of that tensor: a tensor read by n ops costs n^2 (a
    network input read by 20,000 layers took minutes). A tensor with more
    than `max-readers` uses gets a buffer of its own before bufferization,
    and each reader reads it through a `bufferization.to_tensor restrict`
    of its own, placed before it:
    - a `bufferization.to_tensor` (a network input, a constant's global) is
      cloned for each reader;
    - another statically shaped result is written into a new `memref.alloc`
      by `bufferization.materialize_in_destination` after its producer (its
      producer writes there in place after empty-tensor elimination).
    The copies are not writable: a reader that would write in place gets a
    copy of its own, as it would have had (the others read the value after
    it).
  }];
  let options = [
    Option<"maxReaders", "max-readers", "int64_t", /*default=*/"16",
           "Uses of a tensor beyond which its readers read it one by one">
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def KilnJoinOutputPartsPass : Pass<"kiln-join-output-parts", "ModuleOp"> {
  let summary = "Return a tensor once for the outputs that are parts of it";
  let description = [{
    For the CPU reference: the network outputs that are contiguous parts of
    one tensor (unit-stride `kiln.slice`s whose elements are one run of the
    tensor's: a Split's or a Caffe Slice's tops) are dropped from the
    results, and the tensor is returned once: after the other results, or
    as the output it is itself. The function's `kiln.output_parts`
    attribute maps each output the executor hands out to a result:
    `[result, element offset]` pairs in output order, offset -1 where the
    result is the output itself. The executor copies the joined outputs out
    of their result. A Slice into 20,000 tops is then one copy, not 20,000
    parts of code to compile. Only tensors that two or more outputs are
    parts of are joined, of elements of whole bytes (i1 is stored in one);
    functions that are called are left alone.

    Before:
    ```mlir
    func.func @net(%x: tensor<2x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
      %a = kiln.slice %x {start = array<i64: 0, 0>, size = array<i64: 1, 4>, stride = array<i64: 1, 1>} : ...
      %b = kiln.slice %x {start = array<i64: 1, 0>, size = array<i64: 1, 4>, stride = array<i64: 1, 1>} : ...
      return %a, %b : tensor<1x4xf32>, tensor<1x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<2x4xf32>) -> tensor<2x4xf32>
        attributes {kiln.output_parts = array<i64: 0, 0, 0, 4>} {
      return %x : tensor<2x4xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numJoined", "outputs-joined",
              "Number of outputs returned as parts of another result">
  ];
}

def KilnOutlineWeightsPass : Pass<"kiln-outline-weights", "ModuleOp"> {
  let summary = "Pass resource-blob weights to the function as arguments";
  let description = [{
    Every constant whose value is a `dense_resource` blob (the weights of an
    imported model) becomes a new argument of its function, after the
    existing ones, and the function records the blobs in argument order in
    its `kiln.outlined_weights` attribute. An executor then passes each
    blob's bytes by pointer instead of compiling them into the code (the CPU
    reference does). Constants with an inline value stay. Functions that are
    called are left alone.

    Before:
    ```mlir
    func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
      %w = kiln.constant dense_resource<w0> : tensor<4xf32>
      ...
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32>
        attributes {kiln.outlined_weights = [dense_resource<w0> : tensor<4xf32>]} {
      ...
    }
    ```
  }];
  let statistics = [
    Statistic<"numOutlined", "weights-outlined", "Number of weights outlined">
  ];
}

def KilnMemRefCopyToLinalgPass
    : Pass<"kiln-memref-copy-to-linalg", "func::FuncOp"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Replaces every `memref.copy` with a `linalg.copy` of the same buffers,
    so that `convert-linalg-to-loops` lowers copies to loops instead of
    `finalize-memref-to-llvm` turning strided ones into calls to MLIR's C
    runner library, which the CPU reference does not link.

    Before: `memref.copy %a, %b : memref<4xf32> to memref<4xf32>`
    After: `linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)`

    A copy of unranked memrefs (which linalg.copy cannot express) is an
    error.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KilnOutlineLinalgOpsPass
    : Pass<"kiln-outline-linalg-ops", "ModuleOp"> {
  let summary = "Move each linalg op on buffers into a function of its own";
  let description = [{
    For the CPU reference: every linalg op on buffers in a function, and
    every `memref.copy`, becomes a call (`no_inline`) of a new private
    function that holds only it. Its
    buffers and non-constant scalars become the function's arguments, and
    the constants it uses are cloned in. A network then lowers as many small
    functions instead of one that holds every layer, so that the passes
    whose cost grows faster than a function's size (`convert-scf-to-cf`
    splits a block per loop, `buffer-deallocation-simplification`, LLVM's
    -O2) stay linear in the number of layers.

    An op with a buffer of dynamic shape or layout stays where it is (the
    bare-pointer calling convention the reference uses needs static ones).
    A `memref.copy` of a buffer onto itself (bufferization leaves one where
    the last layer wrote the output in place) is erased.

    Layers that are the same op on the same types (equal bodies, locations
    aside) call one function: a network whose layers repeat is compiled
    by LLVM once a kind of layer, not once a layer. A part of a buffer (a
    concat's input, a split's output) that the op only indexes is passed
    through `kiln_gpu.rebase` to offset 0, so that the parts' layers are
    alike too (`kiln-lower-rebase` lowers it).

    Before:
    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {...}
      return
    }
    ```
    After:
    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      call @main_generic_0(%a, %b) {no_inline} : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @main_generic_0(%a: memref<4xf32>, %b: memref<4xf32>) {
      linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {...}
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::kiln::KilnGPUDialect"];
  let statistics = [
    Statistic<"numOutlined", "ops-outlined", "Number of linalg ops outlined">
  ];
}

def KilnOutlineSegmentsPass : Pass<"kiln-outline-segments", "ModuleOp"> {
  let summary = "Cut a long function into segments of a bounded size";
  let description = [{
    For the CPU reference (issue 42): a function whose one block holds more
    than `max-ops` operations (a network's entry, one call, allocation and
    free a layer) is cut into runs of at most `max-ops` operations, in
    order. Each run moves into a new private function, called (`no_inline`)
    where the run was: the values it uses from before are its arguments, the
    values it defines that are used after are its results, and the
    operations without side effects or regions that use nothing else (a
    constant, a global's address, a view of one) are cloned into each run
    that uses them. A run whose arguments or results the reference's
    bare-pointer calling convention cannot carry (a dynamic shape or
    layout) stays in place.
    LLVM's machine CSE and register allocator cost more than linear time in a
    function's length (under the JIT's large code model every callee's
    address is one value live across the function): with segments, a
    network of 20,000 layers compiles as 20,000 short functions' worth of
    work.

    Run after the buffers' deallocations are placed (ownership crosses the
    calls as plain values then).

    Before (`max-ops=2`):
    ```mlir
    func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      call @layer(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      call @layer(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.dealloc %a : memref<4xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
      %a = call @main_segment_0(%x) {no_inline} : (memref<4xf32>) -> memref<4xf32>
      call @main_segment_1(%a, %y) {no_inline} : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @main_segment_0(%x: memref<4xf32>) -> memref<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      call @layer(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      return %a : memref<4xf32>
    }
    func.func private @main_segment_1(%a: memref<4xf32>, %y: memref<4xf32>) {
      call @layer(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.dealloc %a : memref<4xf32>
      return
    }
    ```
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", "512",
           "The most operations a segment holds">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numSegments", "segments", "Number of segments outlined">
  ];
}

def KilnCheckWorkPass : Pass<"kiln-check-work", "func::FuncOp"> {
  let summary = "Refuse a linalg op whose iterations exceed a work budget";
  let description = [{
    For the CPU reference (issue 42): every linalg op's work is the number of
    points of its iteration space (the product of its static loop ranges:
    one multiply-add of a matmul, one read of a pool window). An op of more
    than `max-work` points is an error at its location, naming the layer
    (the location's name) and its count, before anything is compiled or run: a max pool
    of window 30000 with huge padding would otherwise run for hours. A
    count that overflows 64 bits is refused too.

    ```mlir
    // kiln-opt --kiln-check-work="max-work=1000"
    linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) ...
    // error: layer 'fc' work of 262144 operations is more than the work
    // budget of 1000 (raise it with --max-work)
    ```
  }];
  let options = [
    Option<"maxWork", "max-work", "uint64_t", /*default=*/"::mlir::kiln::kDefaultMaxWork",
           "The most iterations one op may have">
  ];
}

def KilnWarnAbsurdWorkPass : Pass<"kiln-warn-absurd-work", "func::FuncOp"> {
  let summary = "Warn about a linalg op whose work is absurd for its data";
  let description = [{
    For kiln-compile's GPU path (issue 42): a linalg op whose work (the
    points of its iteration space, counted as kiln-check-work counts them)
    is more than 2^20 operations for each element it reads and writes, and
    more than 2^32 in all, gets a warning at its location naming the layer
    and its count (`isAbsurdWork`, one place). The elements are the op's
    outputs, the inputs its body reads and the tensors its body reads from
    above (a max pool or a padded convolution reads its input in place). A
    real layer reuses an element at most a few thousand times (a matmul's
    ratio is at most its smallest dimension), so this is a window or a loop
    far larger than its input: an attribute to check. Nothing changes.

    ```mlir
    // kiln-opt --kiln-warn-absurd-work: a max pool of window 30000 with
    // padding 29999 on a 4x4 input (loc("wide_pool"))
    %y = linalg.generic ... ins(%window : tensor<30000x30000xf32>)
                            outs(%init : tensor<1x1x30003x30003xf32>) {...}
    // warning: layer 'wide_pool' work of 810162008100000000 operations is
    // absurd for the 900180025 elements it reads and writes (more than 2^20
    // operations an element and 2^32 in all): check the attributes that size
    // its loops (window, pads, strides, dilations)
    ```
  }];
}

def KilnCheckMemoryPass : Pass<"kiln-check-memory", "ModuleOp"> {
  let summary = "Refuse a network function whose buffers exceed the memory budget";
  let description = [{
    For the CPU reference (issue 42): the memory a network function holds at
    once is the bytes of its arguments (inputs, outlined weights, output
    buffers) plus the peak of its live allocations, followed in program order
    (`memref.alloc` and `memref.alloca` add their bytes, `memref.dealloc`
    takes them back, a call adds the peak of its callee for its duration).
    It runs after the buffers are freed after their last use
    (`kiln-dealloc-after-last-use`, `bufferization-lower-deallocations`), on
    every public function with a body, and refuses one that would hold more
    than `max-memory` bytes before anything is compiled, naming the largest
    tensors held at the peak: the layer (its location's name) or the input,
    weight or output, and its bytes. An allocation of dynamic size counts
    nothing here (the reference's allocator checks it when the code runs).

    ```mlir
    // kiln-opt --kiln-check-memory="max-memory=1000"
    func.func @net(%x: memref<64xf32>, %y: memref<64xf32>) attributes {kiln.num_inputs = 1 : i64} {
      %a = memref.alloc() : memref<256xf32> loc("fc")
      ...
      memref.dealloc %a : memref<256xf32>
    }
    // error: the CPU reference would hold 1536 bytes at once, more than the
    // memory budget of 1000 bytes (raise it with --max-memory); the largest:
    // layer 'fc' (1024 bytes), input 'x' (256 bytes), output 'y' (256 bytes)
    ```
  }];
  let options = [
    Option<"maxMemory", "max-memory", "uint64_t",
           /*default=*/"uint64_t(16) << 30",
           "The most bytes the function may hold at once">
  ];
}

def KilnCheckAllocationsPass : Pass<"kiln-check-allocations", "ModuleOp"> {
  let summary = "Return early from LLVM functions when an allocation fails";
  let description = [{
    For the CPU reference (issue 42), on the LLVM dialect: after every call
    to an allocation function (`malloc`, `aligned_alloc` and MLIR's generic
    `_mlir_memref_to_llvm_alloc` and `_mlir_memref_to_llvm_aligned_alloc`)
    the block is split, and a null result branches to a block that returns
    at once (a zero value when the function has a result), so that generated
    code never writes through a failed allocation. A call to a function that
    allocates (directly or through its callees) is followed by the same
    check of `failed-symbol`, a function `() -> i1` the executor supplies
    that says whether an allocation failed. The executor's allocator reports
    the failure and frees what the run left allocated.

    Before:
    ```mlir
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    llvm.store %v, %p : f32, !llvm.ptr
    ```
    After:
    ```mlir
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %failed = llvm.icmp "eq" %p, %null : !llvm.ptr
    llvm.cond_br %failed, ^return, ^continue
    ^continue:
    llvm.store %v, %p : f32, !llvm.ptr
    ...
    ^return:
    llvm.return
    ```
  }];
  let options = [
    Option<"failedSymbol", "failed-symbol", "std::string",
           /*default=*/"\"kiln_reference_allocation_failed\"",
           "The function () -> i1 checked after calls to allocating functions">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnLowerRebasePass : Pass<"kiln-lower-rebase", "ModuleOp"> {
  let summary = "Lower kiln_gpu.rebase on the host to LLVM descriptors";
  let description = [{
    For the CPU reference, after `finalize-memref-to-llvm`: each
    `kiln_gpu.rebase` (a part of a buffer that `kiln-outline-linalg-ops`
    passes to a function shared by parts alike) becomes its source's memref
    descriptor with the aligned pointer moved forward by the source's offset
    minus the result's, and the result's offset; the allocated pointer,
    sizes and strides stay. The bare-pointer call then passes the moved
    pointer.

    ```mlir
    %r = kiln_gpu.rebase %v
        : memref<1x4xf32, strided<[4, 1], offset: 8>> to memref<1x4xf32>
    ```
    becomes an `llvm.getelementptr` of 8 f32 from `%v`'s aligned pointer,
    inserted into a copy of its descriptor with offset 0.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnDeallocAfterLastUsePass
    : Pass<"kiln-dealloc-after-last-use", "func::FuncOp"> {
  let summary = "Free each allocation of a block right after its last use";
  let description = [{
    Runs after `ownership-based-buffer-deallocation`, which frees every
    buffer a block owns in one `bufferization.dealloc` at the block's end.
    Each buffer of such a dealloc (without retained values) that is
    - a `memref.alloc` of the same block (or its base buffer), freed under a
      constant true condition,
    - and used only by views, metadata extraction, calls, linalg ops,
      copies, loads and stores
    is taken out of it and freed by a `memref.dealloc` right after its last
    use in the block (uses in nested regions count at their ancestor in the
    block). Distinct allocations never alias, so this needs no alias
    analysis: it is linear in the size of the block, where
    `buffer-deallocation-simplification` compares the buffers of a dealloc
    pairwise (quadratic in the layers of a network). The CPU reference also
    holds only the buffers still in use, not every intermediate.

    Before:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    call @layer0(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
    call @layer1(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    ... (more layers)
    %base, ... = memref.extract_strided_metadata %a : ...
    bufferization.dealloc (%base : memref<f32>) if (%true)
    ```
    After:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    call @layer0(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
    call @layer1(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    memref.dealloc %a : memref<4xf32>
    ... (more layers)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numFreed", "buffers-freed-early",
              "Number of buffers freed after their last use">
  ];
}

def KilnPlanMemoryPass : Pass<"kiln-plan-memory", "func::FuncOp"> {
  let summary = "Place the host function's buffers in one activation arena";
  let description = [{
    Runs on the host function after kernel formation, whose statically shaped
    `memref.alloc`s are the network's intermediate buffers. Every operation
    that the plan will turn into a step (a kernel launch, a device copy, a
    memset) uses the buffers its operands are views of; a buffer is live from
    the first step that uses it to the last one. Buffers are placed best fit
    by decreasing size, each at the lowest `alignment`-aligned offset that
    overlaps no placed buffer whose steps overlap its own, so buffers whose
    lifetimes are disjoint share bytes.

    The result is IR: each allocation gets `kiln_gpu.arena_offset` (bytes)
    and the function `kiln_gpu.arena_bytes` (the arena's size, a multiple of
    `alignment`), which the plan translation only reads. A copy of a buffer
    onto the same bytes is no step and uses nothing. An allocation that no
    step uses gets offset 0.

    Before:
    ```mlir
    %a = memref.alloc() : memref<2x1024xf32>
    gpu.launch_func @kiln_kernels::@k0 ... args(%x : ..., %a : ...)
    gpu.launch_func @kiln_kernels::@k1 ... args(%a : ..., %y : ...)
    %b = memref.alloc() : memref<2x1024xf32>
    gpu.launch_func @kiln_kernels::@k2 ... args(%y : ..., %b : ...)
    ```
    After: `%a` and `%b` both at `kiln_gpu.arena_offset = 0 : i64` (their
    lifetimes do not overlap), `kiln_gpu.arena_bytes = 8192 : i64`.

    In place: when a launch's `kiln_gpu.in_place` pairs an input buffer that
    no later step uses with an output buffer that no earlier step uses (both
    allocations of the same size, passed whole, neither also reached through
    another argument of the launch), the output takes the
    input's bytes: one buffer from the input's first step to the output's
    last. `kiln-gpu-form-kernels` sets the pairs where the kernel reads each
    element of the input before, or as it writes, the same element of the
    output (an elementwise epilogue such as a residual add).

    A dynamically shaped or non-identity allocation is an error.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Alignment of every buffer and of the arena size, in bytes (a "
           "power of two, at least 16: kernels load 16 bytes at once)">
  ];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Number of buffers placed in the arena">,
    Statistic<"bufferBytes", "buffer-bytes", "Bytes of all placed buffers">,
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the arena">,
    Statistic<"numInPlace", "in-place",
              "Number of buffers written in place of an input">
  ];
  let dependentDialects = ["::mlir::kiln::KilnGPUDialect"];
}

#endif // KILN_CODEGEN_HOST_PASSES_TD
