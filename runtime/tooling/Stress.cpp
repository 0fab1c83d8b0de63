//===- Stress.cpp - a plan run from many threads at once ------------------===//
//
// See Stress.h. Every context has device buffers for all I/O tensors and host
// copies of its inputs and expected outputs; a reference context computes
// the expected outputs before the threads start.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/Stress.h"

#include "kiln/tooling/HostTensor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

namespace kiln::tooling {

namespace {

/// One execution context of one thread, with its buffers and data.
struct Slot {
  std::unique_ptr<rt::ExecutionContext> context;
  /// One device buffer per I/O tensor, in plan order.
  std::vector<uint64_t> buffers;
  /// Host data, in the order of StressRun::inputs and ::outputs.
  std::vector<HostTensor> inputs, expected;
};

/// What a stress run owns; frees it in the right order (contexts, then their
/// buffers, then the engine).
class StressRun {
public:
  StressRun(rt::Runtime &runtime, const StressOptions &options)
      : runtime(runtime), options(options) {}
  ~StressRun() {
    reference.reset();
    for (auto &list : slots)
      for (Slot &slot : list) {
        slot.context.reset();
        for (uint64_t p : slot.buffers)
          runtime.free(p);
      }
    for (void *stream : streams)
      (void)runtime.destroyStream(stream); // only after an earlier error
  }

  rt::Status load(const std::string &planBytes);
  rt::Status makeSlots();
  rt::Status computeExpected();
  void runThread(int thread);

  /// Uploads the slot's inputs, fills its outputs with 0xFF and enqueues
  /// `context` (the slot's, or the reference) bound to its buffers.
  rt::Status start(const Slot &slot, rt::ExecutionContext &context,
                   void *stream);
  /// Copies the slot's outputs into `out`.
  rt::Status download(const Slot &slot, std::vector<HostTensor> &out);

  void fail(const rt::Status &status) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error.isOk())
      error = status;
    stop = true;
  }

  rt::Runtime &runtime;
  const StressOptions &options;
  std::unique_ptr<rt::Engine> engine;
  std::unique_ptr<rt::ExecutionContext> reference;
  /// Indices of the input and output tensors.
  std::vector<int> inputs, outputs;
  std::vector<std::vector<Slot>> slots; // [thread][context]
  std::vector<void *> streams;          // one per thread
  std::atomic<bool> stop{false};
  std::atomic<int64_t> enqueues{0}, mismatches{0};
  std::mutex mutex;
  rt::Status error;
  std::string firstMismatch;
};

uint64_t bufferBytes(const rt::TensorDesc &desc) {
  // Zero-size tensors still get a (1-byte) buffer to bind.
  return static_cast<uint64_t>(std::max<int64_t>(desc.numBytes(), 1));
}

rt::Status StressRun::load(const std::string &planBytes) {
  auto loaded = runtime.deserializeEngine(planBytes.data(), planBytes.size());
  if (!loaded)
    return loaded.status();
  engine = std::move(*loaded);
  if (engine->hasDynamicShapes())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "a stress run takes plans of one shape; this plan has "
                      "run-time shapes (run it without --threads, --contexts "
                      "and --runs)");
  for (int i = 0; i < engine->numTensors(); ++i)
    (engine->tensor(i).isInput ? inputs : outputs).push_back(i);
  auto context = engine->createExecutionContext();
  if (!context)
    return context.status();
  reference = std::move(*context);
  return rt::Status::ok();
}

