//===- FakeEngine.h - a test fixture around the fake driver -----*- C++ -*-===//
//
// FakeEngineTest: the runtime on FakeCudaDriver.c with one device, the fake
// driver's environment reset around each test, and its counters (launches,
// live allocations, modules, streams, events, driver calls and the call a
// fault made fail, CUDA graphs) readable, for the engine, library-call,
// fault-injection, concurrency, CUDA graph and C API tests.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TEST_FAKEENGINE_H
#define KILN_RUNTIME_TEST_FAKEENGINE_H

#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rt::test {

/// Keeps every message; may be called from several threads at once.
class CapturingLogger : public Logger {
public:
  void log(Severity severity, const std::string &message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    messages.emplace_back(severity, message);
  }
  bool saw(Severity severity, const std::string &part) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &[s, m] : messages)
      if (s == severity && m.find(part) != std::string::npos)
        return true;
    return false;
  }
  /// The number of messages of `severity` or more severe.
  size_t count(Severity severity) const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const auto &entry : messages)
      n += static_cast<int>(entry.first) <= static_cast<int>(severity);
    return n;
  }
  /// Read only while no thread logs.
  std::vector<std::pair<Severity, std::string>> messages;

private:
  mutable std::mutex mutex_;
};

inline const char *const kFakeEnv[] = {
    "KILN_FAKE_CUDA_INIT",        "KILN_FAKE_CUDA_CC",
    "KILN_FAKE_CUDA_DRIVER",      "KILN_FAKE_CUDA_LAUNCH_RESULT",
    "KILN_FAKE_CUDA_STAGED_HTOD", "KILN_FAKE_CUDA_FAIL_AT",
    "KILN_FAKE_CUDA_CORRUPT_ADD"};

class FakeEngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *name : kFakeEnv)
      unsetenv(name);
    setenv("KILN_FAKE_CUDA_DEVICES", "1", 1);
    // The runtime's dlopen of the same path shares this instance of the
    // library, so its counters are the ones the runtime drives.
    fake_ = dlopen(KILN_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(fake_, nullptr) << dlerror();
    launchCount = symbol<int (*)()>("kiln_fake_cuda_launch_count");
    lastKernel = symbol<const char *(*)()>("kiln_fake_cuda_last_kernel");
    lastDims = symbol<void (*)(unsigned *, unsigned *, unsigned *)>(
        "kiln_fake_cuda_last_dims");
    lastNumParams = symbol<int (*)()>("kiln_fake_cuda_last_num_params");
    lastParam =
        symbol<unsigned long long (*)(int)>("kiln_fake_cuda_last_param");
    liveAllocations = symbol<int (*)()>("kiln_fake_cuda_live_allocations");
    liveModules = symbol<int (*)()>("kiln_fake_cuda_live_modules");
    liveStreams = symbol<int (*)()>("kiln_fake_cuda_live_streams");
    liveEvents = symbol<int (*)()>("kiln_fake_cuda_live_events");
    liveGraphs = symbol<int (*)()>("kiln_fake_cuda_live_graphs");
    graphLaunches = symbol<int (*)()>("kiln_fake_cuda_graph_launches");
    contextRefs = symbol<int (*)()>("kiln_fake_cuda_context_refs");
    callCount = symbol<int (*)()>("kiln_fake_cuda_call_count");
    failedCall = symbol<const char *(*)()>("kiln_fake_cuda_failed_call");
    eventLaunches = symbol<int (*)(void *)>("kiln_fake_cuda_event_launches");
    eventGraphLaunches =
        symbol<int (*)(void *)>("kiln_fake_cuda_event_graph_launches");
  }
  void TearDown() override {
    for (const char *name : kFakeEnv)
      unsetenv(name);
    unsetenv("KILN_FAKE_CUDA_DEVICES");
    if (fake_)
      dlclose(fake_);
  }

  template <typename Fn> Fn symbol(const char *name) {
    void *address = dlsym(fake_, name);
    EXPECT_NE(address, nullptr) << name;
    return reinterpret_cast<Fn>(address);
  }

  std::unique_ptr<Runtime> runtime() {
    auto runtime = Runtime::create(&logger_, 0, KILN_FAKE_CUDA);
    EXPECT_TRUE(runtime.isOk()) << runtime.status().toString();
    return runtime.isOk() ? std::move(*runtime) : nullptr;
  }

  static StatusOr<std::unique_ptr<Engine>> load(Runtime &runtime,
                                                const PlanContents &plan) {
    auto file = writePlan(plan);
    if (!file)
      return file.status();
    return runtime.deserializeEngine(file->data(), file->size());
  }

  CapturingLogger logger_;
  void *fake_ = nullptr;
  int (*launchCount)() = nullptr;
  const char *(*lastKernel)() = nullptr;
  void (*lastDims)(unsigned *, unsigned *, unsigned *) = nullptr;
  int (*lastNumParams)() = nullptr;
  unsigned long long (*lastParam)(int) = nullptr;
  int (*liveAllocations)() = nullptr;
  int (*liveModules)() = nullptr;
  int (*liveStreams)() = nullptr;
  int (*liveEvents)() = nullptr;
  int (*liveGraphs)() = nullptr;
  int (*graphLaunches)() = nullptr;
  int (*contextRefs)() = nullptr;
  int (*callCount)() = nullptr;
  const char *(*failedCall)() = nullptr;
  int (*eventLaunches)(void *) = nullptr;
  int (*eventGraphLaunches)(void *) = nullptr;
};

/// Device buffers (host memory under the fake driver) for a, b and out.
struct AddBuffers {
  std::vector<float> a, b, out;
};

} // namespace kiln::rt::test

#endif // KILN_RUNTIME_TEST_FAKEENGINE_H
