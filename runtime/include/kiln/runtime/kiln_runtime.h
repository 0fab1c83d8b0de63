//===-- kiln/runtime/kiln_runtime.h - the runtime's C API ---------*- C -*-===//
//
// The runtime for C and for bindings (Python, plugins): the same objects as
// the C++ API (Runtime.h) behind opaque handles. Pure C99; it compiles as C++
// too. Device pointers are uint64_t (CUdeviceptr) and streams void*
// (CUstream), so no CUDA header is needed.
//
//   kiln_runtime *rt;
//   kiln_engine *engine;
//   kiln_context *context;
//   if (kiln_runtime_create(NULL, 0, NULL, NULL, &rt) != KILN_STATUS_OK ||
//       kiln_engine_deserialize(rt, bytes, size, &engine) != KILN_STATUS_OK ||
//       kiln_context_create(engine, &context) != KILN_STATUS_OK)
//     fprintf(stderr, "%s\n", kiln_last_error_message());
//
// Errors: every function that can fail returns a kiln_status, whose values
// are kiln::rt::StatusCode's, and records it with its message for the
// calling thread (kiln_last_error_code, kiln_last_error_message). Null
// handles and null pointers are errors (KILN_STATUS_INVALID_ARGUMENT), never
// crashes, except that the destroy functions accept null as free() does. No
// C++ exception leaves these functions.
//
// Lifetimes: destroy every context before its engine and every engine
// before its runtime; destroying an object that still has live children
// fails (KILN_STATUS_INVALID_ARGUMENT) and destroys nothing. Threads: as in
// the C++ API (Runtime.h, Engine.h): runtimes and engines may be used from
// several threads at once, one context by one thread at a time; the last
// error is each thread's own; the log callback may be called from several
// threads at once.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_KILN_RUNTIME_H
#define KILN_RUNTIME_KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Raised when a function is added or changes.
#define KILN_RUNTIME_C_API_VERSION 2

//===----------------------------------------------------------------------===//
// Status and messages
//===----------------------------------------------------------------------===//

/// What went wrong: the values of kiln::rt::StatusCode (Status.h).
typedef enum kiln_status {
  KILN_STATUS_OK = 0,
  /// An argument is null, out of range or malformed.
  KILN_STATUS_INVALID_ARGUMENT = 1,
  /// The CUDA driver library could not be loaded or is not a driver.
  KILN_STATUS_DRIVER_UNAVAILABLE = 2,
  /// The driver reports no usable device.
  KILN_STATUS_NO_DEVICE = 3,
  /// A driver call failed; the message names it and CUDA's error.
  KILN_STATUS_DRIVER_ERROR = 4,
  /// A plan is malformed, corrupted or inconsistent.
  KILN_STATUS_INVALID_PLAN = 5,
  /// A valid plan this runtime or device cannot run.
  KILN_STATUS_UNSUPPORTED_PLAN = 6,
  /// A name (of a tensor) is not known.
  KILN_STATUS_NOT_FOUND = 7,
  /// Something the runtime did not expect (out of host memory, ...).
  KILN_STATUS_INTERNAL = 8
} kiln_status;

/// "Ok", "InvalidArgument", ..., "Internal"; "Unknown" for other values.
const char *kiln_status_name(kiln_status status);

/// The status of the calling thread's most recent call that returns a
/// kiln_status: KILN_STATUS_OK when it succeeded (or before any call).
kiln_status kiln_last_error_code(void);
/// Its message ("" when it succeeded), e.g. "the engine has no tensor named
/// 'x'; its tensors are ...". Valid until the thread's next call.
const char *kiln_last_error_message(void);

//===----------------------------------------------------------------------===//
// Runtime: the driver, one device, memory and streams
//===----------------------------------------------------------------------===//

/// The severities of kiln::rt::Logger.
typedef enum kiln_severity {
  KILN_SEVERITY_INTERNAL_ERROR = 0,
  KILN_SEVERITY_ERROR = 1,
  KILN_SEVERITY_WARNING = 2,
  KILN_SEVERITY_INFO = 3,
  KILN_SEVERITY_VERBOSE = 4
} kiln_severity;

/// Receives every message of the runtime (filter by severity yourself), from
/// any thread that calls into it. `message` is valid during the call. It must
/// not destroy the objects whose call is logging.
typedef void (*kiln_log_callback)(void *user_data, kiln_severity severity,
                                  const char *message);

typedef struct kiln_runtime kiln_runtime;

/// Loads the driver `driver_library` (NULL: "libcuda.so.1") and makes the
/// primary context of device `device_ordinal` current. Messages go to `log`
/// with `log_user_data`, or, when `log` is NULL, warnings and errors to
/// stderr. Sets *runtime (NULL on failure).
kiln_status kiln_runtime_create(const char *driver_library, int device_ordinal,
                                kiln_log_callback log, void *log_user_data,
                                kiln_runtime **runtime);
/// Destroys `runtime` (NULL: nothing); fails while it has engines.
kiln_status kiln_runtime_destroy(kiln_runtime *runtime);

