// qnn-validate's command line: one Options struct, parsed by CLI11, and what the engine is
// asked for (EngineOptions, RunOptions) derived from it in one place.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/Engine.h"

namespace qnnvalidate {

constexpr int kExitValid = 0;
constexpr int kExitViolations = 1;
constexpr int kExitBadInput = 2;

struct CliOptions {
  std::string graphPath;
  std::string backend;  // empty: the backend whose manifest says `default: true`
  std::string soc = qnnrules::kDefaultSoc;  // shown in --help; reports say when it was not chosen
  bool socGiven = false;
  std::string lowering;     // rules/lowering/<name>.yaml; empty: the input's default path
  bool strict = false;
  bool warn = false;
  std::string format = "text";
  std::vector<std::string> ruleDirs;
  bool listRules = false;
  bool listSocs = false;
  std::string logLevel = "warn";
  bool time = false;        // per-phase wall and CPU time after the report
  // Annotation (docs/annotation.md)
  std::string annotate;     // config selection, e.g. 16a4w:per_channel
  std::string recipe;
  std::string output;       // annotated graph
  std::string explainNode;
  std::string encodings;    // encodings JSON from the graph's statistics
  std::string suggestRecipe;  // --suggest-recipe: write per-node overrides that make --annotate's config valid
  std::string suggestOverrides;  // --suggest-overrides: the same repair as ORT TensorQuantOverrides JSON
  std::string plan;           // --plan: write the most precise config per node as a recipe
  std::vector<std::string> configs;  // --configs: the matrix's configs ("all" or names)
  // Delegation (docs/delegation.md)
  std::vector<std::string> backendOptions;  // NAME=VALUE
  bool requireFull = false;
  bool noRequireFull = false;
  std::string dot;          // Graphviz picture of the delegation
  // Report surface (docs/schemas/report.schema.json, --format sarif, --html)
  std::string html;         // self-contained HTML report
  std::string color = "auto";
  std::string baseline;     // an earlier JSON or SARIF report: report and fail only on new findings
  bool logLevelGiven = false;  // else SPDLOG_LEVEL, when set, chooses the level
};

// Parses argv into `options`; an exit code when the program must stop (--help, --version,
// usage errors: already printed).
std::optional<int> parseCommandLine(int argc, char** argv, CliOptions& options);

qnnrules::EngineOptions engineOptions(const CliOptions& o);
qnnrules::RunOptions runOptions(const CliOptions& o);

}  // namespace qnnvalidate
