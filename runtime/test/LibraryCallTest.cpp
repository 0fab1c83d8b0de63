//===- LibraryCallTest.cpp - library-call steps and their handlers -*- C++ -*-//
//
// The handler registry (LibraryCall.h) and library-call steps on the fake
// driver: a handler that records what it is given (the step, the payload,
// the stream and every buffer resolved from the arena, the weights and the
// bound tensors), one that computes (so that a plan mixing kernels and a
// library call gives the right numbers), a callee without a handler, a
// refused payload, a failing and a throwing handler, the profiler's names,
// and static registration.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/LibraryCall.h"
#include "FakeEngine.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

/// Registers a handler for one test.
class ScopedHandler {
public:
  ScopedHandler(std::string callee, LibraryCallHandler handler)
      : callee_(std::move(callee)) {
    Status s = registerLibraryCallHandler(callee_, std::move(handler));
    EXPECT_TRUE(s.isOk()) << s.toString();
  }
  ~ScopedHandler() { EXPECT_TRUE(unregisterLibraryCallHandler(callee_)); }

private:
  std::string callee_;
};

/// What the recording handler saw.
struct Record {
  int prepared = 0;
  size_t stepIndex = 0;
  std::string payload;
  size_t planBuffers = 0;
  std::vector<void *> streams;
  std::vector<std::vector<uint64_t>> calls;
};

class RecordingInstance : public LibraryCallInstance {
public:
  explicit RecordingInstance(Record &record) : record_(record) {}
  Status enqueue(void *stream, const uint64_t *buffers,
                 size_t numBuffers) override {
    record_.streams.push_back(stream);
    record_.calls.emplace_back(buffers, buffers + numBuffers);
    return Status::ok();
  }

private:
  Record &record_;
};

LibraryCallHandler recordingHandler(Record &record) {
  return [&record](const LibraryCallSetup &setup)
             -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
    ++record.prepared;
    record.stepIndex = setup.stepIndex;
    record.payload = setup.step.payload;
    record.planBuffers = setup.step.buffers.size();
    return std::unique_ptr<LibraryCallInstance>(new RecordingInstance(record));
  };
}

/// A plan of tensors "in" and "out" (16 floats each), 64 bytes of weights
/// and a 512-byte arena: a copy of "in" to the arena, then a call of `callee`
/// with buffers in all three spaces.
PlanContents callPlan(const std::string &callee, std::string payload) {
  PlanContents plan;
  plan.tensors = {{"in", DataType::F32, {16}, true},
                  {"out", DataType::F32, {16}, false}};
  for (int i = 0; i < 64; ++i)
    plan.weights.push_back(static_cast<char>(i * 3 + 1));
  plan.arenaBytes = 512;
  plan.steps = {copyStep(arena(128), tensor(0, 0), 64),
                libraryCallStep(callee,
                                {{arena(128), 64},
                                 {weights(16), 32},
                                 {tensor(1, 0), 64},
                                 {tensor(0, 8), 8}},
                                std::move(payload))};
  return plan;
}

using LibraryCallTest = FakeEngineTest;

