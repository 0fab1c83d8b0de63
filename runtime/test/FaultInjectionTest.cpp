//===- FaultInjectionTest.cpp - every driver call and allocation fails ----===//
//
// The whole life of an engine (Runtime::create, deserializeEngine with
// weights, two execution contexts, one of them with the caller's arena and a
// profiler, tensor bindings, enqueue, execute, synchronize, copies and fills,
// and the destruction of everything) runs once on the stand-in driver to
// count its driver calls N; then once for each k in 1..N with the k-th call
// failing (KILN_FAKE_CUDA_FAIL_AT). Each run must end with a Status that
// names the failing call or, when the call was in a teardown that can only
// log, with an Error message that names it; never a crash, and nothing left
// allocated. After each, the same process runs the flow without the fault
// and gets the right numbers. The same again for the k-th allocation of a
// GpuAllocator. Run under AddressSanitizer and LeakSanitizer by
// scripts/check-runtime-sanitizers.sh.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"

#include <gmock/gmock.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

/// Runs `fn` when it goes out of scope.
class ScopeExit {
public:
  explicit ScopeExit(std::function<void()> fn) : fn_(std::move(fn)) {}
  ~ScopeExit() { fn_(); }
  ScopeExit(const ScopeExit &) = delete;
  ScopeExit &operator=(const ScopeExit &) = delete;

private:
  std::function<void()> fn_;
};

/// Collects the steps a profiled run reports.
class CountingProfiler : public Profiler {
public:
  void reportStepTime(int, const std::string &, float) override { ++steps; }
  int steps = 0;
};

constexpr int64_t kN = 300;

/// What a flow computed: the output of each context.
struct FlowResult {
  std::vector<float> first, second;
  int profiledSteps = 0;
};

/// The whole life of an engine of addPlan(kN, w); returns the first failure.
/// Everything it made is released on the way out, whatever happened.
Status runFlow(Logger &logger, GpuAllocator *allocator, const std::string &plan,
               const AddBuffers &in, FlowResult &result) {
  auto runtime = Runtime::create(&logger, 0, KILN_FAKE_CUDA);
  if (!runtime)
    return runtime.status();
  Runtime &rt = **runtime;
  if (allocator)
    rt.setGpuAllocator(allocator);
  auto engine = rt.deserializeEngine(plan.data(), plan.size());
  if (!engine)
    return engine.status();

  // Device buffers (a, b, out, the second context's arena), freed last.
  std::vector<uint64_t> buffers;
  ScopeExit freeBuffers([&] {
    for (uint64_t p : buffers)
      rt.free(p);
  });
  const uint64_t bytes = kN * sizeof(float);
  for (int i = 0; i < 3; ++i) {
    auto p = rt.allocate(bytes);
    if (!p)
      return p.status();
    buffers.push_back(*p);
  }
  if (Status s = rt.copyToDevice(buffers[0], in.a.data(), bytes); !s)
    return s;
  if (Status s = rt.copyToDevice(buffers[1], in.b.data(), bytes); !s)
    return s;
  if (Status s = rt.memset(buffers[2], 0xFF, bytes); !s)
    return s;

  // Contexts go before the buffers: declared after them.
  auto context = (*engine)->createExecutionContext();
  if (!context)
    return context.status();
  const char *names[] = {"a", "b", "out"};
  for (int i = 0; i < 3; ++i)
    if (Status s = (*context)->setTensorAddress(names[i], buffers[i]); !s)
      return s;
  void *stream = nullptr;
  ScopeExit destroyStream([&] {
    if (stream)
      (void)rt.destroyStream(stream); // only after an earlier failure
  });
  auto created = rt.createStream();
  if (!created)
    return created.status();
  stream = *created;
  // The steps as a CUDA graph: captured, instantiated and launched.
  (*context)->setCudaGraphs(true);
  if (Status s = (*context)->enqueue(stream); !s)
    return s;
  if (Status s = rt.synchronize(stream); !s)
    return s;
  // Another output buffer: captured again, the graph updated in place (or,
  // when the driver refuses, instantiated anew); its output is checked.
  auto other = rt.allocate(bytes);
  if (!other)
    return other.status();
  buffers.push_back(*other);
  if (Status s = (*context)->setTensorAddress("out", *other); !s)
    return s;
  if (Status s = (*context)->enqueue(stream); !s)
    return s;
  if (Status s = rt.synchronize(stream); !s)
    return s;
  result.first.assign(kN, 0.0f);
  if (Status s = rt.copyToHost(result.first.data(), *other, bytes); !s)
    return s;
  Status destroyed = rt.destroyStream(stream);
  stream = nullptr;
  if (!destroyed)
    return destroyed;

  // A second context on the caller's arena, profiled, run by execute().
  auto arena = rt.allocate((*engine)->deviceMemorySize());
  if (!arena)
    return arena.status();
  buffers.push_back(*arena);
  auto second = (*engine)->createExecutionContextWithoutDeviceMemory();
  if (!second)
    return second.status();
  if (Status s = (*second)->setDeviceMemory(*arena); !s)
    return s;
  for (int i = 0; i < 3; ++i)
    if (Status s = (*second)->setTensorAddress(names[i], buffers[i]); !s)
      return s;
  if (Status s = rt.memset(buffers[2], 0, bytes); !s)
    return s;
  CountingProfiler profiler;
  (*second)->setProfiler(&profiler);
  if (Status s = (*second)->execute(); !s)
    return s;
  result.profiledSteps = profiler.steps;
  result.second.assign(kN, 0.0f);
  if (Status s = rt.copyToHost(result.second.data(), buffers[2], bytes); !s)
    return s;
  return Status::ok();
}

