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
  /// Run-time shapes: each dynamic input's shape for this context (plan
  /// order; empty for static inputs and static plans).
  std::vector<std::vector<int64_t>> shapes;
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

uint64_t bufferBytes(rt::TensorDesc desc, const std::vector<int64_t> &shape) {
  // Zero-size tensors still get a (1-byte) buffer to bind; a dynamic one
  // holds its largest shape.
  desc.shape = shape;
  return static_cast<uint64_t>(std::max<int64_t>(desc.numBytes(), 1));
}

/// The shapes of context `k` of a plan with run-time shapes: each symbol
/// takes a value of its range in profile 0, spread over the contexts (the
/// first its smallest, the second its largest, the others between).
std::vector<std::vector<int64_t>> shapesOf(const rt::PlanContents &plan,
                                           int k) {
  std::vector<std::vector<int64_t>> shapes(plan.tensors.size());
  for (size_t s = 0; s < plan.symbols.size(); ++s) {
    const rt::DimRef &first = plan.symbols[s].dims.front();
    const rt::ShapeRange &r = plan.tensors[first.tensor].profiles[0];
    int64_t lo = r.min[first.dim], hi = r.max[first.dim];
    int64_t value = k == 0 ? lo
                    : k == 1
                        ? hi
                        : lo + (int64_t(k) * 7919 + int64_t(s)) % (hi - lo + 1);
    for (const rt::DimRef &d : plan.symbols[s].dims) {
      if (shapes[d.tensor].empty())
        shapes[d.tensor] = plan.tensors[d.tensor].shape;
      shapes[d.tensor][d.dim] = value;
    }
  }
  return shapes;
}

rt::Status StressRun::load(const std::string &planBytes) {
  auto loaded = runtime.deserializeEngine(planBytes.data(), planBytes.size());
  if (!loaded)
    return loaded.status();
  engine = std::move(*loaded);
  for (int i = 0; i < engine->numTensors(); ++i)
    (engine->tensor(i).isInput ? inputs : outputs).push_back(i);
  auto context = engine->createExecutionContext();
  if (!context)
    return context.status();
  reference = std::move(*context);
  return rt::Status::ok();
}

rt::Status StressRun::makeSlots() {
  std::vector<std::vector<int64_t>> largest = rt::largestShapes(engine->plan());
  slots.resize(options.threads);
  for (int t = 0; t < options.threads; ++t) {
    slots[t].resize(options.contexts);
    for (int c = 0; c < options.contexts; ++c) {
      Slot &slot = slots[t][c];
      auto context = engine->createExecutionContext();
      if (!context)
        return context.status();
      slot.context = std::move(*context);
      if (engine->hasDynamicShapes())
        slot.shapes = shapesOf(engine->plan(), t * options.contexts + c);
      for (int i = 0; i < engine->numTensors(); ++i) {
        const rt::TensorDesc &desc = engine->tensor(i);
        auto ptr = runtime.allocate(bufferBytes(desc, largest[i]));
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
        if (!slot.shapes.empty() && !slot.shapes[i].empty())
          if (rt::Status s =
                  slot.context->setInputShape(desc.name, slot.shapes[i]);
              !s)
            return s;
        auto tensor = HostTensor::create(
            desc.name, desc.type,
            slot.shapes.empty() || slot.shapes[i].empty() ? desc.shape
                                                          : slot.shapes[i]);
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
  // The reference context takes each slot's shapes in turn.
  for (size_t i = 0; i < slot.shapes.size(); ++i)
    if (!slot.shapes[i].empty())
      if (rt::Status s =
              context.setInputShape(engine->tensor(i).name, slot.shapes[i]);
          !s)
        return s;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const HostTensor &t = slot.inputs[k];
    if (rt::Status s = runtime.copyToDevice(slot.buffers[inputs[k]], t.data(),
                                            t.numBytes());
        !s)
      return s;
  }
  for (size_t k = 0; k < outputs.size(); ++k)
    if (rt::Status s = runtime.memset(slot.buffers[outputs[k]], 0xFF,
                                      slot.expected[k].numBytes());
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

/// Host tensors for the outputs, at the shapes `context` has.
rt::Status makeOutputs(const rt::Engine &engine,
                       const rt::ExecutionContext &context,
                       const std::vector<int> &outputs,
                       std::vector<HostTensor> &out) {
  for (int i : outputs) {
    const rt::TensorDesc &desc = engine.tensor(i);
    auto shape = context.getTensorShape(desc.name);
    if (!shape)
      return shape.status();
    auto tensor = HostTensor::create(desc.name, desc.type, *shape);
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
      if (rt::Status s =
              makeOutputs(*engine, *slot.context, outputs, slot.expected);
          !s)
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
  // Per context: its outputs' shapes may differ.
  std::vector<std::vector<HostTensor>> actual(mine.size());
  for (size_t c = 0; c < mine.size(); ++c)
    if (rt::Status s =
            makeOutputs(*engine, *mine[c].context, outputs, actual[c]);
        !s)
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
      if (rt::Status s = download(mine[c], actual[c]); !s)
        return fail(s);
      for (size_t k = 0; k < outputs.size(); ++k) {
        const HostTensor &want = mine[c].expected[k];
        const auto *a = static_cast<const unsigned char *>(actual[c][k].data());
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
