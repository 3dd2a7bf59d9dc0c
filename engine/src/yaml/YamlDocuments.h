// Internal to the YAML loaders: how many documents a YAML text holds, counted with a bound.
// yaml-cpp 0.7's LoadAll loops forever on text whose parser stops at a token it never consumes
// (a stray ',' after an anchor, a tag or a quoted scalar, ...): each call starts a new, empty
// document at the same place and LoadAll collects them until memory runs out
// (jbeder/yaml-cpp#1040, fixed upstream after 0.7). The loaders accept exactly one document, so
// they count at most two here (parser events only, no tree) and then load the first with
// YAML::Load, which reads one document and stops: every YAML input terminates, whatever
// rules/YamlScan's finer pre-scan recognises. The text is scanned twice (events, then the
// tree): yaml-cpp's node builder is not public API, so counting cannot share the tree's parse.
// The cost falls on a rule-cache miss only (rules/RuleCache.h) and on recipes.
#pragma once

#include <yaml-cpp/mark.h>

#include <string>

namespace qnnrules::yamldocs {

struct DocumentCount {
  int count = 0;       // 0, 1, or `limit` (= at least that many)
  YAML::Mark second;   // where the second document begins, when count > 1
};

// Throws YAML::Exception on a syntax error, as YAML::Load does.
DocumentCount countDocuments(const std::string& text, int limit = 2);

}  // namespace qnnrules::yamldocs
