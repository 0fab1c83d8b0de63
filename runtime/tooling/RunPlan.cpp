//===- RunPlan.cpp - what the tools print when they run a network ---------===//

#include "kiln/tooling/RunPlan.h"

#include "Format.h"
#include "kiln/tooling/KernelTrace.h"
#include "kiln/tooling/Npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace kiln::tooling {

namespace {
bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// `mkdir -p path`: a missing output folder is made, as a user expects.
rt::Status makeDirectories(const std::string &path) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    std::string prefix = path.substr(0, end);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 &&
        errno != EEXIST)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "cannot make the folder '" + prefix +
                            "': " + std::strerror(errno));
    if (end == std::string::npos)
      return rt::Status::ok();
  }
}

/// The least, greatest and sum of `n` values, each read as a double by
/// `at` (NaNs as std::min and std::max treat them).
template <typename Read>
std::tuple<double, double, double> summarizeWith(int64_t n, Read at) {
  double lo = 0, hi = 0, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = at(i);
    lo = i ? std::min(lo, v) : v;
    hi = i ? std::max(hi, v) : v;
    sum += v;
  }
  return {lo, hi, sum};
}

/// `t`'s least, greatest and sum of values: a typed loop for the common
/// types (an output of 2^31 elements is summarized in seconds), through
/// HostTensor::at for the others.
std::tuple<double, double, double> summarize(const HostTensor &t) {
  int64_t n = t.numElements();
  auto typed = [&](auto *first) {
    using T = std::remove_pointer_t<decltype(first)>;
    const T *p = static_cast<const T *>(t.data());
    return summarizeWith(n, [p](int64_t i) { return double(p[i]); });
  };
  switch (t.type) {
  case DataType::F32:
    return typed(static_cast<float *>(nullptr));
  case DataType::F64:
    return typed(static_cast<double *>(nullptr));
  case DataType::I8:
    return typed(static_cast<int8_t *>(nullptr));
  case DataType::U8:
    return typed(static_cast<uint8_t *>(nullptr));
  case DataType::I32:
    return typed(static_cast<int32_t *>(nullptr));
  case DataType::I64:
    return typed(static_cast<int64_t *>(nullptr));
  default:
    return summarizeWith(n, [&t](int64_t i) { return t.at(i); });
  }
}
} // namespace

rt::StatusOr<std::vector<HostTensor>>
makeInputs(const std::vector<rt::TensorDesc> &specs,
           const std::map<std::string, HostTensor> &given, unsigned seed,
           std::ostream &out,
           const std::map<std::string, std::vector<int64_t>> &shapes) {
  std::mt19937 rng(seed);
  std::vector<HostTensor> args;
  for (const rt::TensorDesc &spec : specs) {
    auto it = given.find(spec.name);
    if (it != given.end()) {
      args.push_back(it->second);
      continue;
    }
    // A dynamic input without a file takes --run-shape, else its opt shape.
    std::vector<int64_t> shape = spec.shape;
    if (auto s = shapes.find(spec.name); s != shapes.end())
      shape = s->second;
    else if (spec.isDynamic() && !spec.profiles.empty())
      shape = spec.profiles[0].opt;
    if (spec.isDynamic())
      if (rt::Status s = rt::checkShape(spec, shape); !s)
        return s;
    auto t = HostTensor::create(spec.name, spec.type, shape);
    if (!t.isOk())
      return t.status();
    fillRandom(*t, rng);
    out << "input '" << spec.name << "' " << t->typeString()
        << ": random (seed " << seed << ")\n";
    args.push_back(std::move(*t));
  }
  return args;
}

