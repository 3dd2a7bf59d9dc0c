#include "RecipeFiles.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "Progress.h"
#include "qnnrules/OrtTensorOverrides.h"
#include "qnnrules/RecipeSearch.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/core/OutputFile.h"
#include "qnnrules/core/TerminalText.h"

namespace qnnvalidate {
namespace {

int writeFile(const std::string& path, const std::string& text) {
  if (qnnrules::Status st = qnnrules::saveOutputFile(path, text); !st.isOk()) {
    std::cerr << "qnn-validate: error: " << st.message() << "\n";
    return kExitBadInput;
  }
  return kExitValid;
}

bool isOnnx(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".onnx";
}

// --suggest-overrides: the repair's weight encodings under their ONNX initializer names; what
// ORT's format cannot carry is said on stderr (the file alone would not repair those nodes).
int writeOrtOverrides(const CliOptions& o, const qnnrules::Engine& engine, const qnnrules::Graph& graph,
                      const qnnrules::RecipeSearchResult& r) {
  qnnrules::OrtTensorOverrides ov = qnnrules::ortTensorOverrides(engine, graph, r);
  if (!ov.ok()) {
    std::cerr << "qnn-validate: error: --suggest-overrides: " << ov.status.message() << "\n";
    return kExitBadInput;
  }
  std::ostream& out = o.format == "text" ? std::cout : std::cerr;
  out << ov.overrides.size() << " ONNX Runtime tensor override(s) written to " << o.suggestOverrides << "\n";
  for (const std::string& u : ov.unexpressed)
    std::cerr << "qnn-validate: warning: --suggest-overrides: " << qnnrules::escapeControls(u) << "\n";
  return writeFile(o.suggestOverrides, ov.json());
}

}  // namespace

bool wantsRecipeSearch(const CliOptions& o) {
  return !o.suggestRecipe.empty() || !o.suggestOverrides.empty() || !o.plan.empty();
}

int writeRecipeFiles(const CliOptions& o, const qnnrules::Engine& engine, const qnnrules::Graph& graph) {
  const bool overrides = !o.suggestOverrides.empty();
  const bool suggest = !o.suggestRecipe.empty() || overrides;
  if (!suggest && o.plan.empty()) return kExitValid;
  if (overrides && !isOnnx(o.graphPath)) {
    // ORT's overrides name ONNX initializers; other formats' weights have other names.
    std::cerr << "qnn-validate: error: --suggest-overrides needs an ONNX model (got " << o.graphPath << ")\n";
    return kExitBadInput;
  }
  // The search annotates the graph as read (the caller's), not the report's already-annotated copy.
  // On a terminal, "qnn-validate: recipe search 7 16a8w:per_channel" while it runs.
  std::optional<qnnrules::ProgressLine> meter(std::in_place, std::cerr, suggest ? "qnn-validate: recipe search"
                                                                                 : "qnn-validate: precision plan",
                                              stderrProgress());
  qnnrules::RecipeSearchOptions so;
  so.progress = meter->callback();
  qnnrules::RecipeSearchResult r = suggest ? qnnrules::suggestRecipe(engine, graph, o.annotate, so)
                                           : qnnrules::planPrecision(engine, graph, so);
  meter.reset();
  if (!r.ok()) {
    std::cerr << "qnn-validate: error: " << (suggest ? "--suggest-recipe" : "--plan") << ": " << r.status.message()
              << "\n";
    return kExitBadInput;
  }
  // The summary follows a text report; with JSON or SARIF on stdout it goes to stderr.
  std::ostream& out = o.format == "text" ? std::cout : std::cerr;
  out << "\n" << (suggest ? "suggested recipe for " + r.base : std::string("precision plan")) << " on "
      << engine.soc().name << ":\n"
      << r.text();
  const std::string& path = suggest ? o.suggestRecipe : o.plan;
  if (!path.empty())
    if (int rc = writeFile(path, r.yaml()); rc != kExitValid) return rc;
  return overrides ? writeOrtOverrides(o, engine, graph, r) : kExitValid;
}

}  // namespace qnnvalidate
