// The parse floor of a graph file: load it into a padded buffer and build simdjson's DOM,
// nothing else. benchmarks/scaling.py times this process next to qnn-validate on the same
// file, so "CPU / parse floor" says how far a run is from the cost of reading its input.
//
//   ./build/benchmarks/parse_floor FILE
#include <simdjson.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_floor FILE\n");
    return 2;
  }
  simdjson::padded_string text;
  if (simdjson::padded_string::load(argv[1]).get(text) != simdjson::SUCCESS) {
    std::fprintf(stderr, "parse_floor: cannot read %s\n", argv[1]);
    return 2;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root); err != simdjson::SUCCESS) {
    std::fprintf(stderr, "parse_floor: %s\n", simdjson::error_message(err));
    return 1;
  }
  std::printf("%s: %zu bytes parsed\n", argv[1], text.size());
  return 0;
}
