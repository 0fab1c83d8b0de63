//===- RuntimeCApi.cpp - the C API over the C++ runtime ---------*- C++ -*-===//
//
// kiln_runtime.h implemented over Runtime, Engine and ExecutionContext. Every
// function runs inside `run`, which records its status for the thread and
// turns any exception into KILN_STATUS_INTERNAL; the handles count their
// live children so that a destroy in the wrong order is refused instead of
// leaving dangling objects.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/kiln_runtime.h"

#include "kiln/runtime/Plugin.h"

#include "kiln/runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

using kiln::rt::DataType;
using kiln::rt::Engine;
using kiln::rt::ExecutionContext;
using kiln::rt::Logger;
using kiln::rt::Runtime;
using kiln::rt::Status;
using kiln::rt::StatusCode;

//===----------------------------------------------------------------------===//
// The handles
//===----------------------------------------------------------------------===//

namespace {
/// Passes the runtime's messages to a C callback. A callback that throws
/// (C++ code behind a C pointer) is not allowed to unwind through the
/// runtime, which logs from destructors: the exception is reported on
/// stderr and dropped.
class CallbackLogger : public Logger {
public:
  CallbackLogger(kiln_log_callback callback, void *userData)
      : callback_(callback), userData_(userData) {}
  void log(Severity severity, const std::string &message) override {
    try {
      callback_(userData_, static_cast<kiln_severity>(severity),
                message.c_str());
    } catch (...) {
      std::fprintf(stderr, "kiln: error: the log callback threw an exception "
                           "(dropped)\n");
    }
  }

private:
  kiln_log_callback callback_;
  void *userData_;
};
} // namespace

struct kiln_runtime {
  /// Declared first, destroyed last: the runtime logs until it is gone.
  std::unique_ptr<CallbackLogger> logger;
  std::unique_ptr<Runtime> runtime;
  std::atomic<int> engines{0};
};

struct kiln_engine {
  kiln_runtime *owner;
  std::unique_ptr<Engine> engine;
  /// Every tensor's shape at the largest shapes (its shape when static).
  std::vector<std::vector<int64_t>> largestShapes;
  std::atomic<int> contexts{0};
};

struct kiln_context {
  kiln_engine *owner;
  std::unique_ptr<ExecutionContext> context;
};

static_assert(KILN_STATUS_INTERNAL == static_cast<int>(StatusCode::Internal) &&
                  KILN_STATUS_NOT_FOUND ==
                      static_cast<int>(StatusCode::NotFound) &&
                  KILN_STATUS_INVALID_PLAN ==
                      static_cast<int>(StatusCode::InvalidPlan),
              "kiln_status mirrors kiln::rt::StatusCode");
static_assert(KILN_SEVERITY_VERBOSE ==
                      static_cast<int>(Logger::Severity::Verbose) &&
                  KILN_SEVERITY_INTERNAL_ERROR ==
                      static_cast<int>(Logger::Severity::InternalError),
              "kiln_severity mirrors kiln::rt::Logger::Severity");
static_assert(KILN_DATA_TYPE_BOOL == static_cast<int>(DataType::Bool) &&
                  KILN_DATA_TYPE_BF16 == static_cast<int>(DataType::BF16) &&
                  KILN_DATA_TYPE_F64 == static_cast<int>(DataType::F64) &&
                  KILN_DATA_TYPE_I16 == static_cast<int>(DataType::I16) &&
                  KILN_DATA_TYPE_U64 == static_cast<int>(DataType::U64) &&
                  KILN_DATA_TYPE_F8E4M3FN ==
                      static_cast<int>(DataType::F8E4M3FN) &&
                  KILN_DATA_TYPE_U2 == static_cast<int>(DataType::U2),
              "kiln_data_type mirrors kiln::rt::DataType");

//===----------------------------------------------------------------------===//
// Status of the thread's last call
//===----------------------------------------------------------------------===//

