//===- KernelTrace.h - GPU operation times from CUPTI -----------*- C++ -*-===//
//
// Times every kernel, memcpy and memset the process runs on the GPU with the
// CUDA toolkit's profiling library (CUPTI activity records: start and end
// timestamps written by the GPU, in ns), without events between the steps,
// so the gaps between consecutive kernels of a run, even inside a CUDA graph,
// can be read to well under a microsecond. CUPTI is loaded at run time like
// the driver; a machine without it gets a clear error.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_KERNELTRACE_H
#define KILN_TOOLING_KERNELTRACE_H

#include "kiln/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::tooling {

/// One GPU operation (kernel, memcpy or memset): GPU timestamps in ns.
struct GpuActivity {
  uint64_t start = 0, end = 0;
};

class KernelTrace {
public:
  /// Loads CUPTI (`library`, or else libcupti.so from the loader's path and
  /// the CUDA toolkit's usual folders) and starts recording the GPU
  /// operations of the whole process. One trace at a time per process.
  static rt::StatusOr<std::unique_ptr<KernelTrace>>
  start(const std::string &library = "");
  ~KernelTrace();

  /// CUPTI's clock now (the activities' time base), to mark a window.
  rt::StatusOr<uint64_t> now();
  /// Flushes CUPTI's buffers and returns the operations that started at or
  /// after `since`, by start time. Call after the GPU work is finished.
  rt::StatusOr<std::vector<GpuActivity>> collect(uint64_t since);

  struct Api;

private:
  explicit KernelTrace(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api;
};

/// The activities of `runs` consecutive runs of the same work, each the same
/// number of operations; per run, its span (first start to last end), the
/// time some operation ran (the union of the intervals), the summed
/// durations, and each operation's duration, in ms.
struct TraceSummary {
  int runs = 0, perRun = 0;
  std::vector<double> spanMs, busyMs, sumMs;
  std::vector<std::vector<double>> opMs; // [operation][run]
};
rt::StatusOr<TraceSummary> summarizeTrace(std::vector<GpuActivity> activities,
                                          int runs);

/// The trace's table: per operation (named after `stepNames` when there is
/// one per operation) its median duration; per run its span, busy time and
/// gaps; and, given the runs' event-timed GPU times `gpuMs`, the issue-11
/// measure: (GPU time - summed durations) per operation.
void printTrace(std::ostream &out, const TraceSummary &summary,
                const std::vector<double> &gpuMs,
                const std::vector<std::string> &stepNames);

} // namespace kiln::tooling

#endif // KILN_TOOLING_KERNELTRACE_H
