//===- digits.cpp - the digits sample ---------------------------*- C++ -*-===//
//
// A CNN trained on scikit-learn's 8x8 digits (examples/digits/train.py, in
// numpy) built layer by layer with kiln's network API from its weights
// file, compiled to a plan, written, read back and run on the held-out
// digits: on the GPU with the runtime, or on kiln's CPU reference executor.
// Prints one digit as ASCII art with its probability histogram, and the
// accuracy against the training script's own.
//
//   kiln-digits [--backend=gpu|reference] [--fp16] [--plan FILE]
//               [--weights FILE] [--heldout FILE] [--onnx FILE]
//
// With --onnx, the same network exported to ONNX by the training script
// (digits.onnx) is compiled as kiln-compile compiles a model and run on the
// same backend: its predictions must be the same as the API's.
//
// Exits 0 when the accuracy is within 0.5 points of the training script's
// (and the ONNX model agrees), 1 otherwise or on an error (which it names);
// --backend=gpu without a GPU is an error, the default takes the GPU when
// there is one.
//
//===----------------------------------------------------------------------===//

#include "kiln/Builder/Builder.h"
#include "kiln/Compiler/Compiler.h"
#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/PlanRunner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

using namespace kiln;

namespace {

struct Trained {
  float accuracy = 0; // percent, held-out, as the training script measured
  std::map<std::string, std::pair<Dims, std::vector<float>>> tensors;
};

struct HeldOut {
  uint32_t count = 0;
  std::vector<uint8_t> pixels, labels;
};

bool readFile(const std::string &path, std::string &bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(f), {});
  return true;
}

/// Reads little-endian values from `bytes` at `at`, checking the bounds.
template <typename T> bool take(const std::string &bytes, size_t &at, T &v) {
  if (bytes.size() - at < sizeof(T) || at > bytes.size())
    return false;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  at += sizeof(T);
  return true;
}

/// The weights file (examples/digits/README.md); an error message or "".
std::string readWeights(const std::string &path, Trained &out) {
  std::string b;
  if (!readFile(path, b))
    return "cannot read " + path;
  size_t at = 4;
  uint32_t n = 0;
  if (b.compare(0, 4, "KDW1") != 0 || !take(b, at, out.accuracy) ||
      !take(b, at, n) || n > 64)
    return path + ": not a digits weights file (KDW1)";
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t length = 0, rank = 0;
    if (!take(b, at, length) || length > 256 || b.size() - at < length)
      return path + ": tensor " + std::to_string(i) + " is truncated";
    std::string name = b.substr(at, length);
    at += length;
    Dims dims;
    int64_t count = 1;
    if (!take(b, at, rank) || rank > 8)
      return path + ": '" + name + "' has a bad rank";
    for (uint32_t d = 0; d < rank; ++d) {
      int64_t v = 0;
      if (!take(b, at, v) || v <= 0 || v > (1 << 20))
        return path + ": '" + name + "' has a bad dimension";
      dims.push_back(v);
      count *= v;
    }
    if (count > (1 << 24) || b.size() - at < size_t(count) * 4)
      return path + ": '" + name + "' is truncated";
    std::vector<float> values(count);
    std::memcpy(values.data(), b.data() + at, count * 4);
    at += count * 4;
    out.tensors[name] = {dims, values};
  }
  return "";
}

