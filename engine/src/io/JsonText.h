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

// Nesting depth and value count of JSON text, measured in one pass before parsing, so that a
// document whose DOM would take far more memory than its text ("[0,0,0,…" inflated from a
// zip bomb) never reaches a DOM parser. Values are numbers, strings, literals, lists and
// objects (keys are not values). The offset where the depth or the count first exceeds its
// limit, or npos; `tooDeep` says which.
struct JsonExcess {
  size_t at = std::string_view::npos;
  bool tooDeep = false;
};
inline JsonExcess findExcessiveDepthOrValues(std::string_view text, int maxDepth, uint64_t maxValues) {
  uint64_t arrays = 0;  // bit d: the container at depth d + 1 is a list (depth <= 64)
  int depth = 0;
  uint64_t values = 1;  // the document itself
  bool inString = false;
  auto isList = [&] { return depth > 0 && depth <= 64 && (arrays >> (depth - 1) & 1); };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    bool value = false;
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth || depth > 64) return {i, true};
      const uint64_t bit = uint64_t{1} << (depth - 1);
      arrays = c == '[' ? arrays | bit : arrays & ~bit;
      if (c == '[') {  // a list's first element, unless it is empty
        size_t j = i + 1;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\n' || text[j] == '\r' || text[j] == '\t')) ++j;
        value = j < text.size() && text[j] != ']';
      }
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ':' || (c == ',' && isList())) {
      value = true;  // an object member's value, or a list's next element
    }
    if (value && ++values > maxValues) return {i, false};
  }
  return {};
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
