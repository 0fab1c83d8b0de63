//===- FuzzHarness.h - what the compiler's fuzz targets share ---*- C++ -*-===//
//
// One Compiler and one graph-phase PassManager for every input of a fuzz
// target (building them per input costs more than most inputs take), with
// threading off and diagnostics dropped: errors are the expected outcome.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_FUZZ_FUZZHARNESS_H
#define KILN_FUZZ_FUZZHARNESS_H

#include "kiln/Compiler/Compiler.h"
#include "kiln/Pipelines/Pipelines.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::kiln {

struct FuzzHarness {
  explicit FuzzHarness(CompilerOptions options)
      : compiler(std::move(options)), graph(&compiler.getContext()) {
    compiler.getContext().disableMultithreading();
    compiler.getContext().getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    buildGraphPipeline(graph);
  }
  Compiler compiler;
  PassManager graph;
};

} // namespace mlir::kiln

#endif // KILN_FUZZ_FUZZHARNESS_H
