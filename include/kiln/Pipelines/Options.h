//===- Options.h - what the compiler's phases can be told -------*- C++ -*-===//
//
// Plain structs of the options each named pipeline takes. The compiler's
// options (Compiler/CompilerOptions.h) hold one of each; the registered
// pipelines (`kiln-opt --kiln-kernels-pipeline="threads=128"`) fill them
// from their pipeline options.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PIPELINES_OPTIONS_H
#define KILN_PIPELINES_OPTIONS_H

#include "kiln/Support/Precision.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kiln {

/// kiln-optimize: which graph passes run beyond the default ones.
struct GraphOptions {
  /// Convolutions and pools channels last (kiln-channels-last and
  /// kiln-sink-transposes; --opt-level=3, the default).
  bool channelsLast = true;
};

/// kiln-kernels-pipeline: how kernels are formed.
struct KernelOptions {
  /// Threads per block of kernels without a tile_config.
  int64_t threads = 256;
  /// Iterations per thread of kernels without a tile_config.
  int64_t itemsPerThread = 1;
  /// Matrix products as cuBLASLt calls (kiln-gpu-select-library-calls in
  /// the linalg phase, kiln-gpu-form-library-calls in this one).
  bool cublasLt = true;
  /// Convolutions as cuBLASLt products too (im2col; kiln-convert-to-linalg's
  /// conv-product-min-flops), when cublasLt is on.
  bool convProducts = true;
  /// f32 products on TF32 tensor cores.
  bool tf32 = true;
  /// cuBLASLt's workspace per call, in the arena.
  int64_t cublasLtWorkspace = 32 << 20;
  /// Products of fewer operations stay generated kernels.
  int64_t cublasLtMinFlops = 1 << 20;
  /// The lowest precision layers may run in (kiln-assign-precision, first
  /// in the linalg phase, so that the graph phase and the CPU reference stay
  /// f32): FP32 (none lower), FP16 or BF16 (--fp16, --bf16).
  Precision precision = Precision::FP32;
  /// NAME=fp32|fp16|bf16 for one layer (--layer-precision).
  std::vector<std::string> layerPrecision;
};

/// kiln-target-pipeline: what the kernels are serialized for.
struct TargetOptions {
  /// Target architectures, compute capability times ten (80, 90). The first
  /// is the one --emit=ptx prints; the newest also ships as PTX.
  std::vector<unsigned> archs = {90};
  /// The CUDA toolkit: libdevice (for math functions) and ptxas.
  std::string cudaPath = "/usr/local/cuda";
  /// ptxas to make cubins with; empty: <cudaPath>/bin/ptxas, then PATH.
  std::string ptxas;
  /// Make cubins when ptxas is found (PTX only otherwise).
  bool cubin = true;
};

/// kiln-reference-pipeline: how the CPU reference is built, and what it may
/// use.
struct ReferenceOptions {
  /// Form the fusion groups of the GPU path and run them as loops.
  bool fusionGroups = false;
  /// The most iterations a linalg op may have (kiln-check-work; 0: the
  /// pass's default).
  uint64_t maxWork = 0;
  /// The most bytes the network may hold at once: inputs, weights, outputs
  /// and the live buffers (kiln-check-memory when compiled, the executor's
  /// allocator when run; --max-memory).
  uint64_t maxMemory = uint64_t(16) << 30;
};

} // namespace mlir::kiln

#endif // KILN_PIPELINES_OPTIONS_H
