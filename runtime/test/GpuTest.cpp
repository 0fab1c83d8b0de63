//===- GpuTest.cpp - engines on the machine's real GPU ----------*- C++ -*-===//
//
// The runtime on the real CUDA driver, when the machine has one (otherwise
// every test here is skipped with the reason): a plan with hand-written PTX
// for sm_80, which the driver JIT-compiles for any newer device, run on
// random data and compared with the same arithmetic on the host; a plan with
// code only for another architecture, refused before anything is loaded; and
// PTX that does not compile, reported with the JIT compiler's log.
//
//===----------------------------------------------------------------------===//

#include "GpuTestPlans.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Runtime.h"
#include "kiln/runtime/Tactics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

class GpuEngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto runtime = Runtime::create(&logger_);
    if (!runtime) {
      StatusCode code = runtime.status().code();
      ASSERT_TRUE(code == StatusCode::DriverUnavailable ||
                  code == StatusCode::NoDevice)
          << runtime.status().toString();
      GTEST_SKIP() << "no usable CUDA driver here: "
                   << runtime.status().toString();
    }
    runtime_ = std::move(*runtime);
  }

  StderrLogger logger_{Logger::Severity::Warning};
  std::unique_ptr<Runtime> runtime_;
};

TEST_F(GpuEngineTest, PtxPlanMatchesTheHost) {
  const int64_t n = 100003;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> x(n), w(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = dist(random);
    w[i] = dist(random);
  }
  auto file = writePlan(axpbPlan(n, w));
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk()) << context.status().toString();

  uint64_t bytes = n * sizeof(float);
  auto dx = runtime_->allocate(bytes), dy = runtime_->allocate(bytes);
  ASSERT_TRUE(dx.isOk() && dy.isOk());
  ASSERT_TRUE(runtime_->copyToDevice(*dx, x.data(), bytes));
  ASSERT_TRUE(runtime_->memset(*dy, 0xFF, bytes));
  ASSERT_TRUE((*context)->setTensorAddress("x", *dx));
  ASSERT_TRUE((*context)->setTensorAddress("y", *dy));

  auto stream = runtime_->createStream();
  auto start = runtime_->createEvent(), end = runtime_->createEvent();
  auto consumed = runtime_->createEvent();
  ASSERT_TRUE(stream.isOk() && start.isOk() && end.isOk() && consumed.isOk());
  // The input-consumed event completes between the two around the enqueue.
  (*context)->setInputConsumedEvent(*consumed);
  ASSERT_TRUE(runtime_->recordEvent(*start, *stream));
  Status enqueued = (*context)->enqueue(*stream);
  ASSERT_TRUE(enqueued) << enqueued.toString();
  ASSERT_TRUE(runtime_->recordEvent(*end, *stream));
  auto ms = runtime_->elapsedMs(*start, *end);
  ASSERT_TRUE(ms.isOk()) << ms.status().toString();
  EXPECT_GE(*ms, 0.0f);
  auto toConsumed = runtime_->elapsedMs(*start, *consumed);
  auto fromConsumed = runtime_->elapsedMs(*consumed, *end);
  ASSERT_TRUE(toConsumed.isOk() && fromConsumed.isOk());
  EXPECT_GE(*toConsumed, 0.0f);
  EXPECT_GE(*fromConsumed, 0.0f);
  (*context)->setInputConsumedEvent(nullptr);
  EXPECT_TRUE(runtime_->destroyEvent(*consumed));
  ASSERT_TRUE(runtime_->synchronize(*stream));

  std::vector<float> y(n);
  ASSERT_TRUE(runtime_->copyToHost(y.data(), *dy, bytes));
  // add.rn and fma.rn are correctly rounded, as are the host's float + and
  // std::fma: the results must be identical (tolerance 0).
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], std::fma(0.5f, x[i] + w[i], -3.0f)) << "at " << i;

  // execute() on the context's own stream gives the same.
  ASSERT_TRUE(runtime_->memset(*dy, 0, bytes));
  ASSERT_TRUE((*context)->execute());
  std::vector<float> again(n);
  ASSERT_TRUE(runtime_->copyToHost(again.data(), *dy, bytes));
  EXPECT_EQ(again, y);

  // So does a CUDA graph of the steps, twice, and again after the output
  // moves (captured again, the graph updated in place).
  (*context)->setCudaGraphs(true);
  auto dz = runtime_->allocate(bytes);
  ASSERT_TRUE(dz.isOk());
  for (uint64_t out : {*dy, *dy, *dz}) {
    ASSERT_TRUE((*context)->setTensorAddress("y", out));
    ASSERT_TRUE(runtime_->memset(out, 0, bytes));
    Status graph = (*context)->enqueue(*stream);
    ASSERT_TRUE(graph) << graph.toString();
    ASSERT_TRUE(runtime_->synchronize(*stream));
    ASSERT_TRUE(runtime_->copyToHost(again.data(), out, bytes));
    EXPECT_EQ(again, y);
  }
  EXPECT_EQ((*context)->graphCaptures(), 2);
  runtime_->free(*dz);

  EXPECT_TRUE(runtime_->destroyEvent(*start));
  EXPECT_TRUE(runtime_->destroyEvent(*end));
  EXPECT_TRUE(runtime_->destroyStream(*stream));
  runtime_->free(*dx);
  runtime_->free(*dy);
}

