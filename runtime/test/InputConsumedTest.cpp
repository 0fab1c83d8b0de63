//===- InputConsumedTest.cpp - the input-consumed event ---------*- C++ -*-===//
//
// ExecutionContext::setInputConsumedEvent on the fake driver
// (FakeCudaDriver.c), whose events remember how many kernel and graph
// launches had run when they were recorded: the event is recorded after the
// last step that reads an input tensor (a copy, a kernel argument), before
// the first step when none does, after the graph with CUDA graphs, and not
// at all without one. GpuTest.cpp records it on a real device.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"
#include "kiln/runtime/kiln_runtime.h"

namespace kiln::rt::test {
namespace {

class InputConsumedTest : public FakeEngineTest {
protected:
  static constexpr int64_t n = 500;
  uint64_t bytes() const { return n * sizeof(float); }

  /// Loads `plan` with one context, binds a, b and out (a and b random),
  /// and makes a stream and an event.
  void load(PlanContents plan) {
    rt_ = runtime();
    ASSERT_TRUE(rt_);
    auto engine = FakeEngineTest::load(*rt_, std::move(plan));
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    engine_ = std::move(*engine);
    auto context = engine_->createExecutionContext();
    ASSERT_TRUE(context.isOk()) << context.status().toString();
    context_ = std::move(*context);
    a_ = randomFloats(n, 1);
    b_ = randomFloats(n, 2);
    for (auto [name, host] :
         {std::pair<const char *, std::vector<float> *>{"a", &a_},
          {"b", &b_},
          {"out", nullptr}}) {
      uint64_t p = *rt_->allocate(bytes());
      buffers_.push_back(p);
      if (host) {
        ASSERT_TRUE(rt_->copyToDevice(p, host->data(), bytes()));
      }
      ASSERT_TRUE(context_->setTensorAddress(name, p));
    }
    auto stream = rt_->createStream();
    ASSERT_TRUE(stream.isOk());
    stream_ = *stream;
    auto event = rt_->createEvent();
    ASSERT_TRUE(event.isOk());
    event_ = *event;
  }
  std::vector<float> output() {
    std::vector<float> out(n);
    EXPECT_TRUE(rt_->copyToHost(out.data(), buffers_[2], bytes()));
    return out;
  }
  void TearDown() override {
    if (rt_) {
      EXPECT_TRUE(rt_->destroyEvent(event_));
      EXPECT_TRUE(rt_->destroyStream(stream_));
      for (uint64_t p : buffers_)
        rt_->free(p);
    }
    context_.reset();
    engine_.reset();
    rt_.reset();
    FakeEngineTest::TearDown();
  }
  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ExecutionContext> context_;
  std::vector<float> a_, b_;
  std::vector<uint64_t> buffers_;
  void *stream_ = nullptr, *event_ = nullptr;
};

/// out = a + b, the inputs first copied into the arena: only steps 0 and 1
/// read inputs, the kernel (step 2) reads the arena.
PlanContents copyThenAddPlan(int64_t n) {
  PlanContents plan = addPlan(n, randomFloats(n, 3));
  uint64_t bytes = static_cast<uint64_t>(n) * 4;
  uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);
  plan.steps = {
      copyStep(arena(0), tensor(0, 0), bytes),
      copyStep(arena(bytes), tensor(1, 0), bytes),
      launchStep(0, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(arena(0), bytes, kRead),
                  pointerArg(arena(bytes), bytes, kRead),
                  pointerArg(tensor(2, 0), bytes, kWrite), i64Arg(n)}),
  };
  return plan;
}

TEST_F(InputConsumedTest, RecordedAfterTheLastStepThatReadsAnInput) {
  ASSERT_NO_FATAL_FAILURE(load(copyThenAddPlan(n)));
  EXPECT_EQ(context_->lastInputReadingStep(), 1);
  context_->setInputConsumedEvent(event_);
  EXPECT_EQ(context_->inputConsumedEvent(), event_);
  int before = launchCount();
  ASSERT_TRUE(context_->enqueue(stream_));
  ASSERT_TRUE(rt_->synchronize(stream_));
  // Recorded after the copies, before the kernel.
  EXPECT_EQ(eventLaunches(event_), before);
  EXPECT_EQ(launchCount(), before + 1);
  std::vector<float> out = output();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a_[i] + b_[i]) << "at " << i;
}

TEST_F(InputConsumedTest, TheLastKernelReadingAnInput) {
  // addPlan: the second kernel (step 2) reads input b.
  ASSERT_NO_FATAL_FAILURE(load(addPlan(n, randomFloats(n, 3))));
  EXPECT_EQ(context_->lastInputReadingStep(), 2);
  context_->setInputConsumedEvent(event_);
  int before = launchCount();
  ASSERT_TRUE(context_->enqueue(stream_));
  ASSERT_TRUE(rt_->synchronize(stream_));
  EXPECT_EQ(eventLaunches(event_), before + 2);
}

TEST_F(InputConsumedTest, NoStepReadsAnInput) {
  // out = w + w: the inputs are bound but unused; recorded before step 0.
  PlanContents plan = addPlan(n, randomFloats(n, 3));
  uint64_t bytes = static_cast<uint64_t>(n) * 4;
  plan.steps = {
      launchStep(0, {2, 1, 1}, {256, 1, 1},
                 {pointerArg(weights(0), bytes, kRead),
                  pointerArg(weights(0), bytes, kRead),
                  pointerArg(tensor(2, 0), bytes, kWrite), i64Arg(n)})};
  ASSERT_NO_FATAL_FAILURE(load(std::move(plan)));
  EXPECT_EQ(context_->lastInputReadingStep(), -1);
  context_->setInputConsumedEvent(event_);
  int before = launchCount();
  ASSERT_TRUE(context_->enqueue(stream_));
  ASSERT_TRUE(rt_->synchronize(stream_));
  EXPECT_EQ(eventLaunches(event_), before);
  EXPECT_EQ(launchCount(), before + 1);
}

TEST_F(InputConsumedTest, WithCudaGraphsAfterTheGraph) {
  ASSERT_NO_FATAL_FAILURE(load(copyThenAddPlan(n)));
  context_->setCudaGraphs(true);
  context_->setInputConsumedEvent(event_);
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(context_->enqueue(stream_));
    ASSERT_TRUE(rt_->synchronize(stream_));
    EXPECT_EQ(eventGraphLaunches(event_), graphLaunches());
  }
  EXPECT_EQ(context_->graphCaptures(), 1);
  std::vector<float> out = output();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a_[i] + b_[i]) << "at " << i;
}

TEST_F(InputConsumedTest, NoEventNoRecord) {
  ASSERT_NO_FATAL_FAILURE(load(copyThenAddPlan(n)));
  ASSERT_TRUE(context_->enqueue(stream_));
  ASSERT_TRUE(rt_->synchronize(stream_));
  EXPECT_EQ(eventLaunches(event_), -1); // created, never recorded
  context_->setInputConsumedEvent(event_);
  context_->setInputConsumedEvent(nullptr);
  ASSERT_TRUE(context_->enqueue(stream_));
  ASSERT_TRUE(rt_->synchronize(stream_));
  EXPECT_EQ(eventLaunches(event_), -1);
}

TEST_F(InputConsumedTest, CApi) {
  EXPECT_EQ(kiln_context_set_input_consumed_event(nullptr, nullptr),
            KILN_STATUS_INVALID_ARGUMENT);
}

} // namespace
} // namespace kiln::rt::test
