//===- Tactics.h - choosing library algorithms by measuring them -*- C++
//-*-===//
//
// Tactic selection, as TensorRT's builder does it: for every cublaslt.matmul
// step of a plan (kiln/runtime/CublasLtMatmul.h), time the first candidates
// of cuBLASLt's heuristic on this runtime's GPU, on buffers of the step's
// sizes filled with random values, and record the fastest in the step's
// payload. The runtime then runs that algorithm, after checking at load that
// it fits the GPU and the cuBLASLt it finds there. Steps with the same
// parameters are measured once. kiln-compile --tune calls it.
//
//   auto runtime = kiln::rt::Runtime::create();
//   auto plan = kiln::rt::readPlan(bytes.data(), bytes.size());
//   auto choices = kiln::rt::selectTactics(**runtime, *plan);
//   auto tuned = kiln::rt::writePlan(*plan);
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TACTICS_H
#define KILN_RUNTIME_TACTICS_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::rt {

class Runtime;

struct TacticOptions {
  /// How many of cuBLASLt's heuristic's candidates to time per product.
  int candidates = 8;
  /// Untimed runs, then timed runs, of each candidate.
  int warmup = 2;
  int iterations = 10;
};

/// What was chosen for one step.
struct TacticChoice {
  size_t step = 0;
  std::string callee;
  /// The product, e.g. "512x768x3072, batch 1, f16 -> f16, bias epilogue".
  std::string problem;
  /// The heuristic's first choice and the one recorded, e.g. "algorithm 21
  /// (tile 18, stages 8, split-k 1)", and their times per call.
  std::string heuristic, chosen;
  double heuristicUs = 0, chosenUs = 0;
  /// How many candidates ran (those that cuBLASLt refused to run do not).
  int timed = 0;
  /// Chosen for an earlier step of the same parameters, not timed again.
  bool reused = false;
};

/// Measures and records the algorithm of every cublaslt.matmul step of
/// `plan` on `runtime`'s GPU (an algorithm already recorded is measured
/// again). Fails, leaving `plan` as it was, for a payload that does not
/// decode, no cuBLASLt, or a failing CUDA call.
StatusOr<std::vector<TacticChoice>>
selectTactics(Runtime &runtime, PlanContents &plan,
              const TacticOptions &options = {});

} // namespace kiln::rt

#endif // KILN_RUNTIME_TACTICS_H
