//===- Logger.h - where the runtime's messages go ---------------*- C++ -*-===//
//
// The runtime reports what it does (the image it loaded, the JIT compiler's
// log) and what it could not clean up through a Logger the application gives
// it, with the severities of TensorRT's ILogger. Errors a caller can act on
// are returned as Status values, not logged.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_LOGGER_H
#define KILN_RUNTIME_LOGGER_H

#include <string>

namespace kiln::rt {

/// Receives the runtime's messages. log() may be called from any thread that
/// calls into the runtime, from several at once: an implementation used by a
/// runtime that several threads use must be thread-safe (StderrLogger is, as
/// long as setMinimum does not race with it).
class Logger {
public:
  enum class Severity {
    /// A bug in the runtime: an invariant does not hold.
    InternalError,
    /// Something failed that no caller can be told about (a failing
    /// cuMemFree in a destructor).
    Error,
    /// Something works, but perhaps not as intended.
    Warning,
    /// What the runtime did: the image it picked, sizes.
    Info,
    /// Details: the JIT compiler's log.
    Verbose,
  };

  virtual ~Logger();
  virtual void log(Severity severity, const std::string &message) = 0;
};

/// "internal error", "error", "warning", "info", "verbose".
const char *severityName(Logger::Severity severity);

/// Writes "kiln: <severity>: <message>" lines to stderr for messages at least
/// as severe as a minimum.
class StderrLogger : public Logger {
public:
  explicit StderrLogger(Severity minimum = Severity::Warning)
      : minimum_(minimum) {}
  void log(Severity severity, const std::string &message) override;
  Severity minimum() const { return minimum_; }
  void setMinimum(Severity minimum) { minimum_ = minimum; }

private:
  Severity minimum_;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_LOGGER_H
