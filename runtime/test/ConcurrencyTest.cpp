//===- ConcurrencyTest.cpp - the runtime's thread-safety promises ---------===//
//
// Each promise of Runtime.h, Engine.h, LibraryCall.h and kiln_runtime.h about
// threads, exercised on the stand-in driver (which is thread-safe, runs
// kernels in the calling thread and keeps one current context per thread):
// - one engine, 8 threads with 8 execution contexts each, each thread on its
//   own stream and each context with its own inputs, many enqueues: every
//   output bit-identical to a single-threaded run (one context profiled);
// - contexts created and destroyed (with and without their own arena, from
//   an application GpuAllocator) while others run;
// - engines of the same plan loaded and unloaded while others run;
// - library-call steps: one handler instance called by every context at
//   once, engines that use it loaded concurrently, and the registry changed
//   meanwhile;
// - the C API's last error, per thread.
// scripts/check-runtime-sanitizers.sh runs them under ThreadSanitizer.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"

#include "kiln/runtime/kiln_runtime.h"

#include <gmock/gmock.h>

#include <atomic>
#include <cstring>
#include <set>
#include <thread>

using namespace kiln::rt;
using namespace kiln::rt::test;

namespace {

constexpr int64_t kN = 256;
constexpr uint64_t kBytes = kN * sizeof(float);

/// Failures seen by worker threads, checked by the test's thread.
class Errors {
public:
  void add(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (messages_.size() < 20)
      messages_.push_back(std::move(message));
    ++count_;
  }
  /// Adds `s`'s message, prefixed with `where`, when it is an error.
  bool check(const Status &s, const std::string &where) {
    if (s.isOk())
      return true;
    add(where + ": " + s.toString());
    return false;
  }
  int count() const { return count_; }
  std::string summary() const {
    std::string text;
    for (const std::string &m : messages_)
      text += m + "\n";
    return text;
  }

private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  std::atomic<int> count_{0};
};

/// Holds threads until all of them are there, so that they run at once.
class StartLine {
public:
  explicit StartLine(int threads) : waiting_(threads) {}
  void arrive() {
    --waiting_;
    while (waiting_.load() > 0)
      std::this_thread::yield();
  }

private:
  std::atomic<int> waiting_;
};

/// An execution context with device buffers and inputs of its own.
struct BoundContext {
  std::unique_ptr<ExecutionContext> context;
  uint64_t a = 0, b = 0, out = 0;
  /// What its output must be: from the single-threaded run.
  std::vector<float> expected;
};

/// Makes a context of `engine` (with its own arena, or on one allocated for
/// it when `ownArena` is false) bound to new buffers holding seeded inputs.
/// `arena` receives the arena it allocated, if any.
Status bind(Runtime &rt, Engine &engine, unsigned seed, bool ownArena,
            BoundContext &bound, uint64_t &arena) {
  auto context = ownArena ? engine.createExecutionContext()
                          : engine.createExecutionContextWithoutDeviceMemory();
  if (!context)
    return context.status();
  bound.context = std::move(*context);
  if (!ownArena) {
    auto memory = rt.allocate(engine.deviceMemorySize());
    if (!memory)
      return memory.status();
    arena = *memory;
    if (Status s = bound.context->setDeviceMemory(arena); !s)
      return s;
  }
  uint64_t *buffers[] = {&bound.a, &bound.b, &bound.out};
  const char *names[] = {"a", "b", "out"};
  for (int i = 0; i < 3; ++i) {
    auto p = rt.allocate(kBytes);
    if (!p)
      return p.status();
    *buffers[i] = *p;
    if (Status s = bound.context->setTensorAddress(names[i], *p); !s)
      return s;
  }
  std::vector<float> a = randomFloats(kN, 2 * seed + 1);
  std::vector<float> b = randomFloats(kN, 2 * seed + 2);
  if (Status s = rt.copyToDevice(bound.a, a.data(), kBytes); !s)
    return s;
  return rt.copyToDevice(bound.b, b.data(), kBytes);
}

/// Frees what bind() allocated (the context first).
void release(Runtime &rt, BoundContext &bound, uint64_t arena) {
  bound.context.reset();
  for (uint64_t p : {bound.a, bound.b, bound.out, arena})
    if (p)
      rt.free(p);
}

/// Poisons the output, enqueues on `stream`; the caller synchronizes.
Status start(Runtime &rt, BoundContext &bound, void *stream) {
  if (Status s = rt.memset(bound.out, 0xFF, kBytes); !s)
    return s;
  return bound.context->enqueue(stream);
}

/// Whether the output, after the stream is synchronized, is the expected
/// one, bit for bit.
Status compare(Runtime &rt, const BoundContext &bound,
               std::vector<float> &scratch) {
  scratch.resize(kN);
  if (Status s = rt.copyToHost(scratch.data(), bound.out, kBytes); !s)
    return s;
  if (std::memcmp(scratch.data(), bound.expected.data(), kBytes) != 0)
    return Status(StatusCode::Internal, "output differs from the "
                                        "single-threaded run");
  return Status::ok();
}

/// Records each step reported; one per context.
class StepCounter : public Profiler {
public:
  void reportStepTime(int, const std::string &, float ms) override {
    ++steps;
    negative += ms < 0;
  }
  int steps = 0, negative = 0;
};

class ConcurrencyTest : public FakeEngineTest {
protected:
  void SetUp() override {
    FakeEngineTest::SetUp();
    weights_ = randomFloats(kN, 7);
    auto file = writePlan(addPlan(kN, weights_));
    ASSERT_TRUE(file.isOk()) << file.status().toString();
    plan_ = *file;
    rt_ = runtime();
    ASSERT_TRUE(rt_);
    auto engine = rt_->deserializeEngine(plan_.data(), plan_.size());
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    engine_ = std::move(*engine);
  }
  void TearDown() override {
    engine_.reset();
    rt_.reset();
    EXPECT_EQ(liveAllocations(), 0);
    EXPECT_EQ(liveModules(), 0);
    EXPECT_EQ(liveStreams(), 0);
    EXPECT_EQ(liveEvents(), 0);
    EXPECT_EQ(logger_.count(Logger::Severity::Warning), 0u);
    FakeEngineTest::TearDown();
  }

