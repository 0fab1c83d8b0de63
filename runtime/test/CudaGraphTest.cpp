//===- CudaGraphTest.cpp - contexts that launch a CUDA graph ----*- C++ -*-===//
//
// ExecutionContext::setCudaGraphs on the fake driver (FakeCudaDriver.c),
// whose stream capture records the launches, copies and fills and whose
// cuGraphLaunch does them again: the graph computes what the steps compute,
// is captured once while the addresses stay, is captured again and updated
// in place when they change, profiling runs the steps, the legacy default
// stream is refused, and nothing leaks. GpuTest.cpp runs a graph on a real
// device.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"
#include "kiln/runtime/kiln_runtime.h"

namespace kiln::rt::test {
namespace {

/// The add plan (PlanTestUtil.h) of `n` floats loaded on the fake device,
/// with one context that uses CUDA graphs.
class CudaGraphTest : public FakeEngineTest {
protected:
  void load(int64_t n, unsigned seed, bool ownArena = true) {
    rt_ = runtime();
    ASSERT_TRUE(rt_);
    w_ = randomFloats(n, seed);
    auto engine = FakeEngineTest::load(*rt_, addPlan(n, w_));
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    engine_ = std::move(*engine);
    auto context = ownArena
                       ? engine_->createExecutionContext()
                       : engine_->createExecutionContextWithoutDeviceMemory();
    ASSERT_TRUE(context.isOk()) << context.status().toString();
    context_ = std::move(*context);
    context_->setCudaGraphs(true);
  }
  void TearDown() override {
    context_.reset();
    engine_.reset();
    rt_.reset();
    FakeEngineTest::TearDown();
  }
  std::unique_ptr<Runtime> rt_;
  std::vector<float> w_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ExecutionContext> context_;
};

/// The add plan's inputs and output in device memory.
struct Buffers {
  Runtime &rt;
  int64_t n;
  uint64_t a = 0, b = 0, out = 0;
  Buffers(Runtime &rt, int64_t n, unsigned seed) : rt(rt), n(n) {
    std::vector<float> ha = randomFloats(n, seed),
                       hb = randomFloats(n, seed + 1);
    a = *rt.allocate(bytes());
    b = *rt.allocate(bytes());
    out = *rt.allocate(bytes());
    EXPECT_TRUE(rt.copyToDevice(a, ha.data(), bytes()));
    EXPECT_TRUE(rt.copyToDevice(b, hb.data(), bytes()));
    EXPECT_TRUE(rt.memset(out, 0xFF, bytes()));
  }
  ~Buffers() {
    rt.free(a);
    rt.free(b);
    rt.free(out);
  }
  uint64_t bytes() const { return static_cast<uint64_t>(n) * sizeof(float); }
  Status bind(ExecutionContext &c) const {
    if (Status s = c.setTensorAddress("a", a); !s)
      return s;
    if (Status s = c.setTensorAddress("b", b); !s)
      return s;
    return c.setTensorAddress("out", out);
  }
  /// out == (a + w) + b, exactly (the same float additions).
  void expectSum(const std::vector<float> &w) const {
    std::vector<float> ha(n), hb(n), ho(n);
    ASSERT_TRUE(rt.copyToHost(ha.data(), a, bytes()));
    ASSERT_TRUE(rt.copyToHost(hb.data(), b, bytes()));
    ASSERT_TRUE(rt.copyToHost(ho.data(), out, bytes()));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(ho[i], (ha[i] + w[i]) + hb[i]) << "at " << i;
  }
};

TEST_F(CudaGraphTest, CapturedOnceAndLaunchedAsOneGraph) {
  const int64_t n = 777;
  ASSERT_NO_FATAL_FAILURE(load(n, 9));
  Runtime &rt = *rt_;
  const std::vector<float> &w = w_;
  ExecutionContext &c = *context_;
  Buffers buffers(rt, n, 1);
  ASSERT_TRUE(buffers.bind(c));
  auto stream = rt.createStream();
  ASSERT_TRUE(stream.isOk());

  int launchesBefore = launchCount(), graphsBefore = graphLaunches();
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(rt.memset(buffers.out, 0xFF, buffers.bytes()));
    Status s = c.enqueue(*stream);
    ASSERT_TRUE(s) << s.toString();
    ASSERT_TRUE(rt.synchronize(*stream));
    buffers.expectSum(w);
  }
  // One capture, three graph launches; the plan's two kernels ran in each.
  EXPECT_EQ(c.graphCaptures(), 1);
  EXPECT_EQ(graphLaunches() - graphsBefore, 3);
  EXPECT_EQ(launchCount() - launchesBefore, 3 * 2);
  EXPECT_EQ(liveGraphs(), 1); // the instantiated graph, kept by the context
  context_.reset();
  EXPECT_EQ(liveGraphs(), 0);
  EXPECT_TRUE(rt.destroyStream(*stream));
}

TEST_F(CudaGraphTest, NewAddressesAreCapturedAgainAndUpdateTheGraph) {
  const int64_t n = 300;
  ASSERT_NO_FATAL_FAILURE(load(n, 4));
  Runtime &rt = *rt_;
  const std::vector<float> &w = w_;
  ExecutionContext &c = *context_;
  auto stream = rt.createStream();
  ASSERT_TRUE(stream.isOk());

  Buffers first(rt, n, 10), second(rt, n, 20);
  ASSERT_TRUE(first.bind(c));
  ASSERT_TRUE(c.enqueue(*stream));
  first.expectSum(w);
  // Binding the same addresses again keeps the graph.
  ASSERT_TRUE(first.bind(c));
  ASSERT_TRUE(c.enqueue(*stream));
  EXPECT_EQ(c.graphCaptures(), 1);
  // Other buffers: the steps are captured again and the graph, updated in
  // place, computes with the new addresses; the first output stays as it was.
  ASSERT_TRUE(rt.memset(first.out, 0, first.bytes()));
  ASSERT_TRUE(second.bind(c));
  ASSERT_TRUE(c.enqueue(*stream));
  EXPECT_EQ(c.graphCaptures(), 2);
  second.expectSum(w);
  std::vector<float> untouched(n, 1.0f);
  ASSERT_TRUE(rt.copyToHost(untouched.data(), first.out, first.bytes()));
  for (float v : untouched)
    ASSERT_EQ(v, 0.0f);
  EXPECT_EQ(liveGraphs(), 1);
  EXPECT_TRUE(rt.destroyStream(*stream));
}

TEST_F(CudaGraphTest, ProvidedArenaChangesRecapture) {
  const int64_t n = 64;
  ASSERT_NO_FATAL_FAILURE(load(n, 5, /*ownArena=*/false));
  Runtime &rt = *rt_;
  const std::vector<float> &w = w_;
  ExecutionContext &c = *context_;
  uint64_t size = engine_->deviceMemorySize();
  auto arena1 = rt.allocate(size), arena2 = rt.allocate(size);
  ASSERT_TRUE(arena1.isOk() && arena2.isOk());
  auto stream = rt.createStream();
  ASSERT_TRUE(stream.isOk());
  Buffers buffers(rt, n, 3);
  ASSERT_TRUE(buffers.bind(c));
  ASSERT_TRUE(c.setDeviceMemory(*arena1));
  ASSERT_TRUE(c.enqueue(*stream));
  ASSERT_TRUE(c.setDeviceMemory(*arena2));
  ASSERT_TRUE(rt.memset(*arena1, 0xFF, size)); // the old arena is garbage now
  ASSERT_TRUE(rt.memset(buffers.out, 0xFF, buffers.bytes()));
  ASSERT_TRUE(c.enqueue(*stream));
  EXPECT_EQ(c.graphCaptures(), 2);
  buffers.expectSum(w);
  context_.reset();
  rt.free(*arena1);
  rt.free(*arena2);
  EXPECT_TRUE(rt.destroyStream(*stream));
}

TEST_F(CudaGraphTest, DefaultStreamIsRefusedAndProfilingRunsTheSteps) {
  const int64_t n = 16;
  ASSERT_NO_FATAL_FAILURE(load(n, 6));
  Runtime &rt = *rt_;
  const std::vector<float> &w = w_;
  ExecutionContext &c = *context_;
  Buffers buffers(rt, n, 7);
  ASSERT_TRUE(buffers.bind(c));
  Status s = c.enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CUDA graphs need a stream of the application's: the "
                         "legacy default stream (nullptr) cannot be captured");