namespace {
thread_local kiln_status lastCode = KILN_STATUS_OK;
thread_local std::string lastMessage;

kiln_status record(const Status &status) {
  lastCode = static_cast<kiln_status>(status.code());
  lastMessage = status.message();
  return lastCode;
}

/// Runs `body` (returning a Status) as C API function `function`: records
/// its status, with exceptions turned into Internal errors.
template <typename Body> kiln_status run(const char *function, Body body) {
  try {
    return record(body());
  } catch (const std::bad_alloc &) {
    lastCode = KILN_STATUS_INTERNAL;
    lastMessage.clear(); // may fail too: keep what fits
    try {
      lastMessage = std::string(function) + ": out of host memory";
    } catch (...) {
    }
    return lastCode;
  } catch (const std::exception &e) {
    return record(
        Status(StatusCode::Internal,
               std::string(function) + ": unexpected exception: " + e.what()));
  } catch (...) {
    return record(Status(StatusCode::Internal,
                         std::string(function) + ": unexpected exception"));
  }
}

/// InvalidArgument: "<function>: <what> is null".
Status null(const char *function, const char *what) {
  return Status(StatusCode::InvalidArgument,
                std::string(function) + ": " + what + " is null");
}

/// Checks the engine, the tensor index and the output argument `outName` of
/// `function`.
Status checkTensor(const char *function, const kiln_engine *engine, int index,
                   const void *out, const char *outName) {
  if (!engine)
    return null(function, "engine");
  if (!out)
    return null(function, outName);
  int count = engine->engine->numTensors();
  if (index < 0 || index >= count)
    return Status(StatusCode::InvalidArgument,
                  std::string(function) + ": tensor index " +
                      std::to_string(index) + " is out of range: the engine " +
                      "has " + std::to_string(count) + " tensor(s)");
  return Status::ok();
}
} // namespace

extern "C" {

const char *kiln_status_name(kiln_status status) {
  if (status < KILN_STATUS_OK || status > KILN_STATUS_INTERNAL)
    return "Unknown";
  return kiln::rt::statusCodeName(static_cast<StatusCode>(status));
}

kiln_status kiln_last_error_code(void) { return lastCode; }

const char *kiln_last_error_message(void) { return lastMessage.c_str(); }

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

kiln_status kiln_runtime_create(const char *driver_library, int device_ordinal,
                                kiln_log_callback log, void *log_user_data,
                                kiln_runtime **runtime) {
  return run("kiln_runtime_create", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_create", "runtime");
    *runtime = nullptr;
    auto handle = std::make_unique<kiln_runtime>();
    if (log)
      handle->logger = std::make_unique<CallbackLogger>(log, log_user_data);
    auto created = Runtime::create(
        handle->logger.get(), device_ordinal,
        driver_library ? driver_library : kiln::rt::Driver::kDefaultLibrary);
    if (!created)
      return created.status();
    handle->runtime = std::move(*created);
    *runtime = handle.release();
    return Status::ok();
  });
}

kiln_status kiln_runtime_destroy(kiln_runtime *runtime) {
  return run("kiln_runtime_destroy", [&]() -> Status {
    if (!runtime)
      return Status::ok();
    if (int engines = runtime->engines.load())
      return Status(StatusCode::InvalidArgument,
                    "kiln_runtime_destroy: the runtime has " +
                        std::to_string(engines) +
                        " engine(s); destroy them first");
    delete runtime;
    return Status::ok();
  });
}

kiln_status kiln_runtime_device_info(const kiln_runtime *runtime,
                                     kiln_device_info *info) {
  return run("kiln_runtime_device_info", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_device_info", "runtime");
    if (!info)
      return null("kiln_runtime_device_info", "info");
    const kiln::rt::DeviceInfo &d = runtime->runtime->device();
    std::memset(info, 0, sizeof(*info));
    info->ordinal = d.ordinal;
    std::snprintf(info->name, sizeof(info->name), "%s", d.name.c_str());
    info->compute_capability_major = d.computeCapabilityMajor;
    info->compute_capability_minor = d.computeCapabilityMinor;
    info->multiprocessor_count = d.multiprocessorCount;
    info->total_memory_bytes = d.totalMemoryBytes;
    info->driver_version = runtime->runtime->driver().driverVersion();
    return Status::ok();
  });
}

