//===- Logger.cpp - where the runtime's messages go -------------*- C++ -*-===//
//
// Severity names and the stderr logger.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Logger.h"

#include <cstdio>

namespace kiln::rt {

Logger::~Logger() = default;

const char *severityName(Logger::Severity severity) {
  switch (severity) {
  case Logger::Severity::InternalError:
    return "internal error";
  case Logger::Severity::Error:
    return "error";
  case Logger::Severity::Warning:
    return "warning";
  case Logger::Severity::Info:
    return "info";
  case Logger::Severity::Verbose:
    return "verbose";
  }
  return "unknown";
}

void StderrLogger::log(Severity severity, const std::string &message) {
  if (static_cast<int>(severity) > static_cast<int>(minimum_))
    return;
  std::fprintf(stderr, "kiln: %s: %s\n", severityName(severity),
               message.c_str());
}

} // namespace kiln::rt
