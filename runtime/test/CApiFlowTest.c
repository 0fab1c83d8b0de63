/*===- CApiFlowTest.c - the C API, from C, on the fake driver -------------===*
 *
 * Compiled as C99 (with -pedantic -Werror), so kiln_runtime.h is shown to be
 * C: the whole flow of an application on FakeCudaDriver.c, whose device
 * memory is host memory and whose fake_add_f32 kernel really runs. A runtime
 * with a log callback, the device's description, a plan of two launches
 * (out = (a + w) + b), the engine's tensors, device memory, copies and a
 * fill, a stream, a context with its own arena and one without, enqueue and
 * execute, results compared exactly with the host, and every object released
 * (the fake driver's counters). Exit status 0 when every check passes.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln/runtime/kiln_runtime.h"

#include "CApiTestPlans.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s (last status %s: '%s')\n",      \
              __FILE__, __LINE__, #condition,                                  \
              kiln_status_name(kiln_last_error_code()),                        \
              kiln_last_error_message());                                      \
      ++failures;                                                              \
    }                                                                          \
  } while (0)
#define CHECK_OK(call) CHECK((call) == KILN_STATUS_OK)
/* A check the rest of the test depends on. */
#define REQUIRE_OK(call)                                                       \
  do {                                                                         \
    int before = failures;                                                     \
    CHECK_OK(call);                                                            \
    if (failures != before)                                                    \
      return 1;                                                                \
  } while (0)

struct LogState {
  int messages;
  int sawDevice;
};

static void logMessage(void *userData, kiln_severity severity,
                       const char *message) {
  struct LogState *state = (struct LogState *)userData;
  ++state->messages;
  if (severity == KILN_SEVERITY_INFO &&
      strstr(message, "runtime: device 0 'Kiln Fake GPU'"))
    state->sawDevice = 1;
}

/* Floats in [-100, 100) from a linear congruential generator. */
static void randomFloats(float *out, int64_t n, uint32_t seed) {
  int64_t i;
  for (i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out[i] = (float)(seed >> 8) / (float)(1u << 24) * 200.0f - 100.0f;
  }
}

/* The fake driver's counters: the runtime's dlopen of the same path shares
 * this instance of the library. */
typedef int (*Counter)(void);
static Counter counter(void *fake, const char *name) {
  Counter fn = NULL;
  void *address = dlsym(fake, name);
  /* POSIX: function pointers and void* convert; ISO C needs this form. */
  memcpy(&fn, &address, sizeof(fn));
  return fn;
}

static int sameFloats(const float *out, const float *a, const float *w,
                      const float *b, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i)
    if (out[i] != (a[i] + w[i]) + b[i]) /* the same operations: exact */
      return 0;
  return 1;
}

enum { N = 1000 };
static float a[N], b[N], w[N], out[N];

