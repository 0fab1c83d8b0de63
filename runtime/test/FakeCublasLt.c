/*===- FakeCublasLt.c - a stand-in libcublasLt for tests ------------------===*
 *
 * Implements the cuBLASLt entry points the runtime resolves
 * (src/cublas/CublasLtSymbols.def), on top of FakeCudaDriver.c's device
 * memory (host memory), so that the cublaslt.matmul handler, recorded
 * algorithms and tactic selection are tested without a GPU:
 *   KILN_FAKE_CUBLASLT_ALGORITHMS  how many algorithms the heuristic offers
 *                                  and cublasLtMatmulAlgoCheck accepts
 *                                  (ids 0..n-1; default 4)
 *   KILN_FAKE_CUBLASLT_FASTEST     the id that runs at once; every other one
 *                                  sleeps 2 ms per call (default n-1, the
 *                                  heuristic's last)
 *   KILN_FAKE_CUBLASLT_VERSION     cublasLtGetVersion (default 130100)
 * An algorithm keeps its configuration (cublasLtMatmulAlgoConfigAttributes_t,
 * 32-bit values after the id's word); the heuristic's k-th has id k, tile
 * 10 + k, split-k 1 and stages 1, and cublasLtMatmulAlgoCheck refuses any
 * other tile for that id.
 * Products really run, for f32 matrices (the computation of cublasLtMatmul:
 * column-major, op(A) op(B) times alpha plus beta C, the bias and ReLU
 * epilogues, batches); other types are refused with NOT_SUPPORTED.
 * kiln_fake_cublaslt_last_algorithm() is the id of the last product's
 * algorithm, -1 before any.
 *
 *===----------------------------------------------------------------------===*/

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  kSuccess = 0,
  kInvalidValue = 7,
  kNotSupported = 15,
  kR32F = 0,
  kMagic = 0x4b4c4e46 /* "FNLK": an algorithm this library made */
};

typedef struct {
  uint64_t data[8];
} Algo;
typedef struct {
  Algo algo;
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
} HeuristicResult;

typedef struct {
  int trans[2], epilogue;
  const float *bias;
} Desc;
typedef struct {
  int type;
  uint64_t rows, cols;
  int64_t ld, batchStride;
  int32_t batch;
} Layout;

static atomic_int lastAlgorithm = -1;

static int envInt(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}
static int algorithms(void) {
  return envInt("KILN_FAKE_CUBLASLT_ALGORITHMS", 4);
}
/* Configuration attribute i (0: the id) of an algorithm. */
static uint32_t *config(Algo *a, int i) { return (uint32_t *)&a->data[1] + i; }
static uint32_t configOf(const Algo *a, int i) {
  return ((const uint32_t *)&a->data[1])[i];
}
static int validAlgo(const Algo *a) {
  return a && a->data[0] == kMagic && configOf(a, 0) < (uint32_t)algorithms() &&
         configOf(a, 1) == 10 + configOf(a, 0);
}
static void initAlgo(Algo *a, int id) {
  memset(a, 0, sizeof(*a));
  a->data[0] = kMagic;
  *config(a, 0) = (uint32_t)id;
  *config(a, 2) = 1; /* split-k */
  *config(a, 6) = 1; /* stages */
}

int kiln_fake_cublaslt_last_algorithm(void) { return lastAlgorithm; }

int cublasLtCreate(void **handle) {
  *handle = malloc(1);
  return kSuccess;
}
int cublasLtDestroy(void *handle) {
  free(handle);
  return kSuccess;
}
size_t cublasLtGetVersion(void) {
  return (size_t)envInt("KILN_FAKE_CUBLASLT_VERSION", 130100);
}
const char *cublasLtGetStatusString(int status) {
  return status == kNotSupported   ? "CUBLAS_STATUS_NOT_SUPPORTED"
         : status == kInvalidValue ? "CUBLAS_STATUS_INVALID_VALUE"
                                   : "CUBLAS_STATUS_SUCCESS";
}

