// The bounds every YAML file the engine reads is held to (rules, manifests, SoCs, quantization
// configs, recipes, backend options, lowering paths): a file over them is refused, not read.
#pragma once

#include <cstdint>

namespace qnnrules {

struct LoadLimits {
  uint64_t maxFileBytes = 16ull << 20;  // a rule file larger than this is refused
  int maxDepth = 64;                    // deeper YAML nesting is refused
  // A rules directory (--rules DIR, QNNRULES_PATH) is walked to find its rule files and to key
  // the rule cache: more entries (files and folders, of any kind) or deeper folders than this
  // and it is refused, not walked further. `--rules /` would otherwise read every YAML file of
  // the file system. The shipped rules are a few dozen entries three levels deep.
  uint64_t maxRuleTreeEntries = 10000;
  int maxRuleTreeDepth = 8;  // folders below the rules directory: DIR/htp/ops/x.yaml is 2 deep
};

}  // namespace qnnrules
