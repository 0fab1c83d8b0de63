/*===- FakeCudaDriver.c - a stand-in libcuda for tests --------------------===*
 *
 * Implements the driver entry points the runtime resolves, with behaviour set
 * by environment variables, so tests can check every way loading the driver
 * can go, and what engines and execution contexts do, on a machine with no
 * GPU:
 *   KILN_FAKE_CUDA_INIT           the CUresult cuInit returns (default 0)
 *   KILN_FAKE_CUDA_DEVICES        how many devices it reports (default 0)
 *   KILN_FAKE_CUDA_CC             compute capability times ten (default 90)
 *   KILN_FAKE_CUDA_DRIVER         cuDriverGetVersion's answer (default 13000)
 *   KILN_FAKE_CUDA_LAUNCH_RESULT  the CUresult cuLaunchKernel returns
 *                                 (default 0)
 *   KILN_FAKE_CUDA_FAIL_AT        k > 0: the k-th driver call after cuInit
 *                                 (cuInit is the first) fails, with what the
 *                                 real driver would say: CUDA_ERROR_OUT_OF_
 *                                 MEMORY for what allocates (memory, modules,
 *                                 streams, events), CUDA_ERROR_LAUNCH_FAILED
 *                                 for launches and for what reports an earlier
 *                                 kernel's failure (synchronizing, copying to
 *                                 the host), CUDA_ERROR_UNKNOWN otherwise.
 *                                 A call that releases something (cuMemFree,
 *                                 cuModuleUnload, cuStreamDestroy, cuEvent-
 *                                 Destroy, cuDevicePrimaryCtxRelease) releases
 *                                 it and then fails, as when the driver
 *                                 reports an earlier error, so that a run
 *                                 with a fault leaks nothing. Read when
 *                                 cuInit runs.
 *   KILN_FAKE_CUDA_CORRUPT_ADD    k > 0: the k-th launch of fake_add_f32
 *                                 after cuInit adds 1 to out[0], a wrong
 *                                 result for the checks of a stress run.
 *   KILN_FAKE_CUDA_STAGED_HTOD    see cuMemcpyHtoD_v2.
 * Every entry point counts as a call (kiln_fake_cuda_call_count); cuInit,
 * which Driver::load calls first, starts the count again.
 *
 * The driver may be called from several threads at once: its state is
 * guarded by a mutex and atomics, and the current context is per thread, as
 * in the real driver. Kernels run in the calling thread, outside the lock;
 * streams are immediate (enqueued work is done when the call returns).
 *
 * Built with KILN_FAKE_CUDA_INCOMPLETE it lacks cuDeviceGetCount and later;
 * with KILN_FAKE_CUDA_LEGACY_ELAPSED_TIME it exports cuEventElapsedTime
 * instead of cuEventElapsedTime_v2 (a driver before CUDA 12.8), and with
 * KILN_FAKE_CUDA_NO_ELAPSED_TIME neither.
 *
 * Stream capture records what is enqueued on a capturing stream (launches,
 * device-to-device copies, fills) into a graph instead of doing it; an
 * instantiated graph does it again at each cuGraphLaunch, and
 * cuGraphExecUpdate_v2 takes a graph of the same operations with new
 * arguments. The legacy default stream cannot capture.
 *
 * Device memory is host memory (a CUdeviceptr is a host pointer), so copies
 * and fills really copy and fill. A module is any image whose text contains
 * "kiln-fake-module"; a kernel is any name in that text, optionally followed
 * by its parameter types, e.g. "scale(p,p,f32,i64)" (p: pointer, i32, i64,
 * f32), which lets cuLaunchKernel record the parameter values. The kernel
 * "fake_add_f32" (pointers a, b, out and i64 n) really runs: out = a + b.
 * Functions named kiln_fake_cuda_* let tests read what happened.
 *
 *===----------------------------------------------------------------------===*/

#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Environment variables are read, never written, while the driver runs. */
static int envInt(const char *name, int fallback) {
  const char *v = getenv(name);
  return v ? atoi(v) : fallback;
}

/* Guards what is not atomic: the last launch's record, staged copies, a
 * module's function table. */
static pthread_mutex_t stateLock = PTHREAD_MUTEX_INITIALIZER;

