//===- Status.h - kiln runtime status and error codes -----------*- C++ -*-===//
//
// Every runtime call that can fail returns a Status (or a StatusOr<T>): a code
// a program can branch on and a message a person can act on, naming what was
// expected and what was found.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_STATUS_H
#define KILN_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace kiln::rt {

/// What went wrong, coarsely enough to branch on.
enum class StatusCode {
  Ok = 0,
  /// An argument to a runtime call is out of range or malformed.
  InvalidArgument,
  /// The CUDA driver library could not be loaded or is not a CUDA driver.
  DriverUnavailable,
  /// The driver loaded but reports no usable device.
  NoDevice,
  /// A driver call failed; the message names the call and CUDA's error.
  DriverError,
  /// A plan file is malformed, corrupted or tampered with, or a plan is
  /// inconsistent (a step names a kernel or tensor that does not exist, an
  /// address range lies outside its memory space, ...).
  InvalidPlan,
  /// A valid plan that this runtime or device cannot run: a newer file
  /// format, no code for the device's architecture, a driver that is too old.
  UnsupportedPlan,
  /// A name (of a tensor, a kernel) is not known.
  NotFound,
  /// Something the runtime did not expect: an invariant that does not hold,
  /// an exception thrown by a library-call handler or caught at the C API
  /// (out of host memory). The message says what happened.
  Internal,
};

/// Returns a stable name for `code`, such as "NoDevice".
const char *statusCodeName(StatusCode code);

/// The outcome of a runtime call.
class [[nodiscard]] Status {
public:
  /// A success.
  Status() = default;
  /// A failure with `code` (not Ok) and a message for people.
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "NoDevice: no CUDA device ..." or "Ok".
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

/// A value or the Status that explains why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "StatusOr needs a value or an error");
  }

  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  Status status_;
  std::optional<T> value_;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_STATUS_H
