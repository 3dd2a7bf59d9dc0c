// The parse floor of a graph file, shared by parse_floor and flat_graph_floor: load it into a
// padded buffer and build simdjson's DOM of all of it, nothing else.
#pragma once

#include <simdjson.h>

#include <cstdio>

// 0 when the file was read and parsed (its size in `bytes`); 2 when it cannot be read, 1 when
// it is not JSON, with the reason on stderr.
inline int parseWholeFile(const char* tool, const char* path, size_t& bytes) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS) {
    std::fprintf(stderr, "%s: cannot read %s\n", tool, path);
    return 2;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root); err != simdjson::SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", tool, simdjson::error_message(err));
    return 1;
  }
  bytes = text.size();
  return 0;
}