/// (a + w) + b, as the plan computes it.
std::vector<float> expectedSum(const AddBuffers &in,
                               const std::vector<float> &w) {
  std::vector<float> out(kN);
  for (int64_t i = 0; i < kN; ++i)
    out[i] = (in.a[i] + w[i]) + in.b[i];
  return out;
}

class FaultInjectionTest : public FakeEngineTest {
protected:
  void SetUp() override {
    FakeEngineTest::SetUp();
    weights_ = randomFloats(kN, 1);
    in_.a = randomFloats(kN, 2);
    in_.b = randomFloats(kN, 3);
    auto file = writePlan(addPlan(kN, weights_));
    ASSERT_TRUE(file.isOk()) << file.status().toString();
    plan_ = *file;
  }

  /// Nothing of the stand-in driver's is left: memory, modules, streams,
  /// events, references to the primary context.
  void expectNothingLive(const std::string &when) {
    EXPECT_EQ(liveAllocations(), 0) << when;
    EXPECT_EQ(liveModules(), 0) << when;
    EXPECT_EQ(liveStreams(), 0) << when;
    EXPECT_EQ(liveEvents(), 0) << when;
    EXPECT_EQ(liveGraphs(), 0) << when;
    EXPECT_EQ(contextRefs(), 0) << when;
  }

  /// A flow without faults: it succeeds and computes the right numbers.
  void expectCleanFlow(GpuAllocator *allocator, const std::string &when) {
    unsetenv("KILN_FAKE_CUDA_FAIL_AT");
    CapturingLogger logger;
    FlowResult result;
    Status s = runFlow(logger, allocator, plan_, in_, result);
    ASSERT_TRUE(s.isOk()) << when << ": " << s.toString();
    std::vector<float> want = expectedSum(in_, weights_);
    EXPECT_EQ(result.first, want) << when;
    EXPECT_EQ(result.second, want) << when;
    EXPECT_EQ(result.profiledSteps, 3) << when;
    EXPECT_EQ(logger.count(Logger::Severity::Warning), 0u) << when;
    expectNothingLive(when);
  }

  std::vector<float> weights_;
  AddBuffers in_;
  std::string plan_;
};

