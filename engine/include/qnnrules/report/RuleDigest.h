// A digest of the rule files that judged a graph, so a report names exactly which rules
// produced it: two reports with the same digest were made from byte-identical rule files.
#pragma once

#include <cstddef>
#include <string>

namespace qnnrules {

class RuleSet;

struct RuleDigest {
  std::string value;  // "fnv1a64:0123456789abcdef"
  size_t files = 0;   // rule files read
};

// FNV-1a (64-bit) over the bytes of every file a rule of `rules` was read from, in path
// order, each followed by its size (so moving bytes between files changes the digest).
// Computed once per report; a file that cannot be read counts as empty.
RuleDigest digestRuleFiles(const RuleSet& rules);

}  // namespace qnnrules
