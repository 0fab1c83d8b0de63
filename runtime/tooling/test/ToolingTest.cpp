//===- ToolingTest.cpp - the plan runner and kiln-run-plan ------*- C++ -*-===//
//
// The runtime's tooling over the host-tensor library: the plan runner and
// kiln-run-plan on the stand-in driver, whose fake_add_f32 kernel really
// computes (host tensors and .npy files: hosttensor/test).
//
//===----------------------------------------------------------------------===//

#include "HostTensorTestUtil.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/HostTensor.h"
#include "kiln/tooling/Npy.h"
#include "kiln/tooling/PlanRunner.h"
#include "kiln/tooling/RunPlan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace kiln;
using namespace kiln::tooling;
using namespace kiln::tooling::test;
using ::testing::HasSubstr;

namespace {} // namespace

//===----------------------------------------------------------------------===//
// The plan runner on the stand-in driver
//===----------------------------------------------------------------------===//

namespace {

/// out = a + b over n floats: one launch of the fake driver's fake_add_f32.
std::string addPlanBytes(int64_t n) {
  rt::PlanContents plan;
  plan.compatibility.kilnVersion = "test";
  plan.compatibility.archs = {80};
  plan.compatibility.ptxIsa = 80;
  plan.compatibility.minDriverVersion = 12000;
  plan.tensors = {{"a", DataType::F32, {n}, true},
                  {"b", DataType::F32, {n}, true},
                  {"out", DataType::F32, {n}, false}};
  plan.kernels = {rt::test::addKernel()};
  plan.images = {{rt::KernelImage::Format::PTX, 80,
                  "// kiln-fake-module\n.entry fake_add_f32(p,p,p,i64)\n"}};
  uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);
  uint64_t size = static_cast<uint64_t>(n) * 4;
  plan.steps = {rt::test::launchStep(
      0, {blocks, 1, 1}, {256, 1, 1},
      {rt::test::pointerArg(rt::test::tensor(0, 0), size, rt::test::kRead),
       rt::test::pointerArg(rt::test::tensor(1, 0), size, rt::test::kRead),
       rt::test::pointerArg(rt::test::tensor(2, 0), size, rt::test::kWrite),
       rt::test::i64Arg(n)})};
  auto bytes = rt::writePlan(plan);
  EXPECT_TRUE(bytes.isOk()) << bytes.status().toString();
  return *bytes;
}

class PlanRunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("KILN_FAKE_CUDA_DEVICES", "1", 1);
    auto runtime = rt::Runtime::create(&logger, 0, KILN_FAKE_CUDA);
    ASSERT_TRUE(runtime.isOk()) << runtime.status().toString();
    this->runtime = std::move(*runtime);
  }
  void TearDown() override {
    runtime.reset();
    unsetenv("KILN_FAKE_CUDA_DEVICES");
  }

  rt::StderrLogger logger{rt::Logger::Severity::Error};
  std::unique_ptr<rt::Runtime> runtime;
};

} // namespace

