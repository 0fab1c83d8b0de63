//===- CompileSettings.h - kiln-compile's options as values -----*- C++ -*-===//
//
// The options of a compilation as plain values, with no MLIR type in sight:
// what the command line of kiln-compile, kiln-run and kiln-conformance gives
// (getCompilerOptionsFromCL reads the flags into one) and what the Python
// package's kiln.compile(**options) gives. applyCompileSettings
// (CompilerOptions.h) checks them and applies them to a CompilerOptions, so
// every front end accepts and refuses the same values with the same words.
// An option left unset keeps the front end's default.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILESETTINGS_H
#define KILN_COMPILER_COMPILESETTINGS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct CompileSettings {
  /// --target: "sm_90" or a comma-separated list.
  std::optional<std::string> targets;
  /// --cuda-path, --ptxas.
  std::optional<std::string> cudaPath, ptxas;
  /// --cubin / --no-cubin.
  std::optional<bool> cubin;
  /// --kernel-threads, --items-per-thread.
  std::optional<int64_t> kernelThreads, itemsPerThread;
  /// --no-cublaslt (false), --no-tf32 (false).
  std::optional<bool> cublasLt, tf32;
  /// --cublaslt-min-flops.
  std::optional<int64_t> cublasLtMinFlops;
  /// --tune, --tune-candidates.
  std::optional<bool> tune;
  std::optional<int> tuneCandidates;
  /// --fp16, --bf16 (they exclude each other).
  std::optional<bool> fp16, bf16;
  /// --layer-precision, each "NAME=fp32|fp16|bf16".
  std::vector<std::string> layerPrecision;
  /// --opt-level (0 to 3; --no-optimize is 0).
  std::optional<int> optLevel;
  /// --reference-fusion-groups.
  std::optional<bool> referenceFusionGroups;
  /// --max-memory: bytes with an optional K, M, G or T ("16G").
  std::optional<std::string> maxMemory;
  /// --input-shape, each "name=1x3x224x224".
  std::vector<std::string> inputShapes;
  /// --batch.
  std::optional<int64_t> batch;
  /// --constant-input, each "name=file.pb".
  std::vector<std::string> constantInputs;
  /// --max-model-bytes.
  std::optional<uint64_t> maxModelBytes;
  /// --plugin-lib, each a plugin library (KILN_PLUGIN_LIBRARY) to load
  /// before importing: its plugins then implement layers the importers map
  /// to them.
  std::vector<std::string> pluginLibraries;
  /// --caffemodel: the weights of a Caffe network (a .prototxt model).
  std::optional<std::string> caffeModel;
  /// --output, each a blob of a Caffe network that becomes an output.
  std::vector<std::string> outputs;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILESETTINGS_H
