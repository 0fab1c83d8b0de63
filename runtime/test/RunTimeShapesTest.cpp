//===- RunTimeShapesTest.cpp - plans with run-time shapes -------*- C++ -*-===//
//
// Format 1.4 (profiles, symbols and shape expressions) and the execution
// context's shape API on the fake driver (FakeCudaDriver.c, whose
// fake_add_f32 really adds): one plan of ?x4 floats runs at its smallest,
// its opt and its largest shape and between them, with the grid, the
// element count and the copied bytes computed from the shape, outputs known
// before the enqueue, one CUDA graph per shape within the cache's bound, the
// seeds' enqueue(batchSize, ...), and every refusal of issue 32: a shape
// outside the profile, a missing shape, a rank mismatch, inputs that
// disagree, a buffer smaller than the shape needs, a profile that does not
// exist or is out of order, and a plan whose shape program fails
// verification. After a refusal nothing is enqueued and the context still
// runs.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"
#include "kiln/runtime/kiln_runtime.h"

namespace kiln::rt::test {
namespace {

constexpr int64_t kMaxRows = 64;

/// The dynamic add plan loaded on the fake device, its inputs and output
/// in device memory at the largest shape (the output's tail holds a
/// sentinel that no run may change).
class RunTimeShapesTest : public FakeEngineTest {
protected:
  void SetUp() override {
    FakeEngineTest::SetUp();
    rt_ = runtime();
    ASSERT_TRUE(rt_);
    w_ = randomFloats(kMaxRows * 4, 3);
    auto engine = load(*rt_, dynamicAddPlan(kMaxRows, w_));
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    engine_ = std::move(*engine);
    auto context = engine_->createExecutionContext();
    ASSERT_TRUE(context.isOk()) << context.status().toString();
    context_ = std::move(*context);
    ha_ = randomFloats(kMaxRows * 4, 5);
    hb_ = randomFloats(kMaxRows * 4, 6);
    a_ = *rt_->allocate(kBytes);
    b_ = *rt_->allocate(kBytes);
    out_ = *rt_->allocate(kBytes);
    ASSERT_TRUE(rt_->copyToDevice(a_, ha_.data(), kBytes));
    ASSERT_TRUE(rt_->copyToDevice(b_, hb_.data(), kBytes));
    ASSERT_TRUE(context_->setTensorAddress("a", a_, kBytes));
    ASSERT_TRUE(context_->setTensorAddress("b", b_, kBytes));
    ASSERT_TRUE(context_->setTensorAddress("out", out_, kBytes));
  }
  void TearDown() override {
    context_.reset();
    engine_.reset();
    if (rt_)
      for (uint64_t p : {a_, b_, out_})
        if (p) {
          rt_->free(p);
        }
    rt_.reset();
    FakeEngineTest::TearDown();
  }

  /// Sets both inputs to `rows` x 4.
  void setRows(int64_t rows) {
    ASSERT_TRUE(context_->setInputShape("a", {rows, 4}));
    ASSERT_TRUE(context_->setInputShape("b", {rows, 4}));
  }
  /// Fills the output with a sentinel.
  void clearOutput() {
    std::vector<float> sentinel(kMaxRows * 4, -12345.0f);
    ASSERT_TRUE(rt_->copyToDevice(out_, sentinel.data(), kBytes));
  }
  /// The output's first 4 * rows floats are a + w + b, the rest untouched.
  void expectSums(int64_t rows) {
    std::vector<float> out(kMaxRows * 4);
    ASSERT_TRUE(rt_->copyToHost(out.data(), out_, kBytes));
    for (int64_t i = 0; i < kMaxRows * 4; ++i) {
      float want = i < rows * 4 ? (ha_[i] + w_[i]) + hb_[i] : -12345.0f;
      ASSERT_EQ(out[i], want) << "element " << i << " at " << rows << " rows";
    }
  }

