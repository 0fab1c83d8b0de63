//===- KernelTrace.cpp - GPU operation times from CUPTI ---------*- C++ -*-===//
//
// CUPTI's activity API, loaded with dlopen and declared here (the tooling
// builds without the CUDA toolkit, as the runtime does): CUPTI asks for
// buffers, fills them with activity records on its own thread and hands
// them back; the records of kernels, memcpys and memsets all keep their
// start and end timestamps at the same offsets (16 and 24: kind, 4 bytes of
// flags, 8 of size or cache settings, then start and end) in every version
// since CUDA 9 (CUpti_ActivityKernel4..., Memcpy5..., Memset4...).
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/KernelTrace.h"

#include "Format.h"
#include "kiln/tooling/PlanRunner.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kiln::tooling {

namespace {
using CUptiResult = int;
constexpr CUptiResult kSuccess = 0, kMaxLimitReached = 12;
// CUpti_ActivityKind values.
constexpr int kMemcpy = 1, kMemset = 2, kKernel = 3, kConcurrentKernel = 10;
constexpr int kTraced[] = {kConcurrentKernel, kMemcpy, kMemset};
constexpr size_t kStartOffset = 16, kEndOffset = 24, kBufferBytes = 8 << 20;

using RequestFn = void (*)(uint8_t **buffer, size_t *size, size_t *maxRecords);
using CompleteFn = void (*)(void *context, uint32_t stream, uint8_t *buffer,
                            size_t size, size_t validSize);

/// What CUPTI's callbacks (which take no user pointer) fill in.
struct Recorded {
  std::mutex mutex;
  std::vector<GpuActivity> activities;
  size_t dropped = 0, untimed = 0;
};
Recorded recorded;
std::atomic<bool> tracing{false};
} // namespace

struct KernelTrace::Api {
  void *handle = nullptr;
  CUptiResult (*enable)(int kind);
  CUptiResult (*disable)(int kind);
  CUptiResult (*registerCallbacks)(RequestFn, CompleteFn);
  CUptiResult (*flushAll)(uint32_t flag);
  CUptiResult (*nextRecord)(uint8_t *buffer, size_t valid, void **record);
  CUptiResult (*timestamp)(uint64_t *ns);
  CUptiResult (*resultString)(CUptiResult result, const char **text);
  CUptiResult (*dropped)(void *context, uint32_t stream, size_t *count);

  rt::Status check(const char *call, CUptiResult result) const {
    if (result == kSuccess)
      return rt::Status::ok();
    const char *text = nullptr;
    if (resultString(result, &text) != kSuccess || !text)
      text = "unknown CUPTI error";
    return rt::Status(rt::StatusCode::DriverError,
                      std::string(call) + " failed with CUPTI error " +
                          std::to_string(result) + " (" + text + ")");
  }
};

namespace {
KernelTrace::Api *active = nullptr;

void requestBuffer(uint8_t **buffer, size_t *size, size_t *maxRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxRecords = 0;
}

void completeBuffer(void *context, uint32_t stream, uint8_t *buffer, size_t,
                    size_t valid) {
  std::vector<GpuActivity> found;
  size_t untimed = 0, dropped = 0;
  void *record = nullptr;
  while (active && active->nextRecord(buffer, valid, &record) == kSuccess) {
    int kind;
    std::memcpy(&kind, record, sizeof kind);
    if (kind != kKernel && kind != kConcurrentKernel && kind != kMemcpy &&
        kind != kMemset)
      continue;
    GpuActivity a;
    std::memcpy(&a.start, static_cast<char *>(record) + kStartOffset, 8);
    std::memcpy(&a.end, static_cast<char *>(record) + kEndOffset, 8);
    if (a.start == 0 || a.end < a.start)
      ++untimed;
    else
      found.push_back(a);
  }
  if (active)
    (void)active->dropped(context, stream, &dropped);
  std::free(buffer);
  std::lock_guard<std::mutex> lock(recorded.mutex);
  recorded.activities.insert(recorded.activities.end(), found.begin(),
                             found.end());
  recorded.untimed += untimed;
  recorded.dropped += dropped;
}

/// Sets `fn` to `symbol` in `handle`; records the first one missing.
template <typename Fn>
void resolve(void *handle, const char *symbol, Fn &fn, std::string &missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!fn && missing.empty())
    missing = symbol;
}
} // namespace

