//===- kiln-run-plan.cpp - run and time a plan ------------------*- C++ -*-===//
//
// kiln-run-plan model.kplan [--input name=file.npy ...] [--reference-dir DIR]
//               [--output-dir DIR] [--seed N] [--warmup N] [--iterations N]
//               [--profile N] [--device N] [--driver=LIB]
//
// Runs a plan bundle on the GPU with nothing but the runtime: inputs from
// NumPy files (others seeded random), each output summarized, compared with
// output_K.npy in --reference-dir and written to --output-dir; --iterations
// times it, --profile gives every step's median GPU time. Exit status 1 on
// an error or a mismatch, 2 on bad arguments. It links no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/Npy.h"
#include "kiln/tooling/RunPlan.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace kiln;

static const char *kUsage =
    "usage: kiln-run-plan model.kplan [--input name=file.npy ...]\n"
    "         [--reference-dir DIR] [--output-dir DIR] [--seed N]\n"
    "         [--warmup N] [--iterations N] [--profile N] [--device N]\n"
    "         [--driver=LIB]\n"
    "Runs a kiln plan on the GPU: inputs from .npy files (others random),\n"
    "outputs compared with DIR/output_K.npy and written to --output-dir,\n"
    "timed with --iterations, profiled per step with --profile.\n";

static int usage(const std::string &problem) {
  std::cerr << "kiln-run-plan: error: " << problem << "\n" << kUsage;
  return 2;
}

/// Parses a non-negative integer, or returns false.
static bool parseCount(const char *text, long &value) {
  char *end = nullptr;
  value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value >= 0 && value <= 1000000000;
}

int main(int argc, char **argv) {
  std::string planPath, driver = rt::Driver::kDefaultLibrary;
  long device = 0;
  tooling::PlanRunOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg.rfind("--driver=", 0) == 0) {
      driver = arg.substr(9);
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!planPath.empty())
        return usage("more than one plan given");
      planPath = arg;
      continue;
    }
    if (i + 1 >= argc)
      return usage(arg + " needs a value");
    const char *value = argv[++i];
    long count = 0;
    if (arg == "--input") {
      std::string spec = value;
      size_t eq = spec.rfind('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        return usage("--input expects name=file.npy, got '" + spec + "'");
      auto t = tooling::readNpy(spec.substr(eq + 1));
      if (!t.isOk()) {
        std::cerr << "kiln-run-plan: error: " << t.status().message() << "\n";
        return 1;
      }
      t->name = spec.substr(0, eq);
      options.inputs[t->name] = *t;
    } else if (arg == "--reference-dir") {
      options.referenceDir = value;
    } else if (arg == "--output-dir") {
      options.outputDir = value;
    } else if (!parseCount(value, count)) {
      return usage(arg + " expects a non-negative integer, got '" + value +
                   "'");
    } else if (arg == "--seed") {
      options.seed = static_cast<unsigned>(count);
    } else if (arg == "--warmup") {
      options.warmup = static_cast<int>(count);
    } else if (arg == "--iterations") {
      options.iterations = static_cast<int>(count);
    } else if (arg == "--profile") {
      options.profileRuns = static_cast<int>(count);
    } else if (arg == "--device") {
      device = count;
    } else {
      return usage("unknown option " + arg);
    }
  }
  if (planPath.empty())
    return usage("no plan given");

  std::ifstream file(planPath, std::ios::binary);
  if (!file) {
    std::cerr << "kiln-run-plan: error: cannot read '" << planPath << "'\n";
    return 1;
  }
  std::stringstream bytes;
  bytes << file.rdbuf();
  rt::StderrLogger logger(rt::Logger::Severity::Warning);
  auto runtime = rt::Runtime::create(&logger, static_cast<int>(device), driver);
  if (!runtime.isOk()) {
    std::cerr << "kiln-run-plan: error: cannot run on the GPU: "
              << runtime.status().toString() << "\n";
    return 1;
  }
  return tooling::runPlan(**runtime, bytes.str(), options, std::cout, std::cerr,
                          "kiln-run-plan");
}
