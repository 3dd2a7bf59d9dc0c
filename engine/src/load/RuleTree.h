// Internal to the registry and the rule cache: the walk of one rules directory, bounded by
// LoadLimits (maxRuleTreeEntries, maxRuleTreeDepth), so that a directory that is not a rules
// directory (`--rules /`, a home directory) is refused after a bounded amount of work instead
// of being read whole. Both the rule loading and the cache's digest walk through here, so
// they agree on which files a rules directory holds.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qnnrules/core/LoadLimits.h"

namespace qnnrules {

// A backend's manifest: <backend>/backend.yaml (BackendManifest.h).
inline constexpr const char* kManifestName = "backend.yaml";
// The folder of lowering paths (Lowering.h) beside the backends' folders: not a backend.
inline constexpr const char* kLoweringDir = "lowering";

struct RuleTree {
  std::vector<std::filesystem::path> yamlFiles;    // regular *.yaml / *.yml files, sorted
  std::vector<std::filesystem::path> directories;  // every folder below the root, sorted
  bool tooLarge = false;  // the walk stopped at a limit: the lists are incomplete, do not use them
  // What the walk cannot read, each "PATH: why": a *.yaml / *.yml that is not a regular file (a
  // FIFO, a dangling link, a device) or cannot be opened, a folder that cannot be listed. A
  // rules directory holding any is refused with these as its errors, never read without them.
  std::vector<std::string> unreadable;
};

// Walks `root` (a missing root is an empty tree). Folders that cannot be listed are not
// entered and are listed in `unreadable`.
RuleTree walkRuleTree(const std::filesystem::path& root, const LoadLimits& limits);

// The error for a tree walkRuleTree found too large: names the directory, the limits and the
// layout a rules directory has.
std::string ruleTreeTooLargeMessage(const std::filesystem::path& root, const LoadLimits& limits);

}  // namespace qnnrules