KernelTrace::KernelTrace(std::unique_ptr<Api> api) : api(std::move(api)) {}

rt::StatusOr<std::unique_ptr<KernelTrace>>
KernelTrace::start(const std::string &library) {
  std::vector<std::string> candidates;
  if (!library.empty())
    candidates = {library};
  else
    candidates = {"libcupti.so", "libcupti.so.13", "libcupti.so.12",
                  "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                  "/usr/local/cuda/lib64/libcupti.so"};
  auto api = std::make_unique<Api>();
  std::string tried;
  for (const std::string &name : candidates) {
    dlerror();
    api->handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api->handle)
      break;
    const char *why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!api->handle)
    return rt::Status(rt::StatusCode::DriverUnavailable,
                      "cannot load CUPTI, the CUDA toolkit's profiling "
                      "library (" +
                          tried + "); give its path with --cupti=PATH");
  std::string missing;
  resolve(api->handle, "cuptiActivityEnable", api->enable, missing);
  resolve(api->handle, "cuptiActivityDisable", api->disable, missing);
  resolve(api->handle, "cuptiActivityRegisterCallbacks", api->registerCallbacks,
          missing);
  resolve(api->handle, "cuptiActivityFlushAll", api->flushAll, missing);
  resolve(api->handle, "cuptiActivityGetNextRecord", api->nextRecord, missing);
  resolve(api->handle, "cuptiGetTimestamp", api->timestamp, missing);
  resolve(api->handle, "cuptiGetResultString", api->resultString, missing);
  resolve(api->handle, "cuptiActivityGetNumDroppedRecords", api->dropped,
          missing);
  if (!missing.empty()) {
    dlclose(api->handle);
    return rt::Status(rt::StatusCode::DriverUnavailable,
                      "the library loaded as CUPTI has no '" + missing +
                          "': not CUPTI, or too old");
  }
  if (tracing.exchange(true)) {
    dlclose(api->handle);
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "a kernel trace is already running in this process");
  }
  active = api.get();
  {
    std::lock_guard<std::mutex> lock(recorded.mutex);
    recorded.activities.clear();
    recorded.dropped = recorded.untimed = 0;
  }
  rt::Status s =
      api->check("cuptiActivityRegisterCallbacks",
                 api->registerCallbacks(requestBuffer, completeBuffer));
  for (int kind : kTraced)
    if (s.isOk())
      s = api->check("cuptiActivityEnable", api->enable(kind));
  std::unique_ptr<KernelTrace> trace(new KernelTrace(std::move(api)));
  if (!s.isOk())
    return s; // ~KernelTrace disables what was enabled
  return trace;
}

KernelTrace::~KernelTrace() {
  for (int kind : kTraced)
    (void)api->disable(kind);
  (void)api->flushAll(1);
  // CUPTI stays loaded: it keeps threads and hooks in the driver.
  active = nullptr;
  tracing = false;
}

rt::StatusOr<uint64_t> KernelTrace::now() {
  uint64_t ns = 0;
  if (rt::Status s = api->check("cuptiGetTimestamp", api->timestamp(&ns)); !s)
    return s;
  return ns;
}

rt::StatusOr<std::vector<GpuActivity>> KernelTrace::collect(uint64_t since) {
  // Forced: also the buffers of work CUPTI still thinks is running.
  if (rt::Status s = api->check("cuptiActivityFlushAll", api->flushAll(1)); !s)
    return s;
  std::lock_guard<std::mutex> lock(recorded.mutex);
  if (recorded.dropped || recorded.untimed)
    return rt::Status(rt::StatusCode::Internal,
                      "CUPTI dropped " + std::to_string(recorded.dropped) +
                          " activity records and gave " +
                          std::to_string(recorded.untimed) +
                          " without timestamps; the trace is incomplete");
  std::vector<GpuActivity> window;
  for (const GpuActivity &a : recorded.activities)
    if (a.start >= since)
      window.push_back(a);
  std::sort(window.begin(), window.end(),
            [](const GpuActivity &a, const GpuActivity &b) {
              return a.start < b.start;
            });
  return window;
}

