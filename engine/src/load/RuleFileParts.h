// Pieces of the rule-file format that more than one file of it uses. Internal to the engine.
#pragma once

#include <string>
#include <vector>

#include "yaml/StrictYaml.h"

namespace qnnrules {

// A non-empty list of distinct target strings (a rule's `targets`, a manifest's exclusions),
// appended to `targets`.
void parseTargetList(strictyaml::StrictYamlReader& r, const YAML::Node& v, const std::string& what,
                     std::vector<std::string>& targets);

}  // namespace qnnrules
