#include "MatrixRun.h"

#include <iostream>
#include <optional>
#include <sstream>

#include "Progress.h"
#include "qnnrules/Matrix.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/SafeOutputFile.h"

namespace qnnvalidate {
namespace {

std::vector<std::string> splitSocs(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string s; std::getline(in, s, ',');)
    if (!s.empty()) out.push_back(s);
  return out;
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
  mo.socs = o.socGiven ? splitSocs(o.soc) : std::vector<std::string>{o.soc};
  mo.configs = o.configs.empty() ? std::vector<std::string>{o.annotate.empty() ? "8a8w" : o.annotate} : o.configs;
  mo.progress = meter->callback();
  qnnrules::CompatibilityMatrix m = qnnrules::compatibilityMatrix(engineOptions(o), read.graph, mo);
  meter.reset();
  if (!m.ok()) {
    std::cerr << "qnn-validate: error: " << m.status.message() << "\n";
    for (const qnnrules::Diagnostic& d : m.errors) std::cerr << qnnrules::formatText(d);
    return kExitBadInput;
  }
  if (o.format == "html")
    std::cout << m.html();
  else
    std::cout << (o.format == "json" ? m.json() : m.text());
  // --html FILE: the page as well, whichever format went to stdout (as for one run).
  if (!o.html.empty()) {
    std::cout.flush();
    qnnrules::Status st = qnnrules::writeOutputFile(o.html, m.html());
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
