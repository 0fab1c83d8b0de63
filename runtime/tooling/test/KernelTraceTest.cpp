//===- KernelTraceTest.cpp - CUPTI activity traces --------------*- C++ -*-===//
//
// KernelTrace against the stand-in CUPTI (FakeCupti.c): records collected in
// their window and order, other kinds ignored, dropped or untimed records and
// a missing or wrong library refused; and the trace's summary on random
// runs against a sweep over the intervals' endpoints.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/KernelTrace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <random>
#include <sstream>

using namespace kiln;
using namespace kiln::tooling;
using ::testing::HasSubstr;

namespace {

/// The stand-in's test hooks (the library KernelTrace loads: dlopen of the
/// same path gives the same handle).
struct FakeCupti {
  void (*add)(int kind, uint64_t start, uint64_t end);
  void (*setClock)(uint64_t ns);
  void (*drop)(size_t n);
  FakeCupti() {
    void *handle = dlopen(KILN_FAKE_CUPTI, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    add = reinterpret_cast<decltype(add)>(dlsym(handle, "kilnFakeCuptiAdd"));
    setClock = reinterpret_cast<decltype(setClock)>(
        dlsym(handle, "kilnFakeCuptiSetClock"));
    drop = reinterpret_cast<decltype(drop)>(dlsym(handle, "kilnFakeCuptiDrop"));
  }
};

constexpr int kMemcpy = 1, kMemset = 2, kKernel = 3, kDriverApi = 4,
              kConcurrentKernel = 10;

TEST(KernelTraceTest, CollectsTheOperationsOfTheWindowInOrder) {
  auto trace = KernelTrace::start(KILN_FAKE_CUPTI);
  ASSERT_TRUE(trace.isOk()) << trace.status().toString();
  FakeCupti fake;
  fake.add(kConcurrentKernel, 100, 200); // before the window
  fake.setClock(1000);
  auto since = (*trace)->now();
  ASSERT_TRUE(since.isOk());
  EXPECT_EQ(*since, 1000u);
  fake.add(kConcurrentKernel, 3000, 3500);
  fake.add(kMemcpy, 1200, 1300);
  fake.add(kMemset, 2000, 2100);
  fake.add(kDriverApi, 1100, 5000); // not a GPU operation: ignored
  auto got = (*trace)->collect(*since);
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[0].start, 1200u);
  EXPECT_EQ((*got)[1].start, 2000u);
  EXPECT_EQ((*got)[2].end, 3500u);
  // A second trace in the same process is refused while this one runs.
  auto second = KernelTrace::start(KILN_FAKE_CUPTI);
  ASSERT_FALSE(second.isOk());
  EXPECT_THAT(second.status().message(), HasSubstr("already running"));
}

TEST(KernelTraceTest, RefusesAnIncompleteTrace) {
  FakeCupti fake;
  {
    auto trace = KernelTrace::start(KILN_FAKE_CUPTI);
    ASSERT_TRUE(trace.isOk()) << trace.status().toString();
    fake.add(kConcurrentKernel, 10, 20);
    fake.add(kConcurrentKernel, 0, 0); // no timestamps
    auto got = (*trace)->collect(0);
    ASSERT_FALSE(got.isOk());
    EXPECT_THAT(got.status().message(), HasSubstr("gave 1 without timestamps"));
  }
  auto trace = KernelTrace::start(KILN_FAKE_CUPTI);
  ASSERT_TRUE(trace.isOk()) << trace.status().toString();
  fake.add(kKernel, 10, 20);
  fake.drop(3);
  auto got = (*trace)->collect(0);
  ASSERT_FALSE(got.isOk());
  EXPECT_THAT(got.status().message(), HasSubstr("dropped 3 activity records"));
}

TEST(KernelTraceTest, SaysWhenThereIsNoCupti) {
  auto missing = KernelTrace::start("/nonexistent/libcupti.so");
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), rt::StatusCode::DriverUnavailable);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("cannot load CUPTI, the CUDA toolkit's profiling "
                        "library (/nonexistent/libcupti.so"));
  EXPECT_THAT(missing.status().message(), HasSubstr("--cupti=PATH"));
  auto wrong = KernelTrace::start(KILN_FAKE_CUDA);
  ASSERT_FALSE(wrong.isOk());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("has no 'cuptiActivityEnable': not CUPTI"));
}

