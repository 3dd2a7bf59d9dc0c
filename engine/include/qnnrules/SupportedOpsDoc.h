// The supported-ops reference, generated from the rule tables themselves (never by hand),
// so it cannot drift from what the validator checks.
#pragma once

#include <filesystem>
#include <string>

#include "qnnrules/RuleSet.h"
#include "qnnrules/Soc.h"

namespace qnnrules {

// Markdown for one backend: a summary table, a backend x HTP-arch matrix, and one section per
// rule with its targets, ports, and per-variant constraints. Rule locations are printed
// relative to `rulesRoot`'s parent (so "rules/htp/ops/conv.yaml:12").
std::string supportedOpsMarkdown(const RuleSet& rules, const SocTable& socs,
                                 const std::filesystem::path& rulesRoot);

}  // namespace qnnrules
