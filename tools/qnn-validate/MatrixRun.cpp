#include "MatrixRun.h"

#include <iostream>
#include <optional>
#include <sstream>

#include "Progress.h"
#include "qnnrules/Matrix.h"
#include "qnnrules/core/TerminalText.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/core/OutputFile.h"

namespace qnnvalidate {
namespace {

// "SM8650,SM8750" -> its names; an empty name ("--soc ,", "A,,B", "A,") is not one: nullopt.
std::optional<std::vector<std::string>> splitSocs(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(text.substr(start, comma - start));
  out.push_back(text.substr(start));
  for (const std::string& s : out)
    if (s.empty()) return std::nullopt;
  return out;
}

// The options of one run a matrix does not honour, by flag, when given.
std::vector<std::string> oneRunOptions(const CliOptions& o) {
  const std::pair<const char*, bool> flags[] = {
      {"--baseline", !o.baseline.empty()},     {"--output", !o.output.empty()},
      {"--plan", !o.plan.empty()},             {"--dot", !o.dot.empty()},
      {"--recipe", !o.recipe.empty()},         {"--explain-node", !o.explainNode.empty()},
      {"--encodings", !o.encodings.empty()},   {"--suggest-recipe", !o.suggestRecipe.empty()},
      {"--suggest-overrides", !o.suggestOverrides.empty()}, {"--time", o.time}};
  std::vector<std::string> given;
  for (const auto& [flag, set] : flags)
    if (set) given.emplace_back(flag);
  return given;
}

}  // namespace

std::optional<int> runMatrix(const CliOptions& o) {
  const bool manySocs = o.socGiven && (o.soc == "all" || o.soc.find(',') != std::string::npos);
  if ((!manySocs && o.configs.empty()) || o.listRules || o.listSocs) {
    // One run has its HTML page through --html FILE (it is written next to the report).
    if (o.format != "html") return std::nullopt;
    std::cerr << "qnn-validate: error: --format html is a compatibility matrix's (--soc all|A,B or --configs); "
                 "one run writes its HTML page with --html FILE\n";
    return kExitBadInput;
  }
  if (o.format == "sarif") {
    std::cerr << "qnn-validate: error: a compatibility matrix is written as text, json or html, not sarif\n";
    return kExitBadInput;
  }
  // Options of one run are refused, not silently ignored.
  if (const std::vector<std::string> given = oneRunOptions(o); !given.empty()) {
    std::string list;
    for (const std::string& f : given) list += (list.empty() ? "" : ", ") + f;
    std::cerr << "qnn-validate: error: a compatibility matrix (--soc all|A,B or --configs) does not take " << list
              << "; run one SoC and config for them\n";
    return kExitBadInput;
  }
  const std::optional<std::vector<std::string>> socs =
      o.socGiven ? splitSocs(o.soc) : std::optional<std::vector<std::string>>(std::vector<std::string>{o.soc});
  if (!socs) {
    std::cerr << "qnn-validate: error: --soc '" << qnnrules::escapeControls(o.soc)
              << "' names an empty SoC; give names separated by commas (e.g. SM8650,SM8750) or 'all'\n";
    return kExitBadInput;
  }
  // On a terminal, "qnn-validate: matrix 12/40 SM8650 x 16a8w" while it runs (erased before the report).
  std::optional<qnnrules::ProgressLine> meter(std::in_place, std::cerr, "qnn-validate: matrix", stderrProgress());
  showReading(*meter, o.graphPath);
  qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath);
  if (!read.ok()) {
    meter.reset();
    std::cerr << "qnn-validate: error: " << read.status.message() << "\n";
    for (const qnnrules::Diagnostic& d : read.errors) std::cerr << qnnrules::formatText(d);
    return kExitBadInput;
  }
  if (read.graph.name.empty()) read.graph.name = o.graphPath;
  qnnrules::MatrixOptions mo;
  mo.socs = *socs;
  mo.configs = o.configs.empty() ? std::vector<std::string>{o.annotate.empty() ? "8a8w" : o.annotate} : o.configs;
  mo.progress = meter->callback();
  mo.allDiagnostics = o.format == "json";  // text and html show counts and the first few
  qnnrules::CompatibilityMatrix m = qnnrules::compatibilityMatrix(engineOptions(o), read.graph, mo);
  meter.reset();
  if (!m.ok()) {
    std::cerr << "qnn-validate: error: " << m.status.message() << "\n";
    for (const qnnrules::Diagnostic& d : m.errors) std::cerr << qnnrules::formatText(d);
    return kExitBadInput;
  }
  if (o.format == "html")
    std::cout << m.html();
  else if (o.format == "json")
    m.writeJson([](std::string_view piece) { std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  else
    std::cout << m.text();
  // --html FILE: the page as well, whichever format went to stdout (as for one run).
  if (!o.html.empty()) {
    std::cout.flush();
    qnnrules::Status st = qnnrules::saveOutputFile(o.html, m.html());
    if (!st.isOk()) {
      std::cerr << "qnn-validate: error: " << st.message() << "\n";
      return kExitBadInput;
    }
  }
  // Strict mode fails when any cell does not run on the backend as asked.
  bool anyFails = false;
  for (const qnnrules::MatrixCell& c : m.cells)
    anyFails |= c.verdict.kind == qnnrules::VerdictKind::kInvalid ||
                c.verdict.kind == qnnrules::VerdictKind::kSessionFailure;
  return !o.warn && anyFails ? kExitViolations : kExitValid;
}

}  // namespace qnnvalidate
