#include "GraphParseError.h"

#include <nlohmann/json.hpp>

#include "io/JsonText.h"

namespace qnnrules::jsontext {
namespace {

// Accepts every value and records the first error with its position. A SAX pass rather than a
// DOM parse: nothing is built, and errors nlohmann raises as other exception types (a number
// overflowing double is out_of_range 406) arrive here with a position instead of being thrown.
class FirstError : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) override {
    found = true;
    // Syntax errors point at the byte that broke the grammar; a number too large for a
    // double is whole and well-formed, so point at where it starts.
    const bool overflow = dynamic_cast<const nlohmann::detail::out_of_range*>(&ex) != nullptr;
    offset = position > 0 ? position - 1 : 0;
    if (overflow && token.size() <= position) offset = position - token.size();
    what = ex.what();
    return false;
  }

  bool found = false;
  std::size_t offset = 0;  // of the error in the text
  std::string what;
};

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." and
// "[json.exception.out_of_range.406] number overflow parsing '1e400'" -> what follows the
// position or the exception's id, which says what was wrong.
std::string reason(const std::string& what) {
  if (size_t at = what.find("parse error"); at != std::string::npos)
    if (size_t colon = what.find(": ", at); colon != std::string::npos) return what.substr(colon + 2);
  if (what.starts_with("[json.exception."))
    if (size_t close = what.find("] "); close != std::string::npos) return what.substr(close + 2);
  return what;
}

}  // namespace

Status malformedJson(std::string_view text, const std::string& displayName, const std::string& fallback) {
  uint32_t line = 1, column = 1;
  std::string what = fallback;
  FirstError handler;
  try {
    nlohmann::json::sax_parse(text, &handler);
  } catch (const std::exception& e) {  // the SAX parser reports through the handler; belt and braces
    what = e.what();
  }
  if (handler.found) {
    lineColumnOf(text, handler.offset, line, column);
    what = reason(handler.what);
  }
  return Status(StatusCode::kParseError,
                displayName + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " + what,
                displayName);
}

}  // namespace qnnrules::jsontext