TEST_F(PlanRunnerTest, RunsTimesAndProfilesAPlan) {
  auto runner = PlanRunner::create(*runtime, addPlanBytes(1000));
  ASSERT_TRUE(runner.isOk()) << runner.status().toString();
  ASSERT_EQ((*runner)->inputs().size(), 2u);
  ASSERT_EQ((*runner)->outputs().size(), 1u);
  EXPECT_EQ((*runner)->outputs()[0].name, "out");
  std::ostringstream log;
  auto inputs = makeInputs((*runner)->inputs(), {}, 5, log);
  ASSERT_TRUE(inputs.isOk());
  EXPECT_THAT(log.str(), HasSubstr("input 'a' 1000xf32: random (seed 5)"));
  std::vector<HostTensor> outputs;
  rt::Status s = (*runner)->run(*inputs, outputs);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(outputs.size(), 1u);
  HostTensor expected = make(DataType::F32, {1000}, "out");
  for (int64_t i = 0; i < 1000; ++i)
    setFloat(expected, i,
             static_cast<float>((*inputs)[0].at(i)) +
                 static_cast<float>((*inputs)[1].at(i)));
  EXPECT_TRUE(compareTensors(outputs[0], expected, {}).isOk());

  std::vector<double> gpu, host;
  ASSERT_TRUE((*runner)->time(2, 5, gpu, host).isOk());
  EXPECT_EQ(gpu.size(), 5u);
  EXPECT_EQ(host.size(), 5u);
  gpu.clear();
  host.clear();
  ASSERT_TRUE((*runner)->timeBackToBack(4, gpu, host).isOk());
  EXPECT_EQ(gpu.size(), 4u);
  EXPECT_EQ(host.size(), 4u);
  for (double ms : gpu)
    EXPECT_GE(ms, 0);
  // Back to back, the outputs are still right.
  ASSERT_TRUE((*runner)->run(*inputs, outputs).isOk());
  EXPECT_TRUE(compareTensors(outputs[0], expected, {}).isOk());
  std::vector<PlanRunner::StepProfile> steps;
  ASSERT_TRUE((*runner)->profile(3, steps).isOk());
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].name, "launch fake_add_f32");
  EXPECT_EQ(steps[0].ms.size(), 3u);
}