rt::Status StressRun::makeSlots() {
  slots.resize(options.threads);
  for (int t = 0; t < options.threads; ++t) {
    slots[t].resize(options.contexts);
    for (int c = 0; c < options.contexts; ++c) {
      Slot &slot = slots[t][c];
      auto context = engine->createExecutionContext();
      if (!context)
        return context.status();
      slot.context = std::move(*context);
      for (int i = 0; i < engine->numTensors(); ++i) {
        const rt::TensorDesc &desc = engine->tensor(i);
        auto ptr = runtime.allocate(bufferBytes(desc));
        if (!ptr)
          return ptr.status();
        slot.buffers.push_back(*ptr);
        if (rt::Status s = slot.context->setTensorAddress(desc.name, *ptr); !s)
          return s;
      }
      std::seed_seq seeds{options.seed, static_cast<unsigned>(t),
                          static_cast<unsigned>(c)};
      std::mt19937 rng(seeds);
      for (int i : inputs) {
        const rt::TensorDesc &desc = engine->tensor(i);
        auto tensor = HostTensor::create(desc.name, desc.type, desc.shape);
        if (!tensor)
          return tensor.status();
        fillRandom(*tensor, rng);
        slot.inputs.push_back(std::move(*tensor));
      }
    }
  }
  for (int t = 0; t < options.threads; ++t) {
    auto stream = runtime.createStream();
    if (!stream)
      return stream.status();
    streams.push_back(*stream);
  }
  return rt::Status::ok();
}

rt::Status StressRun::start(const Slot &slot, rt::ExecutionContext &context,
                            void *stream) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const HostTensor &t = slot.inputs[k];
    if (rt::Status s = runtime.copyToDevice(slot.buffers[inputs[k]], t.data(),
                                            t.numBytes());
        !s)
      return s;
  }
  for (int i : outputs)
    if (rt::Status s =
            runtime.memset(slot.buffers[i], 0xFF, engine->tensor(i).numBytes());
        !s)
      return s;
  return context.enqueue(stream);
}

rt::Status StressRun::download(const Slot &slot, std::vector<HostTensor> &out) {
  for (size_t k = 0; k < outputs.size(); ++k)
    if (rt::Status s = runtime.copyToHost(
            out[k].data(), slot.buffers[outputs[k]], out[k].numBytes());
        !s)
      return s;
  return rt::Status::ok();
}

/// Host tensors for the outputs.
rt::Status makeOutputs(const rt::Engine &engine,
                       const std::vector<int> &outputs,
                       std::vector<HostTensor> &out) {
  for (int i : outputs) {
    const rt::TensorDesc &desc = engine.tensor(i);
    auto tensor = HostTensor::create(desc.name, desc.type, desc.shape);
    if (!tensor)
      return tensor.status();
    out.push_back(std::move(*tensor));
  }
  return rt::Status::ok();
}

rt::Status StressRun::computeExpected() {
  // The reference context runs every slot's inputs on its buffers, one after
  // the other, on the default stream.
  for (auto &list : slots)
    for (Slot &slot : list) {
      for (int i = 0; i < engine->numTensors(); ++i)
        if (rt::Status s = reference->setTensorAddress(engine->tensor(i).name,
                                                       slot.buffers[i]);
            !s)
          return s;
      if (rt::Status s = makeOutputs(*engine, outputs, slot.expected); !s)
        return s;
      if (rt::Status s = start(slot, *reference, nullptr); !s)
        return s;
      if (rt::Status s = runtime.synchronize(nullptr); !s)
        return s;
      if (rt::Status s = download(slot, slot.expected); !s)
        return s;
    }
  return rt::Status::ok();
}