  /// Binds `count` contexts with seeds from `firstSeed` and runs each once,
  /// one after the other, for its expected output, which is also checked
  /// against the host's scale * ((a + w) + b).
  void prepare(std::vector<BoundContext> &contexts, int count,
               unsigned firstSeed, float scale = 1.0f) {
    contexts.resize(count);
    for (int i = 0; i < count; ++i) {
      uint64_t unused = 0;
      ASSERT_TRUE(
          bind(*rt_, *engine_, firstSeed + i, true, contexts[i], unused));
      ASSERT_TRUE(start(*rt_, contexts[i], nullptr));
      ASSERT_TRUE(rt_->synchronize(nullptr));
      contexts[i].expected.resize(kN);
      ASSERT_TRUE(rt_->copyToHost(contexts[i].expected.data(), contexts[i].out,
                                  kBytes));
      std::vector<float> a = randomFloats(kN, 2 * (firstSeed + i) + 1);
      std::vector<float> b = randomFloats(kN, 2 * (firstSeed + i) + 2);
      for (int64_t j = 0; j < kN; ++j)
        ASSERT_EQ(contexts[i].expected[j],
                  scale * ((a[j] + weights_[j]) + b[j]));
    }
  }

  /// Runs rounds over `contexts` on a stream of the thread's own, at least
  /// `rounds` and, with `until`, until it is set: each round enqueues every
  /// context once, synchronizes and compares.
  void runRounds(std::vector<BoundContext> &contexts, int rounds,
                 std::atomic<int64_t> &enqueues, std::atomic<int> &mismatches,
                 Errors &errors, const std::string &who,
                 const std::atomic<bool> *until = nullptr) {
    auto stream = rt_->createStream();
    if (!errors.check(stream.status(), who + " creating its stream"))
      return;
    std::vector<float> scratch;
    for (int r = 0; r < rounds || (until && !*until); ++r) {
      for (BoundContext &c : contexts) {
        if (!errors.check(start(*rt_, c, *stream), who + " enqueue"))
          break;
        ++enqueues;
      }
      if (!errors.check(rt_->synchronize(*stream), who + " synchronize"))
        break;
      for (BoundContext &c : contexts) {
        Status s = compare(*rt_, c, scratch);
        if (s.code() == StatusCode::Internal)
          ++mismatches;
        else
          errors.check(s, who + " copying the output");
      }
    }
    errors.check(rt_->destroyStream(*stream), who + " destroying its stream");
  }

