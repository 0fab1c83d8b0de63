//===- CublasLtTactics.cpp - timing cuBLASLt's candidates -------*- C++ -*-===//
//
// selectTactics (kiln/runtime/Tactics.h): each distinct product gets its own
// buffers (random finite values), a stream and two events; every candidate
// runs `warmup` times, then `iterations` times between the events.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Tactics.h"

#include "cublas/CublasLt.h"
#include "cublas/CublasLtProduct.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Runtime.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

namespace kiln::rt {

namespace {

using detail::CublasLt;
using detail::CublasLtAlgo;
using detail::CublasLtProduct;

/// Device memory and a stream and events, released however the timing ends.
class Scratch {
public:
  explicit Scratch(Runtime &runtime) : runtime(runtime) {}
  ~Scratch() {
    for (uint64_t p : buffers)
      if (p)
        runtime.free(p);
    (void)runtime.destroyEvent(start);
    (void)runtime.destroyEvent(end);
    (void)runtime.destroyStream(stream);
  }
  Status init() {
    auto s = runtime.createStream();
    if (!s.isOk())
      return s.status();
    stream = *s;
    for (void **event : {&start, &end}) {
      auto e = runtime.createEvent();
      if (!e.isOk())
        return e.status();
      *event = *e;
    }
    return Status::ok();
  }
  /// A buffer of `bytes` (none for 0) of random finite values of `type`.
  Status add(uint64_t bytes, DataType type, std::mt19937 &rng) {
    if (bytes == 0) {
      buffers.push_back(0);
      return Status::ok();
    }
    auto p = runtime.allocate(bytes);
    if (!p.isOk())
      return p.status();
    buffers.push_back(*p);
    std::vector<uint8_t> host(bytes);
    std::uniform_int_distribution<uint32_t> bits;
    size_t size = static_cast<size_t>(dataTypeBytes(type));
    for (size_t i = 0; i + size <= host.size(); i += size) {
      uint32_t r = bits(rng), v;
      if (type == DataType::F16) // magnitude in [2^-5, 2), random sign
        v = (r & 0x83ffu) | ((10u + (r >> 16) % 6u) << 10);
      else if (type == DataType::BF16) // likewise, 7 mantissa bits
        v = (r & 0x807fu) | ((122u + (r >> 16) % 6u) << 7);
      else
        v = (r & 0x807fffffu) | ((122u + (r >> 24) % 6u) << 23);
      std::memcpy(&host[i], &v, size);
    }
    return runtime.copyToDevice(*p, host.data(), bytes);
  }

