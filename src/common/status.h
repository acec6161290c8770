#pragma once

// Status and Result<T>: the error currency of Rota (see STYLE.md, "Errors").
// A Status is cheap when OK (no allocation); an error carries a code and a message
// written for the person who will read it (quote the offending input).

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace rota {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // Bad input from a user or a file.
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kOutOfRange,  // A value or a count beyond a configured limit.
  kFailedPrecondition,
  kUnavailable,
  kCorruption,
  kIoError,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  bool operator==(const Status& other) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status OutOfRange(std::string message) {
  return Status(StatusCode::kOutOfRange, std::move(message));
}
inline Status FailedPrecondition(std::string message) {
  return Status(StatusCode::kFailedPrecondition, std::move(message));
}
inline Status IoError(std::string message) {
  return Status(StatusCode::kIoError, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}

// A value or the Status that explains why there is none.
// REQUIRES: a Result is never built from an OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT: implicit by design.
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design.
    assert(!std::get<Status>(data_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  // The error, or OK when a value is present.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace rota

// Returns early from the enclosing function when `expr` (a Status) is an error.
#define ROTA_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::rota::Status rota_status_ = (expr);        \
    if (!rota_status_.ok()) return rota_status_; \
  } while (0)
