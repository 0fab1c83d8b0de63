//===- JobPool.cpp - run conformance cases in child processes ---*- C++ -*-===//
//
// Each case runs in a forked process that writes its outcome to a pipe, at
// most `jobs` at once. A case that crashes or runs past its timeout (an
// alarm) fails alone; the lines come out in the order of the cases.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conformance/Conformance.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct Running {
  pid_t pid;
  int fd;
  size_t index;
};

/// Reads what a child wrote and how it ended.
CaseOutcome finish(const Running &r, unsigned timeoutSeconds) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(r.fd, buf, sizeof(buf))) > 0)
    text.append(buf, n);
  close(r.fd);
  int status = 0;
  waitpid(r.pid, &status, 0);
  if (WIFSIGNALED(status))
    return {"FAIL",
            WTERMSIG(status) == SIGALRM
                ? "timed out after " + std::to_string(timeoutSeconds) + " s"
                : "crashed with signal " + std::to_string(WTERMSIG(status))};
  size_t nl = text.find('\n');
  if (nl == std::string::npos)
    return {"FAIL", "the case process ended without a result (exit status " +
                        std::to_string(WEXITSTATUS(status)) + ")"};
  std::string detail = text.substr(nl + 1);
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  return {text.substr(0, nl), detail};
}

void printOutcome(llvm::raw_ostream &os, const std::string &dir,
                  const CaseOutcome &o) {
  os << o.status << "  " << getCaseName(dir)
     << (o.detail.empty() ? "" : ": " + o.detail) << "\n";
}

} // namespace

LogicalResult mlir::kiln::runConformanceCases(
    llvm::ArrayRef<std::string> cases, const ConformanceOptions &options,
    llvm::raw_ostream &os, std::vector<CaseOutcome> &outcomes,
    std::string &error) {
  outcomes.assign(cases.size(), CaseOutcome());
  if (options.inProcess) {
    for (auto [i, dir] : llvm::enumerate(cases)) {
      outcomes[i] = runConformanceCase(dir, options);
      printOutcome(os, dir, outcomes[i]);
    }
    return success();
  }

  std::vector<Running> running;
  auto reap = [&](size_t keep) {
    while (running.size() > keep) {
      // Finish the oldest child first, so lines come out in order.
      Running r = running.front();
      running.erase(running.begin());
      outcomes[r.index] = finish(r, options.timeoutSeconds);
      printOutcome(os, cases[r.index], outcomes[r.index]);
      os.flush();
    }
  };
  for (size_t next = 0; next < cases.size(); ++next) {
    reap(options.jobs - 1);
    int fds[2];
    if (pipe(fds) != 0) {
      error = "pipe failed";
      return failure();
    }
    os.flush();
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      // A crash is reported as the case's failure, without a stack dump.
      if (!std::freopen("/dev/null", "w", stderr))
        _exit(3);
      alarm(options.timeoutSeconds);
      CaseOutcome o = runConformanceCase(cases[next], options);
      std::string text = o.status + "\n" + o.detail;
      ssize_t unused = write(fds[1], text.data(), text.size());
      (void)unused;
      _exit(0);
    }
    close(fds[1]);
    running.push_back({pid, fds[0], next});
  }
  reap(0);
  return success();
}
