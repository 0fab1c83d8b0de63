//===- CublasLtMatmulTest.cpp - the cublaslt.matmul library call -*- C++
//-*-===//
//
// The payload of "cublaslt.matmul" steps (encode, decode, every refusal) and
// the built-in handler's checks before it loads cuBLASLt: buffers too small
// for the product they describe, a payload that does not decode, and no
// cuBLASLt on the machine (the product itself runs on the GPU machine:
// benchmarks/gemm.py and the GPU conformance runs).
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/CublasLtMatmul.h"
#include "FakeEngine.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/LibraryCall.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <random>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

/// 4x6 times 6x5 in f32, dense, with a 256-byte workspace.
CublasLtMatmulParams smallProduct() {
  CublasLtMatmulParams p;
  p.m = 4;
  p.n = 5;
  p.k = 6;
  p.lda = 6;
  p.ldb = 5;
  p.ldd = 5;
  p.workspaceBytes = 256;
  return p;
}

CublasLtMatmulParams randomParams(std::mt19937 &rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  CublasLtMatmulParams p;
  DataType types[] = {DataType::F32, DataType::F16, DataType::BF16};
  p.type = types[pick(0, 2)];
  p.tf32 = p.type == DataType::F32 && pick(0, 1);
  p.outType = p.type != DataType::F32 && pick(0, 1) ? DataType::F32 : p.type;
  p.transA = pick(0, 1);
  p.transB = pick(0, 1);
  p.m = pick(1, 300);
  p.n = pick(1, 300);
  p.k = pick(1, 300);
  p.batch = pick(1, 4);
  p.lda = (p.transA ? p.m : p.k) + pick(0, 3);
  p.ldb = (p.transB ? p.k : p.n) + pick(0, 3);
  p.ldd = p.n + pick(0, 3);
  p.strideA = p.batch > 1 ? (p.transA ? p.k : p.m) * p.lda : 0;
  p.strideB = p.batch > 1 && pick(0, 1) ? (p.transB ? p.n : p.k) * p.ldb : 0;
  p.strideD = p.batch > 1 ? p.m * p.ldd : 0;
  p.workspaceBytes = uint64_t(pick(0, 1 << 20));
  p.epilogue = static_cast<CublasLtMatmulParams::Epilogue>(pick(0, 2));
  p.residual = pick(0, 1);
  if (pick(0, 1)) {
    CublasLtAlgorithm a;
    for (int c = 0; c < CublasLtAlgorithm::kConfigs; ++c)
      a.config[c] = uint32_t(pick(0, c >= 7 ? 0xffff : 0x7fffffff));
    a.cublasLtVersion = uint64_t(pick(110000, 139999));
    a.computeCapability = uint32_t(pick(70, 120));
    a.workspaceBytes = uint64_t(pick(0, int64_t(p.workspaceBytes)));
    p.algorithm = a;
  }
  return p;
}

TEST(CublasLtMatmulPayload, RoundTripsRandomParameters) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    CublasLtMatmulParams p = randomParams(rng);
    std::string payload = encodeCublasLtMatmul(p);
    ASSERT_EQ(payload.size(), 228u);
    auto q = decodeCublasLtMatmul(payload);
    ASSERT_TRUE(q.isOk()) << q.status().toString();
    EXPECT_EQ(q->type, p.type);
    EXPECT_EQ(q->outType, p.outType);
    EXPECT_EQ(q->tf32, p.tf32);
    EXPECT_EQ(q->transA, p.transA);
    EXPECT_EQ(q->transB, p.transB);
    EXPECT_EQ(
        std::vector<int64_t>({q->m, q->n, q->k, q->batch, q->lda, q->ldb,
                              q->ldd, q->strideA, q->strideB, q->strideD}),
        std::vector<int64_t>({p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldd,
                              p.strideA, p.strideB, p.strideD}));
    EXPECT_EQ(q->workspaceBytes, p.workspaceBytes);
    EXPECT_EQ(q->epilogue, p.epilogue);
    EXPECT_EQ(q->residual, p.residual);
    ASSERT_EQ(q->algorithm.has_value(), p.algorithm.has_value());
    if (p.algorithm) {
      EXPECT_TRUE(std::equal(std::begin(p.algorithm->config),
                             std::end(p.algorithm->config),
                             std::begin(q->algorithm->config)));
      EXPECT_EQ(q->algorithm->cublasLtVersion, p.algorithm->cublasLtVersion);
      EXPECT_EQ(q->algorithm->computeCapability,
                p.algorithm->computeCapability);
      EXPECT_EQ(q->algorithm->workspaceBytes, p.algorithm->workspaceBytes);
    }
    EXPECT_EQ(q->numBuffers(),
              (p.epilogue == decltype(p.epilogue)::None ? 4u : 5u) +
                  (p.residual ? 1u : 0u));
    EXPECT_EQ(q->bytesBias(), p.epilogue == decltype(p.epilogue)::None
                                  ? 0u
                                  : uint64_t(p.n) * dataTypeBytes(p.outType));
    // The bytes each operand spans, counted element by element.
    int64_t rowsA = p.transA ? p.k : p.m, colsA = p.transA ? p.m : p.k;
    int64_t last = (p.batch - 1) * p.strideA + (rowsA - 1) * p.lda + colsA - 1;
    EXPECT_EQ(q->bytesA(), uint64_t(last + 1) * dataTypeBytes(p.type));
    last = (p.batch - 1) * p.strideD + (p.m - 1) * p.ldd + p.n - 1;
    EXPECT_EQ(q->bytesD(), uint64_t(last + 1) * dataTypeBytes(p.outType));
  }
}

