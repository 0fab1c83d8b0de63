//===- PythonLogger.h - kiln's messages to a Python callable ----*- C++ -*-===//
//
// A kiln::rt::Logger that calls log(severity, message) with the GIL held
// (from any thread), or, for None, writes warnings and errors to stderr as
// StderrLogger does. An exception the callable raises is reported as
// unraisable and goes no further: it must not unwind through the compiler,
// which is built without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_PYTHONLOGGER_H
#define KILN_PYTHON_PYTHONLOGGER_H

#include "kiln/runtime/Logger.h"

#include <pybind11/pybind11.h>

namespace kiln::python {

class PythonLogger : public rt::Logger {
public:
  explicit PythonLogger(pybind11::object log) : log_(std::move(log)) {}
  ~PythonLogger() override {
    pybind11::gil_scoped_acquire gil;
    log_ = pybind11::object();
  }

  void log(Severity severity, const std::string &message) override {
    if (log_.is_none()) {
      stderr_.log(severity, message);
      return;
    }
    pybind11::gil_scoped_acquire gil;
    try {
      log_(int(severity), message);
    } catch (pybind11::error_already_set &error) {
      error.discard_as_unraisable("kiln log callback");
    } catch (...) {
    }
  }

private:
  pybind11::object log_;
  rt::StderrLogger stderr_;
};

} // namespace kiln::python

#endif // KILN_PYTHON_PYTHONLOGGER_H