  std::vector<float> weights_;
  std::string plan_;
  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<Engine> engine_;
};

// Engine.h: contexts of one engine run concurrently on different streams;
// Runtime.h: its memory, stream and event calls from any thread.
TEST_F(ConcurrencyTest, EightThreadsOfEightContextsMatchOneThread) {
  constexpr int kThreads = 8, kContexts = 8, kRounds = 500;
  std::vector<std::vector<BoundContext>> contexts(kThreads);
  for (int t = 0; t < kThreads; ++t)
    prepare(contexts[t], kContexts, 100 * t);
  // Every context computes something else: a mix-up would show.
  ASSERT_NE(contexts[0][0].expected, contexts[0][1].expected);
  ASSERT_NE(contexts[0][0].expected, contexts[1][0].expected);
  // One context is profiled: events from one thread while others run.
  StepCounter profiler;
  contexts[3][5].context->setProfiler(&profiler);

  std::atomic<int64_t> enqueues{0};
  std::atomic<int> mismatches{0};
  Errors errors;
  std::vector<std::thread> threads;
  StartLine line(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      runRounds(contexts[t], kRounds, enqueues, mismatches, errors,
                "thread " + std::to_string(t));
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(errors.count(), 0) << errors.summary();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(enqueues.load(), int64_t(kThreads) * kContexts * kRounds);
  EXPECT_EQ(profiler.steps, 3 * kRounds);
  EXPECT_EQ(profiler.negative, 0);
  std::printf("[ threads  ] %d threads x %d contexts: %lld enqueues, %d "
              "mismatches\n",
              kThreads, kContexts, static_cast<long long>(enqueues.load()),
              mismatches.load());
  for (auto &list : contexts)
    for (BoundContext &c : list)
      release(*rt_, c, 0);
}

/// Device memory from the host heap, safe to call from several threads, as
/// GpuAllocator.h asks of an allocator used by several threads.
class LockedAllocator : public GpuAllocator {
public:
  StatusOr<uint64_t> allocate(uint64_t bytes, uint64_t alignment) override {
    void *p = std::aligned_alloc(alignment, (bytes + alignment - 1) /
                                                alignment * alignment);
    if (!p)
      return Status(StatusCode::DriverError, "out of host memory");
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(reinterpret_cast<uintptr_t>(p));
    ++allocations;
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  }
  void free(uint64_t ptr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_.erase(ptr))
      std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(ptr)));
    else
      ++badFrees;
  }
  size_t live() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.size();
  }
  int allocations = 0, badFrees = 0;

private:
  std::mutex mutex_;
  std::set<uint64_t> live_;
};

// Engine.h: contexts are created and destroyed from any thread, while other
// contexts of the engine run.
TEST_F(ConcurrencyTest, ContextsComeAndGoWhileOthersRun) {
  LockedAllocator allocator;
  std::vector<std::vector<BoundContext>> running(4);
  for (int t = 0; t < 4; ++t)
    prepare(running[t], 4, 1000 + 10 * t);
  rt_->setGpuAllocator(&allocator); // before any thread allocates
  std::atomic<int64_t> enqueues{0};
  std::atomic<int> mismatches{0}, created{0};
  std::atomic<bool> churned{false};
  Errors errors;
  std::vector<std::thread> threads;
  StartLine line(8);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      runRounds(running[t], 30, enqueues, mismatches, errors,
                "runner " + std::to_string(t), &churned);
    });
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      std::string who = "creator " + std::to_string(t);
      auto stream = rt_->createStream();
      if (!errors.check(stream.status(), who))
        return;
      std::vector<float> scratch;
      for (int i = 0; i < 40; ++i) {
        // The expected output of a context of seed s is known from a
        // context made the same way: compare two of them.
        BoundContext c, twin;
        uint64_t arena = 0, twinArena = 0;
        unsigned seed = 5000 + 100 * t + i % 3;
        bool own = i % 2 == 0;
        if (errors.check(bind(*rt_, *engine_, seed, own, c, arena), who) &&
            errors.check(bind(*rt_, *engine_, seed, !own, twin, twinArena),
                         who) &&
            errors.check(start(*rt_, twin, *stream), who) &&
            errors.check(rt_->synchronize(*stream), who)) {
          twin.expected.resize(kN);
          errors.check(rt_->copyToHost(twin.expected.data(), twin.out, kBytes),
                       who);
          c.expected = twin.expected;
          if (errors.check(start(*rt_, c, *stream), who) &&
              errors.check(rt_->synchronize(*stream), who)) {
            Status s = compare(*rt_, c, scratch);
            if (s.code() == StatusCode::Internal)
              ++mismatches;
            else
              errors.check(s, who);
          }
          ++created;
        }
        release(*rt_, c, arena);
        release(*rt_, twin, twinArena);
      }
      errors.check(rt_->destroyStream(*stream), who);
    });
  for (size_t i = 4; i < threads.size(); ++i)
    threads[i].join();
  churned = true;
  for (size_t i = 0; i < 4; ++i)
    threads[i].join();
  EXPECT_EQ(errors.count(), 0) << errors.summary();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(created.load(), 4 * 40);
  EXPECT_GE(enqueues.load(), 4 * 4 * 30);
  EXPECT_EQ(allocator.live(), 0u);
  EXPECT_EQ(allocator.badFrees, 0);
  // 2 contexts of 4 buffers (one of them an arena) per iteration.
  EXPECT_EQ(allocator.allocations, 4 * 40 * 8);
  rt_->setGpuAllocator(nullptr);
  for (auto &list : running)
    for (BoundContext &c : list)
      release(*rt_, c, 0);
}

