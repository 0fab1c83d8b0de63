//===- write-plan.cpp - a plan with one plugin step -----------------------===//
//
// write-leaky-relu-plan OUT.kplan N SLOPE: a plan of input "x" and output
// "y" (N floats) whose one step is the LeakyRelu plugin of this folder:
// what kiln's compiler will write for a plugin layer, written here by hand
// with the runtime's plan writer (kiln/runtime/Plan.h).
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Plugin.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

using namespace kiln::rt;

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s OUT.kplan N SLOPE\n", argv[0]);
    return 2;
  }
  int64_t n = std::atoll(argv[2]);
  if (n <= 0) {
    std::fprintf(stderr, "write-leaky-relu-plan: N must be positive\n");
    return 2;
  }
  PluginCall call;
  call.name = "LeakyRelu";
  call.version = "1";
  call.pluginNamespace = "example";
  call.inputs = call.outputs = {{DataType::F32, {n}}};
  call.fields = {
      PluginField::of("negative_slope", std::vector<double>{atof(argv[3])})};

  PlanContents plan;
  plan.compatibility.kilnVersion = "example";
  plan.tensors = {{"x", DataType::F32, {n}, true},
                  {"y", DataType::F32, {n}, false}};
  Step step;
  step.kind = Step::Kind::LibraryCall;
  uint64_t bytes = uint64_t(n) * 4;
  Address x, y;
  x.space = MemorySpace::Tensor;
  x.index = 0;
  y.space = MemorySpace::Tensor;
  y.index = 1;
  step.libraryCall = {
      kPluginCallee, {{x, bytes}, {y, bytes}}, encodePluginCall(call)};
  plan.steps = {step};
  auto file = writePlan(plan);
  if (!file) {
    std::fprintf(stderr, "write-leaky-relu-plan: %s\n",
                 file.status().message().c_str());
    return 1;
  }
  std::ofstream(argv[1], std::ios::binary) << *file;
  return 0;
}
