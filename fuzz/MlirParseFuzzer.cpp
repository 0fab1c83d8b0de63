//===- MlirParseFuzzer.cpp - libFuzzer target: kiln IR
//---------------------===//
//
// Feeds arbitrary text to the MLIR parser with every kiln dialect
// registered, verifies what parses (the ops' verifiers and shape
// inference), and runs the graph phase on it. Errors are fine; crashes,
// hangs and leaks are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"
#include "kiln/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;
using namespace mlir::kiln;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FuzzHarness *harness = new FuzzHarness(CompilerOptions());
  // The tools' reader: a NUL-terminated copy (the MLIR lexer reads up to a
  // NUL, and every file the tools read is one), refused where the text
  // would crash the MLIR parser.
  OwningOpRef<ModuleOp> module = mlir::kiln::parseSource(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "input.mlir"),
      &harness->compiler.getContext());
  if (module)
    (void)harness->graph.run(*module);
  return 0;
}
