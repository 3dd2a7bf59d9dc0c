#include "RuleTree.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "qnnrules/core/SourceMark.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {
bool isYaml(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// What a YAML-named entry is that is not a regular file.
std::string notRegular(const fs::path& p) {
  struct stat lst {}, st {};
  if (::lstat(p.c_str(), &lst) != 0) return std::string("cannot be inspected (") + std::strerror(errno) + ")";
  if (S_ISLNK(lst.st_mode) && ::stat(p.c_str(), &st) != 0)
    return std::string("a symbolic link to nothing readable (") + std::strerror(errno) + ")";
  if (S_ISLNK(lst.st_mode)) lst = st;
  if (S_ISFIFO(lst.st_mode)) return "a FIFO, not a regular file";
  if (S_ISDIR(lst.st_mode)) return "a folder named like a rule file";
  if (S_ISCHR(lst.st_mode) || S_ISBLK(lst.st_mode)) return "a device, not a regular file";
  if (S_ISSOCK(lst.st_mode)) return "a socket, not a regular file";
  return "not a regular file";
}
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
    const fs::path& p = it->path();
    if (it->is_directory(e2)) {
      tree.directories.push_back(p);
      if (::access(p.c_str(), R_OK | X_OK) != 0)
        tree.unreadable.push_back(displayPath(p) + ": a folder that cannot be read (" + std::strerror(errno) + ")");
    } else if (isYaml(p)) {
      if (it->is_regular_file(e2)) {
        if (::access(p.c_str(), R_OK) == 0) tree.yamlFiles.push_back(p);
        else tree.unreadable.push_back(displayPath(p) + ": cannot be read (" + std::strerror(errno) + ")");
      } else {
        tree.unreadable.push_back(displayPath(p) + ": " + notRegular(p));
      }
    }
  }
  if (tree.tooLarge) {
    tree.yamlFiles.clear();
    tree.directories.clear();
    tree.unreadable.clear();
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