void StressRun::runThread(int thread) {
  std::vector<Slot> &mine = slots[thread];
  void *stream = streams[thread];
  std::vector<HostTensor> actual;
  if (rt::Status s = makeOutputs(*engine, outputs, actual); !s)
    return fail(s);
  const int contexts = static_cast<int>(mine.size());
  for (int done = 0; done < options.runs && !stop;) {
    int batch = std::min(contexts, options.runs - done);
    for (int c = 0; c < batch; ++c) {
      if (rt::Status s = start(mine[c], *mine[c].context, stream); !s)
        return fail(s);
      ++enqueues;
    }
    if (rt::Status s = runtime.synchronize(stream); !s)
      return fail(s);
    for (int c = 0; c < batch; ++c) {
      if (rt::Status s = download(mine[c], actual); !s)
        return fail(s);
      for (size_t k = 0; k < outputs.size(); ++k) {
        const HostTensor &want = mine[c].expected[k];
        const auto *a = static_cast<const unsigned char *>(actual[k].data());
        const auto *e = static_cast<const unsigned char *>(want.data());
        const size_t bytes = static_cast<size_t>(want.numBytes());
        if (bytes == 0 || std::memcmp(a, e, bytes) == 0)
          continue;
        if (mismatches++ == 0) {
          size_t at = 0;
          while (a[at] == e[at])
            ++at;
          std::lock_guard<std::mutex> lock(mutex);
          firstMismatch = "thread " + std::to_string(thread) + " context " +
                          std::to_string(c) + " enqueue " +
                          std::to_string(done + c) + ": output '" + want.name +
                          "' differs from byte " + std::to_string(at) +
                          " on (of " + std::to_string(bytes) + ")";
        }
      }
    }
    done += batch;
  }
}

} // namespace

rt::StatusOr<StressResult> stressPlan(rt::Runtime &runtime,
                                      const std::string &planBytes,
                                      const StressOptions &options) {
  if (options.threads < 1 || options.contexts < 1 || options.runs < 1)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "a stress run needs at least 1 thread, 1 context and 1 "
                      "run; got " +
                          std::to_string(options.threads) + ", " +
                          std::to_string(options.contexts) + " and " +
                          std::to_string(options.runs));
  StressRun run(runtime, options);
  if (rt::Status s = run.load(planBytes); !s)
    return s;
  if (rt::Status s = run.makeSlots(); !s)
    return s;
  if (rt::Status s = run.computeExpected(); !s)
    return s;

  auto begin = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t)
    threads.emplace_back([&run, t] { run.runThread(t); });
  for (std::thread &thread : threads)
    thread.join();
  auto end = std::chrono::steady_clock::now();
  if (!run.error.isOk())
    return run.error;
  for (void *&stream : run.streams) {
    rt::Status s = runtime.destroyStream(stream);
    stream = nullptr;
    if (!s)
      return s;
  }

  StressResult result;
  result.threads = options.threads;
  result.contexts = options.contexts;
  result.enqueues = run.enqueues;
  result.mismatches = run.mismatches;
  result.firstMismatch = run.firstMismatch;
  result.wallSeconds = std::chrono::duration<double>(end - begin).count();
  return result;
}

void printStress(std::ostream &out, const StressResult &r) {
  char line[160];
  out << "stress: " << r.threads << " threads x " << r.contexts
      << " contexts, outputs compared bit for bit with a single-threaded "
         "run\n"
      << "| threads | contexts | enqueues | mismatches | wall (s) | "
         "enqueues/s |\n"
      << "|---------|----------|----------|------------|----------|"
         "------------|\n";
  std::snprintf(line, sizeof(line),
                "| %7d | %8d | %8lld | %10lld | %8.3f | %10.0f |\n", r.threads,
                r.contexts, static_cast<long long>(r.enqueues),
                static_cast<long long>(r.mismatches), r.wallSeconds,
                r.wallSeconds > 0 ? r.enqueues / r.wallSeconds : 0.0);
  out << line;
  if (r.mismatches)
    out << "first mismatch: " << r.firstMismatch << "\n";
}

int runStress(rt::Runtime &runtime, const std::string &planBytes,
              const StressOptions &options, std::ostream &out,
              std::ostream &err, const std::string &tool) {
  auto result = stressPlan(runtime, planBytes, options);
  if (!result) {
    out.flush();
    err << tool << ": error: " << result.status().toString() << "\n";
    return 1;
  }
  printStress(out, *result);
  return result->mismatches ? 1 : 0;
}

} // namespace kiln::tooling
