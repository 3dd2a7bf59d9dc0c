// Overrides of the default quantization config: by ATen target, by RE2 regex on the node
// name or on the module path, with priorities, per-node block sizes and discarded nodes/ops.
// Read from a recipe YAML file or built through the API; patterns are compiled once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/core/LoadLimits.h"
#include "qnnrules/core/Status.h"

namespace re2 {
class RE2;
}

namespace qnnrules {

struct Override {
  enum class By : uint8_t { kTarget, kNodeName, kModule };
  By by = By::kTarget;
  std::vector<std::string> targets;   // kTarget: exact ATen targets
  std::string pattern;                // kNodeName / kModule: RE2 syntax, partial match
  std::shared_ptr<const re2::RE2> regex;  // compiled by compileOverride
  // A node-name pattern that matches one name exactly ("^" NAME "$", NAME all literal, as
  // exactNamePattern writes it): that name, set by compileOverride instead of `regex`, so the
  // annotator finds such overrides by the node's name (a recipe of 16k of them is linear).
  std::optional<std::string> exactName;
  std::optional<ConfigSelection> selection;  // the config for matched nodes (unset when discard)
  int priority = 1;                   // higher wins; among equals the later override wins
  std::vector<int64_t> blockSize;     // per-node LPBQ block size (per_block selections)
  bool discard = false;               // matched nodes stay unannotated
  std::string note;
  SourceMark mark;                    // where it was written (unknown for API-built overrides)

  std::string describe() const;       // "module regex 'output\.conv' (recipe.yaml:7:5)"
};

struct Recipe {
  std::optional<ConfigSelection> defaultSelection;  // replaces the --annotate config when set
  std::vector<Override> overrides;                 // in the order written
  std::vector<std::string> discardNodes;           // exact node names
  std::vector<std::string> discardOps;             // exact ATen targets
  SourceMark mark;                                 // the file, for unmatched discard entries
};

// The node-name pattern matching exactly `name`: "^" NAME "$" with RE2's metacharacters
// escaped and control characters written "\xHH" (ESC, DEL: a recipe file holds no raw control
// character, so what --suggest-recipe and --plan write reads back).
std::string exactNamePattern(std::string_view name);

// Compiles the regex of a kNodeName / kModule override and checks its fields. API users call
// it for each override they build; the loader calls it for every override it reads.
Status compileOverride(Override& o);

// Strict loading (unknown/duplicate keys, bad regexes and unknown configs are errors with
// file:line:column). `configs` resolves config names.
void loadRecipeText(const std::string& text, const std::string& displayPath, const QuantConfigTable& configs,
                    Recipe& out, DiagnosticList& errors, const LoadLimits& limits = {});
void loadRecipeFile(const std::filesystem::path& file, const std::string& displayPath,
                    const QuantConfigTable& configs, Recipe& out, DiagnosticList& errors,
                    const LoadLimits& limits = {});

}  // namespace qnnrules
