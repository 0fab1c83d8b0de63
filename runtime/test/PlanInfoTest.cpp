//===- PlanInfoTest.cpp - the kiln-plan-info tool ---------------*- C++ -*-===//
//
// kiln-plan-info's output is an interface (lit tests check it with
// FileCheck): the whole output for a plan that uses every feature (kernel
// signatures, pointer extents and accesses included), and the
// error line and exit status for a damaged plan, a missing file and bad
// arguments.
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>

using namespace kiln::rt;
using namespace kiln::rt::test;

namespace {

struct ToolResult {
  int exitCode = -1;
  std::string output; // stdout and stderr
};

ToolResult runPlanInfo(const std::string &arguments) {
  ToolResult result;
  std::string command =
      std::string("'") + KILN_PLAN_INFO + "' " + arguments + " 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string writeFile(const std::string &name, const std::string &bytes) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(PlanInfo, PrintsEverything) {
  auto file = writePlan(makeFullPlan());
  ASSERT_TRUE(file.isOk());
  std::string path = writeFile("kiln-plan-info-full.kplan", *file);
  ToolResult result = runPlanInfo("'" + path + "' --steps");
  EXPECT_EQ(result.exitCode, 0) << result.output;
  EXPECT_EQ(result.output, "plan: " + path + " (" +
                               std::to_string(file->size()) +
                               " bytes, format 1.4)\n"
                               R"(compatibility:
  kiln version: 0.1.0-test
  archs: 80, 90
  ptx isa: 8.0
  min driver: 12.0 (12000)
  precision: fp32
  build options: --kiln-tile=256 --kiln-stages=1
tensors: 7
  tensor 0: input  x f32 [2,3,4] (96 bytes)
  tensor 1: input  mask bool [5] (5 bytes)
  tensor 2: input  indices i64 [2] (16 bytes)
  tensor 3: output empty f16 [0,7] (0 bytes)
  tensor 4: output y bf16 [3,4] (24 bytes)
  tensor 5: output scalar i8 [] (1 bytes)
  tensor 6: output counts i32 [4] (16 bytes)
kernels: 2
  kernel 0: k0_generic tile=[256] threads=[256] stages=1
    params: ptr, ptr, ptr, i32, i64, f32
    bound: arg3 in 0..8, 16*arg3 <= extent(arg0)
    bound: arg4 in 0..1099511627776
  kernel 1: k1_reduce
    params: ptr, ptr, ptr
images: 2
  image 0: PTX compute_80 (104 bytes)
  image 1: cubin sm_90 (300 bytes)
weights: 1000 bytes
arena: 4096 bytes
steps: 9 (3 launch, 3 copy, 2 fill, 1 call)
  step 0: fill arena+0 (512 bytes) with 0xab
  step 1: copy tensor0+0 -> arena+512 (96 bytes)
  step 2: launch k0_generic grid=(98,2,1) block=(256,1,1) shared=1024 args=6 (arena+512[96,r], weights+16[32,r], tensor4+0[24,w], i32 6, i64 1099511627776, f32 1.5)
  step 3: launch k1_reduce grid=(1,1,1) block=(32,4,2) args=3 (tensor3+0[0,w], weights+1000[0,-], tensor1+5[0,r])
  step 4: copy weights+0 -> tensor6+0 (16 bytes)
  step 5: fill tensor5+0 (1 bytes) with 0xff
  step 6: launch k1_reduce grid=(7,1,1) block=(1,1,1) args=3 (arena+0[4096,rw], weights+0[1000,r], tensor2+8[8,r])
  step 7: copy arena+4080 -> tensor2+0 (16 bytes)
  step 8: call test.matmul buffers=4 (arena+0 (64 bytes), weights+16 (32 bytes), tensor4+0 (24 bytes), tensor3+0 (0 bytes)) payload=10 bytes
)");

  // Without --steps: the same, less the step lines.
  ToolResult brief = runPlanInfo("'" + path + "'");
  EXPECT_EQ(brief.exitCode, 0);
  EXPECT_EQ(brief.output,
            result.output.substr(0, result.output.find("  step 0:")));
}

// A plan without library calls counts its steps as format 1.0 did.
TEST(PlanInfo, StepCountsWithoutLibraryCalls) {
  auto file = writePlan(makeSmallPlan());
  ASSERT_TRUE(file.isOk());
  std::string path = writeFile("kiln-plan-info-small.kplan", *file);
  ToolResult result = runPlanInfo("'" + path + "'");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.output.find("\nsteps: 5 (2 launch, 2 copy, 1 fill)\n"),
            std::string::npos)
      << result.output;
}

TEST(PlanInfo, NamesPluginSteps) {
  auto file = writePlan(clipPlan(16, -1, 1, "2"));
  ASSERT_TRUE(file.isOk());
  std::string path = writeFile("kiln-plan-info-plugin.kplan", *file);
  ToolResult result = runPlanInfo("--steps '" + path + "'");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.output.find("call kiln.plugin buffers=3"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("plugin=kiln.test::TestClip@2 fields=2"),
            std::string::npos)
      << result.output;
}

TEST(PlanInfo, ExactFloatImmediates) {
  PlanContents plan = makeSmallPlan();
  plan.steps[3].launch.args[1] = f32Arg(1.0f / 3.0f);
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk());
  std::string path = writeFile("kiln-plan-info-float.kplan", *file);
  ToolResult result = runPlanInfo("--steps '" + path + "'");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.output.find("args=2 (arena+64[64,rw], f32 0.33333334)"),
            std::string::npos)
      << result.output;
}

TEST(PlanInfo, DamagedPlan) {
  auto file = writePlan(makeSmallPlan());
  ASSERT_TRUE(file.isOk());
  std::string path =
      writeFile("kiln-plan-info-short.kplan", file->substr(0, 100));
  ToolResult result = runPlanInfo("'" + path + "'");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.output,
            "kiln-plan-info: " + path +
                ": InvalidPlan: plan is truncated: header says " +
                std::to_string(file->size()) + " bytes, file has 100\n");
}

TEST(PlanInfo, MissingFileAndBadArguments) {
  ToolResult missing = runPlanInfo("/nonexistent/plan.kplan");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_EQ(missing.output, "kiln-plan-info: /nonexistent/plan.kplan: cannot "
                            "open: No such file or directory\n");
  EXPECT_EQ(runPlanInfo("").exitCode, 2);
  EXPECT_EQ(runPlanInfo("a.kplan --bogus").exitCode, 2);
}

} // namespace
