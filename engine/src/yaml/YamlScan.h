// Internal to the YAML loaders: a conservative pre-scan of YAML text that finds what yaml-cpp
// 0.7 cannot survive, without building a tree:
//  - nesting deeper than a limit: the parser recurses once per nested collection, so a hostile
//    file ("[[[[..." or 100000 levels of indentation) overflows the stack;
//  - a ',' that begins a token outside any flow collection: yaml-cpp scans it as a flow entry,
//    and at document level LoadAll never consumes it and loops forever, allocating (a file that
//    is just "," grows to gigabytes; jbeder/yaml-cpp issue #1040, fixed upstream by PR #1319,
//    after the 0.7 that Debian 12 ships). The YAML spec forbids a plain scalar from starting
//    with ',', so such text is a syntax error anyway;
//  - a control character (C0 other than tab, line feed and carriage return, or DEL): YAML 1.2
//    allows none of them (c-printable), and yaml-cpp 0.7 mis-scans them (a NUL byte ends its
//    stream check early, so "\0," slipped past the comma check and looped; found by fuzz_rules).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qnnrules::yamlscan {

struct ScanProblem {
  enum class Kind : uint8_t { kNesting, kStrayComma, kControlChar };
  Kind kind = Kind::kNesting;
  uint32_t line = 0;    // 1-based position of the offending character
  uint32_t column = 0;  // 1-based
  int depth = 0;        // kNesting: the depth reached there
  unsigned char byte = 0;  // kControlChar: the character
};

// Estimates the nesting of collections (flow `[`/`{` outside quoted scalars, comments and
// block scalars; block mappings and sequences by indentation and `- ` / `? ` chains) and
// returns the first place where it exceeds `maxDepth`, or the first ',' that begins a token
// outside flow collections, or the first control character YAML does not allow. The estimate never undercounts for well-formed YAML; for text it
// cannot follow, yaml-cpp's own depth guard is the backstop.
std::optional<ScanProblem> findUnsafeYaml(std::string_view text, int maxDepth);

}  // namespace qnnrules::yamlscan