std::string readHeldOut(const std::string &path, HeldOut &out) {
  std::string b;
  if (!readFile(path, b))
    return "cannot read " + path;
  size_t at = 4;
  if (b.compare(0, 4, "KDH1") != 0 || !take(b, at, out.count) ||
      out.count == 0 || b.size() != at + size_t(out.count) * 65)
    return path + ": not a held-out digits file (KDH1) of its stated size";
  out.pixels.assign(b.begin() + at, b.begin() + at + out.count * 64);
  out.labels.assign(b.begin() + at + out.count * 64, b.end());
  return "";
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = KILN_DIGITS_DIR, backend, planPath = "digits.kplan";
  std::string weightsPath = dir + "/digits.weights",
              heldOutPath = dir + "/heldout.bin", onnxPath;
  BuilderConfig config;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) {
      return a.rfind(flag, 0) == 0 ? a.substr(std::strlen(flag)) : "";
    };
    if (!value("--backend=").empty())
      backend = value("--backend=");
    else if (a == "--fp16")
      config.fp16 = true;
    else if (a == "--plan" && i + 1 < argc)
      planPath = argv[++i];
    else if (a == "--weights" && i + 1 < argc)
      weightsPath = argv[++i];
    else if (a == "--heldout" && i + 1 < argc)
      heldOutPath = argv[++i];
    else if (a == "--onnx" && i + 1 < argc)
      onnxPath = argv[++i];
    else {
      std::fprintf(stderr, "kiln-digits: unknown argument '%s'\n", argv[i]);
      return 1;
    }
  }
  if (!backend.empty() && backend != "gpu" && backend != "reference") {
    std::fprintf(stderr, "kiln-digits: --backend=gpu or --backend=reference\n");
    return 1;
  }
  Trained trained;
  HeldOut heldOut;
  for (const std::string &error :
       {readWeights(weightsPath, trained), readHeldOut(heldOutPath, heldOut)})
    if (!error.empty()) {
      std::fprintf(stderr, "kiln-digits: %s\n", error.c_str());
      return 1;
    }
  auto tensor = [&](const char *name) -> const std::vector<float> * {
    auto it = trained.tensors.find(name);
    return it == trained.tensors.end() ? nullptr : &it->second.second;
  };
  const std::vector<float> *convW = tensor("conv.kernel"),
                           *convB = tensor("conv.bias"),
                           *fcW = tensor("fc.kernel"), *fcB = tensor("fc.bias");
  if (!convW || !convB || !fcW || !fcB) {
    std::fprintf(stderr,
                 "kiln-digits: %s lacks conv.kernel, conv.bias, "
                 "fc.kernel or fc.bias\n",
                 weightsPath.c_str());
    return 1;
  }
  auto weights = [](const std::vector<float> *v) {
    return Weights{DataType::F32, v->data(), int64_t(v->size())};
  };

  // The network, as train.py defines it; every held-out digit in one batch.
  rt::StderrLogger logger(rt::Logger::Severity::Warning);
  auto start = std::chrono::steady_clock::now();
  NetworkDefinition network(logger);
  int64_t n = heldOut.count;
  Tensor digits = network.addInput("digits", DataType::F32, {n, 1, 8, 8});
  ConvolutionLayer conv =
      network.addConvolution(digits, 8, {3, 3}, weights(convW), weights(convB));
  conv.setPadding({1, 1});
  Layer relu = network.addActivation(conv.getOutput(), ActivationType::Relu);
  PoolingLayer pool =
      network.addPooling(relu.getOutput(), PoolingType::Max, {2, 2});
  Layer fc = network.addFullyConnected(pool.getOutput(), 10, weights(fcW),
                                       weights(fcB));
  SoftMaxLayer prob = network.addSoftMax(fc.getOutput());
  prob.getOutput().setName("prob");
  network.markOutput(prob.getOutput());
  Builder builder(logger);
  rt::StatusOr<std::string> plan = builder.buildSerializedPlan(network, config);
  if (!plan) {
    std::fprintf(stderr, "kiln-digits: %s\n", plan.status().toString().c_str());
    return 1;
  }
  double buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::ofstream(planPath, std::ios::binary) << *plan;
  std::printf("built %s in %.2f s (%zu bytes, %s)\n", planPath.c_str(),
              buildSeconds, plan->size(), config.fp16 ? "fp16" : "fp32");

  auto input =
      tooling::HostTensor::create("digits", DataType::F32, {n, 1, 8, 8});
  auto *pixels = static_cast<float *>(input->data());
  for (size_t i = 0; i < heldOut.pixels.size(); ++i)
    pixels[i] = heldOut.pixels[i] / 16.0f;
  std::vector<tooling::HostTensor> outputs;
  std::unique_ptr<rt::Runtime> runtime;
  if (backend != "reference") {
    auto created = rt::Runtime::create(&logger);
    if (created)
      runtime = std::move(*created);
    else if (backend == "gpu") {
      std::fprintf(stderr, "kiln-digits: --backend=gpu: %s\n",
                   created.status().toString().c_str());
      return 1;
    }
  }
  auto runPlan = [&](const std::string &bytes,
                     std::vector<tooling::HostTensor> &out) {
    auto runner = tooling::PlanRunner::create(*runtime, bytes);
    return runner ? (*runner)->run({*input}, out) : runner.status();
  };
  if (runtime) {
    std::string bytes;
    readFile(planPath, bytes); // the plan as written, deserialized
    if (rt::Status s = runPlan(bytes, outputs); !s) {
      std::fprintf(stderr, "kiln-digits: %s\n", s.toString().c_str());
      return 1;
    }
  } else if (rt::Status s = builder.runReference(network, {*input}, outputs);
             !s) {
    std::fprintf(stderr, "kiln-digits: %s\n", s.toString().c_str());
    return 1;
  }

  // The first held-out digit and its probabilities, then the accuracy.
  const tooling::HostTensor &p = outputs[0];
  for (int r = 0; r < 8; ++r) {
    std::string line;
    for (int c = 0; c < 8; ++c)
      line += " .:-=+*#%@"[std::min(9, heldOut.pixels[r * 8 + c] * 10 / 17)];
    std::printf("  %s\n", line.c_str());
  }
  std::printf("label %d:\n", heldOut.labels[0]);
  for (int k = 0; k < 10; ++k)
    std::printf("  %d %6.4f %s\n", k, p.at(k),
                std::string(size_t(std::lround(p.at(k) * 40)), '#').c_str());
  auto predicted = [](const tooling::HostTensor &probs, int64_t i) {
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (probs.at(i * 10 + k) > probs.at(i * 10 + best))
        best = k;
    return best;
  };
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i)
    correct += predicted(p, i) == heldOut.labels[i];
  double accuracy = 100.0 * double(correct) / double(n);
  bool close = std::abs(accuracy - trained.accuracy) <= 0.5;
  std::printf("accuracy on %lld held-out digits (%s): %.2f%%; the training "
              "script's: %.2f%% (%s)\n",
              static_cast<long long>(n), runtime ? "GPU" : "CPU reference",
              accuracy, double(trained.accuracy),
              close ? "within 0.5 points" : "MORE than 0.5 points apart");
  if (onnxPath.empty())
    return close ? 0 : 1;

  // The ONNX export, compiled as kiln-compile does, on the same backend.
  mlir::kiln::CompilerOptions options;
  options.kernels.precision =
      config.fp16 ? mlir::kiln::Precision::FP16 : mlir::kiln::Precision::FP32;
  mlir::kiln::Compiler compiler(options);
  mlir::kiln::DiagnosticPrinter printer(compiler.getContext(), "kiln-digits");
  auto module = compiler.importFile(onnxPath);
  if (mlir::failed(module))
    return 1;
  std::vector<tooling::HostTensor> onnxOutputs;
  rt::Status ran = rt::Status::ok();
  if (runtime) {
    auto onnxPlan = compiler.compileToPlan(**module);
    if (mlir::failed(onnxPlan))
      return 1;
    ran = runPlan(*onnxPlan, onnxOutputs);
  } else {
    auto executor = compiler.compileReference(std::move(*module));
    if (mlir::failed(executor))
      return 1;
    ran = (*executor)->run({*input}, onnxOutputs);
  }
  if (!ran) {
    std::fprintf(stderr, "kiln-digits: %s: %s\n", onnxPath.c_str(),
                 ran.toString().c_str());
    return 1;
  }
  int64_t same = 0;
  for (int64_t i = 0; i < n; ++i)
    same += predicted(onnxOutputs[0], i) == predicted(p, i);
  rt::Status closeProbs = tooling::compareTensors(
      onnxOutputs[0], p, tooling::Tolerance{config.fp16 ? 2e-2 : 1e-4, 0});
  std::printf("%s: the same prediction for %lld of %lld digits; "
              "probabilities %s\n",
              onnxPath.c_str(), static_cast<long long>(same),
              static_cast<long long>(n),
              closeProbs ? "match" : closeProbs.message().c_str());
  return close && same == n && closeProbs ? 0 : 1;
}
