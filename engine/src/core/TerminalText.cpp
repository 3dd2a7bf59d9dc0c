#include "qnnrules/core/TerminalText.h"

#include <fmt/format.h>

#include <array>
#include <iterator>

namespace qnnrules {
namespace {

bool isC0OrDel(unsigned char c) { return c < 0x20 || c == 0x7F; }
// U+0080..U+009F in UTF-8: 0xC2 then 0x80..0x9F.
bool isC1At(std::string_view s, size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

// The bytes that may start something to escape: C0 controls, DEL, and 0xC2 (the first byte of
// a C1 control in UTF-8). One table read per byte finds the first of them.
constexpr std::array<bool, 256> kMayEscape = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = true;
  t[0x7F] = true;
  t[0xC2] = true;
  return t;
}();

void appendEscaped(std::string& out, std::string_view text, bool keepLines) {
  size_t i = 0;
  // Nothing to escape (almost always): one append, no per-character appends.
  for (;; ++i) {
    while (i < text.size() && !kMayEscape[static_cast<unsigned char>(text[i])]) ++i;
    if (i == text.size() || (!(keepLines && text[i] == '\n') && (isC0OrDel(static_cast<unsigned char>(text[i])) || isC1At(text, i))))
      break;
  }
  out.append(text.substr(0, i));
  for (; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (keepLines && c == '\n') {
      out += '\n';
    } else if (isC0OrDel(c)) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
    } else if (isC1At(text, i)) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
}

}  // namespace

std::string escapeControls(std::string_view text) {
  std::string out;
  appendEscaped(out, text, false);
  return out;
}

std::string escapeControlsKeepingLines(std::string_view text) {
  std::string out;
  appendEscaped(out, text, true);
  return out;
}

void appendEscapedControls(std::string& out, std::string_view text) { appendEscaped(out, text, false); }

void appendEscapedControlsKeepingLines(std::string& out, std::string_view text) { appendEscaped(out, text, true); }

}  // namespace qnnrules