kiln_status kiln_runtime_allocate(kiln_runtime *runtime, uint64_t bytes,
                                  uint64_t *ptr) {
  return run("kiln_runtime_allocate", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_allocate", "runtime");
    if (!ptr)
      return null("kiln_runtime_allocate", "ptr");
    *ptr = 0;
    auto memory = runtime->runtime->allocate(bytes);
    if (!memory)
      return memory.status();
    *ptr = *memory;
    return Status::ok();
  });
}

kiln_status kiln_runtime_free(kiln_runtime *runtime, uint64_t ptr) {
  return run("kiln_runtime_free", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_free", "runtime");
    runtime->runtime->free(ptr);
    return Status::ok();
  });
}

kiln_status kiln_runtime_copy_to_device(kiln_runtime *runtime, uint64_t dst,
                                        const void *src, uint64_t bytes) {
  return run("kiln_runtime_copy_to_device", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_copy_to_device", "runtime");
    if (bytes && !src)
      return null("kiln_runtime_copy_to_device", "src");
    if (bytes && !dst)
      return null("kiln_runtime_copy_to_device", "the device address dst");
    return runtime->runtime->copyToDevice(dst, src, bytes);
  });
}

kiln_status kiln_runtime_copy_to_host(kiln_runtime *runtime, void *dst,
                                      uint64_t src, uint64_t bytes) {
  return run("kiln_runtime_copy_to_host", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_copy_to_host", "runtime");
    if (bytes && !dst)
      return null("kiln_runtime_copy_to_host", "dst");
    if (bytes && !src)
      return null("kiln_runtime_copy_to_host", "the device address src");
    return runtime->runtime->copyToHost(dst, src, bytes);
  });
}

kiln_status kiln_runtime_memset(kiln_runtime *runtime, uint64_t dst,
                                uint8_t value, uint64_t bytes) {
  return run("kiln_runtime_memset", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_memset", "runtime");
    if (bytes && !dst)
      return null("kiln_runtime_memset", "the device address dst");
    return runtime->runtime->memset(dst, value, bytes);
  });
}

kiln_status kiln_runtime_stream_create(kiln_runtime *runtime, void **stream) {
  return run("kiln_runtime_stream_create", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_stream_create", "runtime");
    if (!stream)
      return null("kiln_runtime_stream_create", "stream");
    *stream = nullptr;
    auto created = runtime->runtime->createStream();
    if (!created)
      return created.status();
    *stream = *created;
    return Status::ok();
  });
}

kiln_status kiln_runtime_stream_synchronize(kiln_runtime *runtime,
                                            void *stream) {
  return run("kiln_runtime_stream_synchronize", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_stream_synchronize", "runtime");
    return runtime->runtime->synchronize(stream);
  });
}

kiln_status kiln_runtime_stream_destroy(kiln_runtime *runtime, void *stream) {
  return run("kiln_runtime_stream_destroy", [&]() -> Status {
    if (!runtime)
      return null("kiln_runtime_stream_destroy", "runtime");
    return runtime->runtime->destroyStream(stream);
  });
}

kiln_status kiln_load_plugin_library(const char *path) {
  return run("kiln_load_plugin_library", [&]() -> Status {
    if (!path)
      return null("kiln_load_plugin_library", "path");
    return kiln::rt::loadPluginLibrary(path);
  });
}

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

kiln_status kiln_engine_deserialize(kiln_runtime *runtime, const void *data,
                                    size_t size, kiln_engine **engine) {
  return run("kiln_engine_deserialize", [&]() -> Status {
    if (!engine)
      return null("kiln_engine_deserialize", "engine");
    *engine = nullptr;
    if (!runtime)
      return null("kiln_engine_deserialize", "runtime");
    if (!data)
      return null("kiln_engine_deserialize", "data");
    auto loaded = runtime->runtime->deserializeEngine(data, size);
    if (!loaded)
      return loaded.status();
    auto handle = std::make_unique<kiln_engine>();
    handle->owner = runtime;
    handle->engine = std::move(*loaded);
    handle->largestShapes = largestShapes(handle->engine->plan());
    ++runtime->engines;
    *engine = handle.release();
    return Status::ok();
  });
}

