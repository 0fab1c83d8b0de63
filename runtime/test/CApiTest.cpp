//===- CApiTest.cpp - the C API's errors ------------------------*- C++ -*-===//
//
// kiln_runtime.h compiled as C++ (CApiFlowTest.c compiles it as C and runs
// the whole flow): every null handle and argument is an error with a message,
// not a crash; a corrupted plan is InvalidPlan with the reader's message; an
// unknown tensor NotFound; a missing driver DriverUnavailable; no device
// NoDevice; destroying in the wrong order is refused; the last status is per
// thread; the log callback gets the runtime's messages.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/kiln_runtime.h"

#include "FakeEngine.h"
#include "PlanTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::string lastMessage() { return kiln_last_error_message(); }

class CApiTest : public FakeEngineTest {
protected:
  void SetUp() override {
    FakeEngineTest::SetUp();
    ASSERT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 0, nullptr, nullptr, &rt_),
              KILN_STATUS_OK)
        << lastMessage();
    auto file = writePlan(addPlan(16, randomFloats(16, 1)));
    ASSERT_TRUE(file.isOk());
    plan_ = *file;
    ASSERT_EQ(
        kiln_engine_deserialize(rt_, plan_.data(), plan_.size(), &engine_),
        KILN_STATUS_OK)
        << lastMessage();
    ASSERT_EQ(kiln_context_create(engine_, &context_), KILN_STATUS_OK);
  }
  void TearDown() override {
    EXPECT_EQ(kiln_context_destroy(context_), KILN_STATUS_OK);
    EXPECT_EQ(kiln_engine_destroy(engine_), KILN_STATUS_OK);
    EXPECT_EQ(kiln_runtime_destroy(rt_), KILN_STATUS_OK);
    FakeEngineTest::TearDown();
  }

  kiln_runtime *rt_ = nullptr;
  kiln_engine *engine_ = nullptr;
  kiln_context *context_ = nullptr;
  std::string plan_;
};

/// `status` is InvalidArgument with the message "<function>: <what> is null".
void expectNull(kiln_status status, const std::string &function,
                const std::string &what) {
  EXPECT_EQ(status, KILN_STATUS_INVALID_ARGUMENT) << function;
  EXPECT_EQ(kiln_last_error_code(), KILN_STATUS_INVALID_ARGUMENT) << function;
  EXPECT_EQ(lastMessage(), function + ": " + what + " is null");
}

