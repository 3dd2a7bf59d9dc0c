// The embedding API: open an engine for (backend, SoC, mode, rule paths) once, then
// validate graphs. Construction reports ok() instead of throwing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "qnnrules/Diagnostic.h"
#include "qnnrules/Graph.h"
#include "qnnrules/RuleRegistry.h"
#include "qnnrules/Validator.h"

namespace qnnrules {

struct EngineOptions {
  std::string backend = "htp";
  std::string soc = "SM8750";                    // the reference quantizer's default
  Mode mode = Mode::kStrict;
  std::vector<std::filesystem::path> ruleDirs;   // overlays, after QNNRULES_PATH
  bool useEnvironment = true;
  std::filesystem::path builtinRulesDir;         // empty: discover
  ValidateOptions validate;
};

class Engine {
 public:
  explicit Engine(EngineOptions options);

  bool ok() const { return status_.isOk(); }
  const Status& status() const { return status_; }
  const DiagnosticList& loadErrors() const { return loadErrors_; }

  const EngineOptions& options() const { return options_; }
  const RuleSet& rules() const { return *rules_; }   // requires ok()
  const SocInfo& soc() const { return soc_; }        // requires ok()
  RuleRegistry& registry() { return *registry_; }

  // Validates and applies the mode (warn mode downgrades errors to warnings).
  ValidationResult validate(const Graph& graph) const;

 private:
  EngineOptions options_;
  Status status_;
  DiagnosticList loadErrors_;
  std::unique_ptr<RuleRegistry> registry_;
  std::shared_ptr<const RuleSet> rules_;
  SocInfo soc_;
};

}  // namespace qnnrules