TEST_F(GpuEngineTest, OnePlanRunsEveryShapeOfItsProfile) {
  const int64_t maxRows = 64, cols = 1001;
  std::mt19937 random(11);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> x(maxRows * cols), w(maxRows * cols);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = dist(random);
    w[i] = dist(random);
  }
  auto file = writePlan(dynamicAxpbPlan(maxRows, cols, w));
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk()) << context.status().toString();
  ExecutionContext &c = **context;
  uint64_t bytes = x.size() * sizeof(float);
  auto dx = runtime_->allocate(bytes), dy = runtime_->allocate(bytes);
  auto stream = runtime_->createStream();
  ASSERT_TRUE(dx.isOk() && dy.isOk() && stream.isOk());
  ASSERT_TRUE(runtime_->copyToDevice(*dx, x.data(), bytes));
  ASSERT_TRUE(c.setTensorAddress("x", *dx, bytes));
  ASSERT_TRUE(c.setTensorAddress("y", *dy, bytes));
  std::vector<float> y(x.size());
  // Rows computed exactly (add.rn and fma.rn as on the host); the rest of
  // the buffer keeps its 0xFF bytes.
  auto check = [&](int64_t rows) {
    ASSERT_TRUE(runtime_->copyToHost(y.data(), *dy, bytes));
    for (int64_t i = 0; i < rows * cols; ++i)
      ASSERT_EQ(y[i], std::fma(0.5f, x[i] + w[i], -3.0f))
          << "at " << i << " of " << rows << " rows";
    uint32_t tail;
    std::memcpy(&tail, &y[rows * cols], sizeof(tail));
    if (rows < maxRows) {
      ASSERT_EQ(tail, 0xFFFFFFFFu) << rows << " rows wrote past their end";
    }
  };
  // Steps, then one CUDA graph per shape; min, between, opt, max, and back.
  for (bool graphs : {false, true}) {
    c.setCudaGraphs(graphs);
    for (int64_t rows : {1, 7, 8, 33, 64, 7}) {
      ASSERT_TRUE(runtime_->memset(*dy, 0xFF, bytes));
      ASSERT_TRUE(c.setInputShape("x", {rows, cols}));
      EXPECT_EQ(*c.getTensorShape("y"), (std::vector<int64_t>{rows, cols}));
      Status s = c.enqueue(*stream);
      ASSERT_TRUE(s) << s.toString();
      ASSERT_TRUE(runtime_->synchronize(*stream));
      check(rows);
    }
  }
  EXPECT_EQ(c.graphCaptures(), 5);
  EXPECT_EQ(c.cachedGraphs(), 5);
  // The seeds' call.
  void *bindings[] = {reinterpret_cast<void *>(*dx),
                      reinterpret_cast<void *>(*dy)};
  for (int32_t batch : {1, 7, 64}) {
    ASSERT_TRUE(runtime_->memset(*dy, 0xFF, bytes));
    Status s = c.enqueue(batch, bindings, *stream, nullptr);
    ASSERT_TRUE(s) << s.toString();
    ASSERT_TRUE(runtime_->synchronize(*stream));
    check(batch);
  }
  EXPECT_FALSE(c.enqueue(65, bindings, *stream, nullptr));
  EXPECT_TRUE(runtime_->destroyStream(*stream));
  runtime_->free(*dx);
  runtime_->free(*dy);
}

TEST_F(GpuEngineTest, CodeForAnotherArchitectureIsRefused) {
  const DeviceInfo &device = runtime_->device();
  // A cubin for the next major architecture: no device runs it. Its bytes
  // are garbage, which does not matter: the error comes before loading.
  uint32_t arch = static_cast<uint32_t>(device.computeCapabilityMajor + 1) * 10;
  PlanContents plan = axpbPlan(16, std::vector<float>(16, 1.0f));
  plan.compatibility.archs = {arch};
  plan.images[0].format = KernelImage::Format::Cubin;
  plan.images[0].arch = arch;
  plan.images[0].data = std::string(1000, '\x5A');
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(engine.status().message(),
            "plan has code for sm_" + std::to_string(arch) +
                " (cubin); device " + std::to_string(device.ordinal) + " '" +
                device.name + "' is " + device.smArch());
}

