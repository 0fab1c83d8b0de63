//===- PlanFuzzRegressionTest.cpp - the fuzzer's inputs, replayed ---------===//
//
// Every input under runtime/fuzz/regressions (each one made the plan-reader
// fuzzer fail once) and every seed plan go through the fuzzer's own check
// (fuzz/PlanReaderCheck.h), in a heap buffer of exactly their size, so that
// a fixed bug stays fixed without running the fuzzer. The seeds must also
// still read: they are the corpus the fuzzer starts from.
//
//===----------------------------------------------------------------------===//

#include "PlanFuzzSeeds.h"
#include "PlanReaderCheck.h"
#include "kiln/runtime/Plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

using namespace kiln::rt;

namespace {

/// The fuzzer's check on a copy of `bytes` of exactly their size.
std::string check(const std::string &bytes) {
  std::vector<uint8_t> buffer(bytes.begin(), bytes.end());
  return fuzz::checkPlanBytes(buffer.data(), buffer.size());
}

TEST(PlanFuzzRegressions, SeedsReadAndPassTheCheck) {
  auto seeds = fuzz::planFuzzSeeds();
  EXPECT_EQ(seeds.size(), 6u) << "a seed plan no longer writes";
  for (const auto &[name, bytes] : seeds) {
    SCOPED_TRACE(name);
    auto plan = readPlan(bytes.data(), bytes.size());
    EXPECT_TRUE(plan.isOk()) << plan.status().toString();
    EXPECT_EQ(check(bytes), "");
  }
}

TEST(PlanFuzzRegressions, EveryRegressionInputPasses) {
  namespace fs = std::filesystem;
  size_t replayed = 0;
  for (const fs::directory_entry &entry :
       fs::directory_iterator(KILN_FUZZ_REGRESSIONS)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md")
      continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    ASSERT_TRUE(in.good());
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(check(bytes), "");
    ++replayed;
  }
  std::printf("[ fuzz     ] %zu regression inputs of the plan-reader fuzzer "
              "replayed\n",
              replayed);
}

// The check itself catches what it is there for.
TEST(PlanFuzzRegressions, TheCheckAcceptsRefusalsAndRealPlans) {
  EXPECT_EQ(check(""), "");
  EXPECT_EQ(check("KILNPLAN"), "");
  EXPECT_EQ(check(std::string(64, '\0')), "");
}

} // namespace