  static constexpr uint64_t kBytes = kMaxRows * 4 * sizeof(float);
  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ExecutionContext> context_;
  std::vector<float> w_, ha_, hb_;
  uint64_t a_ = 0, b_ = 0, out_ = 0;
};

TEST_F(RunTimeShapesTest, OnePlanRunsEveryShapeOfItsProfile) {
  EXPECT_TRUE(engine_->hasDynamicShapes());
  EXPECT_EQ(engine_->numOptimizationProfiles(), 1);
  // The arena is planned at the largest shape.
  EXPECT_EQ(engine_->deviceMemorySize(), 2 * kBytes);
  // min, between, opt, between, max.
  for (int64_t rows :
       {int64_t(1), int64_t(7), int64_t(8), int64_t(33), kMaxRows}) {
    clearOutput();
    setRows(rows);
    auto shape = context_->getTensorShape("out");
    ASSERT_TRUE(shape.isOk()) << shape.status().toString();
    EXPECT_EQ(*shape, (std::vector<int64_t>{rows, 4}));
    int before = launchCount();
    ASSERT_TRUE(context_->execute());
    EXPECT_EQ(launchCount(), before + 2);
    expectSums(rows);
    // The last launch's grid and element count come from the shape.
    unsigned grid[3], block[3], shared;
    lastDims(grid, block, &shared);
    EXPECT_EQ(grid[0], static_cast<unsigned>((rows * 4 + 255) / 256)) << rows;
    EXPECT_EQ(lastParam(3), static_cast<unsigned long long>(rows * 4));
  }
}

TEST_F(RunTimeShapesTest, ShapesAreKnownBeforeEnqueue) {
  // Unset: the plan's shapes, -1 where they vary.
  EXPECT_EQ(*context_->getTensorShape("a"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(*context_->getTensorShape("out"), (std::vector<int64_t>{-1, 4}));
  // One input gives the symbol the output needs.
  ASSERT_TRUE(context_->setInputShape("a", {5, 4}));
  EXPECT_EQ(*context_->getTensorShape("out"), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(context_->getTensorShape("c").status().code(),
            StatusCode::NotFound);
}

TEST_F(RunTimeShapesTest, RefusalsEnqueueNothingAndLeaveTheContextUsable) {
  int launches = launchCount();
  auto refused = [&](const Status &s, const std::string &message) {
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.toString();
    EXPECT_EQ(s.message(), message);
    EXPECT_EQ(launchCount(), launches);
  };
  // No shape.
  refused(context_->execute(),
          "input 'a' has dynamic shape ?x4 and none was set: call "
          "setInputShape before enqueue (profile 0: min 1x4, opt 8x4, max "
          "64x4)");
  // Outside the profile, a static dimension, the rank: the shape set stays.
  refused(context_->setInputShape("a", {65, 4}),
          "input 'a' dimension 0 is 65, outside its profile's range [1, 64] "
          "(min 1x4, max 64x4)");
  refused(context_->setInputShape("a", {0, 4}),
          "input 'a' dimension 0 is 0, outside its profile's range [1, 64] "
          "(min 1x4, max 64x4)");
  refused(context_->setInputShape("a", {3, 5}),
          "input 'a' dimension 1 is 5, but the shape ?x4 fixes it at 4");
  refused(context_->setInputShape("a", {12}),
          "input 'a' has rank 1 (shape 12), but its shape ?x4 has rank 2");
  refused(context_->setInputShape("out", {3, 4}),
          "output 'out' is an output: its shape follows from the inputs' "
          "(getTensorShape)");
  // One input set.
  ASSERT_TRUE(context_->setInputShape("a", {3, 4}));
  refused(context_->execute(),
          "input 'b' has dynamic shape ?x4 and none was set: call "
          "setInputShape before enqueue (profile 0: min 1x4, opt 8x4, max "
          "64x4)");
  // Inputs that disagree on one size.
  ASSERT_TRUE(context_->setInputShape("b", {5, 4}));
  refused(context_->execute(),
          "input 'b' dimension 0 is 5, but input 'a' dimension 0 is 3: the "
          "plan computes them as one size (symbol 0)");
  EXPECT_EQ(context_->getTensorShape("out").status().code(),
            StatusCode::InvalidArgument);
  // A buffer smaller than the shape needs.
  setRows(5);
  ASSERT_TRUE(context_->setTensorAddress("out", out_, 4 * 4 * 4));
  refused(context_->execute(), "output 'out' of shape 5x4 needs 80 bytes, "
                               "but its buffer holds 64");
  // No such profile.
  refused(context_->setOptimizationProfile(1),
          "optimization profile 1 does not exist: the plan has 1 (0..0)");
  EXPECT_EQ(context_->optimizationProfile(), 0);
  // Usable after all of these.
  ASSERT_TRUE(context_->setTensorAddress("out", out_, kBytes));
  clearOutput();
  ASSERT_TRUE(context_->execute());
  expectSums(5);
}

TEST_F(RunTimeShapesTest, CudaGraphsAreKeptPerShapeWithinTheirBound) {
  auto stream = rt_->createStream();
  ASSERT_TRUE(stream.isOk());
  context_->setCudaGraphs(true);
  int graphs = graphLaunches();
  // Two shapes, back and forth: one capture each.
  for (int64_t rows : {2, 40, 2, 40, 2}) {
    clearOutput();
    setRows(rows);
    ASSERT_TRUE(context_->enqueue(*stream));
    ASSERT_TRUE(rt_->synchronize(*stream));
    expectSums(rows);
  }
  EXPECT_EQ(context_->graphCaptures(), 2);
  EXPECT_EQ(context_->cachedGraphs(), 2);
  EXPECT_EQ(graphLaunches(), graphs + 5);
  EXPECT_EQ(liveGraphs(), 2);
  // A cache of one: every change of shape captures (and updates the one
  // graph in place).
  context_->setGraphCacheSize(1);
  EXPECT_EQ(context_->cachedGraphs(), 1);
  EXPECT_EQ(liveGraphs(), 1);
  for (int64_t rows : {40, 2, 40}) {
    clearOutput();
    setRows(rows);
    ASSERT_TRUE(context_->enqueue(*stream));
    ASSERT_TRUE(rt_->synchronize(*stream));
    expectSums(rows);
  }
  EXPECT_EQ(context_->graphCaptures(), 5);
  EXPECT_EQ(context_->cachedGraphs(), 1);
  EXPECT_EQ(liveGraphs(), 1);
  // An address change recaptures the graph of the shape.
  setRows(40);
  ASSERT_TRUE(context_->setTensorAddress("b", a_, kBytes));
  ASSERT_TRUE(context_->enqueue(*stream));
  ASSERT_TRUE(rt_->synchronize(*stream));
  EXPECT_EQ(context_->graphCaptures(), 6);
  ASSERT_TRUE(rt_->destroyStream(*stream));
}

TEST_F(RunTimeShapesTest, TheSeedsEnqueueTakesABatchSize) {
  auto stream = rt_->createStream();
  ASSERT_TRUE(stream.isOk());
  void *bindings[] = {reinterpret_cast<void *>(a_),
                      reinterpret_cast<void *>(b_),
                      reinterpret_cast<void *>(out_)};
  for (int32_t batch : {1, 7, 64}) {
    clearOutput();
    ASSERT_TRUE(context_->enqueue(batch, bindings, *stream, nullptr));
    ASSERT_TRUE(rt_->synchronize(*stream));
    expectSums(batch);
    EXPECT_EQ(*context_->getTensorShape("out"),
              (std::vector<int64_t>{batch, 4}));
  }
  int launches = launchCount();
  Status big = context_->enqueue(65, bindings, *stream, nullptr);
  EXPECT_EQ(big.message(), "batch size 65: input 'a' dimension 0 is 65, "
                           "outside its profile's range [1, 64] (min 1x4, "
                           "max 64x4)");
  EXPECT_FALSE(context_->enqueue(0, bindings, *stream, nullptr));
  EXPECT_FALSE(context_->enqueue(4, nullptr, *stream, nullptr));
  EXPECT_EQ(launchCount(), launches);
  // The shapes set before stay.
  EXPECT_EQ(*context_->getTensorShape("a"), (std::vector<int64_t>{64, 4}));
  ASSERT_TRUE(rt_->destroyStream(*stream));
}

TEST_F(RunTimeShapesTest, TheSeedsEnqueueRefusesPlansOfOtherShapes) {
  auto engine = load(*rt_, addPlan(16, randomFloats(16, 1)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  void *bindings[] = {reinterpret_cast<void *>(a_),
                      reinterpret_cast<void *>(b_),
                      reinterpret_cast<void *>(out_)};
  Status s = (*context)->enqueue(4, bindings, nullptr, nullptr);
  EXPECT_EQ(s.message(),
            "enqueue(batchSize, ...) takes plans whose inputs vary in their "
            "first dimension only (built with --max-batch), but input 'a' "
            "has shape 16: use setInputShape and enqueue(stream)");
  EXPECT_FALSE((*context)->setOptimizationProfile(0));
}

TEST_F(RunTimeShapesTest, ProfilesSplitTheRange) {
  PlanContents plan = dynamicAddPlan(kMaxRows, w_);
  for (int t = 0; t < 2; ++t)
    plan.tensors[t].profiles = {{{1, 4}, {4, 4}, {8, 4}},
                                {{9, 4}, {32, 4}, {kMaxRows, 4}}};
  auto engine = load(*rt_, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  EXPECT_EQ((*engine)->numOptimizationProfiles(), 2);
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  ExecutionContext &c = **context;
  ASSERT_TRUE(c.setTensorAddress("a", a_));
  ASSERT_TRUE(c.setTensorAddress("b", b_));
  ASSERT_TRUE(c.setTensorAddress("out", out_));
  ASSERT_TRUE(c.setInputShape("a", {8, 4}));
  ASSERT_TRUE(c.setInputShape("b", {8, 4}));
  ASSERT_TRUE(c.setOptimizationProfile(1));
  // Set under profile 0, 8 rows are outside profile 1.
  EXPECT_EQ(c.execute().message(),
            "input 'a' dimension 0 is 8, outside its profile 1's range "
            "[9, 64] (min 9x4, max 64x4)");
  EXPECT_FALSE(c.setInputShape("a", {8, 4}));
  ASSERT_TRUE(c.setInputShape("a", {20, 4}));
  ASSERT_TRUE(c.setInputShape("b", {20, 4}));
  clearOutput();
  ASSERT_TRUE(c.execute());
  expectSums(20);
}

TEST_F(RunTimeShapesTest, TheCApiFollows) {
  kiln_runtime *rt = nullptr;
  ASSERT_EQ(kiln_runtime_create(KILN_FAKE_CUDA, 0, nullptr, nullptr, &rt),
            KILN_STATUS_OK);
  auto file = writePlan(dynamicAddPlan(kMaxRows, w_));
  ASSERT_TRUE(file.isOk());
  kiln_engine *engine = nullptr;
  ASSERT_EQ(kiln_engine_deserialize(rt, file->data(), file->size(), &engine),
            KILN_STATUS_OK);
  int profiles = 0;
  ASSERT_EQ(kiln_engine_num_optimization_profiles(engine, &profiles),
            KILN_STATUS_OK);
  EXPECT_EQ(profiles, 1);
  uint64_t bytes = 0;
  ASSERT_EQ(kiln_engine_tensor_bytes(engine, 2, &bytes), KILN_STATUS_OK);
  EXPECT_EQ(bytes, kBytes); // at the largest shape
  kiln_context *context = nullptr;
  ASSERT_EQ(kiln_context_create(engine, &context), KILN_STATUS_OK);
  const int64_t dims[] = {6, 4};
  EXPECT_EQ(kiln_context_set_input_shape(context, "a", dims, 2),
            KILN_STATUS_OK);
  int64_t out[2] = {0, 0};
  int rank = 0;
  ASSERT_EQ(kiln_context_get_tensor_shape(context, "out", out, 2, &rank),
            KILN_STATUS_OK);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(out[0], 6);
  EXPECT_EQ(kiln_context_get_tensor_shape(context, "out", out, 1, &rank),
            KILN_STATUS_INVALID_ARGUMENT);
  const int64_t big[] = {65, 4};
  EXPECT_EQ(kiln_context_set_input_shape(context, "a", big, 2),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error_message(),
               "input 'a' dimension 0 is 65, outside its profile's range "
               "[1, 64] (min 1x4, max 64x4)");
  EXPECT_EQ(kiln_context_set_optimization_profile(context, 3),
            KILN_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(kiln_context_set_tensor_buffer(context, "out", out_, kBytes),
            KILN_STATUS_OK);
  void *bindings[] = {reinterpret_cast<void *>(a_),
                      reinterpret_cast<void *>(b_),
                      reinterpret_cast<void *>(out_)};
  clearOutput();
  auto stream = rt_->createStream();
  ASSERT_TRUE(stream.isOk());
  ASSERT_EQ(kiln_context_enqueue_batch(context, 9, bindings, *stream, nullptr),
            KILN_STATUS_OK);
  ASSERT_TRUE(rt_->synchronize(*stream));
  expectSums(9);
  ASSERT_TRUE(rt_->destroyStream(*stream));
  EXPECT_EQ(kiln_context_destroy(context), KILN_STATUS_OK);
  EXPECT_EQ(kiln_engine_destroy(engine), KILN_STATUS_OK);
  EXPECT_EQ(kiln_runtime_destroy(rt), KILN_STATUS_OK);
}

/// The plan's expressions and ranges that verifyPlan refuses, each with
/// the message naming it.
TEST(RunTimeShapesPlan, VerifierRefusesInconsistentShapePrograms) {
  std::vector<float> w = randomFloats(kMaxRows * 4, 1);
  auto refused = [&](void (*edit)(PlanContents &), const std::string &part) {
    PlanContents plan = dynamicAddPlan(kMaxRows, w);
    edit(plan);
    Status s = verifyPlan(plan);
    EXPECT_FALSE(s.isOk()) << "accepted: " << part;
    EXPECT_NE(s.message().find(part), std::string::npos)
        << s.message() << "\n  expected: " << part;
  };
  ASSERT_TRUE(verifyPlan(dynamicAddPlan(kMaxRows, w)));
  refused(
      [](PlanContents &p) {
        p.tensors[0].profiles[0].opt = {80, 4};
      },
      "input 'a' profile 0 dimension 0 has min 1, opt 80, max 64, "
      "expected 1 <= min <= opt <= max");
  refused(
      [](PlanContents &p) {
        p.tensors[0].profiles[0].min = {1, 3};
      },
      "input 'a' profile 0 dimension 1 is static (4)");
  refused([](PlanContents &p) { p.tensors[1].profiles.clear(); },
          "input 'b' has 0 profile(s), expected 1");
  refused([](PlanContents &p) { p.symbols[0].dims.pop_back(); },
          "input 'b' dimension 0 is dynamic but belongs to no symbol");
  refused([](PlanContents &p) { p.symbols[0].dims[0].dim = 1; },
          "symbol 0 names dimension 1 of input 'a' (shape ?x4), expected a "
          "dynamic one");
  // One size, one range: else an input's own range would admit sizes
  // beyond the buffers sized at the largest shapes.
  refused(
      [](PlanContents &p) {
        p.tensors[1].profiles[0] = {{1, 4}, {8, 4}, {32, 4}};
      },
      "profile 0: input 'b' dimension 0 has range [1, 32], but input 'a' "
      "dimension 0, the same size (symbol 0), has [1, 64]: give them one "
      "range");
  refused([](PlanContents &p) { p.tensors[2].dimExprs = {}; },
          "output 'out' has 0 dimension expression(s)");
  refused([](PlanContents &p) { p.shapeExprs[0].code.pop_back(); },
          "shape expression 0 leaves 2 values, expected 1");
  refused([](PlanContents &p) { p.shapeExprs[0].code[1].value = -4; },
          "term 1 is the constant -4, expected >= 0");
  refused([](PlanContents &p) { p.shapeExprs[2].code[3].value = 0; },
          "term 3 divides by 0");
  refused([](PlanContents &p) { p.shapeExprs[0].code[0].value = 1; },
          "names symbol 1, but the plan has 1");
  refused(
      [](PlanContents &p) {
        p.shapeExprs[0].code = {{ShapeExpr::Op::Symbol, 0},
                                {ShapeExpr::Op::Const, INT64_MAX},
                                {ShapeExpr::Op::Mul, 0}};
      },
      "shape expression 0 overflows at the largest shapes");
  // Static values are the expressions' at the largest shapes.
  refused([](PlanContents &p) { p.steps[0].copy.bytes -= 4; },
          "step 0 (copy): bytes is 1020, but its shape expression 1 gives "
          "1024 at the largest shapes");
  refused([](PlanContents &p) { p.steps[1].launch.gridExprs[1] = 1; },
          "step 1 (launch 'fake_add_f32'): grid dimension 1 is 1, but its "
          "shape expression 1 gives 1024 at the largest shapes");
  refused([](PlanContents &p) { p.steps[1].launch.args[0].valueExpr = 0; },
          "has a shape expression of its value");
  refused([](PlanContents &p) { p.steps[1].launch.args[3].valueExpr = 7; },
          "has shape expression 7, expected -1 or one of the plan's 4");
  // A grid of 0 blocks at the smallest shapes.
  refused(
      [](PlanContents &p) {
        p.shapeExprs[2].code.back().op = ShapeExpr::Op::FloorDiv;
        p.steps[1].launch.grid[0] = 1;
      },
      "grid dimension 0 is 0 at the smallest shapes");
}

TEST(RunTimeShapesPlan, VerifiedPerShape) {
  std::vector<float> w = randomFloats(kMaxRows * 4, 1);
  PlanContents plan = dynamicAddPlan(kMaxRows, w);
  ASSERT_TRUE(verifyPlanAtShapes(plan, {1}));
  ASSERT_TRUE(verifyPlanAtShapes(plan, {kMaxRows}));
  EXPECT_EQ(verifyPlanAtShapes(plan, {kMaxRows + 1}).message(),
            "symbol 0 is 65, outside its range [1, 64]");
  EXPECT_FALSE(verifyPlanAtShapes(plan, {-1}));
  // An extent that does not shrink with the input reaches past it at
  // smaller shapes: the plan is refused there, not at its largest.
  plan.steps[2].launch.args[1].extentExpr = kNoShapeExpr;
  ASSERT_TRUE(verifyPlan(plan));
  ASSERT_TRUE(verifyPlanAtShapes(plan, {kMaxRows}));
  Status s = verifyPlanAtShapes(plan, {3});
  EXPECT_EQ(s.message(), "step 2 (launch 'fake_add_f32') arg 1: pointer "
                         "range [tensor1+0, +1024 bytes) is outside tensor 1 "
                         "'b' (48 bytes)");
}

TEST(RunTimeShapesPlan, RoundTripsThroughTheFile) {
  std::vector<float> w = randomFloats(kMaxRows * 4, 1);
  PlanContents plan = dynamicAddPlan(kMaxRows, w);
  plan.steps.push_back(plan.steps[0]);
  plan.steps.back().kind = Step::Kind::Fill;
  plan.steps.back().fill = {plan.steps[0].copy.dst, kMaxRows * 16, 7, 1};
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  EXPECT_EQ(readLE32(*file, 12), 4u); // format 1.4
  auto back = readPlan(file->data(), file->size());
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *back, difference)) << difference;
}

TEST(RunTimeShapesPlan, ExpressionsEvaluate) {
  using Op = ShapeExpr::Op;
  ShapeExpr e;
  // max(min(s0, 10), s1) * 3 + ceil(s1 / 4), floor-divided by 2.
  e.code = {{Op::Symbol, 0}, {Op::Const, 10},  {Op::Min, 0},
            {Op::Symbol, 1}, {Op::Max, 0},     {Op::Const, 3},
            {Op::Mul, 0},    {Op::Symbol, 1},  {Op::CeilDiv, 4},
            {Op::Add, 0},    {Op::FloorDiv, 2}};
  for (int64_t s0 : {1, 9, 10, 11, 500})
    for (int64_t s1 : {1, 3, 4, 5, 12, 77}) {
      int64_t want =
          (std::max(std::min(s0, int64_t(10)), s1) * 3 + (s1 + 3) / 4) / 2;
      EXPECT_EQ(evaluateShapeExpr(e, {s0, s1}), want) << s0 << " " << s1;
    }
  EXPECT_FALSE(evaluateShapeExpr(e, {1}).has_value()); // symbol 1 missing
  ShapeExpr big;
  big.code = {{Op::Symbol, 0}, {Op::Symbol, 0}, {Op::Mul, 0}};
  EXPECT_FALSE(evaluateShapeExpr(big, {int64_t(1) << 32}).has_value());
}

} // namespace
} // namespace kiln::rt::test
