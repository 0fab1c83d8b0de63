//===- PlanFuzzSeeds.h - real plans to start fuzzing from -------*- C++ -*-===//
//
// The seed corpus of the plan-reader fuzzer, written by the current writer
// from the runtime tests' plans, so that it never goes stale when the format
// changes: kiln-plan-fuzz-seeds writes them to a folder, and the regression
// test checks that each still reads.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_FUZZ_PLANFUZZSEEDS_H
#define KILN_RUNTIME_FUZZ_PLANFUZZSEEDS_H

#include <string>
#include <utility>
#include <vector>

namespace kiln::rt::fuzz {

/// (file name, bytes) of every seed plan: one that uses every feature of
/// the format, a small one with a library call, the engine tests' add plan,
/// an empty plan, and a launch-free plan of format 1.1.
std::vector<std::pair<std::string, std::string>> planFuzzSeeds();

} // namespace kiln::rt::fuzz

#endif // KILN_RUNTIME_FUZZ_PLANFUZZSEEDS_H
