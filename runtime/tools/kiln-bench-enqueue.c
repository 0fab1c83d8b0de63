/*===- kiln-bench-enqueue.c - the C API's cost per run, from C ------------===*
 *
 * kiln-bench-enqueue PLAN [ITERATIONS] [--cuda-graphs]: loads PLAN with the
 * C API, gives every input and output a zeroed buffer, and times ITERATIONS
 * (default 2000, after 200 of warm-up) of what one run costs an application
 * in C: every tensor's address set, the engine enqueued on a stream, the
 * stream waited for. Prints the median and the mean in microseconds. The
 * baseline of benchmarks/python_overhead.py, which times the Python
 * package's ExecutionContext.run on the same plan with DLPack tensors.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln/runtime/kiln_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what) {
  fprintf(stderr, "kiln-bench-enqueue: %s: %s\n", what,
          kiln_last_error_message());
  return 1;
}

static double nowUs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLAN [ITERATIONS] [--cuda-graphs]\n", argv[0]);
    return 2;
  }
  int iterations = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 2000;
  int graphs = strcmp(argv[argc - 1], "--cuda-graphs") == 0;
  if (iterations <= 0)
    iterations = 2000;
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    fprintf(stderr, "kiln-bench-enqueue: cannot open %s\n", argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc((size_t)size);
  if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "kiln-bench-enqueue: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);

  kiln_runtime *rt;
  kiln_engine *engine;
  kiln_context *context;
  void *stream;
  if (kiln_runtime_create(NULL, 0, NULL, NULL, &rt) != KILN_STATUS_OK)
    return fail("runtime");
  if (kiln_engine_deserialize(rt, bytes, (size_t)size, &engine) !=
      KILN_STATUS_OK)
    return fail("deserialize");
  if (kiln_context_create(engine, &context) != KILN_STATUS_OK ||
      kiln_runtime_stream_create(rt, &stream) != KILN_STATUS_OK ||
      kiln_context_set_cuda_graphs(context, graphs) != KILN_STATUS_OK)
    return fail("context");
  int count = 0;
  kiln_engine_num_tensors(engine, &count);
  const char **names = calloc((size_t)count, sizeof(char *));
  uint64_t *ptrs = calloc((size_t)count, sizeof(uint64_t));
  for (int i = 0; i < count; ++i) {
    uint64_t bytesOf = 0;
    kiln_engine_tensor_name(engine, i, &names[i]);
    kiln_engine_tensor_bytes(engine, i, &bytesOf);
    if (kiln_runtime_allocate(rt, bytesOf ? bytesOf : 1, &ptrs[i]) !=
            KILN_STATUS_OK ||
        kiln_runtime_memset(rt, ptrs[i], 0, bytesOf) != KILN_STATUS_OK)
      return fail("buffers");
  }
  double *times = calloc((size_t)iterations, sizeof(double));
  for (int it = -200; it < iterations; ++it) {
    double start = nowUs();
    for (int i = 0; i < count; ++i)
      if (kiln_context_set_tensor_address(context, names[i], ptrs[i]) !=
          KILN_STATUS_OK)
        return fail("set_tensor_address");
    if (kiln_context_enqueue(context, stream) != KILN_STATUS_OK ||
        kiln_runtime_stream_synchronize(rt, stream) != KILN_STATUS_OK)
      return fail("enqueue");
    if (it >= 0)
      times[it] = nowUs() - start;
  }
  double sum = 0;
  for (int i = 0; i < iterations; ++i)
    sum += times[i];
  qsort(times, (size_t)iterations, sizeof(double), compareDoubles);
  printf("kiln-bench-enqueue: %s: %d tensors, %d runs%s: median_us=%.2f "
         "mean_us=%.2f\n",
         argv[1], count, iterations, graphs ? " (CUDA graphs)" : "",
         times[iterations / 2], sum / iterations);
  kiln_context_destroy(context);
  for (int i = 0; i < count; ++i)
    kiln_runtime_free(rt, ptrs[i]);
  kiln_runtime_stream_destroy(rt, stream);
  kiln_engine_destroy(engine);
  kiln_runtime_destroy(rt);
  free(times);
  free(ptrs);
  free(names);
  free(bytes);
  return 0;
}
