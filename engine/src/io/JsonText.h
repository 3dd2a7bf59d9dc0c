// Internal to the JSON-reading front ends (graph JSON, the program inside a .pt2 archive):
// facts about raw JSON text needed before or after parsing.
#pragma once

#include <cstdint>
#include <string_view>

namespace qnnrules::jsontext {

// Nesting depth of JSON text, measured before parsing so that hostile input ("[[[[…")
// never reaches a parser or a recursive walk. Returns the byte offset where `limit` is
// exceeded, or npos.
inline size_t findExcessiveNesting(std::string_view text, int limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// 1-based line and column of a byte offset.
inline void lineColumnOf(std::string_view text, size_t offset, uint32_t& line, uint32_t& column) {
  line = 1;
  column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

}  // namespace qnnrules::jsontext