TEST_F(LibraryCallTest, HandlerGetsTheStepAndResolvedBuffers) {
  Record record;
  ScopedHandler handler("test.record", recordingHandler(record));
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const std::string payload("opaque\0bytes\xff", 13);
  PlanContents plan = callPlan("test.record", payload);
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  EXPECT_EQ(record.prepared, 1);
  EXPECT_EQ(record.stepIndex, 1u);
  EXPECT_EQ(record.payload, payload);
  EXPECT_EQ(record.planBuffers, 4u);

  auto first = (*engine)->createExecutionContext();
  auto second = (*engine)->createExecutionContext();
  ASSERT_TRUE(first.isOk() && second.isOk());
  std::vector<float> in(16, 1.0f), out(16, 0.0f), in2(16, 2.0f);
  ASSERT_TRUE((*first)->setTensorAddress("in", uint64_t(uintptr_t(in.data()))));
  ASSERT_TRUE(
      (*first)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  ASSERT_TRUE(
      (*second)->setTensorAddress("in", uint64_t(uintptr_t(in2.data()))));
  ASSERT_TRUE(
      (*second)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  auto stream = rt->createStream();
  ASSERT_TRUE(stream.isOk());
  ASSERT_TRUE((*first)->enqueue(*stream));
  ASSERT_TRUE((*second)->enqueue(nullptr));

  ASSERT_EQ(record.calls.size(), 2u);
  EXPECT_EQ(record.streams[0], *stream);
  EXPECT_EQ(record.streams[1], nullptr);
  for (int c = 0; c < 2; ++c) {
    SCOPED_TRACE(c);
    const std::vector<uint64_t> &b = record.calls[c];
    ExecutionContext &context = c == 0 ? **first : **second;
    ASSERT_EQ(b.size(), 4u);
    EXPECT_EQ(b[0], context.deviceMemory() + 128);
    // weights+16: the uploaded weights (fake device memory is host memory).
    EXPECT_EQ(std::memcmp(reinterpret_cast<const void *>(uintptr_t(b[1])),
                          plan.weights.data() + 16, 32),
              0);
    EXPECT_EQ(b[2], uint64_t(uintptr_t(out.data())));
    EXPECT_EQ(b[3], context.tensorAddress("in") + 8);
  }
  EXPECT_NE(record.calls[0][0], record.calls[1][0]); // their own arenas
  EXPECT_EQ(record.calls[0][1], record.calls[1][1]); // one copy of weights
  EXPECT_EQ(record.prepared, 1);                     // one instance

  // Rebinding a tensor patches the next call's buffer.
  std::vector<float> other(16);
  ASSERT_TRUE(
      (*first)->setTensorAddress("out", uint64_t(uintptr_t(other.data()))));
  ASSERT_TRUE((*first)->enqueue(nullptr));
  EXPECT_EQ(record.calls.back()[2], uint64_t(uintptr_t(other.data())));
  EXPECT_TRUE(rt->destroyStream(*stream));
}

/// y = alpha * x + y over n floats, alpha in the payload: a library call that
/// computes, on fake device memory (host memory).
class Axpy : public LibraryCallInstance {
public:
  explicit Axpy(float alpha) : alpha_(alpha) {}
  Status enqueue(void *, const uint64_t *buffers, size_t numBuffers) override {
    if (numBuffers != 2)
      return Status(StatusCode::InvalidArgument, "axpy takes x and y");
    const float *x = reinterpret_cast<const float *>(uintptr_t(buffers[0]));
    float *y = reinterpret_cast<float *>(uintptr_t(buffers[1]));
    for (int64_t i = 0; i < n_; ++i)
      y[i] = alpha_ * x[i] + y[i];
    return Status::ok();
  }
  void setSize(int64_t n) { n_ = n; }

private:
  float alpha_;
  int64_t n_ = 0;
};

StatusOr<std::unique_ptr<LibraryCallInstance>>
makeAxpy(const LibraryCallSetup &setup) {
  const LibraryCallStep &step = setup.step;
  if (step.payload.size() != sizeof(float))
    return Status(StatusCode::InvalidPlan,
                  "the payload is " + std::to_string(step.payload.size()) +
                      " bytes, expected a 4-byte alpha");
  if (step.buffers.size() != 2 ||
      step.buffers[0].bytes != step.buffers[1].bytes)
    return Status(StatusCode::InvalidPlan,
                  "expected buffers x and y of the same size");
  float alpha;
  std::memcpy(&alpha, step.payload.data(), sizeof(alpha));
  auto axpy = std::make_unique<Axpy>(alpha);
  axpy->setSize(static_cast<int64_t>(step.buffers[0].bytes / sizeof(float)));
  return std::unique_ptr<LibraryCallInstance>(std::move(axpy));
}

std::string floatBytes(float value) {
  return std::string(reinterpret_cast<const char *>(&value), sizeof(value));
}

TEST_F(LibraryCallTest, KernelsAndALibraryCallCompute) {
  ScopedHandler handler("test.axpy", makeAxpy);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 500;
  std::vector<float> w = randomFloats(n, 31);
  // addPlan: arena[n..2n) = a + w, then out = arena[n..2n) + b. The call,
  // between the two launches: arena[n..2n) += 0.5 * b.
  PlanContents plan = addPlan(n, w);
  uint64_t bytes = n * sizeof(float);
  plan.steps.insert(
      plan.steps.begin() + 2,
      libraryCallStep("test.axpy",
                      {{tensor(1, 0), bytes}, {arena(bytes), bytes}},
                      floatBytes(0.5f)));
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  AddBuffers io{randomFloats(n, 32), randomFloats(n, 33),
                std::vector<float>(n, 0.0f)};
  for (auto [name, v] : {std::pair{"a", &io.a}, {"b", &io.b}, {"out", &io.out}})
    ASSERT_TRUE(
        (*context)->setTensorAddress(name, uint64_t(uintptr_t(v->data()))));
  ASSERT_TRUE((*context)->execute());
  // The same float operations in the same order: exact.
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(io.out[i], (0.5f * io.b[i] + (io.a[i] + w[i])) + io.b[i])
        << "at " << i;
}

TEST_F(LibraryCallTest, CalleeWithoutAHandlerIsUnsupported) {
  Record record;
  ScopedHandler handler("test.record", recordingHandler(record));
  auto rt = runtime();
  ASSERT_TRUE(rt);
  // A kernel too: the check comes before the module is loaded.
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.steps.push_back(libraryCallStep("test.record", {}, ""));
  plan.steps.push_back(libraryCallStep("nothing.matmul", {}, "x"));
  int modules = liveModules(), allocations = liveAllocations();
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  std::string handlers;
  for (const std::string &callee : registeredLibraryCalls())
    handlers += (handlers.empty() ? "'" : ", '") + callee + "'";
  EXPECT_THAT(handlers, HasSubstr("'test.record'"));
  EXPECT_EQ(engine.status().message(),
            "step 4 calls 'nothing.matmul', which has no handler in this "
            "runtime (handlers: " +
                handlers + ")");
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(liveAllocations(), allocations);
  EXPECT_EQ(record.prepared, 0); // no handler ran either
}

TEST_F(LibraryCallTest, RefusedPayloadNamesTheStep) {
  ScopedHandler handler("test.axpy", makeAxpy);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.steps.push_back(libraryCallStep(
      "test.axpy", {{tensor(0, 0), 64}, {tensor(2, 0), 64}}, "abc"));
  int modules = liveModules(), allocations = liveAllocations();
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_EQ(engine.status().message(),
            "step 3 (call 'test.axpy'): the payload is 3 bytes, expected a "
            "4-byte alpha");
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(liveAllocations(), allocations);
}

/// Fails every call as a library would.
class FailingInstance : public LibraryCallInstance {
public:
  Status enqueue(void *, const uint64_t *, size_t) override {
    ++calls;
    return Status(StatusCode::DriverError,
                  "cublasLtMatmul failed with CUBLAS_STATUS_EXECUTION_FAILED");
  }
  static inline int calls = 0;
};

TEST_F(LibraryCallTest, FailingCallNamesTheStepAndCallee) {
  ScopedHandler handler("test.fail",
                        [](const LibraryCallSetup &)
                            -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
                          return std::unique_ptr<LibraryCallInstance>(
                              new FailingInstance);
                        });
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.steps.insert(plan.steps.begin() + 1,
                    libraryCallStep("test.fail", {{arena(0), 64}}, ""));
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> a(16), b(16), out(16);
  for (auto [name, v] : {std::pair{"a", &a}, {"b", &b}, {"out", &out}})
    ASSERT_TRUE(
        (*context)->setTensorAddress(name, uint64_t(uintptr_t(v->data()))));
  int launches = launchCount(), calls = FailingInstance::calls;
  Status s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::DriverError);
  EXPECT_EQ(s.message(), "step 1 (call 'test.fail'): cublasLtMatmul failed "
                         "with CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(FailingInstance::calls, calls + 1);
  EXPECT_EQ(launchCount(), launches); // the steps after it did not run
}

class ThrowingInstance : public LibraryCallInstance {
public:
  Status enqueue(void *, const uint64_t *, size_t) override {
    throw std::runtime_error("out of workspace");
  }
};

TEST_F(LibraryCallTest, ExceptionsBecomeStatuses) {
  ScopedHandler prepareThrows(
      "test.throw.prepare",
      [](const LibraryCallSetup &)
          -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
        throw std::runtime_error("bad descriptor");
      });
  ScopedHandler enqueueThrows(
      "test.throw.enqueue",
      [](const LibraryCallSetup &)
          -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
        return std::unique_ptr<LibraryCallInstance>(new ThrowingInstance);
      });
  ScopedHandler returnsNothing(
      "test.null",
      [](const LibraryCallSetup &)
          -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
        return std::unique_ptr<LibraryCallInstance>();
      });
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, callPlan("test.throw.prepare", ""));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::Internal);
  EXPECT_EQ(engine.status().message(),
            "step 1 (call 'test.throw.prepare'): the handler threw an "
            "exception: bad descriptor");
  engine = load(*rt, callPlan("test.null", ""));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().message(),
            "step 1 (call 'test.null'): the handler returned no instance");

  engine = load(*rt, callPlan("test.throw.enqueue", ""));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> in(16), out(16);
  ASSERT_TRUE(
      (*context)->setTensorAddress("in", uint64_t(uintptr_t(in.data()))));
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  Status s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::Internal);
  EXPECT_EQ(s.message(), "step 1 (call 'test.throw.enqueue'): the handler "
                         "threw an exception: out of workspace");
}