// Runtime.h: deserializeEngine from several threads at once (the same plan);
// engines are destroyed while other engines run.
TEST_F(ConcurrencyTest, EnginesLoadAndUnloadWhileOthersRun) {
  std::vector<std::vector<BoundContext>> running(3);
  for (int t = 0; t < 3; ++t)
    prepare(running[t], 4, 2000 + 10 * t);
  std::atomic<int64_t> enqueues{0};
  std::atomic<int> mismatches{0}, loaded{0};
  std::atomic<bool> churned{false};
  Errors errors;
  std::vector<std::thread> threads;
  StartLine line(8);
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      runRounds(running[t], 40, enqueues, mismatches, errors,
                "runner " + std::to_string(t), &churned);
    });
  // The same inputs as a running context: the same expected output.
  const BoundContext &model = running[0][0];
  for (int t = 0; t < 5; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      std::string who = "loader " + std::to_string(t);
      std::vector<float> scratch;
      for (int i = 0; i < 20; ++i) {
        auto engine = rt_->deserializeEngine(plan_.data(), plan_.size());
        if (!errors.check(engine.status(), who + " loading"))
          continue;
        ++loaded;
        BoundContext c;
        uint64_t arena = 0;
        if (errors.check(bind(*rt_, **engine, 2000, i % 2 == 0, c, arena),
                         who) &&
            errors.check(start(*rt_, c, nullptr), who) &&
            errors.check(rt_->synchronize(nullptr), who)) {
          c.expected = model.expected;
          Status s = compare(*rt_, c, scratch);
          if (s.code() == StatusCode::Internal)
            ++mismatches;
          else
            errors.check(s, who);
        }
        release(*rt_, c, arena);
        engine->reset();
      }
    });
  for (size_t i = 3; i < threads.size(); ++i)
    threads[i].join();
  churned = true;
  for (size_t i = 0; i < 3; ++i)
    threads[i].join();
  EXPECT_EQ(errors.count(), 0) << errors.summary();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(loaded.load(), 5 * 20);
  EXPECT_GE(enqueues.load(), 3 * 4 * 40);
  EXPECT_EQ(liveModules(), 1); // the test's engine
  for (auto &list : running)
    for (BoundContext &c : list)
      release(*rt_, c, 0);
}

/// out = alpha * in over the step's two buffers (host memory under the
/// stand-in driver), alpha from the payload. One instance per engine step,
/// called by every context of the engine, from any thread.
class ScaleCall : public LibraryCallInstance {
public:
  ScaleCall(float alpha, std::atomic<int64_t> &calls)
      : alpha_(alpha), calls_(calls) {}
  Status enqueue(void *, const uint64_t *buffers, size_t n) override {
    if (n != 2)
      return Status(StatusCode::InvalidPlan, "expected 2 buffers");
    const auto *in = reinterpret_cast<const float *>(uintptr_t(buffers[0]));
    auto *out = reinterpret_cast<float *>(uintptr_t(buffers[1]));
    for (int64_t i = 0; i < kN; ++i)
      out[i] = alpha_ * in[i];
    ++calls_;
    return Status::ok();
  }

private:
  const float alpha_;
  std::atomic<int64_t> &calls_;
};

