//===- BenchShapes.cpp - what run-time shapes cost on a GPU -----*- C++ -*-===//
//
// kiln-bench-shapes [ITERATIONS]: on the machine's GPU, the hand-written
// PTX plan of GpuTestPlans.h built once for 1 to 64 rows of 16384 floats
// (format 1.4) against the same plan built for each exact size, and what a
// change of shape costs an enqueue. Prints two tables:
//   - GPU time per run (events around a CUDA graph launch, median of
//     ITERATIONS, default 200) of the static and the dynamic plan at 1, 8,
//     33 and 64 rows;
//   - host time of enqueue + synchronize (median) on the dynamic plan: the
//     same shape every time, two shapes alternating with both graphs kept,
//     alternating with a cache of one graph (captured again and updated in
//     place at every change), a new shape every time (checked, captured and
//     instantiated), and alternating without CUDA graphs.
// The kernels are trivial (an add and an fma): this measures the runtime's
// share, not kernels specialised for a shape.
//
//===----------------------------------------------------------------------===//

#include "GpuTestPlans.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

using namespace kiln::rt;

namespace {

constexpr int64_t kMaxRows = 64, kCols = 16384;

[[noreturn]] void die(const std::string &what, const Status &s) {
  std::fprintf(stderr, "kiln-bench-shapes: %s: %s\n", what.c_str(),
               s.toString().c_str());
  std::exit(1);
}

template <typename T> T must(StatusOr<T> v, const char *what) {
  if (!v.isOk())
    die(what, v.status());
  return std::move(*v);
}

void must(const Status &s, const char *what) {
  if (!s.isOk())
    die(what, s);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// One engine with one context, buffers at the largest shape bound.
struct Loaded {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<ExecutionContext> context;
};

Loaded load(Runtime &rt, const PlanContents &plan, uint64_t x, uint64_t y,
            uint64_t bytes) {
  auto file = must(writePlan(plan), "writing the plan");
  Loaded l;
  l.engine = must(rt.deserializeEngine(file.data(), file.size()), "loading");
  l.context = must(l.engine->createExecutionContext(), "a context");
  must(l.context->setTensorAddress("x", x, bytes), "binding x");
  must(l.context->setTensorAddress("y", y, bytes), "binding y");
  l.context->setCudaGraphs(true);
  return l;
}

/// The median GPU time (ms) of `iterations` enqueues on `stream`.
double gpuMs(Runtime &rt, ExecutionContext &c, void *stream, int iterations) {
  void *start = must(rt.createEvent(), "an event");
  void *end = must(rt.createEvent(), "an event");
  std::vector<double> ms;
  for (int i = 0; i < iterations + 10; ++i) {
    must(rt.recordEvent(start, stream), "recording");
    must(c.enqueue(stream), "enqueue");
    must(rt.recordEvent(end, stream), "recording");
    float t = must(rt.elapsedMs(start, end), "timing");
    if (i >= 10)
      ms.push_back(t);
  }
  must(rt.destroyEvent(start), "an event");
  must(rt.destroyEvent(end), "an event");
  return median(ms);
}

/// The median host time (us) of enqueue + synchronize, `before(i)` setting
/// up run i.
double hostUs(Runtime &rt, ExecutionContext &c, void *stream, int iterations,
              const std::function<void(int)> &before) {
  std::vector<double> us;
  for (int i = 0; i < iterations + 10; ++i) {
    before(i);
    auto t0 = std::chrono::steady_clock::now();
    must(c.enqueue(stream), "enqueue");
    must(rt.synchronize(stream), "synchronize");
    auto t1 = std::chrono::steady_clock::now();
    if (i >= 10)
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return median(us);
}

} // namespace

int main(int argc, char **argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  if (iterations <= 0) {
    std::fprintf(stderr, "usage: %s [ITERATIONS]\n", argv[0]);
    return 2;
  }
  StderrLogger logger(Logger::Severity::Warning);
  auto rt = must(Runtime::create(&logger), "the GPU");
  std::vector<float> w = test::randomFloats(kMaxRows * kCols, 1);
  uint64_t bytes = kMaxRows * kCols * sizeof(float);
  uint64_t x = must(rt->allocate(bytes), "x"),
           y = must(rt->allocate(bytes), "y");
  std::vector<float> hx = test::randomFloats(kMaxRows * kCols, 2);
  must(rt->copyToDevice(x, hx.data(), bytes), "copying x");
  void *stream = must(rt->createStream(), "a stream");
  std::printf("device: %s, %d iterations, %lld floats a row\n\n",
              rt->device().name.c_str(), iterations,
              static_cast<long long>(kCols));

  Loaded dynamic =
      load(*rt, test::dynamicAxpbPlan(kMaxRows, kCols, w), x, y, bytes);
  ExecutionContext &c = *dynamic.context;
  auto rowsOf = [&](int64_t rows) {
    must(c.setInputShape("x", {rows, kCols}), "setInputShape");
  };
  std::printf("| rows | static plan GPU ms | dynamic plan GPU ms | ratio |\n");
  std::printf("|---:|---:|---:|---:|\n");
  for (int64_t rows : {int64_t(1), int64_t(8), int64_t(33), kMaxRows}) {
    Loaded fixed = load(*rt, test::axpbPlan(rows * kCols, w), x, y, bytes);
    double s = gpuMs(*rt, *fixed.context, stream, iterations);
    rowsOf(rows);
    double d = gpuMs(*rt, c, stream, iterations);
    std::printf("| %lld | %.4f | %.4f | %.3f |\n", static_cast<long long>(rows),
                s, d, d / s);
  }

  std::printf("\n| dynamic plan, enqueue + synchronize | host us (median) "
              "| graph captures |\n|---|---:|---:|\n");
  auto row = [&](const char *what, const std::function<void(int)> &before) {
    int captures = c.graphCaptures();
    double us = hostUs(*rt, c, stream, iterations, before);
    std::printf("| %s | %.1f | %d |\n", what, us, c.graphCaptures() - captures);
  };
  c.setCudaGraphs(true);
  row("the same shape (8 rows) every time", [&](int) { rowsOf(8); });
  row("1 and 64 rows alternating, both graphs kept",
      [&](int i) { rowsOf(i % 2 ? 1 : kMaxRows); });
  c.setGraphCacheSize(1);
  row("1 and 64 rows alternating, a cache of one graph",
      [&](int i) { rowsOf(i % 2 ? 1 : kMaxRows); });
  c.setGraphCacheSize(8);
  row("another shape every run (62 shapes cycling, 8 graphs kept)",
      [&](int i) { rowsOf(2 + (i * 7) % 62); });
  c.setCudaGraphs(false);
  row("1 and 64 rows alternating, no CUDA graphs",
      [&](int i) { rowsOf(i % 2 ? 1 : kMaxRows); });
  row("the same shape (8 rows), no CUDA graphs", [&](int) { rowsOf(8); });

  dynamic.context.reset();
  must(rt->destroyStream(stream), "the stream");
  rt->free(x);
  rt->free(y);
  return 0;
}