TEST_F(CApiTest, NullHandlesAndArgumentsAreErrors) {
  kiln_runtime *rt = rt_;
  kiln_engine *engine = engine_;
  kiln_context *context = context_;
  kiln_device_info info;
  uint64_t u64 = 0;
  void *stream = nullptr;
  int i = 0;
  const char *name = nullptr;
  kiln_data_type type;
  int64_t dims[2];
  char host[4];

  expectNull(kiln_runtime_create(KILN_FAKE_CUDA, 0, nullptr, nullptr, nullptr),
             "kiln_runtime_create", "runtime");
  expectNull(kiln_runtime_device_info(nullptr, &info),
             "kiln_runtime_device_info", "runtime");
  expectNull(kiln_runtime_device_info(rt, nullptr), "kiln_runtime_device_info",
             "info");
  expectNull(kiln_runtime_allocate(nullptr, 64, &u64), "kiln_runtime_allocate",
             "runtime");
  expectNull(kiln_runtime_allocate(rt, 64, nullptr), "kiln_runtime_allocate",
             "ptr");
  expectNull(kiln_runtime_free(nullptr, 0), "kiln_runtime_free", "runtime");
  expectNull(kiln_runtime_copy_to_device(rt, 4096, nullptr, 4),
             "kiln_runtime_copy_to_device", "src");
  expectNull(kiln_runtime_copy_to_device(rt, 0, host, 4),
             "kiln_runtime_copy_to_device", "the device address dst");
  expectNull(kiln_runtime_copy_to_host(rt, nullptr, 4096, 4),
             "kiln_runtime_copy_to_host", "dst");
  expectNull(kiln_runtime_copy_to_host(rt, host, 0, 4),
             "kiln_runtime_copy_to_host", "the device address src");
  expectNull(kiln_runtime_memset(rt, 0, 1, 4), "kiln_runtime_memset",
             "the device address dst");
  expectNull(kiln_runtime_memset(nullptr, 4096, 1, 4), "kiln_runtime_memset",
             "runtime");
  expectNull(kiln_runtime_stream_create(rt, nullptr),
             "kiln_runtime_stream_create", "stream");
  expectNull(kiln_runtime_stream_create(nullptr, &stream),
             "kiln_runtime_stream_create", "runtime");
  expectNull(kiln_runtime_stream_synchronize(nullptr, nullptr),
             "kiln_runtime_stream_synchronize", "runtime");
  expectNull(kiln_runtime_stream_destroy(nullptr, nullptr),
             "kiln_runtime_stream_destroy", "runtime");
  // Zero bytes need no pointers.
  EXPECT_EQ(kiln_runtime_copy_to_device(rt, 0, nullptr, 0), KILN_STATUS_OK);
  EXPECT_EQ(kiln_runtime_copy_to_host(rt, nullptr, 0, 0), KILN_STATUS_OK);

  kiln_engine *out = engine;
  expectNull(kiln_engine_deserialize(nullptr, plan_.data(), plan_.size(), &out),
             "kiln_engine_deserialize", "runtime");
  EXPECT_EQ(out, nullptr); // set even on failure
  expectNull(kiln_engine_deserialize(rt, nullptr, 10, &out),
             "kiln_engine_deserialize", "data");
  expectNull(kiln_engine_deserialize(rt, plan_.data(), plan_.size(), nullptr),
             "kiln_engine_deserialize", "engine");
  expectNull(kiln_engine_num_tensors(nullptr, &i), "kiln_engine_num_tensors",
             "engine");
  expectNull(kiln_engine_num_tensors(engine, nullptr),
             "kiln_engine_num_tensors", "count");
  expectNull(kiln_engine_tensor_name(nullptr, 0, &name),
             "kiln_engine_tensor_name", "engine");
  expectNull(kiln_engine_tensor_name(engine, 0, nullptr),
             "kiln_engine_tensor_name", "name");
  expectNull(kiln_engine_tensor_data_type(engine, 0, nullptr),
             "kiln_engine_tensor_data_type", "type");
  expectNull(kiln_engine_tensor_rank(engine, 0, nullptr),
             "kiln_engine_tensor_rank", "rank");
  expectNull(kiln_engine_tensor_dims(engine, 0, nullptr, 1),
             "kiln_engine_tensor_dims", "dims");
  expectNull(kiln_engine_tensor_dims(nullptr, 0, dims, 2),
             "kiln_engine_tensor_dims", "engine");
  expectNull(kiln_engine_tensor_bytes(engine, 0, nullptr),
             "kiln_engine_tensor_bytes", "bytes");
  expectNull(kiln_engine_tensor_is_input(engine, 0, nullptr),
             "kiln_engine_tensor_is_input", "is_input");
  expectNull(kiln_engine_find_tensor(engine, nullptr, &i),
             "kiln_engine_find_tensor", "name");
  expectNull(kiln_engine_find_tensor(engine, "a", nullptr),
             "kiln_engine_find_tensor", "index");
  expectNull(kiln_engine_find_tensor(nullptr, "a", &i),
             "kiln_engine_find_tensor", "engine");
  expectNull(kiln_engine_device_memory_size(nullptr, &u64),
             "kiln_engine_device_memory_size", "engine");
  expectNull(kiln_engine_device_memory_size(engine, nullptr),
             "kiln_engine_device_memory_size", "bytes");
  (void)type;

  kiln_context *made = context;
  expectNull(kiln_context_create(nullptr, &made), "kiln_context_create",
             "engine");
  EXPECT_EQ(made, nullptr);
  expectNull(kiln_context_create(engine, nullptr), "kiln_context_create",
             "context");
  expectNull(kiln_context_create_without_device_memory(nullptr, &made),
             "kiln_context_create_without_device_memory", "engine");
  expectNull(kiln_context_set_device_memory(nullptr, 0),
             "kiln_context_set_device_memory", "context");
  expectNull(kiln_context_set_tensor_address(nullptr, "a", 4096),
             "kiln_context_set_tensor_address", "context");
  expectNull(kiln_context_set_tensor_address(context, nullptr, 4096),
             "kiln_context_set_tensor_address", "name");
  expectNull(kiln_context_enqueue(nullptr, nullptr), "kiln_context_enqueue",
             "context");
  expectNull(kiln_context_execute(nullptr), "kiln_context_execute", "context");

  // The destroy functions take null as free() does.
  EXPECT_EQ(kiln_context_destroy(nullptr), KILN_STATUS_OK);
  EXPECT_EQ(kiln_engine_destroy(nullptr), KILN_STATUS_OK);
  EXPECT_EQ(kiln_runtime_destroy(nullptr), KILN_STATUS_OK);
  EXPECT_EQ(lastMessage(), "");
}