// LibraryCall.h: a handler prepares instances for engines loaded on several
// threads at once, an instance is enqueued by several contexts at once, and
// the registry may change meanwhile.
TEST_F(ConcurrencyTest, LibraryCallsUnderConcurrency) {
  static std::atomic<int64_t> calls{0};
  static std::atomic<int> prepared{0};
  calls = 0;
  prepared = 0;
  const char *callee = "concurrency.scale";
  ASSERT_TRUE(registerLibraryCallHandler(
      callee,
      [](const LibraryCallSetup &setup)
          -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
        float alpha;
        if (setup.step.payload.size() != sizeof(alpha))
          return Status(StatusCode::InvalidPlan, "expected a 4-byte alpha");
        std::memcpy(&alpha, setup.step.payload.data(), sizeof(alpha));
        ++prepared;
        return std::unique_ptr<LibraryCallInstance>(
            new ScaleCall(alpha, calls));
      }));
  // out = 0.5 * ((a + w) + b): the add plan's second launch writes the
  // arena, the call scales it into out.
  PlanContents plan = addPlan(kN, weights_);
  plan.steps[2].launch.args[2] = pointerArg(arena(0), kBytes, kWrite);
  float alpha = 0.5f;
  plan.steps.push_back(libraryCallStep(
      callee, {{arena(0), kBytes}, {tensor(2, 0), kBytes}},
      std::string(reinterpret_cast<const char *>(&alpha), sizeof(alpha))));
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto loaded = rt_->deserializeEngine(file->data(), file->size());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  engine_ = std::move(*loaded); // the fixture's contexts use this engine

  constexpr int kThreads = 6, kContexts = 4, kRounds = 30;
  std::vector<std::vector<BoundContext>> contexts(kThreads);
  for (int t = 0; t < kThreads; ++t)
    prepare(contexts[t], kContexts, 3000 + 10 * t, alpha);
  const int64_t callsBefore = calls;

  std::atomic<int64_t> enqueues{0};
  std::atomic<int> mismatches{0}, engines{0};
  std::atomic<bool> done{false};
  Errors errors;
  std::vector<std::thread> threads;
  StartLine line(kThreads + 3);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      line.arrive();
      runRounds(contexts[t], kRounds, enqueues, mismatches, errors,
                "runner " + std::to_string(t));
    });
  // Engines of the plan loaded and unloaded: instances made concurrently.
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      line.arrive();
      for (int i = 0; i < 15; ++i) {
        auto engine = rt_->deserializeEngine(file->data(), file->size());
        if (errors.check(engine.status(), "loader"))
          ++engines;
      }
    });
  // The registry changes under them: other callees come and go.
  threads.emplace_back([&] {
    line.arrive();
    int changes = 0;
    while (!done || changes < 100) {
      std::string other = "concurrency.other" + std::to_string(changes % 4);
      errors.check(registerLibraryCallHandler(
                       other,
                       [](const LibraryCallSetup &)
                           -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
                         return Status(StatusCode::Internal, "never prepared");
                       }),
                   "registering");
      if (!hasLibraryCallHandler(other) || !unregisterLibraryCallHandler(other))
        errors.add("the registry lost '" + other + "'");
      ++changes;
    }
  });
  for (size_t i = 0; i + 1 < threads.size(); ++i)
    threads[i].join();
  done = true;
  threads.back().join();
  EXPECT_EQ(errors.count(), 0) << errors.summary();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(engines.load(), 2 * 15);
  EXPECT_EQ(calls - callsBefore, int64_t(kThreads) * kContexts * kRounds);
  EXPECT_EQ(prepared.load(), 1 + 2 * 15); // the test's engine too
  EXPECT_THAT(registeredLibraryCalls(), ::testing::Contains(callee));
  for (auto &list : contexts)
    for (BoundContext &c : list)
      release(*rt_, c, 0);
  engine_.reset();
  EXPECT_TRUE(unregisterLibraryCallHandler(callee));
}

// kiln_runtime.h: the last error is the calling thread's.
TEST(ConcurrencyCApi, LastErrorIsPerThread) {
  std::atomic<int> wrong{0};
  auto loop = [&](bool engine) {
    for (int i = 0; i < 2000; ++i) {
      int count = 0;
      uint64_t ptr = 0;
      kiln_status s = engine ? kiln_engine_num_tensors(nullptr, &count)
                             : kiln_runtime_allocate(nullptr, 16, &ptr);
      const char *expected = engine ? "kiln_engine_num_tensors: engine is null"
                                    : "kiln_runtime_allocate: runtime is null";
      if (s != KILN_STATUS_INVALID_ARGUMENT ||
          kiln_last_error_code() != KILN_STATUS_INVALID_ARGUMENT ||
          std::strcmp(kiln_last_error_message(), expected) != 0)
        ++wrong;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back(loop, t % 2 == 0);
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