/*===- Fault injection ----------------------------------------------------===*/

static atomic_int callCount, failAt, addLaunches, corruptAdd;
static const char *_Atomic failedCall;

/* Counts a call to `name`; true when it is the one that must fail. */
static int injectFault(const char *name) {
  int n = atomic_fetch_add(&callCount, 1) + 1;
  if (n != atomic_load(&failAt))
    return 0;
  atomic_store(&failedCall, name);
  return 1;
}

/* Counts the call; returns `result` from the caller when it must fail. */
#define FAULT(name, result)                                                    \
  do {                                                                         \
    if (injectFault(name))                                                     \
      return result;                                                           \
  } while (0)

/*===- Stream capture -----------------------------------------------------===*/

#define MAX_PARAMS 32

enum FakeOpKind { FAKE_LAUNCH, FAKE_COPY, FAKE_FILL };
/* One recorded operation: a launch with its arguments' bytes, a copy or a
 * fill. */
struct FakeOp {
  enum FakeOpKind kind;
  CUfunction function;
  unsigned grid[3], block[3], shared;
  int numParams;
  unsigned long long params[MAX_PARAMS];
  CUdeviceptr dst, src;
  size_t bytes;
  unsigned char value;
};
struct CUgraph_st {
  int numOps, capacity;
  struct FakeOp *ops;
};
/* An instantiated graph: its own copy of the operations. */
struct CUgraphExec_st {
  struct CUgraph_st graph;
};
struct CUstream_st {
  CUgraph capture; /* the graph being recorded, or null */
};
static atomic_int liveGraphs, graphLaunches;

/* Appends `op` to the graph `stream` captures into; false when the stream
 * does not capture. */
static int recordOp(CUstream stream, const struct FakeOp *op) {
  CUgraph g = stream ? stream->capture : 0;
  if (!g)
    return 0;
  if (g->numOps == g->capacity) {
    g->capacity = g->capacity ? 2 * g->capacity : 16;
    g->ops = (struct FakeOp *)realloc(g->ops, sizeof(*op) * g->capacity);
  }
  g->ops[g->numOps++] = *op;
  return 1;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  atomic_store(&callCount, 0);
  atomic_store(&addLaunches, 0);
  atomic_store(&failAt, envInt("KILN_FAKE_CUDA_FAIL_AT", 0));
  atomic_store(&corruptAdd, envInt("KILN_FAKE_CUDA_CORRUPT_ADD", 0));
  atomic_store(&failedCall, (const char *)0);
  FAULT("cuInit", CUDA_ERROR_UNKNOWN);
  return (CUresult)envInt("KILN_FAKE_CUDA_INIT", 0);
}

CUresult cuDriverGetVersion(int *version) {
  FAULT("cuDriverGetVersion", CUDA_ERROR_UNKNOWN);
  *version = envInt("KILN_FAKE_CUDA_DRIVER", 13000);
  return CUDA_SUCCESS;
}

#ifndef KILN_FAKE_CUDA_INCOMPLETE
CUresult cuDeviceGetCount(int *count) {
  FAULT("cuDeviceGetCount", CUDA_ERROR_UNKNOWN);
  *count = envInt("KILN_FAKE_CUDA_DEVICES", 0);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAULT("cuDeviceGet", CUDA_ERROR_UNKNOWN);
  if (ordinal < 0 || ordinal >= envInt("KILN_FAKE_CUDA_DEVICES", 0))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  (void)device;
  FAULT("cuDeviceGetName", CUDA_ERROR_UNKNOWN);
  strncpy(name, "Kiln Fake GPU", (size_t)len);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  (void)device;
  FAULT("cuDeviceGetAttribute", CUDA_ERROR_UNKNOWN);
  int capability = envInt("KILN_FAKE_CUDA_CC", 90);
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = capability / 10;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = capability % 10;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  (void)device;
  FAULT("cuDeviceTotalMem", CUDA_ERROR_UNKNOWN);
  *bytes = (size_t)141 << 30;
  return CUDA_SUCCESS;
}

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = 0;
  FAULT("cuGetErrorName", CUDA_ERROR_UNKNOWN);
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == error) {
      *name = errors[i].name;
      return CUDA_SUCCESS;
    }
  *name = 0;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = 0;
  FAULT("cuGetErrorString", CUDA_ERROR_UNKNOWN);
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i)
    if (errors[i].code == error) {
      *text = errors[i].text;
      return CUDA_SUCCESS;
    }
  *text = 0;
  return CUDA_ERROR_INVALID_VALUE;
}

