//===- OnnxImportFuzzer.cpp - libFuzzer target: the ONNX importer ---------===//
//
// Feeds arbitrary bytes to the ONNX importer as a model (binary protobuf or
// the text format), then runs the graph phase on what imports. Anything may
// be refused with an error; nothing may crash, hang or leak. The memory
// budget is small, so that a model asking for huge tensors is refused fast.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;
using namespace mlir::kiln;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Compiler *compiler = [] {
    CompilerOptions options;
    options.maxMemoryBytes = uint64_t(64) << 20;
    auto *c = new Compiler(options);
    c->getContext().disableMultithreading();
    // Errors are the expected outcome: drop them.
    c->getContext().getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return c;
  }();
  static PassManager *graph = [] {
    auto *pm = new PassManager(&compiler->getContext());
    buildGraphPipeline(*pm);
    return pm;
  }();
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  FailureOr<OwningOpRef<ModuleOp>> module =
      compiler->importBuffer(bytes, "fuzz.onnx");
  if (succeeded(module))
    (void)graph->run(**module);
  return 0;
}