TEST_F(PlanRunnerTest, RefusesInputsOfTheWrongShape) {
  auto runner = PlanRunner::create(*runtime, addPlanBytes(8));
  ASSERT_TRUE(runner.isOk());
  std::vector<HostTensor> outputs;
  rt::Status s = (*runner)->run(
      {make(DataType::F32, {8}), make(DataType::F32, {9})}, outputs);
  EXPECT_EQ(s.code(), rt::StatusCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'b' is 9xf32, expected 8xf32"));
  s = (*runner)->run({make(DataType::F32, {8})}, outputs);
  EXPECT_THAT(s.message(), HasSubstr("expected 2 inputs, got 1"));
}

TEST_F(PlanRunnerTest, RunPlanComparesWritesAndReportsMismatches) {
  std::string dir = tempDir("runplan");
  HostTensor a = randomTensor(DataType::F32, {300}, 11);
  HostTensor b = randomTensor(DataType::F32, {300}, 12);
  a.name = "a";
  b.name = "b";
  HostTensor sum = make(DataType::F32, {300});
  for (int64_t i = 0; i < 300; ++i)
    setFloat(sum, i, static_cast<float>(a.at(i)) + static_cast<float>(b.at(i)));
  ASSERT_TRUE(writeNpy(dir + "/output_0.npy", sum).isOk());

  PlanRunOptions options;
  options.inputs = {{"a", a}, {"b", b}};
  options.referenceDir = dir;
  options.outputDir = dir + "/out";
  ASSERT_EQ(::mkdir(options.outputDir.c_str(), 0755), 0);
  options.iterations = 3;
  options.warmup = 1;
  std::ostringstream out, err;
  EXPECT_EQ(runPlan(*runtime, addPlanBytes(300), options, out, err, "tool"), 0)
      << err.str();
  EXPECT_THAT(out.str(), HasSubstr("output 'out' 300xf32: min"));
  EXPECT_THAT(out.str(), HasSubstr("output_0.npy: match"));
  EXPECT_THAT(out.str(), HasSubstr("timing: 3 runs after 1 warmup runs"));
  auto written = readNpy(options.outputDir + "/output_0.npy");
  ASSERT_TRUE(written.isOk());
  EXPECT_TRUE(compareTensors(*written, sum, {}).isOk());

  // A reference that differs in one element: exit status 1.
  setFloat(sum, 17, static_cast<float>(sum.at(17) + 1));
  ASSERT_TRUE(writeNpy(dir + "/output_0.npy", sum).isOk());
  std::ostringstream out2, err2;
  options.iterations = 0;
  EXPECT_EQ(runPlan(*runtime, addPlanBytes(300), options, out2, err2, "tool"),
            1);
  EXPECT_THAT(out2.str(), HasSubstr("1 of 300 elements differ; first at 17"));

  // A corrupted plan is an error naming the cause.
  std::string plan = addPlanBytes(300);
  plan[plan.size() / 2] ^= 0x40;
  std::ostringstream out3, err3;
  EXPECT_EQ(runPlan(*runtime, plan, options, out3, err3, "tool"), 1);
  EXPECT_THAT(err3.str(), HasSubstr("tool: error: InvalidPlan"));
}

TEST(RunPlanToolTest, RunsWithTheStandInDriver) {
  std::string dir = tempDir("tool");
  writeFile(dir + "/add.kplan", addPlanBytes(64));
  HostTensor a = randomTensor(DataType::F32, {64}, 21);
  ASSERT_TRUE(writeNpy(dir + "/a.npy", a).isOk());
  std::string command =
      "KILN_FAKE_CUDA_DEVICES=1 " + std::string(KILN_RUN_PLAN) + " " + dir +
      "/add.kplan --input a=" + dir +
      "/a.npy --seed 4 --profile 2 --driver=" + KILN_FAKE_CUDA + " > " + dir +
      "/out.txt 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << readFile(dir + "/out.txt");
  std::string out = readFile(dir + "/out.txt");
  EXPECT_THAT(out, HasSubstr("input 'b' 64xf32: random (seed 4)"));
  EXPECT_THAT(out, HasSubstr("output 'out' 64xf32"));
  EXPECT_THAT(out, HasSubstr("|    0 | launch fake_add_f32"));
  command =
      "KILN_FAKE_CUDA_DEVICES=1 " + std::string(KILN_RUN_PLAN) + " " + dir +
      "/add.kplan --iterations 3 --back-to-back --driver=" + KILN_FAKE_CUDA +
      " > " + dir + "/b2b.txt 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << readFile(dir + "/b2b.txt");
  EXPECT_THAT(readFile(dir + "/b2b.txt"),
              HasSubstr("3 runs after 10 warmup runs, enqueued back to back"));
  EXPECT_THAT(readFile(dir + "/b2b.txt"),
              HasSubstr("| GPU (events between runs)"));
  // Bad arguments: exit status 2 with the usage.
  command = std::string(KILN_RUN_PLAN) + " --seed x > " + dir + "/bad.txt 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 2);
  EXPECT_THAT(readFile(dir + "/bad.txt"), HasSubstr("usage: kiln-run-plan"));
}

TEST(RunPlanToolTest, KernelTraceNeedsTimedRunsAndCupti) {
  std::string dir = tempDir("trace");
  writeFile(dir + "/add.kplan", addPlanBytes(64));
  std::string tool = "KILN_FAKE_CUDA_DEVICES=1 " + std::string(KILN_RUN_PLAN) +
                     " " + dir + "/add.kplan --driver=" + KILN_FAKE_CUDA +
                     " --kernel-trace";
  std::string command = tool + " > " + dir + "/no-runs.txt 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 1);
  EXPECT_THAT(readFile(dir + "/no-runs.txt"),
              HasSubstr("error: a kernel trace covers the timed runs: give "
                        "--iterations N"));
  command = tool + " --iterations 2 --cupti=" + dir + "/none.so > " + dir +
            "/no-cupti.txt 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 1);
  EXPECT_THAT(readFile(dir + "/no-cupti.txt"),
              HasSubstr("cannot load CUPTI, the CUDA toolkit's profiling "
                        "library"));
  // Not with a stress run.
  command = tool + " --threads 2 > " + dir + "/stress.txt 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 2);
  EXPECT_THAT(readFile(dir + "/stress.txt"),
              HasSubstr("--kernel-trace does not go with a stress run"));
}

TEST(QuantileTest, PicksOrderStatistics) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(quantile(v, 0.0), 1);
  EXPECT_EQ(quantile(v, 0.5), 3);
  EXPECT_EQ(quantile(v, 1.0), 5);
  EXPECT_EQ(quantile({}, 0.5), 0);
}
