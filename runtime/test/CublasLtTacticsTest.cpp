//===- CublasLtTacticsTest.cpp - recorded cuBLASLt algorithms ---*- C++ -*-===//
//
// The cublaslt.matmul handler and tactic selection (kiln/runtime/Tactics.h)
// on FakeCublasLt.c, which really computes f32 products and whose algorithms
// differ in speed: the heuristic's choice runs when a plan records none, the
// fastest candidate is recorded by selectTactics and then runs, and a
// recorded algorithm that this cuBLASLt refuses stops the engine at load
// with a message that says where it was chosen. A binary of its own, since
// cuBLASLt loads once per process (here always the fake one: ctest sets
// KILN_CUBLASLT_LIBRARY).
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Tactics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

constexpr int64_t kM = 4, kN = 5, kK = 6;

/// out = relu(in (4x6) * w (6x5) + bias (5)), twice (two steps of the same
/// product, so that tactic selection measures it once).
PlanContents reluBiasPlan(const std::vector<float> &w,
                          const std::vector<float> &bias) {
  CublasLtMatmulParams p;
  p.m = kM;
  p.n = kN;
  p.k = kK;
  p.lda = kK;
  p.ldb = kN;
  p.ldd = kN;
  p.workspaceBytes = 256;
  p.epilogue = CublasLtMatmulParams::Epilogue::ReluBias;
  PlanContents plan;
  plan.tensors = {{"in", DataType::F32, {kM, kK}, true},
                  {"out", DataType::F32, {kM, kN}, false}};
  plan.weights.resize((w.size() + bias.size()) * sizeof(float));
  std::memcpy(plan.weights.data(), w.data(), w.size() * sizeof(float));
  std::memcpy(plan.weights.data() + w.size() * sizeof(float), bias.data(),
              bias.size() * sizeof(float));
  plan.arenaBytes = 256;
  Step step = libraryCallStep(CublasLtMatmulParams::kCallee,
                              {{tensor(0, 0), kM * kK * 4},
                               {weights(0), kK * kN * 4},
                               {tensor(1, 0), kM * kN * 4},
                               {arena(0), 256},
                               {weights(kK * kN * 4), kN * 4}},
                              encodeCublasLtMatmul(p));
  plan.steps = {step, step};
  return plan;
}

class CublasLtTacticsTest : public FakeEngineTest {
protected:
  void SetUp() override {
    FakeEngineTest::SetUp();
    unsetenv("KILN_FAKE_CUBLASLT_ALGORITHMS");
    unsetenv("KILN_FAKE_CUBLASLT_FASTEST");
    const char *library = std::getenv("KILN_CUBLASLT_LIBRARY");
    ASSERT_NE(library, nullptr) << "run through ctest, which sets "
                                   "KILN_CUBLASLT_LIBRARY to FakeCublasLt";
    fakeLt = dlopen(library, RTLD_NOW);
    ASSERT_NE(fakeLt, nullptr) << dlerror();
    lastAlgorithm = reinterpret_cast<int (*)()>(
        dlsym(fakeLt, "kiln_fake_cublaslt_last_algorithm"));
    ASSERT_NE(lastAlgorithm, nullptr);
  }
  void TearDown() override {
    unsetenv("KILN_FAKE_CUBLASLT_ALGORITHMS");
    if (fakeLt)
      dlclose(fakeLt);
    FakeEngineTest::TearDown();
  }

  /// Runs `plan` on random input; checks out against the host's product.
  void expectProduct(Runtime &rt, const PlanContents &plan,
                     const std::vector<float> &w,
                     const std::vector<float> &bias) {
    auto engine = load(rt, plan);
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    auto context = (*engine)->createExecutionContext();
    ASSERT_TRUE(context.isOk());
    std::vector<float> in = randomFloats(kM * kK, 7), out(kM * kN, -1);
    ASSERT_TRUE(
        (*context)->setTensorAddress("in", uint64_t(uintptr_t(in.data()))));
    ASSERT_TRUE(
        (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
    ASSERT_TRUE((*context)->execute());
    // Seven f32 roundings against f64: under 1e-6 of the terms' sum.
    EXPECT_EQ(reluBiasProductMismatches(out, in, w, bias, kM, kN, kK, 1e-6),
              "");
  }

  void *fakeLt = nullptr;
  int (*lastAlgorithm)() = nullptr;
  std::vector<float> w = randomFloats(kK * kN, 5), bias = randomFloats(kN, 6);
};

TEST_F(CublasLtTacticsTest, WithoutARecordedAlgorithmTheHeuristicChooses) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  expectProduct(*rt, reluBiasPlan(w, bias), w, bias);
  EXPECT_EQ(lastAlgorithm(), 0);
}

TEST_F(CublasLtTacticsTest, SelectionRecordsTheFastestCandidate) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = reluBiasPlan(w, bias);
  // Candidate 2 of 4 is the fast one; the others sleep 2 ms a call.
  setenv("KILN_FAKE_CUBLASLT_FASTEST", "2", 1);
  auto choices = selectTactics(*rt, plan);
  unsetenv("KILN_FAKE_CUBLASLT_FASTEST");
  ASSERT_TRUE(choices.isOk()) << choices.status().toString();
  ASSERT_EQ(choices->size(), 2u);
  const TacticChoice &first = (*choices)[0], &second = (*choices)[1];
  EXPECT_EQ(first.step, 0u);
  EXPECT_EQ(first.problem, "4x5x6, batch 1, f32 -> f32, relu-bias epilogue");
  EXPECT_EQ(first.timed, 4);
  EXPECT_EQ(first.heuristic, "algorithm 0 (tile 10, stages 1, split-k 1)");
  EXPECT_EQ(first.chosen, "algorithm 2 (tile 12, stages 1, split-k 1)");
  EXPECT_GT(first.heuristicUs, 1500.0);
  EXPECT_LT(first.chosenUs, first.heuristicUs);
  EXPECT_FALSE(first.reused);
  EXPECT_EQ(second.step, 1u);
  EXPECT_TRUE(second.reused);
  EXPECT_EQ(second.chosen, first.chosen);
  // Both payloads record it, with where it was chosen; the plan still
  // computes the product, now with algorithm 2.
  for (const Step &step : plan.steps) {
    auto params = decodeCublasLtMatmul(step.libraryCall.payload);
    ASSERT_TRUE(params.isOk()) << params.status().toString();
    ASSERT_TRUE(params->algorithm.has_value());
    EXPECT_EQ(params->algorithm->config[0], 2u);  // the id
    EXPECT_EQ(params->algorithm->config[1], 12u); // the tile
    EXPECT_EQ(params->algorithm->cublasLtVersion, 130100u);
    EXPECT_EQ(params->algorithm->computeCapability, 90u);
  }
  expectProduct(*rt, plan, w, bias);
  EXPECT_EQ(lastAlgorithm(), 2);
  // Nothing of the measurement is left on the device.
  EXPECT_EQ(liveStreams(), 0);
  EXPECT_EQ(liveEvents(), 0);
}