/// What the driver reports about the runtime's device.
typedef struct kiln_device_info {
  int ordinal;
  /// NUL-terminated, cut to fit.
  char name[256];
  int compute_capability_major;
  int compute_capability_minor;
  int multiprocessor_count;
  uint64_t total_memory_bytes;
  /// cuDriverGetVersion, e.g. 13000 for 13.0.
  int driver_version;
} kiln_device_info;

kiln_status kiln_runtime_device_info(const kiln_runtime *runtime,
                                     kiln_device_info *info);

/// `bytes` (> 0) of device memory at a multiple of 256; sets *ptr.
kiln_status kiln_runtime_allocate(kiln_runtime *runtime, uint64_t bytes,
                                  uint64_t *ptr);
/// Frees memory from kiln_runtime_allocate (0: nothing).
kiln_status kiln_runtime_free(kiln_runtime *runtime, uint64_t ptr);
/// Synchronous copies and fill, complete on return (Runtime.h). A null
/// pointer or device address is an error unless `bytes` is 0.
kiln_status kiln_runtime_copy_to_device(kiln_runtime *runtime, uint64_t dst,
                                        const void *src, uint64_t bytes);
kiln_status kiln_runtime_copy_to_host(kiln_runtime *runtime, void *dst,
                                      uint64_t src, uint64_t bytes);
kiln_status kiln_runtime_memset(kiln_runtime *runtime, uint64_t dst,
                                uint8_t value, uint64_t bytes);

/// A non-blocking stream (a CUstream); sets *stream.
kiln_status kiln_runtime_stream_create(kiln_runtime *runtime, void **stream);
/// Waits for `stream` (NULL: the legacy default stream).
kiln_status kiln_runtime_stream_synchronize(kiln_runtime *runtime,
                                            void *stream);
/// Destroys `stream` (NULL: nothing).
kiln_status kiln_runtime_stream_destroy(kiln_runtime *runtime, void *stream);

/// Loads the plugin library at `path` and registers its creators for every
/// runtime of the process (kiln/runtime/Plugin.h: loadPluginLibrary), before
/// deserializing plans that use them. Since C API version 2.
kiln_status kiln_load_plugin_library(const char *path);

//===----------------------------------------------------------------------===//
// Engine: a plan loaded on the device
//===----------------------------------------------------------------------===//

typedef struct kiln_engine kiln_engine;

/// The element types of tensors: the values of kiln::rt::DataType.
typedef enum kiln_data_type {
  KILN_DATA_TYPE_F32 = 0,
  KILN_DATA_TYPE_F16 = 1,
  KILN_DATA_TYPE_BF16 = 2,
  KILN_DATA_TYPE_I8 = 3,
  KILN_DATA_TYPE_I32 = 4,
  KILN_DATA_TYPE_I64 = 5,
  KILN_DATA_TYPE_BOOL = 6,
  KILN_DATA_TYPE_F64 = 7,
  KILN_DATA_TYPE_I16 = 8,
  KILN_DATA_TYPE_U8 = 9,
  KILN_DATA_TYPE_U16 = 10,
  KILN_DATA_TYPE_U32 = 11,
  KILN_DATA_TYPE_U64 = 12,
  KILN_DATA_TYPE_F8E4M3FN = 13,
  KILN_DATA_TYPE_F8E4M3FNUZ = 14,
  KILN_DATA_TYPE_F8E5M2 = 15,
  KILN_DATA_TYPE_F8E5M2FNUZ = 16,
  /// The sub-byte types are stored one element per byte (the value in the
  /// low bits).
  KILN_DATA_TYPE_F4E2M1 = 17,
  KILN_DATA_TYPE_I4 = 18,
  KILN_DATA_TYPE_U4 = 19,
  KILN_DATA_TYPE_I2 = 20,
  KILN_DATA_TYPE_U2 = 21
} kiln_data_type;

/// Verifies and loads the plan in `data` (`size` bytes, which the caller
/// keeps; the engine copies what it needs). Sets *engine (NULL on failure).
kiln_status kiln_engine_deserialize(kiln_runtime *runtime, const void *data,
                                    size_t size, kiln_engine **engine);
/// Destroys `engine` (NULL: nothing); fails while it has contexts.
kiln_status kiln_engine_destroy(kiln_engine *engine);

/// The number of I/O tensors; they are indexed 0 to *count - 1.
kiln_status kiln_engine_num_tensors(const kiln_engine *engine, int *count);
/// Tensor `index`'s name, valid as long as the engine.
kiln_status kiln_engine_tensor_name(const kiln_engine *engine, int index,
                                    const char **name);
kiln_status kiln_engine_tensor_data_type(const kiln_engine *engine, int index,
                                         kiln_data_type *type);
/// The number of dimensions (0 for a scalar).
kiln_status kiln_engine_tensor_rank(const kiln_engine *engine, int index,
                                    int *rank);
