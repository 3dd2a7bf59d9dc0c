// The parse floor of a graph file: load it into a padded buffer and build simdjson's DOM,
// nothing else. benchmarks/scaling.py times this process next to qnn-validate on the same
// file, so "CPU / parse floor" says how far a run is from the cost of reading its input.
//
//   ./build/benchmarks/parse_floor FILE
#include <cstdio>

#include "ParseFloor.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_floor FILE\n");
    return 2;
  }
  size_t bytes = 0;
  if (int rc = parseWholeFile("parse_floor", argv[1], bytes); rc != 0) return rc;
  std::printf("%s: %zu bytes parsed\n", argv[1], bytes);
  return 0;
}
