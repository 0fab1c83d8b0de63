//===- OnnxImportFuzzer.cpp - libFuzzer target: the ONNX importer ---------===//
//
// Feeds arbitrary bytes to the ONNX importer as a model (binary protobuf or
// the text format), then runs the graph phase on what imports. Anything may
// be refused with an error; nothing may crash, hang or leak. The memory
// budget is small, so that a model asking for huge tensors is refused fast.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;
using namespace mlir::kiln;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FuzzHarness *harness = [] {
    CompilerOptions options;
    options.maxMemoryBytes = uint64_t(64) << 20;
    return new FuzzHarness(options);
  }();
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  FailureOr<OwningOpRef<ModuleOp>> module =
      harness->compiler.importBuffer(bytes, "fuzz.onnx");
  if (succeeded(module))
    (void)harness->graph.run(**module);
  return 0;
}