/*===- Contexts -----------------------------------------------------------===*/

struct CUctx_st {
  int unused;
};
static struct CUctx_st primaryContext;
static atomic_int primaryRefs;
/* As in the real driver, each thread has its own current context. In the
 * static TLS block (initial-exec): dynamic TLS of a dlopen'ed library is
 * what LeakSanitizer's thread scan crashes on (gcc 12's libsanitizer reads
 * a stale DTLS range at exit once the executable's static TLS leaves no
 * room for the library's), and 8 bytes fit glibc's reserve for this. */
static __attribute__((
    tls_model("initial-exec"))) _Thread_local CUcontext currentContext;

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  FAULT("cuDevicePrimaryCtxRetain", CUDA_ERROR_UNKNOWN);
  if (device < 0 || device >= envInt("KILN_FAKE_CUDA_DEVICES", 0))
    return CUDA_ERROR_INVALID_DEVICE;
  atomic_fetch_add(&primaryRefs, 1);
  *context = &primaryContext;
  return CUDA_SUCCESS;
}

/* Drops one reference; false when there was none. */
static int releasePrimary(void) {
  int refs = atomic_load(&primaryRefs);
  while (refs > 0)
    if (atomic_compare_exchange_weak(&primaryRefs, &refs, refs - 1))
      return 1;
  return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  (void)device;
  if (injectFault("cuDevicePrimaryCtxRelease")) {
    releasePrimary();
    return CUDA_ERROR_UNKNOWN;
  }
  return releasePrimary() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  FAULT("cuCtxSetCurrent", CUDA_ERROR_UNKNOWN);
  currentContext = context;
  return CUDA_SUCCESS;
}

/* Calls that need a context fail without the primary one current on the
 * calling thread. */
static int noContext(void) {
  return currentContext != &primaryContext || atomic_load(&primaryRefs) <= 0;
}

/*===- Memory -------------------------------------------------------------===*/

