//===- lenet-api.cpp - a network built with the C++ API ---------*- C++ -*-===//
//
// TensorRT's sampleMNISTAPI flow (TensorRT 5 developer guide, section 2.2.1)
// with kiln's network definition API: build LeNet-5 layer by layer (seeded
// random weights, as the trained ones come with the digits sample), build a
// plan and write it to a file, read it back, run it with the runtime on the
// GPU, and check the result against kiln's CPU reference executor on the same
// input.
//
//   kiln-lenet-api [plan.kplan] [--fp16]
//
// Exits 0 when the GPU's output matches the reference (rtol 1e-3 of the
// output's magnitude, 2e-2 with --fp16); 1 on a mismatch or an error; 2
// when there is no GPU (the plan is still built and written).
//
//===----------------------------------------------------------------------===//

#include "kiln/Builder/Builder.h"
#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/PlanRunner.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

using namespace kiln;

namespace {
/// `n` values uniform in [-scale, scale) from `rng`.
std::vector<float> values(std::mt19937 &rng, size_t n, float scale) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

Weights weights(const std::vector<float> &v) {
  return {DataType::F32, v.data(), int64_t(v.size())};
}
} // namespace

int main(int argc, char **argv) {
  std::string path = "lenet-api.kplan";
  BuilderConfig config;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fp16") == 0)
      config.fp16 = true;
    else
      path = argv[i];
  }
  rt::StderrLogger logger(rt::Logger::Severity::Warning);

  // LeNet-5: conv 5x5 (20) - max pool 2 - conv 5x5 (50) - max pool 2 -
  // fully connected 500 - ReLU - fully connected 10 - softmax.
  std::mt19937 rng(2026);
  auto conv1w = values(rng, 20 * 1 * 5 * 5, 0.2f),
       conv1b = values(rng, 20, 0.1f);
  auto conv2w = values(rng, 50 * 20 * 5 * 5, 0.05f),
       conv2b = values(rng, 50, 0.1f);
  auto ip1w = values(rng, 500 * 800, 0.03f), ip1b = values(rng, 500, 0.1f);
  auto ip2w = values(rng, 10 * 500, 0.05f), ip2b = values(rng, 10, 0.1f);

  NetworkDefinition network(logger);
  Tensor data = network.addInput("data", DataType::F32, {1, 1, 28, 28});
  ConvolutionLayer conv1 = network.addConvolution(
      data, 20, {5, 5}, weights(conv1w), weights(conv1b));
  conv1.setName("conv1");
  PoolingLayer pool1 =
      network.addPooling(conv1.getOutput(), PoolingType::Max, {2, 2});
  ConvolutionLayer conv2 = network.addConvolution(
      pool1.getOutput(), 50, {5, 5}, weights(conv2w), weights(conv2b));
  PoolingLayer pool2 =
      network.addPooling(conv2.getOutput(), PoolingType::Max, {2, 2});
  Layer ip1 = network.addFullyConnected(pool2.getOutput(), 500, weights(ip1w),
                                        weights(ip1b));
  Layer relu = network.addActivation(ip1.getOutput(), ActivationType::Relu);
  Layer ip2 = network.addFullyConnected(relu.getOutput(), 10, weights(ip2w),
                                        weights(ip2b));
  SoftMaxLayer prob = network.addSoftMax(ip2.getOutput());
  prob.getOutput().setName("prob");
  network.markOutput(prob.getOutput());

  Builder builder(logger);
  rt::StatusOr<std::string> plan = builder.buildSerializedPlan(network, config);
  if (!plan) {
    std::fprintf(stderr, "kiln-lenet-api: %s\n",
                 plan.status().toString().c_str());
    return 1;
  }
  std::ofstream(path, std::ios::binary) << *plan;
  std::printf("built %s: %zu layers, %zu bytes\n", path.c_str(),
              size_t(network.getNbLayers()), plan->size());

  // An input, and the reference's answer.
  auto input =
      tooling::HostTensor::create("data", DataType::F32, {1, 1, 28, 28});
  std::vector<float> pixels = values(rng, 28 * 28, 1.0f);
  std::memcpy(input->data(), pixels.data(), pixels.size() * 4);
  std::vector<tooling::HostTensor> reference;
  if (rt::Status s = builder.runReference(network, {*input}, reference); !s) {
    std::fprintf(stderr, "kiln-lenet-api: reference: %s\n",
                 s.toString().c_str());
    return 1;
  }

  // The plan from its file, on the GPU.
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  auto runtime = rt::Runtime::create(&logger);
  if (!runtime) {
    std::printf("no GPU here (%s): the plan is written, not run\n",
                runtime.status().toString().c_str());
    return 2;
  }
  auto runner = tooling::PlanRunner::create(**runtime, bytes);
  if (!runner) {
    std::fprintf(stderr, "kiln-lenet-api: %s\n",
                 runner.status().toString().c_str());
    return 1;
  }
  std::vector<tooling::HostTensor> outputs;
  if (rt::Status s = (*runner)->run({*input}, outputs); !s) {
    std::fprintf(stderr, "kiln-lenet-api: %s\n", s.toString().c_str());
    return 1;
  }
  tooling::Tolerance tolerance{config.fp16 ? 2e-2 : 1e-3, 0};
  rt::Status match =
      tooling::compareTensors(outputs[0], reference[0], tolerance);
  int best = 0;
  for (int i = 0; i < 10; ++i)
    if (outputs[0].at(i) > outputs[0].at(best))
      best = i;
  std::printf("GPU: class %d with probability %.4f; %s the reference "
              "(rtol %g)\n",
              best, outputs[0].at(best), match ? "matches" : "DIFFERS from",
              tolerance.rtol);
  if (!match)
    std::printf("%s\n", match.message().c_str());
  return match ? 0 : 1;
}
