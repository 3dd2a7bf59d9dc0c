// Baselines (report/Baseline.h).
#include "qnnrules/report/Baseline.h"


#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

namespace qnnrules {

namespace {

using json = nlohmann::json;

std::string stringAt(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// qnn-validate --format json: {"diagnostics": [{"code", "node", "port", "rule", "message"}]}.
// A report made with a baseline itself also holds that baseline's unchanged findings.
void readJsonReport(const json& doc, Baseline& out) {
  auto take = [&out](const json& list) {
    for (const json& d : list)
      out.findings.push_back({{stringAt(d, "code"), stringAt(d, "node"), stringAt(d, "port"), stringAt(d, "rule")},
                              stringAt(d, "message")});
  };
  take(doc["diagnostics"]);
  if (auto b = doc.find("baseline"); b != doc.end() && b->is_object() && b->contains("unchanged") &&
                                     (*b)["unchanged"].is_array())
    take((*b)["unchanged"]);
}

// qnn-validate --format sarif: each result's properties (code, node, port) and ruleId, which
// is the diagnostic code when no rule was involved (report/SarifWriter.h). Results that were
// already absent from that run's own baseline are not findings of it.
void readSarifLog(const json& doc, Baseline& out) {
  for (const json& run : doc["runs"]) {
    if (!run.is_object() || !run.contains("results") || !run["results"].is_array()) continue;
    for (const json& r : run["results"]) {
      if (stringAt(r, "baselineState") == "absent") continue;
      const json props = r.is_object() && r.contains("properties") ? r["properties"] : json::object();
      FindingIdentity id{stringAt(props, "code"), stringAt(props, "node"), stringAt(props, "port"),
                         stringAt(r, "ruleId")};
      if (id.ruleId == id.code) id.ruleId.clear();
      std::string message = r.is_object() && r.contains("message") ? stringAt(r["message"], "text") : "";
      out.findings.push_back({std::move(id), std::move(message)});
    }
  }
}

}  // namespace

FindingIdentity findingIdentity(const Diagnostic& d) {
  return {std::string(diagCodeName(d.code)), d.node, d.port, d.ruleId};
}

Status readBaseline(const std::filesystem::path& path, Baseline& out) {
  out = Baseline{path.string(), {}};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Status(StatusCode::kNotFound, "baseline " + path.string() + " is not a file", path.string());
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return Status(StatusCode::kIoError, "cannot read baseline " + path.string(), path.string());
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return Status(StatusCode::kParseError, "baseline " + path.string() + " is not JSON", path.string());
  if (doc.is_object() && doc.contains("runs") && doc["runs"].is_array() && doc.value("version", "") == "2.1.0") {
    readSarifLog(doc, out);
  } else if (doc.is_object() && doc.contains("diagnostics") && doc["diagnostics"].is_array() &&
             doc.value("tool", "") == "qnn-validate") {
    readJsonReport(doc, out);
  } else {
    return Status(StatusCode::kSchemaError,
                  "baseline " + path.string() +
                      " is neither a qnn-validate JSON report (--format json) nor a SARIF 2.1.0 log (--format sarif)",
                  path.string());
  }
  return Status::ok();
}

BaselineComparison compareWithBaseline(DiagnosticList& diagnostics, const Baseline& baseline) {
  BaselineComparison out;
  out.file = baseline.file;
  // How many of each identity the baseline still has to match, and which of its findings.
  std::map<FindingIdentity, std::vector<size_t>> remaining;
  for (size_t i = baseline.findings.size(); i-- > 0;) remaining[baseline.findings[i].id].push_back(i);
  std::vector<bool> matched(baseline.findings.size(), false);
  DiagnosticList fresh;
  for (Diagnostic& d : diagnostics) {
    auto it = remaining.find(findingIdentity(d));
    if (it == remaining.end() || it->second.empty()) {
      fresh.push_back(std::move(d));
      continue;
    }
    matched[it->second.back()] = true;  // the baseline's findings are matched in their order
    it->second.pop_back();
    out.unchanged.push_back(std::move(d));
  }
  diagnostics = std::move(fresh);
  for (size_t i = 0; i < baseline.findings.size(); ++i)
    if (!matched[i]) out.absent.push_back(baseline.findings[i]);
  return out;
}

}  // namespace qnnrules