rt::StatusOr<int> reportOutputs(const std::vector<HostTensor> &outputs,
                                const ReportOptions &options,
                                std::ostream &out) {
  int mismatches = 0;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const HostTensor &t = outputs[k];
    auto [lo, hi, sum] = summarize(t);
    double mean = t.numElements() ? sum / t.numElements() : 0.0;
    out << "output '" << t.name << "' " << t.typeString() << ": min "
        << format("%e", lo) << ", max " << format("%e", hi) << ", mean "
        << format("%e", mean) << "\n";
    auto compare = [&](const HostTensor &want, const std::string &from) {
      Tolerance tol = defaultTolerance(want.type);
      if (options.rtol >= 0)
        tol.rtol = options.rtol;
      if (options.atol >= 0)
        tol.atol = options.atol;
      double maxError = 0;
      rt::Status diff = compareTensors(t, want, tol, &maxError);
      out << "  vs " << from << ": "
          << (diff ? "match, max abs error " + format("%.3g", maxError)
                   : diff.message())
          << " (rtol " << format("%g", tol.rtol) << ", atol "
          << format("%g", tol.atol) << ")\n";
      mismatches += !diff.isOk();
    };
    if (options.expected && k < options.expected->size())
      compare((*options.expected)[k], options.expectedFrom);
    if (!options.referenceDir.empty()) {
      std::string base = options.referenceDir + "/output_" + std::to_string(k);
      std::string file = exists(base + ".pb") ? base + ".pb" : base + ".npy";
      auto want = options.readTensor ? options.readTensor(file) : readNpy(file);
      if (!want.isOk())
        return want.status();
      compare(*want, file);
    }
    if (!options.outputDir.empty()) {
      if (rt::Status s = makeDirectories(options.outputDir); !s)
        return s;
      std::string file =
          options.outputDir + "/output_" + std::to_string(k) + ".npy";
      if (rt::Status s = writeNpy(file, t); !s)
        return s;
      out << "  written to " << file << "\n";
    }
  }
  return mismatches;
}

void printTiming(std::ostream &out, int warmup, const std::vector<double> &gpu,
                 const std::vector<double> &host, bool backToBack) {
  out << "timing: " << gpu.size() << " runs after " << warmup << " warmup runs"
      << (backToBack ? ", enqueued back to back" : "") << "\n"
      << "| time (ms)                      | median   | min      | p99      |\n"
      << "|--------------------------------|----------|----------|----------|"
         "\n";
  auto row = [&](const char *name, const std::vector<double> &v) {
    out << format("| %-30s | %8.4f | %8.4f | %8.4f |\n", name, quantile(v, 0.5),
                  quantile(v, 0.0), quantile(v, 0.99));
  };
  row(backToBack ? "GPU (events between runs)" : "GPU (events around enqueue)",
      gpu);
  row(backToBack ? "host (enqueue alone)" : "host (enqueue + synchronize)",
      host);
}

void printProfile(std::ostream &out, int runs,
                  const std::vector<PlanRunner::StepProfile> &steps) {
  double total = 0;
  for (const auto &step : steps)
    total += quantile(step.ms, 0.5);
  out << "profile: median GPU time per step over " << runs
      << " runs (an event around each step)\n"
      << "| step | what                                     | ms       | share "
         " |\n"
      << "|------|------------------------------------------|----------|-------"
         "-|\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    double ms = quantile(steps[i].ms, 0.5);
    out << format("| %4zu | %-40s | %8.4f | %5.1f%% |\n", i,
                  steps[i].name.c_str(), ms,
                  total > 0 ? 100 * ms / total : 0.0);
  }
  out << format("| sum  | %-40s | %8.4f | 100.0%% |\n", "", total);
}

