//===- MlirParseFuzzer.cpp - libFuzzer target: kiln IR
//---------------------===//
//
// Feeds arbitrary text to the MLIR parser with every kiln dialect
// registered, verifies what parses (the ops' verifiers and shape
// inference), and runs the graph phase on it. Errors are fine; crashes,
// hangs and leaks are not.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "kiln/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;
using namespace mlir::kiln;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Compiler *compiler = [] {
    auto *c = new Compiler();
    c->getContext().disableMultithreading();
    c->getContext().getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return c;
  }();
  // One pass manager for every input: building one per input costs more
  // than most inputs take to run.
  static PassManager *graph = [] {
    auto *pm = new PassManager(&compiler->getContext());
    buildGraphPipeline(*pm);
    return pm;
  }();
  // The tools' reader: a NUL-terminated copy (the MLIR lexer reads up to a
  // NUL, and every file the tools read is one), refused where the text
  // would crash the MLIR parser.
  OwningOpRef<ModuleOp> module = mlir::kiln::parseSource(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "input.mlir"),
      &compiler->getContext());
  if (module)
    (void)graph->run(*module);
  return 0;
}