kiln_status kiln_engine_destroy(kiln_engine *engine) {
  return run("kiln_engine_destroy", [&]() -> Status {
    if (!engine)
      return Status::ok();
    if (int contexts = engine->contexts.load())
      return Status(StatusCode::InvalidArgument,
                    "kiln_engine_destroy: the engine has " +
                        std::to_string(contexts) +
                        " execution context(s); destroy them first");
    --engine->owner->engines;
    delete engine;
    return Status::ok();
  });
}

kiln_status kiln_engine_num_tensors(const kiln_engine *engine, int *count) {
  return run("kiln_engine_num_tensors", [&]() -> Status {
    if (!engine)
      return null("kiln_engine_num_tensors", "engine");
    if (!count)
      return null("kiln_engine_num_tensors", "count");
    *count = engine->engine->numTensors();
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_name(const kiln_engine *engine, int index,
                                    const char **name) {
  return run("kiln_engine_tensor_name", [&]() -> Status {
    if (Status s =
            checkTensor("kiln_engine_tensor_name", engine, index, name, "name");
        !s)
      return s;
    *name = engine->engine->tensor(index).name.c_str();
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_data_type(const kiln_engine *engine, int index,
                                         kiln_data_type *type) {
  return run("kiln_engine_tensor_data_type", [&]() -> Status {
    if (Status s = checkTensor("kiln_engine_tensor_data_type", engine, index,
                               type, "type");
        !s)
      return s;
    *type = static_cast<kiln_data_type>(engine->engine->tensor(index).type);
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_rank(const kiln_engine *engine, int index,
                                    int *rank) {
  return run("kiln_engine_tensor_rank", [&]() -> Status {
    if (Status s =
            checkTensor("kiln_engine_tensor_rank", engine, index, rank, "rank");
        !s)
      return s;
    *rank = static_cast<int>(engine->engine->tensor(index).shape.size());
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_dims(const kiln_engine *engine, int index,
                                    int64_t *dims, int capacity) {
  return run("kiln_engine_tensor_dims", [&]() -> Status {
    const char *function = "kiln_engine_tensor_dims";
    // dims may be null for a scalar: check the index first.
    static const int64_t none = 0;
    if (Status s =
            checkTensor(function, engine, index, dims ? dims : &none, "dims");
        !s)
      return s;
    const std::vector<int64_t> &shape = engine->engine->tensor(index).shape;
    if (capacity < 0 || static_cast<size_t>(capacity) < shape.size())
      return Status(StatusCode::InvalidArgument,
                    std::string(function) + ": tensor " +
                        std::to_string(index) + " '" +
                        engine->engine->tensor(index).name + "' has rank " +
                        std::to_string(shape.size()) +
                        ", but dims has room for " + std::to_string(capacity));
    if (!shape.empty() && !dims)
      return null(function, "dims");
    for (size_t d = 0; d < shape.size(); ++d)
      dims[d] = shape[d];
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_bytes(const kiln_engine *engine, int index,
                                     uint64_t *bytes) {
  return run("kiln_engine_tensor_bytes", [&]() -> Status {
    if (Status s = checkTensor("kiln_engine_tensor_bytes", engine, index, bytes,
                               "bytes");
        !s)
      return s;
    kiln::rt::TensorDesc largest = engine->engine->tensor(index);
    largest.shape = engine->largestShapes[index];
    *bytes = static_cast<uint64_t>(largest.numBytes());
    return Status::ok();
  });
}

kiln_status kiln_engine_tensor_is_input(const kiln_engine *engine, int index,
                                        int *is_input) {
  return run("kiln_engine_tensor_is_input", [&]() -> Status {
    if (Status s = checkTensor("kiln_engine_tensor_is_input", engine, index,
                               is_input, "is_input");
        !s)
      return s;
    *is_input = engine->engine->tensor(index).isInput ? 1 : 0;
    return Status::ok();
  });
}

kiln_status kiln_engine_find_tensor(const kiln_engine *engine, const char *name,
                                    int *index) {
  return run("kiln_engine_find_tensor", [&]() -> Status {
    if (!engine)
      return null("kiln_engine_find_tensor", "engine");
    if (!name)
      return null("kiln_engine_find_tensor", "name");
    if (!index)
      return null("kiln_engine_find_tensor", "index");
    *index = engine->engine->findTensor(name);
    if (*index >= 0)
      return Status::ok();
    std::string known;
    for (int i = 0; i < engine->engine->numTensors(); ++i)
      known +=
          (known.empty() ? "'" : ", '") + engine->engine->tensor(i).name + "'";
    return Status(StatusCode::NotFound,
                  std::string("the engine has no tensor named '") + name +
                      "'; its tensors are " + (known.empty() ? "none" : known));
  });
}

kiln_status kiln_engine_device_memory_size(const kiln_engine *engine,
                                           uint64_t *bytes) {
  return run("kiln_engine_device_memory_size", [&]() -> Status {
    if (!engine)
      return null("kiln_engine_device_memory_size", "engine");
    if (!bytes)
      return null("kiln_engine_device_memory_size", "bytes");
    *bytes = engine->engine->deviceMemorySize();
    return Status::ok();
  });
}

//===----------------------------------------------------------------------===//
// Execution context
//===----------------------------------------------------------------------===//

namespace {
Status createContext(const char *function, kiln_engine *engine,
                     kiln_context **context, bool ownMemory) {
  if (!context)
    return null(function, "context");
  *context = nullptr;
  if (!engine)
    return null(function, "engine");
  auto created =
      ownMemory ? engine->engine->createExecutionContext()
                : engine->engine->createExecutionContextWithoutDeviceMemory();
  if (!created)
    return created.status();
  auto handle = std::make_unique<kiln_context>();
  handle->owner = engine;
  handle->context = std::move(*created);
  ++engine->contexts;
  *context = handle.release();
  return Status::ok();
}
} // namespace

kiln_status kiln_context_create(kiln_engine *engine, kiln_context **context) {
  return run("kiln_context_create", [&] {
    return createContext("kiln_context_create", engine, context, true);
  });
}

kiln_status kiln_context_create_without_device_memory(kiln_engine *engine,
                                                      kiln_context **context) {
  return run("kiln_context_create_without_device_memory", [&] {
    return createContext("kiln_context_create_without_device_memory", engine,
                         context, false);
  });
}

kiln_status kiln_context_destroy(kiln_context *context) {
  return run("kiln_context_destroy", [&]() -> Status {
    if (!context)
      return Status::ok();
    --context->owner->contexts;
    delete context;
    return Status::ok();
  });
}

kiln_status kiln_context_set_device_memory(kiln_context *context,
                                           uint64_t ptr) {
  return run("kiln_context_set_device_memory", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_device_memory", "context");
    return context->context->setDeviceMemory(ptr);
  });
}

kiln_status kiln_context_set_tensor_address(kiln_context *context,
                                            const char *name, uint64_t ptr) {
  return run("kiln_context_set_tensor_address", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_tensor_address", "context");
    if (!name)
      return null("kiln_context_set_tensor_address", "name");
    return context->context->setTensorAddress(name, ptr);
  });
}

kiln_status kiln_context_set_cuda_graphs(kiln_context *context, int enabled) {
  return run("kiln_context_set_cuda_graphs", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_cuda_graphs", "context");
    context->context->setCudaGraphs(enabled != 0);
    return Status::ok();
  });
}

kiln_status kiln_context_set_input_consumed_event(kiln_context *context,
                                                  void *event) {
  return run("kiln_context_set_input_consumed_event", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_input_consumed_event", "context");
    context->context->setInputConsumedEvent(event);
    return Status::ok();
  });
}

kiln_status kiln_engine_num_optimization_profiles(const kiln_engine *engine,
                                                  int *count) {
  return run("kiln_engine_num_optimization_profiles", [&]() -> Status {
    if (!engine)
      return null("kiln_engine_num_optimization_profiles", "engine");
    if (!count)
      return null("kiln_engine_num_optimization_profiles", "count");
    *count = engine->engine->numOptimizationProfiles();
    return Status::ok();
  });
}

kiln_status kiln_context_set_tensor_buffer(kiln_context *context,
                                           const char *name, uint64_t ptr,
                                           uint64_t bytes) {
  return run("kiln_context_set_tensor_buffer", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_tensor_buffer", "context");
    if (!name)
      return null("kiln_context_set_tensor_buffer", "name");
    return context->context->setTensorAddress(name, ptr, bytes);
  });
}

kiln_status kiln_context_set_optimization_profile(kiln_context *context,
                                                  int index) {
  return run("kiln_context_set_optimization_profile", [&]() -> Status {
    if (!context)
      return null("kiln_context_set_optimization_profile", "context");
    return context->context->setOptimizationProfile(index);
  });
}

kiln_status kiln_context_set_input_shape(kiln_context *context,
                                         const char *name, const int64_t *dims,
                                         int rank) {
  return run("kiln_context_set_input_shape", [&]() -> Status {
    const char *function = "kiln_context_set_input_shape";
    if (!context)
      return null(function, "context");
    if (!name)
      return null(function, "name");
    if (rank < 0)
      return Status(StatusCode::InvalidArgument,
                    std::string(function) + ": rank is " +
                        std::to_string(rank) + ", expected >= 0");
    if (rank > 0 && !dims)
      return null(function, "dims");
    return context->context->setInputShape(
        name, std::vector<int64_t>(dims, dims + rank));
  });
}

kiln_status kiln_context_get_tensor_shape(const kiln_context *context,
                                          const char *name, int64_t *dims,
                                          int capacity, int *rank) {
  return run("kiln_context_get_tensor_shape", [&]() -> Status {
    const char *function = "kiln_context_get_tensor_shape";
    if (!context)
      return null(function, "context");
    if (!name)
      return null(function, "name");
    if (!rank)
      return null(function, "rank");
    auto shape = context->context->getTensorShape(name);
    if (!shape)
      return shape.status();
    // The rank even when `dims` is too small, to size a retry.
    *rank = static_cast<int>(shape->size());
    if (capacity < 0 || static_cast<size_t>(capacity) < shape->size())
      return Status(StatusCode::InvalidArgument,
                    std::string(function) + ": tensor '" + name +
                        "' has rank " + std::to_string(shape->size()) +
                        ", but dims has room for " + std::to_string(capacity));
    if (!shape->empty() && !dims)
      return null(function, "dims");
    std::copy(shape->begin(), shape->end(), dims);
    return Status::ok();
  });
}

kiln_status kiln_context_enqueue_batch(kiln_context *context,
                                       int32_t batch_size,
                                       void *const *bindings, void *stream,
                                       void *input_consumed) {
  return run("kiln_context_enqueue_batch", [&]() -> Status {
    if (!context)
      return null("kiln_context_enqueue_batch", "context");
    return context->context->enqueue(batch_size, bindings, stream,
                                     input_consumed);
  });
}

kiln_status kiln_context_enqueue(kiln_context *context, void *stream) {
  return run("kiln_context_enqueue", [&]() -> Status {
    if (!context)
      return null("kiln_context_enqueue", "context");
    return context->context->enqueue(stream);
  });
}

kiln_status kiln_context_execute(kiln_context *context) {
  return run("kiln_context_execute", [&]() -> Status {
    if (!context)
      return null("kiln_context_execute", "context");
    return context->context->execute();
  });
}

} // extern "C"
