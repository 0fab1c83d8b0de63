//===- StressTest.cpp - kiln-run-plan's stress mode -------------*- C++ -*-===//
//
// stressPlan and kiln-run-plan --threads/--contexts/--runs on the stand-in
// driver: every enqueue is counted and checked, a wrong result in one
// enqueue out of hundreds (KILN_FAKE_CUDA_CORRUPT_ADD) is one mismatch and
// exit status 1, and the arguments a stress run cannot take are refused.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/Stress.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kiln;
using namespace kiln::tooling;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

namespace {

/// out = (a + w) + b through the arena: two launches per enqueue.
std::string planBytes() {
  auto bytes =
      rt::writePlan(rt::test::addPlan(500, rt::test::randomFloats(500, 9)));
  EXPECT_TRUE(bytes.isOk()) << bytes.status().toString();
  return bytes.isOk() ? *bytes : std::string();
}

class StressTest : public ::testing::Test {
protected:
  void SetUp() override { setenv("KILN_FAKE_CUDA_DEVICES", "1", 1); }
  void TearDown() override {
    unsetenv("KILN_FAKE_CUDA_DEVICES");
    unsetenv("KILN_FAKE_CUDA_CORRUPT_ADD");
  }
  std::unique_ptr<rt::Runtime> runtime() {
    auto runtime = rt::Runtime::create(&logger, 0, KILN_FAKE_CUDA);
    EXPECT_TRUE(runtime.isOk()) << runtime.status().toString();
    return runtime.isOk() ? std::move(*runtime) : nullptr;
  }
  rt::StderrLogger logger{rt::Logger::Severity::Warning};
};

TEST_F(StressTest, EveryEnqueueMatchesTheSingleThreadedRun) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  StressOptions options;
  options.threads = 4;
  options.contexts = 3;
  options.runs = 50; // not a multiple of 3: the last round is partial
  auto result = stressPlan(*rt, planBytes(), options);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->threads, 4);
  EXPECT_EQ(result->contexts, 3);
  EXPECT_EQ(result->enqueues, 4 * 50);
  EXPECT_EQ(result->mismatches, 0);
  EXPECT_EQ(result->firstMismatch, "");
  EXPECT_GT(result->wallSeconds, 0);
  std::ostringstream out;
  printStress(out, *result);
  EXPECT_THAT(out.str(), HasSubstr("|       4 |        3 |      200 |          "
                                   "0 |"));
}

TEST_F(StressTest, EveryContextAtAShapeOfItsOwn) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto plan = rt::writePlan(
      rt::test::dynamicAddPlan(64, rt::test::randomFloats(256, 4)));
  ASSERT_TRUE(plan.isOk()) << plan.status().toString();
  StressOptions options;
  options.threads = 3;
  options.contexts = 3;
  options.runs = 20;
  auto result = stressPlan(*rt, *plan, options);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->enqueues, 3 * 20);
  EXPECT_EQ(result->mismatches, 0) << result->firstMismatch;
}

TEST_F(StressTest, OneWrongResultIsOneMismatch) {
  // The reference run makes 2 launches for each of the 2 x 2 contexts; the
  // 5th launch after it, in the 3rd enqueue of the threads, goes wrong.
  setenv("KILN_FAKE_CUDA_CORRUPT_ADD", std::to_string(2 * 4 + 5).c_str(), 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  StressOptions options;
  options.threads = 2;
  options.contexts = 2;
  options.runs = 30;
  std::ostringstream out, err;
  EXPECT_EQ(runStress(*rt, planBytes(), options, out, err, "tool"), 1)
      << err.str();
  EXPECT_THAT(out.str(), HasSubstr("|       2 |        2 |       60 |          "
                                   "1 |"));
  EXPECT_THAT(out.str(), MatchesRegex("(.|\n)*first mismatch: thread [01] "
                                      "context [01] enqueue [0-9]+: output "
                                      "'out' differs from byte [0-3] on \\(of "
                                      "2000\\)\n"));
}

TEST_F(StressTest, RefusesNoThreadsAndBadPlans) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  StressOptions options;
  options.threads = 0;
  auto none = stressPlan(*rt, planBytes(), options);
  ASSERT_FALSE(none.isOk());
  EXPECT_EQ(none.status().code(), rt::StatusCode::InvalidArgument);
  options.threads = 1;
  std::string plan = planBytes();
  plan[plan.size() / 2] ^= 1;
  std::ostringstream out, err;
  EXPECT_EQ(runStress(*rt, plan, options, out, err, "tool"), 1);
  EXPECT_THAT(err.str(), HasSubstr("tool: error: InvalidPlan"));
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs kiln-run-plan with `arguments` on the stand-in driver; returns its
/// exit status and sets `output` to what it printed.
int runTool(const std::string &arguments, std::string &output,
            const std::string &env = "") {
  // Named after the test: ctest runs tests in parallel processes.
  std::string base =
      ::testing::TempDir() + "kiln-stress-" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string plan = base + ".kplan", log = base + ".txt";
  std::ofstream(plan, std::ios::binary) << planBytes();
  std::string command = "KILN_FAKE_CUDA_DEVICES=1 " + env + " '" +
                        std::string(KILN_RUN_PLAN) + "' '" + plan + "' " +
                        arguments + " --driver=" + KILN_FAKE_CUDA + " > '" +
                        log + "' 2>&1";
  int status = std::system(command.c_str());
  output = readFile(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(StressToolTest, PrintsOneLineAndExitsWithTheVerdict) {
  std::string out;
  EXPECT_EQ(runTool("--threads 3 --contexts 2 --runs 20 --seed 5", out), 0)
      << out;
  EXPECT_THAT(out, HasSubstr("stress: 3 threads x 2 contexts"));
  EXPECT_THAT(out, HasSubstr("| threads | contexts | enqueues | mismatches | "
                             "wall (s) |"));
  EXPECT_THAT(out, MatchesRegex("(.|\n)*\\|       3 \\|        2 \\|       60 "
                                "\\|          0 \\| +[0-9.]+ \\|(.|\n)*"));
  // --runs alone is a stress run of one thread and one context.
  EXPECT_EQ(runTool("--runs 7", out), 0) << out;
  EXPECT_THAT(out, HasSubstr("|       1 |        1 |        7 |          0 |"));
  // A wrong result: exit status 1.
  EXPECT_EQ(runTool("--threads 2 --contexts 2 --runs 10", out,
                    "KILN_FAKE_CUDA_CORRUPT_ADD=11"),
            1)
      << out;
  EXPECT_THAT(out, HasSubstr("first mismatch: thread "));
}

TEST(StressToolTest, RefusesWhatAStressRunDoesNotTake) {
  std::string out;
  EXPECT_EQ(runTool("--threads 0", out), 2);
  EXPECT_THAT(out, HasSubstr("--threads expects 1 to 1024, got 0"));
  EXPECT_EQ(runTool("--contexts 1025", out), 2);
  EXPECT_EQ(runTool("--threads 2 --iterations 5", out), 2);
  EXPECT_THAT(out, HasSubstr("--iterations does not go with a stress run"));
  EXPECT_EQ(runTool("--reference-dir /tmp --runs 3", out), 2);
  EXPECT_THAT(out, HasSubstr("usage: kiln-run-plan"));
}

} // namespace