int cublasLtMatmulDescCreate(void **desc, int compute, int scale) {
  (void)compute;
  if (scale != kR32F)
    return kNotSupported;
  *desc = calloc(1, sizeof(Desc));
  return kSuccess;
}
int cublasLtMatmulDescDestroy(void *desc) {
  free(desc);
  return kSuccess;
}
int cublasLtMatmulDescSetAttribute(void *desc, int attribute, const void *value,
                                   size_t bytes) {
  Desc *d = desc;
  if (attribute == 3 || attribute == 4) /* TRANSA, TRANSB */
    memcpy(&d->trans[attribute - 3], value, 4);
  else if (attribute == 7) /* EPILOGUE */
    memcpy(&d->epilogue, value, 4);
  else if (attribute == 8 && bytes == sizeof(void *)) /* BIAS_POINTER */
    memcpy(&d->bias, value, bytes);
  else
    return kInvalidValue;
  return kSuccess;
}

int cublasLtMatrixLayoutCreate(void **layout, int type, uint64_t rows,
                               uint64_t cols, int64_t ld) {
  Layout *l = calloc(1, sizeof(Layout));
  l->type = type;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
  l->batch = 1;
  *layout = l;
  return kSuccess;
}
int cublasLtMatrixLayoutDestroy(void *layout) {
  free(layout);
  return kSuccess;
}
int cublasLtMatrixLayoutSetAttribute(void *layout, int attribute,
                                     const void *value, size_t bytes) {
  Layout *l = layout;
  if (attribute == 5 && bytes == 4) /* BATCH_COUNT */
    memcpy(&l->batch, value, 4);
  else if (attribute == 6 && bytes == 8) /* STRIDED_BATCH_OFFSET */
    memcpy(&l->batchStride, value, 8);
  else
    return kInvalidValue;
  return kSuccess;
}

int cublasLtMatmulPreferenceCreate(void **preference) {
  *preference = calloc(1, sizeof(uint64_t));
  return kSuccess;
}
int cublasLtMatmulPreferenceDestroy(void *preference) {
  free(preference);
  return kSuccess;
}
int cublasLtMatmulPreferenceSetAttribute(void *preference, int attribute,
                                         const void *value, size_t bytes) {
  if (attribute != 1 || bytes != 8) /* MAX_WORKSPACE_BYTES */
    return kInvalidValue;
  memcpy(preference, value, 8);
  return kSuccess;
}

static int supported(const Layout *a, const Layout *b, const Layout *d) {
  return a->type == kR32F && b->type == kR32F && d->type == kR32F;
}

int cublasLtMatmulAlgoGetHeuristic(void *handle, void *desc, void *a, void *b,
                                   void *c, void *d, void *preference,
                                   int requested, HeuristicResult *results,
                                   int *returned) {
  (void)handle, (void)desc, (void)c, (void)preference;
  if (!supported(a, b, d))
    return kNotSupported;
  int n = algorithms() < requested ? algorithms() : requested;
  for (int i = 0; i < n; ++i) {
    memset(&results[i], 0, sizeof(results[i]));
    initAlgo(&results[i].algo, i);
    *config(&results[i].algo, 1) = 10 + (uint32_t)i; /* tile */
    results[i].wavesCount = 1;
  }
  *returned = n;
  return kSuccess;
}

int cublasLtMatmulAlgoCheck(void *handle, void *desc, void *a, void *b, void *c,
                            void *d, const Algo *algo,
                            HeuristicResult *result) {
  (void)handle, (void)desc, (void)c;
  if (!supported(a, b, d) || !validAlgo(algo))
    return kNotSupported;
  memset(result, 0, sizeof(*result));
  result->algo = *algo;
  return kSuccess;
}

/* The size of configuration attribute i: 16-bit shapes, 32-bit others. */
static size_t configBytes(int i) { return i >= 7 ? 2 : 4; }

int cublasLtMatmulAlgoInit(void *handle, int compute, int scale, int aType,
                           int bType, int cType, int dType, int id,
                           Algo *algo) {
  (void)handle, (void)compute;
  if (scale != kR32F || aType != kR32F || bType != kR32F || cType != kR32F ||
      dType != kR32F || id < 0 || id >= algorithms())
    return kNotSupported;
  initAlgo(algo, id);
  return kSuccess;
}

