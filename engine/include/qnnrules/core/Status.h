// Recoverable errors as values: a code, a message, and the offending fragment.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace qnnrules {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad option or usage (unknown SoC, backend, flag value)
  kNotFound,         // a file or directory that does not exist
  kParseError,       // malformed input text (JSON/YAML syntax)
  kSchemaError,      // well-formed text that breaks the format's schema
  kRuleError,        // rule files that fail to load (see the attached diagnostics)
  kIoError,          // read/write failures
  kLimitExceeded,    // input larger or deeper than the configured limits
  kInternal,         // an engine invariant broke
};

const char* statusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::string fragment = {})
      : code_(code), message_(std::move(message)), fragment_(std::move(fragment)) {}

  static Status ok() { return Status(); }
  bool isOk() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The piece of input that caused the error (a key, a path, a value), if any.
  const std::string& fragment() const { return fragment_; }
  std::string toString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string fragment_;
};

// A value or the status explaining why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}          // NOLINT(implicit)
  StatusOr(Status status) : v_(std::move(status)) {}   // NOLINT(implicit)

  bool isOk() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return isOk() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace qnnrules
