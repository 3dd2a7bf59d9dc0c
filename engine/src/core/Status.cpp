#include "qnnrules/core/Status.h"

namespace qnnrules {

const char* statusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid-argument";
    case StatusCode::kNotFound: return "not-found";
    case StatusCode::kParseError: return "parse-error";
    case StatusCode::kSchemaError: return "schema-error";
    case StatusCode::kRuleError: return "rule-error";
    case StatusCode::kIoError: return "io-error";
    case StatusCode::kLimitExceeded: return "limit-exceeded";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  std::string s = statusCodeName(code_);
  s += ": ";
  s += message_;
  if (!fragment_.empty()) {
    s += " (";
    s += fragment_;
    s += ")";
  }
  return s;
}

}  // namespace qnnrules