int main(void) {
  struct LogState log = {0, 0};
  kiln_runtime *rt = NULL;
  kiln_engine *engine = NULL;
  kiln_context *context = NULL, *bare = NULL;
  kiln_device_info info;
  void *plan = NULL, *stream = NULL;
  size_t planSize = 0;
  int count = 0, rank = 0, isInput = -1, index = -1, t;
  int64_t dims[4] = {0, 0, 0, 0};
  uint64_t bytes = 0, arenaBytes = 0, da = 0, db = 0, dout = 0, arena = 0;
  kiln_data_type type = KILN_DATA_TYPE_BOOL;
  const char *name = NULL;
  const char *const names[3] = {"a", "b", "out"};
  Counter liveAllocations, liveModules, liveStreams, contextRefs;
  int allocations0, modules0, streams0, refs0;

  void *fake = dlopen(KILN_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
  if (!fake) {
    fprintf(stderr, "cannot open the fake driver: %s\n", dlerror());
    return 1;
  }
  liveAllocations = counter(fake, "kiln_fake_cuda_live_allocations");
  liveModules = counter(fake, "kiln_fake_cuda_live_modules");
  liveStreams = counter(fake, "kiln_fake_cuda_live_streams");
  contextRefs = counter(fake, "kiln_fake_cuda_context_refs");
  if (!liveAllocations || !liveModules || !liveStreams || !contextRefs)
    return 1;
  allocations0 = liveAllocations();
  modules0 = liveModules();
  streams0 = liveStreams();
  refs0 = contextRefs();

  /* The runtime and its device. */
  REQUIRE_OK(kiln_runtime_create(KILN_FAKE_CUDA, 0, logMessage, &log, &rt));
  CHECK(kiln_last_error_code() == KILN_STATUS_OK);
  CHECK(strcmp(kiln_last_error_message(), "") == 0);
  CHECK(log.sawDevice);
  REQUIRE_OK(kiln_runtime_device_info(rt, &info));
  CHECK(info.ordinal == 0);
  CHECK(strcmp(info.name, "Kiln Fake GPU") == 0);
  CHECK(info.compute_capability_major == 9);
  CHECK(info.compute_capability_minor == 0);
  CHECK(info.multiprocessor_count == 132);
  CHECK(info.total_memory_bytes == (uint64_t)141 << 30);
  CHECK(info.driver_version == 13000);

  /* The engine; the plan's bytes are not needed once it is made. */
  randomFloats(w, N, 1);
  randomFloats(a, N, 2);
  randomFloats(b, N, 3);
  if (kiln_test_add_plan(N, w, &plan, &planSize) != 0)
    return 1;
  REQUIRE_OK(kiln_engine_deserialize(rt, plan, planSize, &engine));
  memset(plan, 0, planSize);
  kiln_test_free_plan(plan);

  REQUIRE_OK(kiln_engine_num_tensors(engine, &count));
  CHECK(count == 3);
  for (t = 0; t < 3; ++t) {
    CHECK_OK(kiln_engine_tensor_name(engine, t, &name));
    CHECK(name && strcmp(name, names[t]) == 0);
    CHECK_OK(kiln_engine_tensor_data_type(engine, t, &type));
    CHECK(type == KILN_DATA_TYPE_F32);
    CHECK_OK(kiln_engine_tensor_rank(engine, t, &rank));
    CHECK(rank == 1);
    CHECK_OK(kiln_engine_tensor_dims(engine, t, dims, 4));
    CHECK(dims[0] == N);
    CHECK_OK(kiln_engine_tensor_bytes(engine, t, &bytes));
    CHECK(bytes == N * sizeof(float));
    CHECK_OK(kiln_engine_tensor_is_input(engine, t, &isInput));
    CHECK(isInput == (t < 2));
    CHECK_OK(kiln_engine_find_tensor(engine, names[t], &index));
    CHECK(index == t);
  }
  CHECK(kiln_engine_find_tensor(engine, "c", &index) == KILN_STATUS_NOT_FOUND);
  CHECK(strcmp(kiln_last_error_message(),
               "the engine has no tensor named 'c'; its tensors are 'a', 'b', "
               "'out'") == 0);
  REQUIRE_OK(kiln_engine_device_memory_size(engine, &arenaBytes));
  CHECK(arenaBytes == 8192);

  /* Device buffers, a stream and a context with its own arena. */
  REQUIRE_OK(kiln_runtime_allocate(rt, N * sizeof(float), &da));
  REQUIRE_OK(kiln_runtime_allocate(rt, N * sizeof(float), &db));
  REQUIRE_OK(kiln_runtime_allocate(rt, N * sizeof(float), &dout));
  CHECK(da % 256 == 0 && db % 256 == 0 && dout % 256 == 0);
  CHECK_OK(kiln_runtime_copy_to_device(rt, da, a, N * sizeof(float)));
  CHECK_OK(kiln_runtime_copy_to_device(rt, db, b, N * sizeof(float)));
  CHECK_OK(kiln_runtime_memset(rt, dout, 0xFF, N * sizeof(float)));
  REQUIRE_OK(kiln_runtime_stream_create(rt, &stream));
  REQUIRE_OK(kiln_context_create(engine, &context));
  CHECK_OK(kiln_context_set_tensor_address(context, "a", da));
  CHECK_OK(kiln_context_set_tensor_address(context, "b", db));
  CHECK_OK(kiln_context_set_tensor_address(context, "out", dout));
  CHECK_OK(kiln_context_enqueue(context, stream));
  CHECK_OK(kiln_runtime_stream_synchronize(rt, stream));
  memset(out, 0, sizeof(out));
  CHECK_OK(kiln_runtime_copy_to_host(rt, out, dout, N * sizeof(float)));
  CHECK(sameFloats(out, a, w, b, N));

  /* A context whose arena the application provides. */
  REQUIRE_OK(kiln_context_create_without_device_memory(engine, &bare));
  CHECK_OK(kiln_context_set_tensor_address(bare, "a", db));
  CHECK_OK(kiln_context_set_tensor_address(bare, "b", da));
  CHECK_OK(kiln_context_set_tensor_address(bare, "out", dout));
  CHECK(kiln_context_execute(bare) == KILN_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(kiln_last_error_message(), "call setDeviceMemory with 8192 "
                                          "bytes before enqueue") != NULL);
  REQUIRE_OK(kiln_runtime_allocate(rt, arenaBytes, &arena));
  CHECK_OK(kiln_context_set_device_memory(bare, arena));
  CHECK_OK(kiln_runtime_memset(rt, dout, 0, N * sizeof(float)));
  CHECK_OK(kiln_context_execute(bare));
  CHECK_OK(kiln_runtime_copy_to_host(rt, out, dout, N * sizeof(float)));
  CHECK(sameFloats(out, b, w, a, N));

  /* Everything is released, in order. */
  CHECK(kiln_engine_destroy(engine) == KILN_STATUS_INVALID_ARGUMENT);
  CHECK_OK(kiln_context_destroy(bare));
  CHECK_OK(kiln_context_destroy(context));
  CHECK_OK(kiln_runtime_stream_destroy(rt, stream));
  CHECK_OK(kiln_runtime_free(rt, arena));
  CHECK_OK(kiln_runtime_free(rt, da));
  CHECK_OK(kiln_runtime_free(rt, db));
  CHECK_OK(kiln_runtime_free(rt, dout));
  CHECK(kiln_runtime_destroy(rt) == KILN_STATUS_INVALID_ARGUMENT);
  CHECK_OK(kiln_engine_destroy(engine));
  CHECK_OK(kiln_runtime_destroy(rt));
  CHECK(liveAllocations() == allocations0);
  CHECK(liveModules() == modules0);
  CHECK(liveStreams() == streams0);
  CHECK(contextRefs() == refs0);
  CHECK(log.messages > 0);
  dlclose(fake);

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("the C API from C: every check passed\n");
  return 0;
}
