#include "qnnrules/core/TerminalText.h"

#include <fmt/format.h>

namespace qnnrules {
namespace {

bool isC0OrDel(unsigned char c) { return c < 0x20 || c == 0x7F; }
// U+0080..U+009F in UTF-8: 0xC2 then 0x80..0x9F.
bool isC1At(std::string_view s, size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

std::string escape(std::string_view text, bool keepLines) {
  size_t i = 0;
  // Nothing to escape (almost always): one copy, no per-character appends.
  while (i < text.size() && !(isC0OrDel(static_cast<unsigned char>(text[i])) && !(keepLines && text[i] == '\n')) &&
         !isC1At(text, i))
    ++i;
  std::string out(text.substr(0, i));
  for (; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (keepLines && c == '\n') {
      out += '\n';
    } else if (isC0OrDel(c)) {
      out += fmt::format("\\x{:02x}", c);
    } else if (isC1At(text, i)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string escapeControls(std::string_view text) { return escape(text, false); }

std::string escapeControlsKeepingLines(std::string_view text) { return escape(text, true); }

}  // namespace qnnrules
