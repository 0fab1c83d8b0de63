//===- Conformance.cpp - a conformance run and its reports ------*- C++ -*-===//
//
// The whole run of kiln-conformance: the case folders of the given paths,
// the job pool, then the reports: JSON, the baseline written or checked
// (a `REGRESSION` line per baseline case that stopped passing) and the
// summary line.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conformance/Conformance.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <fstream>

using namespace mlir;
using namespace mlir::kiln;

llvm::StringRef mlir::kiln::getBackendName(ConformanceBackend backend) {
  return backend == ConformanceBackend::Gpu ? "gpu" : "reference";
}

void mlir::kiln::collectConformanceCases(const std::string &path,
                                         std::vector<std::string> &cases) {
  if (llvm::sys::fs::exists(path + "/model.onnx")) {
    cases.push_back(path);
    return;
  }
  std::vector<std::string> children;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::exists(it->path() + "/model.onnx"))
      children.push_back(it->path());
  std::sort(children.begin(), children.end());
  cases.insert(cases.end(), children.begin(), children.end());
}

std::string mlir::kiln::getCaseName(llvm::StringRef dir) {
  llvm::StringRef name = llvm::sys::path::filename(dir);
  llvm::StringRef parent =
      llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  return (parent + "/" + name).str();
}

namespace {

LogicalResult writeJsonReport(const ConformanceOptions &options,
                              llvm::ArrayRef<std::string> cases,
                              llvm::ArrayRef<CaseOutcome> outcomes,
                              const ConformanceSummary &summary,
                              std::string &error) {
  llvm::json::Array list;
  for (auto [dir, o] : llvm::zip(cases, outcomes))
    list.push_back(llvm::json::Object{{"case", getCaseName(dir)},
                                      {"status", o.status},
                                      {"detail", o.detail}});
  llvm::json::Object report{{"backend", getBackendName(options.backend)},
                            {"passed", summary.passed},
                            {"failed", summary.failed},
                            {"skipped", summary.skipped},
                            {"cases", std::move(list)}};
  std::error_code ec;
  llvm::raw_fd_ostream os(options.jsonPath, ec);
  if (ec) {
    error = "cannot write " + options.jsonPath;
    return failure();
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return success();
}

void writeBaseline(const std::string &path, llvm::ArrayRef<std::string> cases,
                   llvm::ArrayRef<CaseOutcome> outcomes) {
  std::ofstream os(path);
  os << "# Cases that pass on the reference backend; CI fails if one stops "
        "passing.\n";
  for (auto [dir, o] : llvm::zip(cases, outcomes))
    if (o.status == "PASS")
      os << getCaseName(dir) << "\n";
}

/// Prints a REGRESSION line for each case of the baseline that ran and did
/// not pass; counts them in `regressions`.
LogicalResult checkBaseline(const std::string &path,
                            llvm::ArrayRef<std::string> cases,
                            llvm::ArrayRef<CaseOutcome> outcomes,
                            llvm::raw_ostream &os, int &regressions,
                            std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read " + path;
    return failure();
  }
  llvm::StringMap<std::string> status;
  for (auto [dir, o] : llvm::zip(cases, outcomes))
    status[getCaseName(dir)] = o.status;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    auto it = status.find(line);
    if (it != status.end() && it->second != "PASS") {
      os << "REGRESSION  " << line << " passed in the baseline, now "
         << it->second << "\n";
      ++regressions;
    }
  }
  return success();
}

} // namespace

FailureOr<ConformanceSummary>
mlir::kiln::runConformance(llvm::ArrayRef<std::string> paths,
                           const ConformanceOptions &options,
                           llvm::raw_ostream &os, std::string &error) {
  std::vector<std::string> cases;
  for (const std::string &p : paths) {
    if (!llvm::sys::fs::is_directory(p)) {
      error = "'" + p + "' is not a folder";
      return failure();
    }
    collectConformanceCases(p, cases);
  }

  std::vector<CaseOutcome> outcomes;
  if (failed(runConformanceCases(cases, options, os, outcomes, error)))
    return failure();

  ConformanceSummary summary;
  for (const CaseOutcome &o : outcomes)
    (o.status == "PASS"   ? summary.passed
     : o.status == "SKIP" ? summary.skipped
                          : summary.failed)++;

  if (!options.jsonPath.empty() &&
      failed(writeJsonReport(options, cases, outcomes, summary, error)))
    return failure();
  if (!options.writeBaselinePath.empty())
    writeBaseline(options.writeBaselinePath, cases, outcomes);
  if (!options.baselinePath.empty() &&
      failed(checkBaseline(options.baselinePath, cases, outcomes, os,
                           summary.regressions, error)))
    return failure();
  os << summary.passed << " passed, " << summary.failed << " failed, "
     << summary.skipped << " skipped\n";
  return summary;
}
