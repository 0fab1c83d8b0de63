//===- kiln-run-plan.cpp - run and time a plan ------------------*- C++ -*-===//
//
// kiln-run-plan model.kplan [--input name=file.npy ...] [--reference-dir DIR]
//               [--output-dir DIR] [--seed N] [--warmup N] [--iterations N]
//               [--profile N] [--cuda-graphs] [--back-to-back]
//               [--kernel-trace] [--cupti=LIB] [--device N] [--driver=LIB]
//               [--plugin-lib=LIB ...]
// kiln-run-plan model.kplan --threads T [--contexts C] [--runs N] [--seed N]
//               [--device N] [--driver=LIB]
//
// Runs a plan bundle on the GPU with nothing but the runtime: inputs from
// NumPy files (others seeded random), each output summarized, compared with
// output_K.npy in --reference-dir and written to --output-dir; --iterations
// times it, --profile gives every step's median GPU time, --cuda-graphs
// enqueues the steps as one CUDA graph, --back-to-back times runs enqueued
// without a synchronize between them, --kernel-trace times the GPU
// operations of the timed runs with CUPTI (kiln/tooling/KernelTrace.h) and
// prints the gaps between them. With --threads,
// --contexts or --runs it is a stress run instead (kiln/tooling/Stress.h):
// T threads with C contexts each run N enqueues each, every output compared
// bit for bit with a single-threaded run. Exit status 1 on an error or a
// mismatch, 2 on bad arguments. It links no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"
#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/Npy.h"
#include "kiln/tooling/RunPlan.h"
#include "kiln/tooling/Stress.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace kiln;

