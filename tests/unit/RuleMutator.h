// The rule mutation suite's engine: for every variant of a rule, a node annotated to satisfy
// the variant must validate cleanly on a SoC that meets its gate, and every single-field
// mutation of that annotation (a datatype, each constraint kind's own `mutate`, a shared
// encoding, an arch below the gate) must be an error naming the rule.
//
// A mutation is only asserted when it is a violation under every variant that could still
// accept the node (the suite never guesses that "any other variant" would fail); the rest
// are counted as skipped, and each variant must see at least one asserted mutation when it
// has anything to mutate. Used by RuleMutationTest (built-in backends) and by the toy
// constraint kind's test (tests/kinds/).
#pragma once

#include <string>
#include <vector>

#include "qnnrules/model/RuleSet.h"

namespace qnnrules::testing {

struct MutationTally {
  size_t rules = 0, variants = 0, passing = 0, asserted = 0, skipped = 0;
  std::vector<std::string> failures;
  std::string summary() const;  // "N rules, N variants, ..."
};

// Runs the suite over every rule of `rules` (unsupported rules must be reported, structural
// ones never).
MutationTally mutateRules(const RuleSet& rules);

}  // namespace qnnrules::testing