TEST_F(CublasLtTacticsTest, ARecordedAlgorithmThatDoesNotFitIsRefused) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = reluBiasPlan(w, bias);
  ASSERT_TRUE(selectTactics(*rt, plan).isOk()); // algorithm 3, the fastest
  // Another cuBLASLt, which has only algorithms 0 and 1.
  setenv("KILN_FAKE_CUBLASLT_ALGORITHMS", "2", 1);
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(engine.status().message(),
              HasSubstr("step 0 (call 'cublaslt.matmul'): the plan's "
                        "cuBLASLt algorithm 3 (tile 13, stages 1, split-k 1) "
                        "for 4x5x6, batch 1, f32 -> f32, relu-bias epilogue, "
                        "chosen by cuBLASLt 130100 on sm_90, does not fit "
                        "this sm_90 GPU with cuBLASLt 130100: "
                        "cublasLtMatmulAlgoInit failed with "
                        "CUBLAS_STATUS_NOT_SUPPORTED; rebuild the plan on "
                        "this GPU (kiln-compile --tune) or without --tune"));
  // A configuration this cuBLASLt does not take (the plan was edited: a
  // tile that algorithm 3 does not have) is refused before cuBLASLt sees
  // it.
  unsetenv("KILN_FAKE_CUBLASLT_ALGORITHMS");
  auto params = decodeCublasLtMatmul(plan.steps[1].libraryCall.payload);
  ASSERT_TRUE(params.isOk());
  params->algorithm->config[1] = 99;
  plan.steps[1].libraryCall.payload = encodeCublasLtMatmul(*params);
  engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_THAT(engine.status().message(),
              HasSubstr("step 1 (call 'cublaslt.matmul'): the plan's "
                        "cuBLASLt algorithm 3 (tile 99, stages 1, split-k 1)"));
  EXPECT_THAT(engine.status().message(),
              HasSubstr("with cuBLASLt 130100: algorithm 3 cannot take tile "
                        "99 here; rebuild the plan"));
  // Each attribute outside what the algorithm can take, likewise.
  for (auto [attribute, value, what] :
       {std::tuple{6, 2u, "stages 2"}, std::tuple{5, 1u, "custom option 1"},
        std::tuple{2, 5000u, "split-k 5000"},
        std::tuple{7, 9u, "inner shape 9 or cluster shape 0"}}) {
    auto p = *params;
    p.algorithm->config[1] = 13;
    p.algorithm->config[attribute] = value;
    plan.steps[1].libraryCall.payload = encodeCublasLtMatmul(p);
    engine = load(*rt, plan);
    ASSERT_FALSE(engine.isOk()) << what;
    EXPECT_THAT(engine.status().message(),
                HasSubstr(std::string("algorithm 3 cannot take ") + what));
  }
}

TEST_F(CublasLtTacticsTest, ABadPayloadStopsSelectionAndLeavesThePlan) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = reluBiasPlan(w, bias);
  plan.steps[1].libraryCall.payload = "KLTM";
  std::string first = plan.steps[0].libraryCall.payload;
  auto choices = selectTactics(*rt, plan);
  ASSERT_FALSE(choices.isOk());
  EXPECT_EQ(choices.status().code(), StatusCode::InvalidPlan);
  EXPECT_THAT(choices.status().message(),
              HasSubstr("step 1: cublaslt.matmul payload: expected 228 bytes"));
  EXPECT_EQ(plan.steps[0].libraryCall.payload, first);
}

} // namespace