  struct Steps : Profiler {
    int count = 0;
    void reportStepTime(int, const std::string &, float) override { ++count; }
  } profiler;
  c.setProfiler(&profiler);
  int graphsBefore = graphLaunches();
  auto stream = rt.createStream();
  ASSERT_TRUE(stream.isOk());
  ASSERT_TRUE(c.enqueue(*stream));
  EXPECT_EQ(profiler.count, 3); // every step, timed one by one
  EXPECT_EQ(c.graphCaptures(), 0);
  EXPECT_EQ(graphLaunches() - graphsBefore, 0);
  buffers.expectSum(w);
  EXPECT_TRUE(rt.destroyStream(*stream));
}

TEST_F(CudaGraphTest, CaptureFailureLeavesTheStreamUsable) {
  const int64_t n = 32;
  ASSERT_NO_FATAL_FAILURE(load(n, 8));
  Runtime &rt = *rt_;
  const std::vector<float> &w = w_;
  ExecutionContext &c = *context_;
  Buffers buffers(rt, n, 9);
  ASSERT_TRUE(buffers.bind(c));
  auto stream = rt.createStream();
  ASSERT_TRUE(stream.isOk());
  // A launch the driver refuses while capturing: the error names the step,
  // the capture is ended, no graph is kept.
  setenv("KILN_FAKE_CUDA_LAUNCH_RESULT", "1", 1); // CUDA_ERROR_INVALID_VALUE
  Status s = c.enqueue(*stream);
  EXPECT_EQ(s.code(), StatusCode::DriverError);
  EXPECT_NE(s.message().find("step 1 (launch 'fake_add_f32'): cuLaunchKernel"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(liveGraphs(), 0);
  unsetenv("KILN_FAKE_CUDA_LAUNCH_RESULT");
  ASSERT_TRUE(c.enqueue(*stream));
  buffers.expectSum(w);
  EXPECT_EQ(c.graphCaptures(), 1);
  EXPECT_TRUE(rt.destroyStream(*stream));
}

TEST_F(CudaGraphTest, CApiTurnsGraphsOn) {
  EXPECT_EQ(kiln_context_set_cuda_graphs(nullptr, 1),
            KILN_STATUS_INVALID_ARGUMENT);
}

} // namespace
} // namespace kiln::rt::test
