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
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

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
  // The MLIR lexer reads up to a NUL: give it a terminated copy, as every
  // file and string it is given in the tools is.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&compiler->getContext());
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (module)
    (void)graph->run(*module);
  return 0;
}