static const char *kUsage =
    "usage: kiln-run-plan model.kplan [--input name=file.npy ...]\n"
    "         [--run-shape name=AxB ...] [--reference-dir DIR] [--output-dir "
    "DIR] [--seed N]\n"
    "         [--warmup N] [--iterations N] [--profile N] [--cuda-graphs]\n"
    "         [--back-to-back] [--kernel-trace] [--cupti=LIB] [--device N]\n"
    "         [--driver=LIB] [--plugin-lib=LIB ...]\n"
    "       kiln-run-plan model.kplan --threads T [--contexts C] [--runs N]\n"
    "         [--seed N] [--device N] [--driver=LIB]\n"
    "Runs a kiln plan on the GPU: inputs from .npy files (others random),\n"
    "a plan with run-time shapes at the shapes of the input files, else of\n"
    "--run-shape, else at its profile's opt shape;\n"
    "outputs compared with DIR/output_K.npy and written to --output-dir,\n"
    "timed with --iterations, profiled per step with --profile (with both,\n"
    "the launch gaps per step), enqueued as one CUDA graph with "
    "--cuda-graphs.\n"
    "--back-to-back times runs enqueued without a synchronize between them.\n"
    "--kernel-trace times each GPU operation of the timed runs with CUPTI\n"
    "(the CUDA toolkit's profiling library; --cupti=LIB names it) and prints\n"
    "the gaps between consecutive operations, inside a CUDA graph too.\n"
    "With --threads, --contexts or --runs: a stress run, T threads (default\n"
    "1) with C contexts each (default 1) running N enqueues each (default\n"
    "100) on random inputs, outputs compared bit for bit with a\n"
    "single-threaded run; with run-time shapes, each context at a shape of\n"
    "its own.\n";

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
  tooling::StressOptions stress;
  bool stressing = false;
  std::string notWithStress; // an option a stress run does not take
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
    if (arg.rfind("--plugin-lib=", 0) == 0) {
      // Before the plan loads: its plugin steps find their creators.
      if (rt::Status s = rt::loadPluginLibrary(arg.substr(13)); !s) {
        std::cerr << "kiln-run-plan: error: " << s.message() << "\n";
        return 1;
      }
      continue;
    }
    if (arg == "--cuda-graphs" || arg == "--kernel-trace" ||
        arg == "--back-to-back") {
      (arg == "--cuda-graphs"    ? options.cudaGraph
       : arg == "--kernel-trace" ? options.kernelTrace
                                 : options.backToBack) = true;
      notWithStress = arg;
      continue;
    }
    if (arg.rfind("--cupti=", 0) == 0) {
      options.cuptiLibrary = arg.substr(8);
      notWithStress = "--cupti";
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
      notWithStress = arg;
    } else if (arg == "--run-shape") {
      std::string spec = value;
      size_t eq = spec.rfind('=');
      std::vector<int64_t> dims;
      std::stringstream text(eq == std::string::npos ? ""
                                                     : spec.substr(eq + 1));
      for (std::string dim; std::getline(text, dim, 'x');)
        if (!dim.empty() && parseCount(dim.c_str(), count) && count > 0)
          dims.push_back(count);
        else
          dims.clear(), text.setstate(std::ios::failbit);
      if (eq == std::string::npos || eq == 0 || dims.empty())
        return usage("--run-shape expects name=AxB (positive sizes), got '" +
                     spec + "'");
      options.shapes[spec.substr(0, eq)] = dims;
      notWithStress = arg;
    } else if (arg == "--reference-dir") {
      options.referenceDir = value;
      notWithStress = arg;
    } else if (arg == "--output-dir") {
      options.outputDir = value;
      notWithStress = arg;
    } else if (!parseCount(value, count)) {
      return usage(arg + " expects a non-negative integer, got '" + value +
                   "'");
    } else if (arg == "--seed") {
      options.seed = static_cast<unsigned>(count);
      stress.seed = options.seed;
    } else if (arg == "--warmup") {
      options.warmup = static_cast<int>(count);
      notWithStress = arg;
    } else if (arg == "--iterations") {
      options.iterations = static_cast<int>(count);
      notWithStress = arg;
    } else if (arg == "--profile") {
      options.profileRuns = static_cast<int>(count);
      notWithStress = arg;
    } else if (arg == "--threads" || arg == "--contexts" || arg == "--runs") {
      long limit = arg == "--runs" ? 1000000000 : 1024;
      if (count < 1 || count > limit)
        return usage(arg + " expects 1 to " + std::to_string(limit) + ", got " +
                     value);
      (arg == "--threads"    ? stress.threads
       : arg == "--contexts" ? stress.contexts
                             : stress.runs) = static_cast<int>(count);
      stressing = true;
    } else if (arg == "--device") {
      device = count;
    } else {
      return usage("unknown option " + arg);
    }
  }
  if (planPath.empty())
    return usage("no plan given");
  if (stressing && !notWithStress.empty())
    return usage(notWithStress + " does not go with a stress run (--threads, "
                                 "--contexts, --runs)");

  std::ifstream file(planPath, std::ios::binary);
  if (!file) {
    std::cerr << "kiln-run-plan: error: cannot read '" << planPath << "'\n";
    return 1;
  }
  std::stringstream bytes;
  bytes << file.rdbuf();
  // A corrupt plan is reported whether or not there is a GPU.
  const std::string plan = bytes.str();
  if (auto contents = rt::readPlan(plan.data(), plan.size());
      !contents.isOk()) {
    std::cerr << "kiln-run-plan: error: " << contents.status().toString()
              << "\n";
    return 1;
  }
  rt::StderrLogger logger(rt::Logger::Severity::Warning);
  auto runtime = rt::Runtime::create(&logger, static_cast<int>(device), driver);
  if (!runtime.isOk()) {
    std::cerr << "kiln-run-plan: error: cannot run on the GPU: "
              << runtime.status().toString() << "\n";
    return 1;
  }
  if (stressing)
    return tooling::runStress(**runtime, plan, stress, std::cout, std::cerr,
                              "kiln-run-plan");
  return tooling::runPlan(**runtime, plan, options, std::cout, std::cerr,
                          "kiln-run-plan");
}
