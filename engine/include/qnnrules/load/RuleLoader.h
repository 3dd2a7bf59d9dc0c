// YAML -> Rule values. Strict: unknown keys, duplicate keys, wrong types and unknown enum
// values are errors with file:line:column. Every error of a file is reported, not the first.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/LoadLimits.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/Rule.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {


// What a backend's rule files are read against. Each may be null (a backend without a
// manifest): then no backend-wide facts apply, `extends` in a rule is an error and so is a
// `min_arch` gate.
struct RuleFileContext {
  const BackendManifest* manifest = nullptr;
  const RuleSet* parent = nullptr;  // the finished table of manifest->extends
  // The SoC table's column named by manifest->hardware: the versions `min_arch` may name.
  const HardwareColumn* hardware = nullptr;
};

// Parses one rule file. `displayPath` is what marks and messages show (e.g.
// "rules/htp/ops/conv.yaml"). Appends parsed rules to `out` and errors to `errors`;
// a rule with an error is not appended.
void loadRuleFile(const std::filesystem::path& file, const std::string& displayPath,
                  std::vector<Rule>& out, DiagnosticList& errors, const LoadLimits& limits = {},
                  const RuleFileContext& context = {});

// Same, from text already in memory (tests, embedders).
void loadRuleText(const std::string& text, const std::string& displayPath,
                  std::vector<Rule>& out, DiagnosticList& errors, const LoadLimits& limits = {},
                  const RuleFileContext& context = {});

// Parses a backend manifest (rules/<backend>/backend.yaml). Checks that need other files
// (the folder name, the parent backend, excluded targets) are the registry's. `out` is
// complete only when no error was appended.
void loadManifestFile(const std::filesystem::path& file, const std::string& displayPath, BackendManifest& out,
                      DiagnosticList& errors, const LoadLimits& limits = {});
void loadManifestText(const std::string& text, const std::string& displayPath, BackendManifest& out,
                      DiagnosticList& errors, const LoadLimits& limits = {});

// Parses rules/socs.yaml.
void loadSocFile(const std::filesystem::path& file, const std::string& displayPath,
                 SocTable& out, DiagnosticList& errors, const LoadLimits& limits = {});
void loadSocText(const std::string& text, const std::string& displayPath,
                 SocTable& out, DiagnosticList& errors, const LoadLimits& limits = {});

// Parses a lowering path, rules/lowering/<name>.yaml (model/Lowering.h).
std::optional<LoweringPath> loadLoweringText(const std::string& text, const std::string& displayPath,
                                             DiagnosticList& errors, const LoadLimits& limits = {});
std::optional<LoweringPath> loadLoweringFile(const std::filesystem::path& file, const std::string& displayPath,
                                             DiagnosticList& errors, const LoadLimits& limits = {});

}  // namespace qnnrules
