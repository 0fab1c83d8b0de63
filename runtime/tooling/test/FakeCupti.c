/*===- FakeCupti.c - a stand-in for CUPTI's activity API ------------------===*
 *
 * What KernelTrace calls, for tests without the CUDA toolkit: activities are
 * added by the test (kilnFakeCuptiAdd), held until CUPTI would deliver them
 * (cuptiActivityFlushAll) and then written as 64-byte records with CUPTI's
 * layout of the fields KernelTrace reads (kind at 0, start at 16, end at 24)
 * into a buffer KernelTrace provides, as CUPTI does.
 *
 *===----------------------------------------------------------------------===*/

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef void (*RequestFn)(uint8_t **buffer, size_t *size, size_t *maxRecords);
typedef void (*CompleteFn)(void *context, uint32_t stream, uint8_t *buffer,
                           size_t size, size_t validSize);

enum { kRecordBytes = 64, kMaxPending = 4096, kKinds = 64 };
enum { kSuccess = 0, kInvalidParameter = 1, kMaxLimitReached = 12 };

static RequestFn request;
static CompleteFn complete;
static int enabled[kKinds];
static struct {
  int kind;
  uint64_t start, end;
} pending[kMaxPending];
static size_t numPending, dropped;
static uint64_t clockNs;

/* Test hooks. */
/* Any kind, enabled or not, so that the reader's own filter is tested;
 * nothing while no kind is enabled (no trace). */
void kilnFakeCuptiAdd(int kind, uint64_t start, uint64_t end) {
  int any = 0;
  for (int k = 0; k < kKinds; ++k)
    any |= enabled[k];
  if (!any)
    return;
  if (numPending == kMaxPending) {
    ++dropped;
    return;
  }
  pending[numPending].kind = kind;
  pending[numPending].start = start;
  pending[numPending].end = end;
  ++numPending;
}
void kilnFakeCuptiSetClock(uint64_t ns) { clockNs = ns; }
void kilnFakeCuptiDrop(size_t n) { dropped += n; }

int cuptiActivityRegisterCallbacks(RequestFn r, CompleteFn c) {
  if (!r || !c)
    return kInvalidParameter;
  request = r;
  complete = c;
  return kSuccess;
}

static int setKind(int kind, int on) {
  if (kind <= 0 || kind >= kKinds)
    return kInvalidParameter;
  enabled[kind] = on;
  return kSuccess;
}
int cuptiActivityEnable(int kind) { return setKind(kind, 1); }
int cuptiActivityDisable(int kind) { return setKind(kind, 0); }

int cuptiActivityFlushAll(uint32_t flag) {
  (void)flag;
  if (!numPending)
    return kSuccess;
  uint8_t *buffer = NULL;
  size_t size = 0, maxRecords = 0, valid = 0;
  request(&buffer, &size, &maxRecords);
  for (size_t i = 0; i < numPending && valid + kRecordBytes <= size; ++i) {
    uint8_t *record = buffer + valid;
    memset(record, 0, kRecordBytes);
    memcpy(record, &pending[i].kind, sizeof(int));
    memcpy(record + 16, &pending[i].start, 8);
    memcpy(record + 24, &pending[i].end, 8);
    valid += kRecordBytes;
  }
  numPending = 0;
  complete(NULL, 0, buffer, size, valid);
  return kSuccess;
}

int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record) {
  uint8_t *next = *record ? (uint8_t *)*record + kRecordBytes : buffer;
  if (next + kRecordBytes > buffer + valid)
    return kMaxLimitReached;
  *record = next;
  return kSuccess;
}

int cuptiActivityGetNumDroppedRecords(void *context, uint32_t stream,
                                      size_t *count) {
  (void)context;
  (void)stream;
  *count = dropped;
  dropped = 0;
  return kSuccess;
}

int cuptiGetTimestamp(uint64_t *ns) {
  *ns = clockNs;
  return kSuccess;
}

int cuptiGetResultString(int result, const char **text) {
  *text = result == kInvalidParameter ? "CUPTI_ERROR_INVALID_PARAMETER"
                                      : "CUPTI_ERROR_UNKNOWN";
  return kSuccess;
}