TEST_F(CApiTest, CorruptedPlanIsInvalidPlanWithTheReadersMessage) {
  std::string damaged = plan_;
  damaged[damaged.size() - 5] ^= 0x10;
  kiln_engine *engine = engine_;
  int modules = liveModules();
  EXPECT_EQ(
      kiln_engine_deserialize(rt_, damaged.data(), damaged.size(), &engine),
      KILN_STATUS_INVALID_PLAN);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(kiln_last_error_code(), KILN_STATUS_INVALID_PLAN);
  EXPECT_THAT(lastMessage(), StartsWith("body checksum mismatch: expected 0x"));
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(kiln_engine_deserialize(rt_, damaged.data(), 20, &engine),
            KILN_STATUS_INVALID_PLAN);
  EXPECT_EQ(lastMessage(), "plan is too short: 20 bytes, expected at least "
                           "the 64-byte header");
}

TEST_F(CApiTest, UnknownTensorNameIsNotFound) {
  EXPECT_EQ(kiln_context_set_tensor_address(context_, "input", 4096),
            KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(lastMessage(), "the engine has no tensor named 'input'; its "
                           "tensors are 'a' (input), 'b' (input), 'out' "
                           "(output)");
  int index = 7;
  EXPECT_EQ(kiln_engine_find_tensor(engine_, "input", &index),
            KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(index, -1);
  EXPECT_EQ(lastMessage(), "the engine has no tensor named 'input'; its "
                           "tensors are 'a', 'b', 'out'");
}

TEST_F(CApiTest, TensorIndexAndDimsChecks) {
  const char *name = nullptr;
  EXPECT_EQ(kiln_engine_tensor_name(engine_, 3, &name),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lastMessage(), "kiln_engine_tensor_name: tensor index 3 is out of "
                           "range: the engine has 3 tensor(s)");
  EXPECT_EQ(kiln_engine_tensor_name(engine_, -1, &name),
            KILN_STATUS_INVALID_ARGUMENT);
  int64_t dims[1] = {0};
  EXPECT_EQ(kiln_engine_tensor_dims(engine_, 0, dims, 0),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lastMessage(), "kiln_engine_tensor_dims: tensor 0 'a' has rank 1, "
                           "but dims has room for 0");
  EXPECT_EQ(kiln_engine_tensor_dims(engine_, 0, dims, 1), KILN_STATUS_OK);
  EXPECT_EQ(dims[0], 16);
  // A misaligned address is the C++ API's InvalidArgument.
  EXPECT_EQ(kiln_context_set_tensor_address(context_, "a", 4098),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(lastMessage(), HasSubstr("is not a multiple of its element "
                                       "size (4 bytes, f32)"));
}

TEST_F(CApiTest, DestroyingInTheWrongOrderIsRefused) {
  EXPECT_EQ(kiln_engine_destroy(engine_), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lastMessage(), "kiln_engine_destroy: the engine has 1 execution "
                           "context(s); destroy them first");
  EXPECT_EQ(kiln_runtime_destroy(rt_), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lastMessage(), "kiln_runtime_destroy: the runtime has 1 engine(s); "
                           "destroy them first");
  // Nothing was destroyed: the context still runs.
  std::vector<float> a(16), b(16), out(16);
  for (auto [name, v] : {std::pair{"a", &a}, {"b", &b}, {"out", &out}})
    ASSERT_EQ(kiln_context_set_tensor_address(context_, name,
                                              uint64_t(uintptr_t(v->data()))),
              KILN_STATUS_OK);
  EXPECT_EQ(kiln_context_execute(context_), KILN_STATUS_OK) << lastMessage();
}

TEST_F(CApiTest, LastStatusIsPerThreadAndClearedBySuccess) {
  EXPECT_EQ(kiln_engine_find_tensor(engine_, "nope", nullptr),
            KILN_STATUS_INVALID_ARGUMENT);
  std::string other;
  kiln_status otherCode = KILN_STATUS_INTERNAL;
  std::thread([&] {
    otherCode = kiln_last_error_code();
    other = kiln_last_error_message();
  }).join();
  EXPECT_EQ(otherCode, KILN_STATUS_OK);
  EXPECT_EQ(other, "");
  EXPECT_EQ(kiln_last_error_code(), KILN_STATUS_INVALID_ARGUMENT);
  uint64_t bytes = 0;
  EXPECT_EQ(kiln_engine_device_memory_size(engine_, &bytes), KILN_STATUS_OK);
  EXPECT_EQ(bytes, 256u);
  EXPECT_EQ(kiln_last_error_code(), KILN_STATUS_OK);
  EXPECT_EQ(lastMessage(), "");
}

TEST(CApiStatus, NamesMirrorTheCppCodes) {
  EXPECT_STREQ(kiln_status_name(KILN_STATUS_OK), "Ok");
  EXPECT_STREQ(kiln_status_name(KILN_STATUS_INVALID_PLAN), "InvalidPlan");
  EXPECT_STREQ(kiln_status_name(KILN_STATUS_INTERNAL), "Internal");
  EXPECT_STREQ(kiln_status_name(static_cast<kiln_status>(42)), "Unknown");
  for (int code = KILN_STATUS_OK; code <= KILN_STATUS_INTERNAL; ++code)
    EXPECT_STREQ(kiln_status_name(static_cast<kiln_status>(code)),
                 statusCodeName(static_cast<StatusCode>(code)));
}

using CApiDriverTest = FakeEngineTest;

TEST_F(CApiDriverTest, MissingDriverLibraryIsDriverUnavailable) {
  kiln_runtime *rt = reinterpret_cast<kiln_runtime *>(this);
  EXPECT_EQ(kiln_runtime_create("/nonexistent/libcuda.so.1", 0, nullptr,
                                nullptr, &rt),
            KILN_STATUS_DRIVER_UNAVAILABLE);
  EXPECT_EQ(rt, nullptr);
  EXPECT_THAT(lastMessage(), HasSubstr("cannot load the CUDA driver library "
                                       "'/nonexistent/libcuda.so.1'"));
}

TEST_F(CApiDriverTest, NoDeviceIsNoDevice) {
  setenv("KILN_FAKE_CUDA_DEVICES", "0", 1);
  kiln_runtime *rt = nullptr;
  EXPECT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 0, nullptr, nullptr, &rt),
            KILN_STATUS_NO_DEVICE);
  EXPECT_EQ(rt, nullptr);
  EXPECT_THAT(lastMessage(), StartsWith("no CUDA device present: "));
  setenv("KILN_FAKE_CUDA_DEVICES", "1", 1);
  EXPECT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 1, nullptr, nullptr, &rt),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lastMessage(),
            "device ordinal 1 is out of range: the driver reports 1 device(s)");
}

