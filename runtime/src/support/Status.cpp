//===- Status.cpp - kiln runtime status -------------------------*- C++ -*-===//
//
// Names of status codes and the printed form of a status.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Status.h"

namespace kiln::rt {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "Ok";
  case StatusCode::InvalidArgument:
    return "InvalidArgument";
  case StatusCode::DriverUnavailable:
    return "DriverUnavailable";
  case StatusCode::NoDevice:
    return "NoDevice";
  case StatusCode::DriverError:
    return "DriverError";
  case StatusCode::InvalidPlan:
    return "InvalidPlan";
  case StatusCode::UnsupportedPlan:
    return "UnsupportedPlan";
  case StatusCode::NotFound:
    return "NotFound";
  case StatusCode::Internal:
    return "Internal";
  }
  return "Unknown";
}

std::string Status::toString() const {
  if (isOk())
    return "Ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

} // namespace kiln::rt