int cublasLtMatmulAlgoConfigGetAttribute(const Algo *algo, int attribute,
                                         void *value, size_t bytes,
                                         size_t *written) {
  if (attribute < 0 || attribute > 8 || bytes != configBytes(attribute))
    return kInvalidValue;
  uint32_t v = configOf(algo, attribute);
  memcpy(value, &v, bytes); /* little-endian: the low half for 16 bits */
  if (written)
    *written = bytes;
  return kSuccess;
}

/* The capabilities of algorithm `id`: tile 10 + id, stages 1, split-k,
 * every reduction scheme, swizzling, no custom option. */
int cublasLtMatmulAlgoCapGetAttribute(const Algo *algo, int attribute,
                                      void *value, size_t bytes,
                                      size_t *written) {
  uint32_t v;
  switch (attribute) {
  case 6: /* TILE_IDS */
    v = 10 + configOf(algo, 0);
    break;
  case 13: /* STAGES_IDS */
  case 0:  /* SPLITK_SUPPORT */
  case 2:  /* CTA_SWIZZLING_SUPPORT */
    v = 1;
    break;
  case 1: /* REDUCTION_SCHEME_MASK */
    v = 7;
    break;
  case 7: /* CUSTOM_OPTION_MAX */
    v = 0;
    break;
  default:
    return kInvalidValue;
  }
  if (bytes < 4)
    return kInvalidValue;
  memcpy(value, &v, 4);
  *written = 4;
  return kSuccess;
}

int cublasLtMatmulAlgoConfigSetAttribute(Algo *algo, int attribute,
                                         const void *value, size_t bytes) {
  if (attribute < 1 || attribute > 8 || bytes != configBytes(attribute))
    return kInvalidValue;
  uint32_t v = 0;
  memcpy(&v, value, bytes);
  *config(algo, attribute) = v;
  return kSuccess;
}

/* Element (r, c) of a column-major matrix of batch `batch`. */
static float at(const float *m, const Layout *l, int trans, uint64_t r,
                uint64_t c, int32_t batch) {
  const float *base = m + batch * l->batchStride;
  return trans ? base[c + r * l->ld] : base[r + c * l->ld];
}

int cublasLtMatmul(void *handle, void *desc, const void *alpha, const void *a,
                   void *aLayout, const void *b, void *bLayout,
                   const void *beta, const void *c, void *cLayout, void *d,
                   void *dLayout, const Algo *algo, void *workspace,
                   size_t workspaceBytes, void *stream) {
  (void)handle, (void)workspace, (void)workspaceBytes, (void)stream;
  const Desc *op = desc;
  const Layout *la = aLayout, *lb = bLayout, *lc = cLayout, *ld = dLayout;
  if (!supported(la, lb, ld) || !validAlgo(algo))
    return kNotSupported;
  int id = (int)configOf(algo, 0);
  lastAlgorithm = id;
  if (id != envInt("KILN_FAKE_CUBLASLT_FASTEST", algorithms() - 1)) {
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, 0);
  }
  float al, be;
  memcpy(&al, alpha, 4);
  memcpy(&be, beta, 4);
  uint64_t k = op->trans[0] ? la->rows : la->cols;
  for (int32_t n = 0; n < ld->batch; ++n)
    for (uint64_t i = 0; i < ld->rows; ++i)
      for (uint64_t j = 0; j < ld->cols; ++j) {
        float sum = 0;
        for (uint64_t p = 0; p < k; ++p)
          sum += at(a, la, op->trans[0], i, p, n) *
                 at(b, lb, op->trans[1], p, j, n);
        float out = al * sum;
        if (be != 0)
          out += be * at(c, lc, 0, i, j, n);
        if (op->epilogue == 4 || op->epilogue == 6) /* BIAS, RELU_BIAS */
          out += op->bias[i];
        if (op->epilogue == 6 && out < 0)
          out = 0;
        ((float *)d)[n * ld->batchStride + i + j * ld->ld] = out;
      }
  return kSuccess;
}
