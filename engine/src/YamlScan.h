// Internal to the rule loader: a conservative pre-scan of YAML text that finds nesting
// deeper than a limit without building a tree. yaml-cpp's parser recurses once per nested
// collection, so a hostile file ("[[[[..." or 100000 levels of indentation) must be refused
// before it reaches the parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qnnrules::yamlscan {

struct NestingViolation {
  uint32_t line = 0;    // 1-based position of the collection that went past the limit
  uint32_t column = 0;  // 1-based
  int depth = 0;        // the depth reached there
};

// Estimates the nesting of collections (flow `[`/`{` outside quoted scalars, comments and
// block scalars; block mappings and sequences by indentation and `- ` / `? ` chains) and
// returns the first place where it exceeds `maxDepth`. The estimate never undercounts for
// well-formed YAML; for text it cannot follow, yaml-cpp's own depth guard is the backstop.
std::optional<NestingViolation> findExcessiveNesting(std::string_view text, int maxDepth);

}  // namespace qnnrules::yamlscan