rt::StatusOr<TraceSummary> summarizeTrace(std::vector<GpuActivity> activities,
                                          int runs) {
  if (runs <= 0 || activities.empty() || activities.size() % runs != 0)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "the trace holds " + std::to_string(activities.size()) +
                          " GPU operations, not the same number in each of " +
                          std::to_string(runs) +
                          " runs (did other work run on the GPU?)");
  std::sort(activities.begin(), activities.end(),
            [](const GpuActivity &a, const GpuActivity &b) {
              return a.start < b.start;
            });
  TraceSummary summary;
  summary.runs = runs;
  summary.perRun = static_cast<int>(activities.size() / runs);
  summary.opMs.resize(summary.perRun);
  uint64_t previousEnd = 0;
  for (int r = 0; r < runs; ++r) {
    const GpuActivity *ops = &activities[size_t(r) * summary.perRun];
    uint64_t first = ops[0].start, last = 0, busy = 0, sum = 0;
    uint64_t coveredTo = first; // the union of the intervals so far ends here
    for (int k = 0; k < summary.perRun; ++k) {
      const GpuActivity &a = ops[k];
      sum += a.end - a.start;
      if (a.end > coveredTo) {
        busy += a.end - std::max(a.start, coveredTo);
        coveredTo = a.end;
      }
      last = std::max(last, a.end);
      summary.opMs[k].push_back((a.end - a.start) * 1e-6);
    }
    if (first < previousEnd)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "run " + std::to_string(r) +
                            " of the trace starts before the previous one "
                            "ends: the runs are not one after another");
    previousEnd = last;
    summary.spanMs.push_back((last - first) * 1e-6);
    summary.busyMs.push_back(busy * 1e-6);
    summary.sumMs.push_back(sum * 1e-6);
  }
  return summary;
}

void printTrace(std::ostream &out, const TraceSummary &summary,
                const std::vector<double> &gpuMs,
                const std::vector<std::string> &stepNames) {
  int n = summary.perRun;
  out << "kernel trace: " << summary.runs << " runs of " << n
      << " GPU operations (CUPTI activity records: GPU timestamps)\n"
      << "| op   | step                                     | ms       | "
         "share  |\n"
      << "|------|------------------------------------------|----------|---"
         "-----|\n";
  double total = quantile(summary.sumMs, 0.5);
  for (int k = 0; k < n; ++k) {
    double ms = quantile(summary.opMs[k], 0.5);
    std::string name = stepNames.size() == size_t(n) ? stepNames[k] : "-";
    out << format("| %4d | %-40s | %8.4f | %5.1f%% |\n", k,
                  name.substr(0, 40).c_str(), ms,
                  total > 0 ? 100 * ms / total : 0.0);
  }
  std::vector<double> gaps, overhead;
  for (int r = 0; r < summary.runs; ++r) {
    gaps.push_back(summary.spanMs[r] - summary.busyMs[r]);
    if (gpuMs.size() == size_t(summary.runs))
      overhead.push_back(gpuMs[r] - summary.sumMs[r]);
  }
  out << "| time per run (ms)                      | median   | min      | "
         "p99      |\n"
      << "|----------------------------------------|----------|----------|---"
         "-------|\n";
  auto row = [&](const char *name, const std::vector<double> &v) {
    out << format("| %-38s | %8.4f | %8.4f | %8.4f |\n", name, quantile(v, 0.5),
                  quantile(v, 0.0), quantile(v, 0.99));
  };
  row("GPU span (first start to last end)", summary.spanMs);
  row("busy (some operation running)", summary.busyMs);
  row("sum of the operations' durations", summary.sumMs);
  row("gaps inside the span (span - busy)", gaps);
  if (!overhead.empty())
    row("GPU time (events) - sum of durations", overhead);
  out << format("launch gaps: %.3f us between consecutive operations "
                "(median gaps / %d)",
                1000 * quantile(gaps, 0.5) / std::max(n - 1, 1), n - 1);
  if (!overhead.empty())
    out << format("; %.3f us per operation as GPU time - summed durations "
                  "(median / %d)",
                  1000 * quantile(overhead, 0.5) / n, n);
  out << "\n";
}

} // namespace kiln::tooling
