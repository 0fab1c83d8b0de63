//===- RunPlan.h - what the tools print when they run a network -*- C++ -*-===//
//
// The parts of running a network that kiln-run-plan (runtime only), kiln-run
// and kiln-conformance share: inputs given or random, a summary and
// comparison of every output, timing and profile tables, and the whole run
// of a plan file.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_RUNPLAN_H
#define KILN_TOOLING_RUNPLAN_H

#include "kiln/tooling/HostTensor.h"
#include "kiln/tooling/PlanRunner.h"

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::tooling {

/// Reads a tensor file: readNpy, or a reader that also knows other formats
/// (kiln-run adds ONNX TensorProto files).
using TensorReader =
    std::function<rt::StatusOr<HostTensor>(const std::string &path)>;

/// Inputs in `specs` order: the one `given` under its name (checked against
/// the spec when the network runs), else seeded random values, announced on
/// `out` as "input 'x' 1x4xf32: random (seed 1)".
rt::StatusOr<std::vector<HostTensor>>
makeInputs(const std::vector<rt::TensorDesc> &specs,
           const std::map<std::string, HostTensor> &given, unsigned seed,
           std::ostream &out,
           const std::map<std::string, std::vector<int64_t>> &shapes = {});

struct ReportOptions {
  /// Output K is also compared with (*expected)[K], described as
  /// `expectedFrom` (e.g. "reference backend").
  const std::vector<HostTensor> *expected = nullptr;
  std::string expectedFrom;
  /// Output K is compared with output_K.pb, else output_K.npy, in this
  /// folder, read with `readTensor`.
  std::string referenceDir;
  TensorReader readTensor;
  /// Output K is written to output_K.npy in this folder.
  std::string outputDir;
  /// Overrides of the output type's default tolerance (negative: keep it).
  /// An atol of 0 makes the check purely relative to the output's
  /// magnitude, for outputs much smaller than 1.
  double rtol = -1, atol = -1;
};

/// Prints "output 'y' 2x3xf32: min ..., max ..., mean ..." for every output
/// and each comparison ("  vs <what>: match (rtol .., atol ..)"). Returns the
/// number of mismatches, or the error that stopped it (an unreadable
/// reference file, an unwritable output).
rt::StatusOr<int> reportOutputs(const std::vector<HostTensor> &outputs,
                                const ReportOptions &options,
                                std::ostream &out);

/// The timing table: median, min and p99 of GPU and host time (of runs
/// enqueued back to back when `backToBack`, PlanRunner::timeBackToBack).
void printTiming(std::ostream &out, int warmup, const std::vector<double> &gpu,
                 const std::vector<double> &host, bool backToBack = false);

/// The profile table: each step's median GPU time and share.
void printProfile(std::ostream &out, int runs,
                  const std::vector<PlanRunner::StepProfile> &steps);

struct PlanRunOptions : ReportOptions {
  /// Inputs by name; the others are random.
  std::map<std::string, HostTensor> inputs;
  /// The shapes of random dynamic inputs (--run-shape); others of theirs
  /// take their profile's opt shape.
  std::map<std::string, std::vector<int64_t>> shapes;
  unsigned seed = 1;
  /// Timed runs after warmup runs (0: no timing).
  int warmup = 10, iterations = 0;
  /// Profiled runs (0: no profile).
  int profileRuns = 0;
  /// Enqueue the steps as one CUDA graph (ExecutionContext::setCudaGraphs);
  /// profiled runs still run them one by one.
  bool cudaGraph = false;
  /// Trace the timed runs' GPU operations with CUPTI (KernelTrace.h), from
  /// `cuptiLibrary` when not empty: each operation's time and the gaps
  /// between them, graph or not. Needs iterations > 0.
  bool kernelTrace = false;
  /// Time runs enqueued back to back (PlanRunner::timeBackToBack) instead
  /// of one at a time with a synchronize after each.
  bool backToBack = false;
  std::string cuptiLibrary;
};

/// Runs the plan `planBytes` as kiln-run-plan and kiln-run do: loads it,
/// describes the device, runs it once on the inputs, reports and compares
/// every output, then profiles and times it as asked. Errors are printed to
/// `err` as "<tool>: error: ...". Returns the exit status: 0, or 1 after an
/// error or a mismatch.
int runPlan(rt::Runtime &runtime, const std::string &planBytes,
            const PlanRunOptions &options, std::ostream &out, std::ostream &err,
            const std::string &tool);

} // namespace kiln::tooling

#endif // KILN_TOOLING_RUNPLAN_H