static atomic_int liveAllocations;

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  void *memory = 0;
  FAULT("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (posix_memalign(&memory, 256, bytes) != 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  atomic_fetch_add(&liveAllocations, 1);
  *ptr = (CUdeviceptr)(uintptr_t)memory;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  int fault = injectFault("cuMemFree");
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  free((void *)(uintptr_t)ptr);
  atomic_fetch_sub(&liveAllocations, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

/* With KILN_FAKE_CUDA_STAGED_HTOD=1, cuMemcpyHtoD behaves as the real one
 * does from pageable memory: it returns once the bytes are staged, and they
 * reach the device only when the default stream is synchronized. */
#define MAX_STAGED 16
static struct {
  void *dst;
  void *bytes;
  size_t size;
} staged[MAX_STAGED];
static int stagedCount;

/* Under stateLock. */
static void flushStaged(void) {
  for (int i = 0; i < stagedCount; ++i) {
    memcpy(staged[i].dst, staged[i].bytes, staged[i].size);
    free(staged[i].bytes);
  }
  stagedCount = 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  FAULT("cuMemcpyHtoD", CUDA_ERROR_UNKNOWN);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (envInt("KILN_FAKE_CUDA_STAGED_HTOD", 0)) {
    int queued = 0;
    pthread_mutex_lock(&stateLock);
    if (stagedCount < MAX_STAGED) {
      staged[stagedCount].dst = (void *)(uintptr_t)dst;
      staged[stagedCount].bytes = malloc(bytes);
      memcpy(staged[stagedCount].bytes, src, bytes);
      staged[stagedCount++].size = bytes;
      queued = 1;
    }
    pthread_mutex_unlock(&stateLock);
    if (queued)
      return CUDA_SUCCESS;
  }
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  FAULT("cuMemcpyDtoH", CUDA_ERROR_LAUNCH_FAILED);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                              CUstream stream) {
  struct FakeOp op = {FAKE_COPY};
  FAULT("cuMemcpyDtoDAsync", CUDA_ERROR_UNKNOWN);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  op.dst = dst, op.src = src, op.bytes = bytes;
  if (recordOp(stream, &op))
    return CUDA_SUCCESS;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static CUresult memsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) {
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  memset((void *)(uintptr_t)dst, value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  FAULT("cuMemsetD8", CUDA_ERROR_UNKNOWN);
  return memsetD8(dst, value, bytes);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes,
                         CUstream stream) {
  struct FakeOp op = {FAKE_FILL};
  FAULT("cuMemsetD8Async", CUDA_ERROR_UNKNOWN);
  op.dst = dst, op.value = value, op.bytes = bytes;
  if (!noContext() && recordOp(stream, &op))
    return CUDA_SUCCESS;
  return memsetD8(dst, value, bytes);
}

/*===- Modules and launches -----------------------------------------------===*/

#define MAX_FUNCTIONS 64

struct CUfunc_st {
  char name[128];
  /* Parameter sizes from the signature in the image, if it has one. */
  int numParams;
  int paramBytes[MAX_PARAMS];
};

struct CUmod_st {
  char *text;
  int numFunctions;
  struct CUfunc_st *functions[MAX_FUNCTIONS];
};

static atomic_int liveModules;

static void setOption(unsigned numOptions, CUjit_option *options, void **values,
                      CUjit_option buffer, CUjit_option bufferSize,
                      const char *text) {
  char *out = 0;
  size_t size = 0;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == buffer)
      out = (char *)values[i];
    if (options[i] == bufferSize)
      size = (size_t)(uintptr_t)values[i];
  }
  if (out && size)
    snprintf(out, size, "%s", text);
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **optionValues) {
  const char *text = (const char *)image;
  struct CUmod_st *m;
  FAULT("cuModuleLoadDataEx", CUDA_ERROR_OUT_OF_MEMORY);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!strstr(text, "kiln-fake-module")) {
    setOption(numOptions, options, optionValues, CU_JIT_ERROR_LOG_BUFFER,
              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "fake ptxas fatal: the image lacks the 'kiln-fake-module' "
              "marker");
    return CUDA_ERROR_INVALID_PTX;
  }
  setOption(numOptions, options, optionValues, CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            "fake ptxas info: module loaded");
  m = (struct CUmod_st *)calloc(1, sizeof(*m));
  m->text = strdup(text);
  atomic_fetch_add(&liveModules, 1);
  *module = m;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  int fault = injectFault("cuModuleUnload");
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  for (int i = 0; i < module->numFunctions; ++i)
    free(module->functions[i]);
  free(module->text);
  free(module);
  atomic_fetch_sub(&liveModules, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

static int isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

/* Where `name` occurs in `text` as a whole word, or null. */
static const char *findWord(const char *text, const char *name) {
  size_t length = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
    if ((p == text || !isNameChar(p[-1])) && !isNameChar(p[length]))
      return p;
  return 0;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  const char *at;
  struct CUfunc_st *f;
  CUresult result = CUDA_SUCCESS;
  FAULT("cuModuleGetFunction", CUDA_ERROR_UNKNOWN);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (strlen(name) >= sizeof(f->name))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&stateLock);
  for (int i = 0; i < module->numFunctions; ++i)
    if (strcmp(module->functions[i]->name, name) == 0) {
      *function = module->functions[i];
      goto done;
    }
  at = findWord(module->text, name);
  if (!at) {
    result = CUDA_ERROR_NOT_FOUND;
    goto done;
  }
  if (module->numFunctions == MAX_FUNCTIONS) {
    result = CUDA_ERROR_OUT_OF_MEMORY;
    goto done;
  }
  f = (struct CUfunc_st *)calloc(1, sizeof(*f));
  strcpy(f->name, name);
  at += strlen(name);
  if (*at == '(') {
    ++at;
    while (*at && *at != ')' && f->numParams < MAX_PARAMS) {
      f->paramBytes[f->numParams++] =
          (strncmp(at, "i32", 3) == 0 || strncmp(at, "f32", 3) == 0) ? 4 : 8;
      while (*at && *at != ',' && *at != ')')
        ++at;
      if (*at == ',')
        ++at;
    }
  }
  module->functions[module->numFunctions++] = f;
  *function = f;
done:
  pthread_mutex_unlock(&stateLock);
  return result;
}

/* The last launch's record, under stateLock. */
static atomic_int launchCount;
static char lastKernel[128];
static unsigned lastGrid[3], lastBlock[3], lastShared;
static int lastNumParams;
static unsigned long long lastParams[MAX_PARAMS];

static CUresult launch(CUfunction f, unsigned int gridX, unsigned int gridY,
                       unsigned int gridZ, unsigned int blockX,
                       unsigned int blockY, unsigned int blockZ,
                       unsigned int sharedMemBytes, CUstream stream,
                       void **kernelParams);

CUresult cuLaunchKernel(CUfunction f, unsigned int gridX, unsigned int gridY,
                        unsigned int gridZ, unsigned int blockX,
                        unsigned int blockY, unsigned int blockZ,
                        unsigned int sharedMemBytes, CUstream stream,
                        void **kernelParams, void **extra) {
  (void)extra;
  FAULT("cuLaunchKernel", CUDA_ERROR_LAUNCH_FAILED);
  return launch(f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes,
                stream, kernelParams);
}

/* cuLaunchKernel after its fault injection, which a graph's launches (part
 * of one cuGraphLaunch call) skip. */
static CUresult launch(CUfunction f, unsigned int gridX, unsigned int gridY,
                       unsigned int gridZ, unsigned int blockX,
                       unsigned int blockY, unsigned int blockZ,
                       unsigned int sharedMemBytes, CUstream stream,
                       void **kernelParams) {
  CUresult result = (CUresult)envInt("KILN_FAKE_CUDA_LAUNCH_RESULT", 0);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (result != CUDA_SUCCESS)
    return result;
  if (stream && stream->capture) {
    struct FakeOp op = {FAKE_LAUNCH};
    op.function = f;
    op.grid[0] = gridX, op.grid[1] = gridY, op.grid[2] = gridZ;
    op.block[0] = blockX, op.block[1] = blockY, op.block[2] = blockZ;
    op.shared = sharedMemBytes;
    op.numParams = f->numParams;
    for (int i = 0; i < f->numParams; ++i)
      memcpy(&op.params[i], kernelParams[i], (size_t)f->paramBytes[i]);
    recordOp(stream, &op);
    return CUDA_SUCCESS;
  }
  atomic_fetch_add(&launchCount, 1);
  pthread_mutex_lock(&stateLock);
  strcpy(lastKernel, f->name);
  lastGrid[0] = gridX, lastGrid[1] = gridY, lastGrid[2] = gridZ;
  lastBlock[0] = blockX, lastBlock[1] = blockY, lastBlock[2] = blockZ;
  lastShared = sharedMemBytes;
  lastNumParams = f->numParams;
  for (int i = 0; i < f->numParams; ++i) {
    lastParams[i] = 0;
    memcpy(&lastParams[i], kernelParams[i], (size_t)f->paramBytes[i]);
  }
  pthread_mutex_unlock(&stateLock);
  if (strcmp(f->name, "fake_add_f32") == 0) {
    const float *a = *(const float **)kernelParams[0];
    const float *b = *(const float **)kernelParams[1];
    float *out = *(float **)kernelParams[2];
    int64_t n = *(const int64_t *)kernelParams[3];
    int launch = atomic_fetch_add(&addLaunches, 1) + 1;
    for (int64_t i = 0; i < n; ++i)
      out[i] = a[i] + b[i];
    if (n > 0 && launch == atomic_load(&corruptAdd))
      out[0] += 1.0f;
  }
  return CUDA_SUCCESS;
}

/*===- Streams and events -------------------------------------------------===*/

struct CUevent_st {
  double ms;
  /* Kernel launches and graph launches done when it was last recorded. */
  int launches, graphLaunches;
};
static atomic_int liveStreams, liveEvents;

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  (void)flags;
  FAULT("cuStreamCreate", CUDA_ERROR_OUT_OF_MEMORY);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  *stream = (CUstream)calloc(1, sizeof(struct CUstream_st));
  atomic_fetch_add(&liveStreams, 1);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  int fault = injectFault("cuStreamDestroy");
  if (stream && stream->capture) {
    free(stream->capture->ops);
    free(stream->capture);
  }
  free(stream);
  atomic_fetch_sub(&liveStreams, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAULT("cuStreamSynchronize", CUDA_ERROR_LAUNCH_FAILED);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!stream) {
    pthread_mutex_lock(&stateLock);
    flushStaged();
    pthread_mutex_unlock(&stateLock);
  }
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  (void)flags;
  FAULT("cuEventCreate", CUDA_ERROR_OUT_OF_MEMORY);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  *event = (CUevent)calloc(1, sizeof(struct CUevent_st));
  atomic_fetch_add(&liveEvents, 1);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  struct timespec now;
  (void)stream;
  FAULT("cuEventRecord", CUDA_ERROR_UNKNOWN);
  clock_gettime(CLOCK_MONOTONIC, &now);
  event->ms = (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
  event->launches = atomic_load(&launchCount);
  event->graphLaunches = atomic_load(&graphLaunches);
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  (void)event;
  FAULT("cuEventSynchronize", CUDA_ERROR_LAUNCH_FAILED);
  return CUDA_SUCCESS;
}

#if defined(KILN_FAKE_CUDA_LEGACY_ELAPSED_TIME)
/* A driver before CUDA 12.8: only the unversioned name (which cuda.h 13
 * maps to the _v2). */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  FAULT("cuEventElapsedTime", CUDA_ERROR_UNKNOWN);
  *ms = (float)(end->ms - start->ms);
  return CUDA_SUCCESS;
}
#elif !defined(KILN_FAKE_CUDA_NO_ELAPSED_TIME)
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  FAULT("cuEventElapsedTime", CUDA_ERROR_UNKNOWN);
  *ms = (float)(end->ms - start->ms);
  return CUDA_SUCCESS;
}
#endif