int runPlan(rt::Runtime &runtime, const std::string &planBytes,
            const PlanRunOptions &options, std::ostream &out, std::ostream &err,
            const std::string &tool) {
  auto fail = [&](const std::string &message) {
    out.flush();
    err << tool << ": error: " << message << "\n";
    return 1;
  };
  if (options.kernelTrace && options.iterations <= 0)
    return fail("a kernel trace covers the timed runs: give --iterations N");
  // Before the plan loads, so that CUPTI sees the CUDA graph instantiated.
  std::unique_ptr<KernelTrace> trace;
  if (options.kernelTrace) {
    auto started = KernelTrace::start(options.cuptiLibrary);
    if (!started.isOk())
      return fail(started.status().toString());
    trace = std::move(*started);
  }
  auto runner = PlanRunner::create(runtime, planBytes);
  if (!runner.isOk())
    return fail(runner.status().toString());
  const rt::DeviceInfo &device = runtime.device();
  const rt::Engine &engine = (*runner)->engine();
  out << "device: " << device.name << " (" << device.smArch()
      << "), plan image " << (engine.imageIndex() >= 0 ? "loaded" : "none")
      << ", " << engine.plan().steps.size() << " steps, arena "
      << engine.deviceMemorySize() << " bytes\n";
  (*runner)->executionContext().setCudaGraphs(options.cudaGraph);
  auto inputs = makeInputs((*runner)->inputs(), options.inputs, options.seed,
                           out, options.shapes);
  if (!inputs.isOk())
    return fail(inputs.status().toString());
  std::vector<HostTensor> outputs;
  if (rt::Status s = (*runner)->run(*inputs, outputs); !s)
    return fail(s.toString());
  auto mismatches = reportOutputs(outputs, options, out);
  if (!mismatches.isOk())
    return fail(mismatches.status().message());
  double stepsMs = 0;
  if (options.profileRuns > 0) {
    std::vector<PlanRunner::StepProfile> steps;
    if (rt::Status s = (*runner)->profile(options.profileRuns, steps); !s)
      return fail(s.toString());
    if (options.cudaGraph)
      out << "note: --profile times the steps one by one, outside the CUDA "
             "graph (a graph has no events between its steps); the timed "
             "runs use the graph\n";
    printProfile(out, options.profileRuns, steps);
    for (const auto &step : steps)
      stepsMs += quantile(step.ms, 0.5);
  }
  if (options.iterations > 0) {
    std::vector<double> gpu, host;
    if (rt::Status s = (*runner)->time(options.warmup, 0, gpu, host); !s)
      return fail(s.toString());
    uint64_t since = 0;
    if (trace) {
      auto now = trace->now();
      if (!now.isOk())
        return fail(now.status().toString());
      since = *now;
    }
    if (rt::Status s =
            options.backToBack
                ? (*runner)->timeBackToBack(options.iterations, gpu, host)
                : (*runner)->time(0, options.iterations, gpu, host);
        !s)
      return fail(s.toString());
    if (options.cudaGraph)
      out << "enqueue: one CUDA graph of the " << engine.plan().steps.size()
          << " steps (captured "
          << (*runner)->executionContext().graphCaptures() << " time(s))\n";
    printTiming(out, options.warmup, gpu, host, options.backToBack);
    // What the GPU spends between the steps: its time for a run less the
    // steps' own (profiled) times, per step.
    size_t n = engine.plan().steps.size();
    if (trace) {
      auto activities = trace->collect(since);
      if (!activities.isOk())
        return fail(activities.status().toString());
      auto summary = summarizeTrace(std::move(*activities), options.iterations);
      if (!summary.isOk())
        return fail(summary.status().toString());
      std::vector<std::string> names;
      for (size_t i = 0; i < engine.plan().steps.size(); ++i)
        names.push_back(engine.stepName(static_cast<int>(i)));
      printTrace(out, *summary, gpu, names);
    }
    if (options.profileRuns > 0 && n > 0)
      out << format("launch gaps: %.4f ms GPU - %.4f ms in the steps = %.2f "
                    "us per step (%zu steps)\n",
                    quantile(gpu, 0.5), stepsMs,
                    1000 * (quantile(gpu, 0.5) - stepsMs) / double(n), n);
  }
  return *mismatches ? 1 : 0;
}

} // namespace kiln::tooling