TEST_F(GpuEngineTest, BrokenPtxReportsTheJitLog) {
  PlanContents plan = axpbPlan(16, std::vector<float>(16, 1.0f));
  plan.kernels = {kernel("broken", {})};
  plan.steps.clear();
  plan.images[0].data = ".version 7.0\n.target sm_80\n.address_size 64\n"
                        ".visible .entry broken()\n{\n  bogus.instruction;\n"
                        "  ret;\n}\n";
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::DriverError);
  EXPECT_THAT(engine.status().message(),
              HasSubstr("loading the compute_80 PTX (image 0) failed: "
                        "cuModuleLoadDataEx failed with "
                        "CUDA_ERROR_INVALID_PTX"));
  EXPECT_THAT(engine.status().message(), HasSubstr("; JIT log:\n"));
}

/// out (m x n) = relu(in (m x k) * w (k x n) + bias (n)) in full f32, one
/// cuBLASLt step with a 1 MiB workspace.
PlanContents cublasLtPlan(int64_t m, int64_t n, int64_t k,
                          const std::vector<float> &w,
                          const std::vector<float> &bias) {
  CublasLtMatmulParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = k;
  p.ldb = n;
  p.ldd = n;
  p.workspaceBytes = 1 << 20;
  p.epilogue = CublasLtMatmulParams::Epilogue::ReluBias;
  PlanContents plan;
  plan.compatibility.kilnVersion = "test";
  plan.compatibility.precision = "fp32";
  plan.tensors = {{"in", DataType::F32, {m, k}, true},
                  {"out", DataType::F32, {m, n}, false}};
  plan.weights.resize((w.size() + bias.size()) * 4);
  std::memcpy(plan.weights.data(), w.data(), w.size() * 4);
  std::memcpy(plan.weights.data() + w.size() * 4, bias.data(), bias.size() * 4);
  plan.arenaBytes = p.workspaceBytes;
  plan.steps = {libraryCallStep(CublasLtMatmulParams::kCallee,
                                {{tensor(0, 0), uint64_t(m * k * 4)},
                                 {weights(0), uint64_t(k * n * 4)},
                                 {tensor(1, 0), uint64_t(m * n * 4)},
                                 {arena(0), p.workspaceBytes},
                                 {weights(k * n * 4), uint64_t(n * 4)}},
                                encodeCublasLtMatmul(p))};
  return plan;
}

// Tactic selection with the real cuBLASLt: the recorded algorithm runs and
// computes the product; a configuration cuBLASLt does not take is refused at
// load.
TEST_F(GpuEngineTest, CublasLtRecordedAlgorithmRunsAndAForeignOneIsRefused) {
  const int64_t m = 96, n = 80, k = 112;
  std::vector<float> in = randomFloats(m * k, 11), w = randomFloats(k * n, 12),
                     bias = randomFloats(n, 13);
  PlanContents plan = cublasLtPlan(m, n, k, w, bias);
  auto choices = selectTactics(*runtime_, plan);
  ASSERT_TRUE(choices.isOk()) << choices.status().toString();
  ASSERT_EQ(choices->size(), 1u);
  EXPECT_GE((*choices)[0].timed, 1);
  std::fprintf(stderr,
               "chose %s (%.2f us; the heuristic's first %s: %.2f us)\n",
               (*choices)[0].chosen.c_str(), (*choices)[0].chosenUs,
               (*choices)[0].heuristic.c_str(), (*choices)[0].heuristicUs);
  auto params = decodeCublasLtMatmul(plan.steps[0].libraryCall.payload);
  ASSERT_TRUE(params.isOk() && params->algorithm.has_value());

  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  auto engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk()) << context.status().toString();
  auto din = runtime_->allocate(m * k * 4),
       dout = runtime_->allocate(m * n * 4);
  ASSERT_TRUE(din.isOk() && dout.isOk());
  ASSERT_TRUE(runtime_->copyToDevice(*din, in.data(), m * k * 4));
  ASSERT_TRUE((*context)->setTensorAddress("in", *din));
  ASSERT_TRUE((*context)->setTensorAddress("out", *dout));
  ASSERT_TRUE((*context)->execute());
  std::vector<float> out(m * n);
  ASSERT_TRUE(runtime_->copyToHost(out.data(), *dout, m * n * 4));
  // Full f32 (no TF32), k + 1 roundings: within 1e-5 of the terms' sum.
  EXPECT_EQ(reluBiasProductMismatches(out, in, w, bias, m, n, k, 1e-5), "");
  runtime_->free(*din);
  runtime_->free(*dout);
  std::fprintf(stderr, "the recorded algorithm computed the product\n");

  // A tile and stages no algorithm has.
  params->algorithm->config[1] = 0x7fff0000;
  params->algorithm->config[6] = 0x7fff0000;
  plan.steps[0].libraryCall.payload = encodeCublasLtMatmul(*params);
  file = writePlan(plan);
  ASSERT_TRUE(file.isOk());
  engine = runtime_->deserializeEngine(file->data(), file->size());
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(engine.status().message(), HasSubstr("does not fit this sm_"));
  std::fprintf(stderr, "refused: %s\n", engine.status().message().c_str());
}

} // namespace