TEST(CublasLtMatmulPayload, RefusesWhatIsNotAProduct) {
  CublasLtMatmulParams good = smallProduct();
  std::string payload = encodeCublasLtMatmul(good);
  ASSERT_TRUE(decodeCublasLtMatmul(payload).isOk());
  auto refused = [](const std::string &bytes) {
    auto p = decodeCublasLtMatmul(bytes);
    EXPECT_FALSE(p.isOk());
    if (!p.isOk())
      EXPECT_EQ(p.status().code(), StatusCode::InvalidPlan);
    return p.isOk() ? std::string() : p.status().message();
  };
  EXPECT_THAT(refused(payload.substr(0, 99)),
              HasSubstr("expected 228 bytes starting with 'KLTM', got 99"));
  std::string bad = payload;
  bad[0] = 'X';
  EXPECT_THAT(refused(bad), HasSubstr("starting with 'KLTM'"));
  bad = payload;
  bad[4] = 1;
  EXPECT_THAT(refused(bad),
              HasSubstr("version 1, this runtime reads versions 4 and 5"));
  // Version 4 (before algorithms) still reads, as 124 bytes.
  bad = payload.substr(0, 124);
  bad[4] = 4;
  ASSERT_TRUE(decodeCublasLtMatmul(bad).isOk());
  EXPECT_FALSE(decodeCublasLtMatmul(bad)->algorithm.has_value());
  bad = payload;
  bad[4] = 4;
  EXPECT_THAT(refused(bad), HasSubstr("version 4 has 124 bytes, got 228"));
  // The algorithm's fields: a flag, nine configuration attributes, a
  // cuBLASLt version, a compute capability and a workspace (from byte 124).
  bad = payload;
  bad[124] = 2;
  EXPECT_THAT(refused(bad), HasSubstr("the algorithm flag is 2"));
  bad = payload;
  bad[140] = 1; // a word without the flag
  EXPECT_THAT(refused(bad), HasSubstr("algorithm fields are set but no "
                                      "algorithm is recorded"));
  CublasLtMatmulParams recorded = good;
  recorded.algorithm = CublasLtAlgorithm{{1, 2}, 130100, 90, 256};
  ASSERT_TRUE(decodeCublasLtMatmul(encodeCublasLtMatmul(recorded)).isOk());
  bad = encodeCublasLtMatmul(recorded);
  bad[124 + 8 + 7 * 8 + 2] = 1; // the inner shape, a 16-bit attribute
  EXPECT_THAT(refused(bad),
              HasSubstr("algorithm configuration attribute 7 is 65536"));
  recorded.algorithm->computeCapability = 5;
  EXPECT_THAT(refused(encodeCublasLtMatmul(recorded)),
              HasSubstr("an algorithm chosen on compute capability 5"));
  recorded.algorithm->computeCapability = 90;
  recorded.algorithm->workspaceBytes = 257;
  EXPECT_THAT(refused(encodeCublasLtMatmul(recorded)),
              HasSubstr("the algorithm needs 257 bytes of workspace, the "
                        "step has 256"));
  bad = payload;
  bad[100] = 3; // the epilogue
  EXPECT_THAT(refused(bad), HasSubstr("epilogue 3 (expected 0 none, 1 bias "
                                      "or 2 relu and bias)"));
  auto with = [&](auto change) {
    CublasLtMatmulParams p = good;
    change(p);
    return refused(encodeCublasLtMatmul(p));
  };
  EXPECT_THAT(with([](auto &p) { p.type = DataType::I8; }),
              HasSubstr("element type 3 (expected f32, f16 or bf16)"));
  EXPECT_THAT(with([](auto &p) {
                p.type = DataType::F16;
                p.tf32 = true;
              }),
              HasSubstr("tf32 with a type other than f32"));
  EXPECT_THAT(with([](auto &p) { p.outType = DataType::F16; }),
              HasSubstr("D of type 1 for inputs of type 0 (expected the "
                        "inputs' type, or f32 for f16 and bf16)"));
  EXPECT_THAT(with([](auto &p) { p.k = 0; }), HasSubstr("k is 0"));
  EXPECT_THAT(with([](auto &p) { p.lda = 5; }),
              HasSubstr("a leading dimension shorter than its rows (lda 5"));
  EXPECT_THAT(with([](auto &p) {
                p.batch = 2;
                p.strideD = 10;
              }),
              HasSubstr("batches of D overlap (stride_d 10)"));
  EXPECT_THAT(with([](auto &p) { p.workspaceBytes = uint64_t(1) << 40; }),
              HasSubstr("a workspace of 1099511627776 bytes"));
  bad = payload;
  bad[10] = 7; // the transA flag byte
  EXPECT_THAT(refused(bad), HasSubstr("a flag byte is 7"));
}

