// The bounds every YAML file the engine reads is held to (rules, manifests, SoCs, quantization
// configs, recipes, backend options, lowering paths): a file over them is refused, not read.
#pragma once

#include <cstdint>

namespace qnnrules {

struct LoadLimits {
  uint64_t maxFileBytes = 16ull << 20;  // a rule file larger than this is refused
  int maxDepth = 64;                    // deeper YAML nesting is refused
};

}  // namespace qnnrules
