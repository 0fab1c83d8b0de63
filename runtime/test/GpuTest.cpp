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

/// y = x + w (kiln_test_add_f32) and out = alpha * x + beta, fused
/// (kiln_test_axpb), for i < n.
const char *const kPtx = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry kiln_test_add_f32(
    .param .u64 add_a, .param .u64 add_b, .param .u64 add_out,
    .param .u64 add_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [add_a];
    ld.param.u64 %rd2, [add_b];
    ld.param.u64 %rd3, [add_out];
    ld.param.u64 %rd4, [add_n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.s64 %rd7, %rd5, %rd6;
    setp.ge.s64 %p1, %rd7, %rd4;
    @%p1 bra ADD_DONE;
    shl.b64 %rd8, %rd7, 2;
    cvta.to.global.u64 %rd9, %rd1;
    add.s64 %rd9, %rd9, %rd8;
    cvta.to.global.u64 %rd10, %rd2;
    add.s64 %rd10, %rd10, %rd8;
    cvta.to.global.u64 %rd11, %rd3;
    add.s64 %rd11, %rd11, %rd8;
    ld.global.f32 %f1, [%rd9];
    ld.global.f32 %f2, [%rd10];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd11], %f3;
ADD_DONE:
    ret;
}

.visible .entry kiln_test_axpb(
    .param .u64 axpb_out, .param .u64 axpb_x, .param .f32 axpb_alpha,
    .param .u32 axpb_beta, .param .u64 axpb_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<10>;

    ld.param.u64 %rd1, [axpb_out];
    ld.param.u64 %rd2, [axpb_x];
    ld.param.f32 %f1, [axpb_alpha];
    ld.param.u32 %r4, [axpb_beta];
    ld.param.u64 %rd3, [axpb_n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd6, %rd4, %rd5;
    setp.ge.s64 %p1, %rd6, %rd3;
    @%p1 bra AXPB_DONE;
    shl.b64 %rd7, %rd6, 2;
    cvta.to.global.u64 %rd8, %rd2;
    add.s64 %rd8, %rd8, %rd7;
    cvta.to.global.u64 %rd9, %rd1;
    add.s64 %rd9, %rd9, %rd7;
    ld.global.f32 %f2, [%rd8];
    cvt.rn.f32.s32 %f3, %r4;
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd9], %f4;
AXPB_DONE:
    ret;
}
)";

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

/// y = fma(0.5, x + w, -3) through every memory space and step kind.
PlanContents axpbPlan(int64_t n, const std::vector<float> &w) {
  PlanContents plan;
  plan.compatibility.kilnVersion = "test";
  plan.compatibility.archs = {80};
  plan.compatibility.ptxIsa = 70;
  plan.compatibility.minDriverVersion = 11000;
  plan.compatibility.precision = "fp32";
  plan.tensors = {{"x", DataType::F32, {n}, true},
                  {"y", DataType::F32, {n}, false}};
  plan.kernels = {kernel("kiln_test_add_f32", {kPtr, kPtr, kPtr, kI64}),
                  kernel("kiln_test_axpb", {kPtr, kPtr, kF32, kI32, kI64})};
  // n floats through each pointer; b is any i32.
  plan.kernels[0].bounds = {countBound(3, 0, 4), countBound(3, 1, 4),
                            countBound(3, 2, 4)};
  plan.kernels[1].bounds = {countBound(4, 0, 4), countBound(4, 1, 4),
                            rangeBound(3, INT32_MIN, INT32_MAX)};
  KernelImage ptx;
  ptx.format = KernelImage::Format::PTX;
  ptx.arch = 80;
  ptx.data = kPtx;
  plan.images = {ptx};
  plan.weights.assign(reinterpret_cast<const char *>(w.data()),
                      w.size() * sizeof(float));
  uint64_t bytes = static_cast<uint64_t>(n) * 4;
  plan.arenaBytes = 2 * bytes;
  uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);
  plan.steps = {
      fillStep(arena(0), 2 * bytes, 0),
      copyStep(arena(0), tensor(0, 0), bytes),
      launchStep(0, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(arena(0), bytes, kRead),
                  pointerArg(weights(0), bytes, kRead),
                  pointerArg(arena(bytes), bytes, kWrite), i64Arg(n)}),
      launchStep(1, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(tensor(1, 0), bytes, kWrite),
                  pointerArg(arena(bytes), bytes, kRead), f32Arg(0.5f),
                  i32Arg(-3), i64Arg(n)}),
  };
  return plan;
}

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

/// axpbPlan over ? x `cols` floats, 1 to `maxRows` rows (format 1.4): the
/// filled and copied bytes, both grids and both element counts are shape
/// expressions of the rows, the arena is planned at `maxRows`.
PlanContents dynamicAxpbPlan(int64_t maxRows, int64_t cols,
                             const std::vector<float> &w) {
  PlanContents plan = axpbPlan(maxRows * cols, w);
  ShapeRange range{{1, cols}, {8, cols}, {maxRows, cols}};
  plan.tensors = {
      {"x", DataType::F32, {-1, cols}, true, {range}},
      {"y", DataType::F32, {-1, cols}, false, {}, {3, kNoShapeExpr}}};
  plan.symbols = {{{{0, 0}}}};
  // 0: the elements, 1: their bytes, 2: the blocks, 3: the rows.
  plan.shapeExprs = {symbolTimes(0, cols), symbolTimes(0, cols * 4),
                     symbolTimes(0, cols, 256), symbolTimes(0, 1)};
  plan.steps[1].copy.bytesExpr = 1;
  for (size_t i = 2; i < 4; ++i) {
    LaunchStep &l = plan.steps[i].launch;
    l.gridExprs[0] = 2;
    l.args[0].extentExpr = l.args[1].extentExpr = 1;
    l.args.back().valueExpr = 0;
  }
  plan.steps[2].launch.args[2].extentExpr = 1;
  return plan;
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