/// Writes the rank's dimensions to `dims`, which has room for `capacity`
/// (at least the rank; `dims` may be NULL for rank 0); -1 for a dimension
/// that varies (run-time shapes: kiln_context_get_tensor_shape gives it).
kiln_status kiln_engine_tensor_dims(const kiln_engine *engine, int index,
                                    int64_t *dims, int capacity);
/// Its size in bytes: elements times the element size; for a tensor whose
/// shape varies, at its largest shape.
kiln_status kiln_engine_tensor_bytes(const kiln_engine *engine, int index,
                                     uint64_t *bytes);
/// 1 for an input, 0 for an output.
kiln_status kiln_engine_tensor_is_input(const kiln_engine *engine, int index,
                                        int *is_input);
/// The index of the tensor called `name`; KILN_STATUS_NOT_FOUND (listing the
/// tensors) when there is none.
kiln_status kiln_engine_find_tensor(const kiln_engine *engine, const char *name,
                                    int *index);
/// Bytes of device memory (the arena) one context needs.
kiln_status kiln_engine_device_memory_size(const kiln_engine *engine,
                                           uint64_t *bytes);
/// The plan's optimization profiles: 0 for a plan of one shape.
kiln_status kiln_engine_num_optimization_profiles(const kiln_engine *engine,
                                                  int *count);

//===----------------------------------------------------------------------===//
// Execution context: runs an engine's steps
//===----------------------------------------------------------------------===//

typedef struct kiln_context kiln_context;

/// A context with its own arena. Sets *context (NULL on failure).
kiln_status kiln_context_create(kiln_engine *engine, kiln_context **context);
/// A context whose arena the caller sets with kiln_context_set_device_memory
/// before the first enqueue.
kiln_status kiln_context_create_without_device_memory(kiln_engine *engine,
                                                      kiln_context **context);
/// Destroys `context` (NULL: nothing) and the arena it allocated: wait for
/// the work it enqueued first.
kiln_status kiln_context_destroy(kiln_context *context);

/// The arena: kiln_engine_device_memory_size bytes at a multiple of 256.
kiln_status kiln_context_set_device_memory(kiln_context *context, uint64_t ptr);
/// Binds tensor `name` to `ptr`; KILN_STATUS_NOT_FOUND for an unknown name.
kiln_status kiln_context_set_tensor_address(kiln_context *context,
                                            const char *name, uint64_t ptr);
/// Nonzero `enabled`: enqueue captures the steps into a CUDA graph once and
/// launches the graph, capturing again (and updating the graph in place) after
/// an address changes; the stream must then not be NULL. Off by default
/// (ExecutionContext::setCudaGraphs).
kiln_status kiln_context_set_cuda_graphs(kiln_context *context, int enabled);
/// The input-consumed event: `event` (a CUevent of the application's, or
/// NULL for none) is recorded on the enqueue's stream after the last step
/// that reads an input tensor (after the graph with CUDA graphs on), so that
/// the inputs may be refilled once it completes
/// (ExecutionContext::setInputConsumedEvent).
kiln_status kiln_context_set_input_consumed_event(kiln_context *context,
                                                  void *event);
/// Binds tensor `name` to a buffer of `bytes` bytes at `ptr`: enqueue
/// refuses shapes for which the tensor needs more.
kiln_status kiln_context_set_tensor_buffer(kiln_context *context,
                                           const char *name, uint64_t ptr,
                                           uint64_t bytes);

/// Run-time shapes (ExecutionContext::setOptimizationProfile,
/// setInputShape, getTensorShape). The profile the shapes are checked
/// against (0 at first).
kiln_status kiln_context_set_optimization_profile(kiln_context *context,
                                                  int index);
/// Input `name` takes the `rank` dimensions `dims` for the next enqueues;
/// refused (naming the input, the dimension, the value and the range)
/// outside the current profile.
kiln_status kiln_context_set_input_shape(kiln_context *context,
                                         const char *name, const int64_t *dims,
                                         int rank);
/// Tensor `name`'s shape at the shapes set (an output's computed before any
/// enqueue; -1 where an input it needs has no shape): its rank in *rank
/// (also when `dims` is too small) and its dimensions in `dims`, which has
/// room for `capacity`.
kiln_status kiln_context_get_tensor_shape(const kiln_context *context,
                                          const char *name, int64_t *dims,
                                          int capacity, int *rank);
/// The seeds' enqueue(batchSize, bindings, stream, inputConsumed) for plans
/// whose inputs vary in their first dimension only (--max-batch): every
/// input takes `batch_size` rows, tensor i is bound to bindings[i].
kiln_status kiln_context_enqueue_batch(kiln_context *context,
                                       int32_t batch_size,
                                       void *const *bindings, void *stream,
                                       void *input_consumed);

/// Enqueues every step on `stream` (NULL: the legacy default stream) and
/// returns without waiting.
kiln_status kiln_context_enqueue(kiln_context *context, void *stream);
/// Runs every step on a stream of the context's and waits for it.
kiln_status kiln_context_execute(kiln_context *context);

#ifdef __cplusplus
}
#endif

#endif // KILN_RUNTIME_KILN_RUNTIME_H
