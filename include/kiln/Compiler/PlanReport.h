//===- PlanReport.h - what a plan does, for people --------------*- C++ -*-===//
//
// kiln-compile --report and --dump-graph: a table of a compiled module's
// steps (per kernel: the layers it computes, its floating-point operations
// and the bytes of its buffers; the arena against the network's
// activations) and a Graphviz DOT picture of the steps and the buffers
// between them (docs/gpu-codegen.md, "Seeing the plan").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PLANREPORT_H
#define KILN_COMPILER_PLANREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir::kiln {

/// The bytes of every value between layers of `module`'s network function
/// in kiln IR (every op result that is not a constant), summed: what a
/// runtime without memory planning would allocate.
uint64_t getActivationBytes(ModuleOp module);

/// What the report prints besides the module.
struct PlanReportHeader {
  std::string model;            ///< the model's file
  std::string buildOptions;     ///< describeBuildOptions()
  uint64_t activationBytes = 0; ///< getActivationBytes() of the graph
};

/// Writes the Markdown report of `module` (after Phase::Memory): one row
/// per plan step, then the memory totals. Fails with an error on the
/// module when it has no host function.
LogicalResult writePlanReport(ModuleOp module, const PlanReportHeader &header,
                              llvm::raw_ostream &os);

/// Writes `module`'s steps (after Phase::Memory) as a Graphviz digraph: a
/// node per step and per input and output tensor, an edge from the step
/// that last wrote a buffer to each step that reads it.
LogicalResult writePlanGraph(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::kiln

#endif // KILN_COMPILER_PLANREPORT_H
