// The supported-ops reference, generated from the rule tables themselves (never by hand),
// so it cannot drift from what the validator checks.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {

// One backend's table as the docs see it.
struct DocBackend {
  const RuleSet* rules = nullptr;
  const BackendManifest* manifest = nullptr;  // null: the backend has no manifest
};

// Markdown for one backend: what it is and where it runs (from its manifest), the targets it
// excludes from the backend it extends, a summary table, which variants apply on which version
// of its hardware column (for a backend whose variants carry gates), and one section per rule with its
// targets, ports, per-variant constraints and, for inherited rules, where they come from.
// Rule locations are printed relative to `rulesRoot`'s parent (so "rules/htp/ops/conv.yaml:12").
std::string supportedOpsMarkdown(const DocBackend& backend, const SocTable& socs,
                                 const std::filesystem::path& rulesRoot);

// The index: one row per op (rule name without the backend prefix), one column per hardware
// version of a backend with gates and per other backend: how many variants apply there,
// "unsupported", or nothing.
std::string supportedOpsIndexMarkdown(const std::vector<DocBackend>& backends, const SocTable& socs);

}  // namespace qnnrules