struct Messages {
  std::vector<std::pair<kiln_severity, std::string>> all;
};

TEST_F(CApiDriverTest, LogCallbackGetsTheRuntimesMessages) {
  Messages messages;
  kiln_log_callback callback = [](void *userData, kiln_severity severity,
                                  const char *message) {
    static_cast<Messages *>(userData)->all.emplace_back(severity, message);
  };
  kiln_runtime *rt = nullptr;
  ASSERT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 0, callback, &messages, &rt),
            KILN_STATUS_OK);
  auto file = writePlan(addPlan(16, randomFloats(16, 2)));
  ASSERT_TRUE(file.isOk());
  kiln_engine *engine = nullptr;
  ASSERT_EQ(kiln_engine_deserialize(rt, file->data(), file->size(), &engine),
            KILN_STATUS_OK);
  EXPECT_EQ(kiln_engine_destroy(engine), KILN_STATUS_OK);
  EXPECT_EQ(kiln_runtime_destroy(rt), KILN_STATUS_OK);
  bool device = false, engineMessage = false, jit = false;
  for (const auto &[severity, message] : messages.all) {
    device |= severity == KILN_SEVERITY_INFO &&
              message.find("runtime: device 0 'Kiln Fake GPU'") == 0;
    engineMessage |= severity == KILN_SEVERITY_INFO &&
                     message.find("engine: the compute_80 PTX") == 0;
    jit |= severity == KILN_SEVERITY_VERBOSE &&
           message.find("fake ptxas info") != std::string::npos;
  }
  EXPECT_TRUE(device);
  EXPECT_TRUE(engineMessage);
  EXPECT_TRUE(jit);
}

// A callback that throws (C++ behind the C pointer) must not unwind through
// the runtime: the message is dropped and the call goes on.
TEST_F(CApiDriverTest, ThrowingLogCallbackIsContained) {
  kiln_log_callback callback = [](void *, kiln_severity, const char *) {
    throw std::runtime_error("callback failed");
  };
  kiln_runtime *rt = nullptr;
  int refs = contextRefs();
  EXPECT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 0, callback, nullptr, &rt),
            KILN_STATUS_OK);
  EXPECT_EQ(contextRefs(), refs + 1);
  EXPECT_EQ(kiln_runtime_destroy(rt), KILN_STATUS_OK);
  EXPECT_EQ(contextRefs(), refs);
}

} // namespace