CUresult cuEventDestroy_v2(CUevent event) {
  int fault = injectFault("cuEventDestroy");
  free(event);
  atomic_fetch_sub(&liveEvents, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

/*===- Graphs -----------------------------------------------------------===*/

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) {
  (void)mode;
  FAULT("cuStreamBeginCapture", CUDA_ERROR_UNKNOWN);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!stream)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  stream->capture = (CUgraph)calloc(1, sizeof(struct CUgraph_st));
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  FAULT("cuStreamEndCapture", CUDA_ERROR_UNKNOWN);
  if (!stream || !stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  *graph = stream->capture;
  stream->capture = 0;
  atomic_fetch_add(&liveGraphs, 1);
  return CUDA_SUCCESS;
}

/* Copies the operations of `from` into `to` (whose own are freed). */
static void copyOps(struct CUgraph_st *to, const struct CUgraph_st *from) {
  free(to->ops);
  to->numOps = to->capacity = from->numOps;
  to->ops = (struct FakeOp *)malloc(sizeof(struct FakeOp) *
                                    (size_t)(from->numOps ? from->numOps : 1));
  memcpy(to->ops, from->ops, sizeof(struct FakeOp) * (size_t)from->numOps);
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                     unsigned long long flags) {
  (void)flags;
  FAULT("cuGraphInstantiate", CUDA_ERROR_OUT_OF_MEMORY);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  *exec = (CUgraphExec)calloc(1, sizeof(struct CUgraphExec_st));
  copyOps(&(*exec)->graph, graph);
  atomic_fetch_add(&liveGraphs, 1);
  return CUDA_SUCCESS;
}

/* Takes `graph`'s arguments when it holds the same operations (kinds and
 * kernels, in order) as `exec`. */
CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph,
                              CUgraphExecUpdateResultInfo *info) {
  FAULT("cuGraphExecUpdate", CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  memset(info, 0, sizeof(*info));
  if (exec->graph.numOps != graph->numOps)
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  for (int i = 0; i < graph->numOps; ++i)
    if (exec->graph.ops[i].kind != graph->ops[i].kind ||
        exec->graph.ops[i].function != graph->ops[i].function)
      return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  copyOps(&exec->graph, graph);
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAULT("cuGraphLaunch", CUDA_ERROR_LAUNCH_FAILED);
  if (noContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (stream && stream->capture)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  atomic_fetch_add(&graphLaunches, 1);
  for (int i = 0; i < exec->graph.numOps; ++i) {
    struct FakeOp *op = &exec->graph.ops[i];
    void *params[MAX_PARAMS];
    CUresult r = CUDA_SUCCESS;
    switch (op->kind) {
    case FAKE_LAUNCH:
      for (int p = 0; p < op->numParams; ++p)
        params[p] = &op->params[p];
      r = launch(op->function, op->grid[0], op->grid[1], op->grid[2],
                 op->block[0], op->block[1], op->block[2], op->shared, 0,
                 params);
      break;
    case FAKE_COPY:
      memcpy((void *)(uintptr_t)op->dst, (const void *)(uintptr_t)op->src,
             op->bytes);
      break;
    case FAKE_FILL:
      memset((void *)(uintptr_t)op->dst, op->value, op->bytes);
      break;
    }
    if (r != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

static void destroyGraph(struct CUgraph_st *g) { free(g->ops); }

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  int fault = injectFault("cuGraphExecDestroy");
  destroyGraph(&exec->graph);
  free(exec);
  atomic_fetch_sub(&liveGraphs, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  int fault = injectFault("cuGraphDestroy");
  destroyGraph(graph);
  free(graph);
  atomic_fetch_sub(&liveGraphs, 1);
  return fault ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

/*===- What tests can read ------------------------------------------------===*/

/* The last launch: read when no launch runs (they are not counted calls). */
int kiln_fake_cuda_launch_count(void) { return atomic_load(&launchCount); }
const char *kiln_fake_cuda_last_kernel(void) { return lastKernel; }
void kiln_fake_cuda_last_dims(unsigned grid[3], unsigned block[3],
                              unsigned *shared) {
  pthread_mutex_lock(&stateLock);
  memcpy(grid, lastGrid, sizeof(lastGrid));
  memcpy(block, lastBlock, sizeof(lastBlock));
  *shared = lastShared;
  pthread_mutex_unlock(&stateLock);
}
int kiln_fake_cuda_last_num_params(void) {
  pthread_mutex_lock(&stateLock);
  int n = lastNumParams;
  pthread_mutex_unlock(&stateLock);
  return n;
}
unsigned long long kiln_fake_cuda_last_param(int i) {
  pthread_mutex_lock(&stateLock);
  unsigned long long value = i >= 0 && i < lastNumParams ? lastParams[i] : 0;
  pthread_mutex_unlock(&stateLock);
  return value;
}
/* Device memory, modules, streams and events not yet released, and
   references to the primary context. */
int kiln_fake_cuda_live_allocations(void) {
  return atomic_load(&liveAllocations);
}
int kiln_fake_cuda_live_modules(void) { return atomic_load(&liveModules); }
int kiln_fake_cuda_live_streams(void) { return atomic_load(&liveStreams); }
/* Graphs and instantiated graphs alive, and cuGraphLaunch calls. */
int kiln_fake_cuda_live_graphs(void) { return atomic_load(&liveGraphs); }
int kiln_fake_cuda_graph_launches(void) { return atomic_load(&graphLaunches); }
int kiln_fake_cuda_live_events(void) { return atomic_load(&liveEvents); }
int kiln_fake_cuda_context_refs(void) { return atomic_load(&primaryRefs); }
/* The kernel launches (-1: never recorded) and graph launches done when
   `event` was last recorded. */
int kiln_fake_cuda_event_launches(CUevent event) {
  return event->ms > 0 ? event->launches : -1;
}
int kiln_fake_cuda_event_graph_launches(CUevent event) {
  return event->graphLaunches;
}
/* Fault injection: the driver calls since the last cuInit, and the name of
   the call KILN_FAKE_CUDA_FAIL_AT made fail ("" when none did), as the
   runtime names it in messages ("cuMemAlloc", not "cuMemAlloc_v2"). */
int kiln_fake_cuda_call_count(void) { return atomic_load(&callCount); }
const char *kiln_fake_cuda_failed_call(void) {
  const char *name = atomic_load(&failedCall);
  return name ? name : "";
}
#endif
