#include "qnnrules/core/JsonWriter.h"

#include <fmt/format.h>

#include <iterator>

#include <nlohmann/json.hpp>

namespace qnnrules {
namespace {

// Plain printable ASCII without quote or backslash is written as it is; anything else (control
// characters, non-ASCII, invalid UTF-8) goes through nlohmann's own escaping, so the rare
// string that needs it is escaped exactly as a DOM dump escapes it.
bool plain(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void JsonWriter::newline(int level) {
  out_ += '\n';
  out_.append(static_cast<size_t>(level * indent_), ' ');
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (empty_.empty()) return;  // the top-level value
  if (!empty_.back()) out_ += ',';
  empty_.back() = false;
  if (indent_ >= 0) newline(level_);
}

void JsonWriter::open(char c) {
  beforeValue();
  out_ += c;
  empty_.push_back(true);
  ++level_;
}

void JsonWriter::close(char c) {
  --level_;
  const bool wasEmpty = empty_.back();
  empty_.pop_back();
  if (!wasEmpty && indent_ >= 0) newline(level_);
  out_ += c;
  if (sink_ && out_.size() >= pieceBytes_) {
    (*sink_)(out_);
    out_.clear();
  }
}

void JsonWriter::key(std::string_view k) {
  beforeValue();
  writeString(k);
  out_ += indent_ >= 0 ? ": " : ":";
  afterKey_ = true;
}

void JsonWriter::writeString(std::string_view s) {
  if (plain(s)) {
    out_ += '"';
    out_ += s;
    out_ += '"';
    return;
  }
  out_ += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::rawValue(std::string_view json) {
  beforeValue();
  if (!sink_) {
    out_ += json;
    return;
  }
  (*sink_)(out_);
  out_.clear();
  (*sink_)(json);
}

void JsonWriter::value(std::string_view s) {
  beforeValue();
  writeString(s);
}

void JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
}

void JsonWriter::value(uint64_t v) {
  beforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", v);
}

void JsonWriter::value(int64_t v) {
  beforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", v);
}

void JsonWriter::value(double v) {
  beforeValue();
  out_ += nlohmann::json(v).dump();  // rare (phase times): the DOM's own number formatting
}

void JsonWriter::null() {
  beforeValue();
  out_ += "null";
}

}  // namespace qnnrules