TEST_F(FaultInjectionTest, EveryDriverCallCanFail) {
  expectCleanFlow(nullptr, "the first run");
  const int calls = callCount();
  ASSERT_GT(calls, 50) << "the flow makes fewer driver calls than expected";
  EXPECT_STREQ(failedCall(), "");

  int returned = 0, logged = 0;
  std::map<std::string, int> byCall;
  for (int k = 1; k <= calls; ++k) {
    std::string when = "driver call " + std::to_string(k);
    SCOPED_TRACE(when);
    setenv("KILN_FAKE_CUDA_FAIL_AT", std::to_string(k).c_str(), 1);
    CapturingLogger logger;
    FlowResult result;
    Status s = runFlow(logger, nullptr, plan_, in_, result);
    const std::string failed = failedCall();
    ASSERT_FALSE(failed.empty()) << "call " << k << " was not made";
    ++byCall[failed];
    if (!s.isOk()) {
      ++returned;
      EXPECT_THAT(s.message(), HasSubstr(failed)) << s.toString();
      EXPECT_NE(s.code(), StatusCode::Internal) << s.toString();
    } else {
      // Only a teardown, which can only log, may swallow a failure; and a
      // refused CUDA graph update, which instantiates the graph anew.
      ++logged;
      EXPECT_TRUE(logger.saw(failed == "cuGraphExecUpdate"
                                 ? Logger::Severity::Verbose
                                 : Logger::Severity::Error,
                             failed))
          << "the flow succeeded and nothing logged the failure of " << failed;
      std::vector<float> want = expectedSum(in_, weights_);
      EXPECT_EQ(result.first, want);
      EXPECT_EQ(result.second, want);
    }
    expectNothingLive(when);
    expectCleanFlow(nullptr, "the run after " + when);
  }
  std::string calledEntryPoints;
  for (const auto &[name, count] : byCall)
    calledEntryPoints += " " + name + "x" + std::to_string(count);
  std::printf("[ faults   ] %d driver calls failed one at a time: %d ended "
              "the flow with a status naming the call, %d (teardown) were "
              "logged; calls:%s\n",
              calls, returned, logged, calledEntryPoints.c_str());
  // Every kind of teardown was exercised.
  for (const char *call : {"cuMemFree", "cuModuleUnload", "cuStreamDestroy",
                           "cuEventDestroy", "cuDevicePrimaryCtxRelease"})
    EXPECT_GT(byCall[call], 0) << call;
}

/// Host memory (what the stand-in driver's device memory is) that fails the
/// k-th allocation, and knows what is still allocated.
class FailingAllocator : public GpuAllocator {
public:
  StatusOr<uint64_t> allocate(uint64_t bytes, uint64_t alignment) override {
    std::lock_guard<std::mutex> lock(mutex_);
    int n = ++allocations;
    if (n == failAt)
      return Status(StatusCode::DriverError,
                    "test allocator: allocation " + std::to_string(n) + " (" +
                        std::to_string(bytes) + " bytes) refused");
    void *p = std::aligned_alloc(alignment, (bytes + alignment - 1) /
                                                alignment * alignment);
    if (!p)
      return Status(StatusCode::DriverError, "test allocator: no memory");
    live.emplace(reinterpret_cast<uintptr_t>(p), bytes);
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  }
  void free(uint64_t ptr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live.erase(ptr) == 0)
      ++badFrees;
    else
      std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(ptr)));
  }

  int allocations = 0, failAt = 0, badFrees = 0;
  std::map<uint64_t, uint64_t> live;

private:
  std::mutex mutex_;
};

TEST_F(FaultInjectionTest, EveryAllocationCanFail) {
  FailingAllocator allocator;
  expectCleanFlow(&allocator, "the first run");
  const int allocations = allocator.allocations;
  // The weights, a, b, out, the first context's arena, the graph's second
  // output, the second context's arena.
  ASSERT_EQ(allocations, 7);
  for (int k = 1; k <= allocations; ++k) {
    std::string when = "allocation " + std::to_string(k);
    SCOPED_TRACE(when);
    allocator.allocations = 0;
    allocator.failAt = k;
    CapturingLogger logger;
    FlowResult result;
    Status s = runFlow(logger, &allocator, plan_, in_, result);
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.code(), StatusCode::DriverError) << s.toString();
    EXPECT_THAT(s.message(), HasSubstr("test allocator: allocation " +
                                       std::to_string(k) + " ("));
    EXPECT_TRUE(allocator.live.empty()) << allocator.live.size() << " left";
    EXPECT_EQ(allocator.badFrees, 0);
    expectNothingLive(when);
    allocator.failAt = 0;
    expectCleanFlow(&allocator, "the run after " + when);
    EXPECT_TRUE(allocator.live.empty());
  }
}

} // namespace