  Runtime &runtime;
  std::vector<uint64_t> buffers;
  void *stream = nullptr, *start = nullptr, *end = nullptr;
};

/// Microseconds per call of `algo`, or why it cannot run.
StatusOr<double> timeAlgorithm(CublasLtProduct &product,
                               const CublasLtAlgo &algo, Scratch &scratch,
                               const TacticOptions &options) {
  for (int i = 0; i < std::max(options.warmup, 1); ++i)
    if (Status s = product.run(algo, scratch.stream, scratch.buffers.data());
        !s)
      return s;
  if (Status s = scratch.runtime.recordEvent(scratch.start, scratch.stream); !s)
    return s;
  int iterations = std::max(options.iterations, 1);
  for (int i = 0; i < iterations; ++i)
    if (Status s = product.run(algo, scratch.stream, scratch.buffers.data());
        !s)
      return s;
  if (Status s = scratch.runtime.recordEvent(scratch.end, scratch.stream); !s)
    return s;
  auto ms = scratch.runtime.elapsedMs(scratch.start, scratch.end);
  if (!ms.isOk())
    return ms.status();
  return double(*ms) * 1e3 / iterations;
}

/// Times the candidates of `params`' product; the choice's algorithm
/// in `recorded`.
StatusOr<TacticChoice> measure(Runtime &runtime, const CublasLt &lt,
                               const CublasLtMatmulParams &params,
                               const TacticOptions &options,
                               CublasLtAlgorithm &recorded) {
  auto product = CublasLtProduct::create(lt, params);
  if (!product.isOk())
    return product.status();
  // Buffers first: allocating makes the device's context current on this
  // thread, which cuBLASLt's calls need.
  Scratch scratch(runtime);
  if (Status s = scratch.init(); !s)
    return s;
  std::mt19937 rng(20261203);
  DataType in = params.type, out = params.outType;
  for (auto [bytes, type] :
       {std::pair{params.bytesA(), in}, std::pair{params.bytesB(), in},
        std::pair{params.bytesD(), out},
        std::pair{params.workspaceBytes, DataType::U8}})
    if (Status s = scratch.add(bytes, type, rng); !s)
      return s;
  if (params.epilogue != CublasLtMatmulParams::Epilogue::None)
    if (Status s = scratch.add(params.bytesBias(), out, rng); !s)
      return s;
  if (params.residual)
    if (Status s = scratch.add(params.bytesD(), out, rng); !s)
      return s;

  auto candidates = (*product)->candidates(options.candidates);
  if (!candidates.isOk())
    return candidates.status();
  TacticChoice choice;
  choice.problem = (*product)->problem();
  Status lastRefusal = Status::ok();
  int best = -1;
  for (size_t i = 0; i < candidates->size(); ++i) {
    // What runs is what a plan gives back: the candidate's configuration,
    // rebuilt (CublasLtProduct::rebuild), as the runtime will at load.
    CublasLtAlgorithm configuration = (*product)->record((*candidates)[i].algo);
    auto rebuilt = (*product)->rebuild(configuration);
    StatusOr<double> us =
        rebuilt.isOk() ? timeAlgorithm(**product, *rebuilt, scratch, options)
                       : StatusOr<double>(rebuilt.status());
    if (!us.isOk()) { // e.g. an alignment this algorithm does not take
      lastRefusal = us.status();
      continue;
    }
    ++choice.timed;
    if (i == 0) {
      choice.heuristic = CublasLtProduct::describe(configuration);
      choice.heuristicUs = *us;
    }
    if (best < 0 || *us < choice.chosenUs) {
      best = static_cast<int>(i);
      choice.chosenUs = *us;
    }
  }
  if (best < 0)
    return Status(StatusCode::DriverError,
                  "no cuBLASLt candidate for " + choice.problem +
                      " ran: " + lastRefusal.message());
  const auto &chosen = (*candidates)[best];
  recorded = (*product)->record(chosen.algo);
  recorded.workspaceBytes = chosen.workspaceSize;
  choice.chosen = CublasLtProduct::describe(recorded);
  recorded.cublasLtVersion = lt.api.getVersion();
  const DeviceInfo &device = runtime.device();
  recorded.computeCapability = static_cast<uint32_t>(
      device.computeCapabilityMajor * 10 + device.computeCapabilityMinor);
  return choice;
}

} // namespace

StatusOr<std::vector<TacticChoice>>
selectTactics(Runtime &runtime, PlanContents &plan,
              const TacticOptions &options) {
  std::vector<TacticChoice> choices;
  std::vector<std::pair<size_t, std::string>> payloads;
  // Products by their payload without an algorithm: the first step's
  // choice and algorithm.
  std::map<std::string, std::pair<TacticChoice, CublasLtAlgorithm>> measured;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (step.kind != Step::Kind::LibraryCall ||
        step.libraryCall.callee != CublasLtMatmulParams::kCallee)
      continue;
    auto params = decodeCublasLtMatmul(step.libraryCall.payload);
    if (!params.isOk())
      return Status(params.status().code(), "step " + std::to_string(i) + ": " +
                                                params.status().message());
    params->algorithm.reset();
    std::string key = encodeCublasLtMatmul(*params);
    auto found = measured.find(key);
    bool reused = found != measured.end();
    if (!reused) {
      auto lt = CublasLt::get();
      if (!lt.isOk())
        return lt.status();
      CublasLtAlgorithm algorithm;
      auto choice = measure(runtime, **lt, *params, options, algorithm);
      if (!choice.isOk())
        return Status(
            choice.status().code(),
            "step " + std::to_string(i) +
                " (call 'cublaslt.matmul'): " + choice.status().message());
      found = measured.emplace(key, std::pair{*choice, algorithm}).first;
    }
    TacticChoice choice = found->second.first;
    choice.reused = reused;
    choice.step = i;
    choice.callee = step.libraryCall.callee;
    choices.push_back(choice);
    params->algorithm = found->second.second;
    payloads.emplace_back(i, encodeCublasLtMatmul(*params));
  }
  for (auto &[index, payload] : payloads)
    plan.steps[index].libraryCall.payload = std::move(payload);
  return choices;
}

} // namespace kiln::rt
