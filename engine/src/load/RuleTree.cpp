#include "RuleTree.h"

#include <algorithm>

#include "qnnrules/core/SourceMark.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {
bool isYaml(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }
}  // namespace

RuleTree walkRuleTree(const fs::path& root, const LoadLimits& limits) {
  RuleTree tree;
  std::error_code ec;
  uint64_t entries = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    // Every entry counts, YAML or not: the bound is on the work of the walk itself.
    if (++entries > limits.maxRuleTreeEntries || it.depth() > limits.maxRuleTreeDepth) {
      tree.tooLarge = true;
      break;
    }
    std::error_code e2;
    if (it->is_directory(e2)) tree.directories.push_back(it->path());
    else if (isYaml(it->path()) && it->is_regular_file(e2)) tree.yamlFiles.push_back(it->path());
  }
  if (tree.tooLarge) {
    tree.yamlFiles.clear();
    tree.directories.clear();
  }
  std::sort(tree.yamlFiles.begin(), tree.yamlFiles.end());
  std::sort(tree.directories.begin(), tree.directories.end());
  return tree;
}

std::string ruleTreeTooLargeMessage(const fs::path& root, const LoadLimits& limits) {
  return "rules directory " + displayPath(root) + " is not read: it holds more than " +
         std::to_string(limits.maxRuleTreeEntries) + " files and folders, or folders more than " +
         std::to_string(limits.maxRuleTreeDepth) +
         " levels deep. A rules directory is laid out like rules/ (DIR/<backend>/*.yaml, DIR/socs.yaml, ...); "
         "pass that directory, not one above it";
}

}  // namespace qnnrules