struct NamesProfiler : Profiler {
  std::vector<std::string> names;
  void reportStepTime(int, const std::string &name, float) override {
    names.push_back(name);
  }
};

TEST_F(LibraryCallTest, ProfilerNamesTheCallee) {
  Record record;
  ScopedHandler handler("test.record", recordingHandler(record));
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, callPlan("test.record", ""));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> in(16), out(16);
  ASSERT_TRUE(
      (*context)->setTensorAddress("in", uint64_t(uintptr_t(in.data()))));
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  NamesProfiler profiler;
  (*context)->setProfiler(&profiler);
  ASSERT_TRUE((*context)->execute());
  EXPECT_EQ(profiler.names,
            (std::vector<std::string>{"copy", "call test.record"}));
}

TEST_F(LibraryCallTest, InstancesAreReleasedWithTheEngine) {
  static int live = 0;
  struct Counted : LibraryCallInstance {
    Counted() { ++live; }
    ~Counted() override { --live; }
    Status enqueue(void *, const uint64_t *, size_t) override {
      return Status::ok();
    }
  };
  ScopedHandler handler("test.counted",
                        [](const LibraryCallSetup &)
                            -> StatusOr<std::unique_ptr<LibraryCallInstance>> {
                          return std::unique_ptr<LibraryCallInstance>(
                              new Counted);
                        });
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = callPlan("test.counted", "");
  plan.steps.push_back(libraryCallStep("test.counted", {}, ""));
  {
    auto engine = load(*rt, plan);
    ASSERT_TRUE(engine.isOk());
    EXPECT_EQ(live, 2); // one per step
  }
  EXPECT_EQ(live, 0);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<LibraryCallInstance>>
staticHandler(const LibraryCallSetup &) {
  return Status(StatusCode::InvalidPlan, "not for running");
}
KILN_REGISTER_LIBRARY_CALL("test.static", staticHandler);

TEST(LibraryCallRegistry, StaticRegistration) {
  EXPECT_TRUE(hasLibraryCallHandler("test.static"));
  LibraryCallRegistration again("test.static", staticHandler);
  EXPECT_EQ(again.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(again.status().message(),
            "library call 'test.static' already has a handler");
}

TEST(LibraryCallRegistry, RegisterAndUnregister) {
  EXPECT_FALSE(hasLibraryCallHandler("test.b"));
  ASSERT_TRUE(registerLibraryCallHandler("test.b", staticHandler));
  ASSERT_TRUE(registerLibraryCallHandler("test.a", staticHandler));
  EXPECT_TRUE(hasLibraryCallHandler("test.b"));
  std::vector<std::string> callees = registeredLibraryCalls();
  auto a = std::find(callees.begin(), callees.end(), "test.a");
  auto b = std::find(callees.begin(), callees.end(), "test.b");
  ASSERT_NE(a, callees.end());
  EXPECT_EQ(b, a + 1); // sorted
  Status s = registerLibraryCallHandler("test.b", staticHandler);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "library call 'test.b' already has a handler");
  EXPECT_EQ(registerLibraryCallHandler("", staticHandler).message(),
            "a library-call handler needs a callee name");
  EXPECT_EQ(registerLibraryCallHandler("test.c", nullptr).message(),
            "the library-call handler for 'test.c' is empty");
  EXPECT_TRUE(unregisterLibraryCallHandler("test.a"));
  EXPECT_TRUE(unregisterLibraryCallHandler("test.b"));
  EXPECT_FALSE(unregisterLibraryCallHandler("test.b"));
  EXPECT_FALSE(hasLibraryCallHandler("test.b"));
}

} // namespace