/// The time some interval covers, by a sweep over sorted endpoints.
uint64_t coveredNs(const std::vector<GpuActivity> &ops) {
  std::vector<std::pair<uint64_t, int>> points;
  for (const GpuActivity &a : ops) {
    points.push_back({a.start, +1});
    points.push_back({a.end, -1});
  }
  std::sort(points.begin(), points.end());
  uint64_t covered = 0;
  int open = 0;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    open += points[i].second;
    if (open > 0)
      covered += points[i + 1].first - points[i].first;
  }
  return covered;
}

TEST(TraceSummaryTest, SpansGapsAndDurationsOfRandomRuns) {
  std::mt19937_64 rng(11);
  const int runs = 7, perRun = 13;
  std::vector<GpuActivity> all;
  std::vector<std::vector<GpuActivity>> byRun(runs);
  uint64_t t = 5000;
  for (int r = 0; r < runs; ++r) {
    for (int k = 0; k < perRun; ++k) {
      // Durations of 1-50 us, gaps of 0-3 us, and now and then an operation
      // that starts before the previous one ends (as with early launch).
      uint64_t duration = 1000 + rng() % 49000;
      uint64_t start = (k > 0 && rng() % 4 == 0) ? t - rng() % 500 : t;
      start += rng() % 3000;
      byRun[r].push_back({start, start + duration});
      t = std::max(t, start + duration);
    }
    t += 20000; // between runs
    all.insert(all.end(), byRun[r].begin(), byRun[r].end());
  }
  std::shuffle(all.begin(), all.end(), rng);
  auto summary = summarizeTrace(all, runs);
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  EXPECT_EQ(summary->perRun, perRun);
  for (int r = 0; r < runs; ++r) {
    uint64_t first = UINT64_MAX, last = 0, sum = 0;
    for (const GpuActivity &a : byRun[r]) {
      first = std::min(first, a.start);
      last = std::max(last, a.end);
      sum += a.end - a.start;
    }
    EXPECT_NEAR(summary->spanMs[r], (last - first) * 1e-6, 1e-9) << r;
    EXPECT_NEAR(summary->sumMs[r], sum * 1e-6, 1e-9) << r;
    EXPECT_NEAR(summary->busyMs[r], coveredNs(byRun[r]) * 1e-6, 1e-9) << r;
  }
  // 91 operations are not the same number in each of 6 runs.
  auto uneven = summarizeTrace(all, 6);
  ASSERT_FALSE(uneven.isOk());
  EXPECT_THAT(uneven.status().message(), HasSubstr("91 GPU operations"));
}

TEST(TraceSummaryTest, RefusesRunsThatOverlap) {
  std::vector<GpuActivity> ops = {{0, 100}, {100, 300}, {250, 400}, {400, 500}};
  auto summary = summarizeTrace(ops, 2);
  ASSERT_FALSE(summary.isOk());
  EXPECT_THAT(summary.status().message(),
              HasSubstr("run 1 of the trace starts before the previous one"));
}

TEST(TraceSummaryTest, PrintsTheGapsPerOperation) {
  // Two runs of three operations: 600 ns of gaps in a span of 3.6 us; with
  // 4 us of GPU time per run, (4 - 3) us over 3 operations.
  std::vector<GpuActivity> ops = {{0, 1000},      {1500, 2500},
                                  {2600, 3600},   {10000, 11000},
                                  {11500, 12500}, {12600, 13600}};
  auto summary = summarizeTrace(ops, 2);
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  std::ostringstream out;
  printTrace(out, *summary, {0.004, 0.004}, {"launch a", "launch b", "copy"});
  EXPECT_THAT(out.str(), HasSubstr("2 runs of 3 GPU operations"));
  EXPECT_THAT(out.str(), HasSubstr("|    2 | copy"));
  EXPECT_THAT(out.str(), HasSubstr("| GPU span (first start to last end)     |"
                                   "   0.0036 |"));
  EXPECT_THAT(out.str(), HasSubstr("0.300 us between consecutive operations"));
  EXPECT_THAT(out.str(), HasSubstr("0.333 us per operation as GPU time"));
}

} // namespace