/// A plan whose one step is a cuBLASLt product of `in` (4x6) by weights
/// (6x5) into `out` (4x5), with a 256-byte workspace in the arena.
PlanContents matmulPlan(const CublasLtMatmulParams &p, uint64_t outBytes) {
  PlanContents plan;
  plan.tensors = {{"in", DataType::F32, {4, 6}, true},
                  {"out", DataType::F32, {4, 5}, false}};
  plan.weights.assign(6 * 5 * 4, 0);
  plan.arenaBytes = 256;
  plan.steps = {libraryCallStep(CublasLtMatmulParams::kCallee,
                                {{tensor(0, 0), 96},
                                 {weights(0), 120},
                                 {tensor(1, 0), outBytes},
                                 {arena(0), 256}},
                                encodeCublasLtMatmul(p))};
  return plan;
}

using CublasLtMatmulTest = FakeEngineTest;

TEST_F(CublasLtMatmulTest, RefusesBuffersSmallerThanTheProduct) {
  EXPECT_TRUE(hasLibraryCallHandler(CublasLtMatmulParams::kCallee));
  auto rt = runtime();
  ASSERT_TRUE(rt);
  CublasLtMatmulParams p = smallProduct();
  // D's buffer holds 19 of the 20 floats the product writes.
  auto engine = load(*rt, matmulPlan(p, 76));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_EQ(engine.status().message(),
            "step 0 (call 'cublaslt.matmul'): cublaslt.matmul: D has 76 "
            "bytes, the product reads or writes 80");
  // Batches 2^40 elements apart: 2^24 of them span 2^64 elements of A and
  // of D, a count that wraps to a few bytes in 64 bits. The buffers hold the
  // first batch only; the check must not wrap with the count.
  CublasLtMatmulParams huge = smallProduct();
  huge.batch = (int64_t(1) << 24) + 1;
  huge.strideA = huge.strideD = int64_t(1) << 40;
  huge.strideB = 0;
  auto decoded = decodeCublasLtMatmul(encodeCublasLtMatmul(huge));
  ASSERT_TRUE(decoded.isOk()) << decoded.status().toString();
  EXPECT_EQ(decoded->bytesA(), UINT64_MAX);
  EXPECT_EQ(decoded->bytesD(), UINT64_MAX);
  EXPECT_EQ(decoded->bytesB(), 120u);
  engine = load(*rt, matmulPlan(huge, 80));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().message(),
            "step 0 (call 'cublaslt.matmul'): cublaslt.matmul: A has 96 "
            "bytes, the product reads or writes 18446744073709551615");
  // A workspace bigger than its buffer.
  p.workspaceBytes = 512;
  engine = load(*rt, matmulPlan(p, 80));
  ASSERT_FALSE(engine.isOk());
  EXPECT_THAT(engine.status().message(),
              HasSubstr("the workspace has 256 bytes, the product reads or "
                        "writes 512"));
  // A payload that does not decode.
  PlanContents plan = matmulPlan(p, 80);
  plan.steps[0].libraryCall.payload = "KLTM";
  engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_THAT(engine.status().message(),
              HasSubstr("step 0 (call 'cublaslt.matmul'): cublaslt.matmul "
                        "payload: expected 228 bytes"));
}

// cuBLASLt is loaded once per process: no other test of this binary loads
// it (the products run on the GPU machine), so this one chooses the library.
TEST_F(CublasLtMatmulTest, SaysWhenThereIsNoCublasLt) {
  setenv("KILN_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so", 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  CublasLtMatmulParams p = smallProduct();
  auto engine = load(*rt, matmulPlan(p, 80));
  unsetenv("KILN_CUBLASLT_LIBRARY");
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::DriverUnavailable);
  EXPECT_THAT(engine.status().message(),
              HasSubstr("step 0 (call 'cublaslt.matmul'): cannot load "
                        "cuBLASLt, the CUDA toolkit's matrix library "
                        "(/nonexistent/libcublasLt.so: cannot open"));
}

} // namespace
