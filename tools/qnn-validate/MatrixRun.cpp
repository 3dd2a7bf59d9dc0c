#include "MatrixRun.h"

#include <iostream>
#include <sstream>

#include "qnnrules/Matrix.h"
#include "qnnrules/io/GraphReader.h"

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
  if ((!manySocs && o.configs.empty()) || o.listRules || o.listSocs) return std::nullopt;
  if (o.format == "sarif") {
    std::cerr << "qnn-validate: error: a compatibility matrix is written as text or json, not sarif\n";
    return kExitBadInput;
  }
  qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath);
  if (!read.ok()) {
    std::cerr << "qnn-validate: error: " << read.status.message() << "\n";
    for (const qnnrules::Diagnostic& d : read.errors) std::cerr << qnnrules::formatText(d);
    return kExitBadInput;
  }
  if (read.graph.name.empty()) read.graph.name = o.graphPath;
  qnnrules::MatrixOptions mo;
  mo.socs = o.socGiven ? splitSocs(o.soc) : std::vector<std::string>{o.soc};
  mo.configs = o.configs.empty() ? std::vector<std::string>{o.annotate.empty() ? "8a8w" : o.annotate} : o.configs;
  qnnrules::CompatibilityMatrix m = qnnrules::compatibilityMatrix(engineOptions(o), read.graph, mo);
  if (!m.ok()) {
    std::cerr << "qnn-validate: error: " << m.status.message() << "\n";
    for (const qnnrules::Diagnostic& d : m.errors) std::cerr << qnnrules::formatText(d);
    return kExitBadInput;
  }
  std::cout << (o.format == "json" ? m.json() : m.text());
  // Strict mode fails when any cell does not run on the backend as asked.
  bool anyFails = false;
  for (const qnnrules::MatrixCell& c : m.cells)
    anyFails |= c.verdict.kind == qnnrules::VerdictKind::kInvalid ||
                c.verdict.kind == qnnrules::VerdictKind::kSessionFailure;
  return !o.warn && anyFails ? kExitViolations : kExitValid;
}

}  // namespace qnnvalidate
