//===- Stress.h - a plan run from many threads at once ----------*- C++ -*-===//
//
// The stress mode of kiln-run-plan (--threads T --contexts C --runs N): one
// engine, T threads, each with C execution contexts of its own, its own
// stream and its own random inputs per context; every output compared bit
// for bit with a single-threaded run. It checks the runtime's and the
// driver's thread safety on a real GPU (runtime/test/ConcurrencyTest.cpp
// does it on the stand-in driver).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_STRESS_H
#define KILN_TOOLING_STRESS_H

#include "kiln/runtime/Runtime.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace kiln::tooling {

struct StressOptions {
  /// Threads, execution contexts per thread, and enqueues per thread (round
  /// robin over its contexts); each at least 1.
  int threads = 1, contexts = 1, runs = 100;
  /// Inputs of thread t's context c are random from the seed (seed, t, c).
  unsigned seed = 1;
};

struct StressResult {
  int threads = 0, contexts = 0;
  /// Enqueues made, by all threads together.
  int64_t enqueues = 0;
  /// Outputs that differed from the single-threaded run (one per output
  /// tensor and enqueue), and the first of them described ("thread 2
  /// context 1 enqueue 17: output 'y' differs from byte 40 on").
  int64_t mismatches = 0;
  std::string firstMismatch;
  /// Wall time of the threaded runs, in seconds.
  double wallSeconds = 0;
};

/// Loads `planBytes` and runs it as StressOptions says. First, on one
/// thread, a context of its own runs every other context's inputs once for
/// the expected outputs. Then T threads start together; each runs rounds over
/// its contexts: it uploads every context's inputs, fills its outputs with
/// 0xFF bytes, enqueues it on the thread's stream, and once the round is
/// enqueued synchronizes the stream and compares every output with the
/// expected one, byte for byte. With run-time shapes, every context runs at
/// a shape of its own (each symbol spread over profile 0's range: the first
/// context at the smallest, the second at the largest), and the reference
/// context takes each in turn. Returns the first error (an error stops all
/// threads), or what happened.
rt::StatusOr<StressResult> stressPlan(rt::Runtime &runtime,
                                      const std::string &planBytes,
                                      const StressOptions &options);

/// "stress: ..." and a table of one line: threads, contexts, enqueues,
/// mismatches, wall time and enqueues per second; then the first mismatch.
void printStress(std::ostream &out, const StressResult &result);

/// stressPlan and printStress as kiln-run-plan does them: errors are printed
/// to `err` as "<tool>: error: ...". Returns 0, or 1 after an error or a
/// mismatch.
int runStress(rt::Runtime &runtime, const std::string &planBytes,
              const StressOptions &options, std::ostream &out,
              std::ostream &err, const std::string &tool);

} // namespace kiln::tooling

#endif // KILN_TOOLING_STRESS_H
