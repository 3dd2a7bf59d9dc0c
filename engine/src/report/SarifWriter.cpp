#include "qnnrules/report/SarifWriter.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "qnnrules/report/Baseline.h"
#include "qnnrules/core/DiagnosticCodes.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

namespace {

using json = nlohmann::ordered_json;

// A relative reference or file URI for a path (RFC 3986): unreserved characters and '/' kept,
// everything else percent-encoded.
std::string pathUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = path.starts_with('/') ? "file://" : "";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

json physical(const SourceMark& mark) {
  json p = {{"artifactLocation", {{"uri", pathUri(*mark.file)}}}};
  if (mark.line) {
    json region = {{"startLine", mark.line}};
    if (mark.column) region["startColumn"] = mark.column;
    p["region"] = std::move(region);
  }
  return p;
}

// The text a reader sees in a code-scanning alert: the CLI's text block (where, what, the
// rule's file:line, expected / actual, the fix), so SARIF and the terminal say the same.
std::string messageText(const Diagnostic& d) {
  std::string s = formatText(d);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Rule entries in first-use order; results refer to them by index.
class RuleTable {
 public:
  explicit RuleTable(const RuleSet* rules) : rules_(rules) {}

  size_t indexOf(const Diagnostic& d) {
    const std::string id = d.ruleId.empty() ? std::string(diagCodeName(d.code)) : d.ruleId;
    auto [it, added] = index_.try_emplace(id, entries_.size());
    if (added) entries_.push_back(entry(id, d));
    return it->second;
  }
  // A finding known only from the baseline: its rule's own sentence when the rule is loaded.
  size_t indexOf(const std::string& id, const std::string& message) {
    auto [it, added] = index_.try_emplace(id, entries_.size());
    if (added) {
      const Rule* rule = rules_ ? rules_->findById(id) : nullptr;
      const std::string sentence = rule && !rule->description.empty() ? rule->description : message;
      entries_.push_back({{"id", id}, {"shortDescription", {{"text", sentence}}}, {"help", {{"text", sentence}}}});
    }
    return it->second;
  }
  json take() { return std::move(entries_); }

 private:
  json entry(const std::string& id, const Diagnostic& d) const {
    const Rule* rule = d.ruleId.empty() || !rules_ ? nullptr : rules_->findById(d.ruleId);
    std::string sentence = rule && !rule->description.empty() ? rule->description
                           : d.ruleId.empty()                 ? std::string(diagCodeInfo(d.code).meaning)
                                                              : d.message;
    json e = {{"id", id}, {"shortDescription", {{"text", sentence}}}};
    std::string help = sentence;
    if (rule && !rule->reason.empty()) help += " " + rule->reason;
    e["help"] = {{"text", help}};
    if (rule && rule->mark.known()) e["properties"] = {{"file", *rule->mark.file}, {"line", rule->mark.line}};
    return e;
  }

  const RuleSet* rules_;
  std::unordered_map<std::string, size_t> index_;
  json entries_ = json::array();
};

json result(const Diagnostic& d, RuleTable& rules, const SarifRun& run) {
  const size_t ruleIndex = rules.indexOf(d);
  json r = {{"ruleId", d.ruleId.empty() ? std::string(diagCodeName(d.code)) : d.ruleId},
            {"ruleIndex", ruleIndex},
            {"level", severityName(d.severity)},  // SARIF's level names are the severity names
            {"message", {{"text", messageText(d)}}}};
  json location = json::object();
  const bool onGraph = !d.node.empty() || !d.mark.known();
  if (onGraph && !run.graphPath.empty()) {
    location["physicalLocation"] = {{"artifactLocation", {{"uri", pathUri(run.graphPath)}}}};
    if (!d.node.empty()) {
      json logical = {{"name", d.node}, {"kind", "object"}};
      if (!d.module.empty()) logical["fullyQualifiedName"] = d.module + "/" + d.node;
      location["logicalLocations"] = json::array({std::move(logical)});
    }
  } else if (d.mark.known()) {
    location["physicalLocation"] = physical(d.mark);
  }
  r["locations"] = json::array({std::move(location)});
  if (onGraph && d.mark.known()) {
    std::string what = "rule " + (d.ruleId.empty() ? std::string("file") : d.ruleId);
    if (!d.variant.empty()) what += ", variant " + d.variant;
    r["relatedLocations"] =
        json::array({{{"id", 0}, {"physicalLocation", physical(d.mark)}, {"message", {{"text", what}}}}});
  }
  json props = {{"code", diagCodeName(d.code)}};
  const std::array<std::pair<const char*, const std::string*>, 9> fields{
      {{"node", &d.node}, {"module", &d.module}, {"op", &d.op}, {"source_op", &d.sourceOp}, {"port", &d.port},
       {"variant", &d.variant}, {"expected", &d.expected}, {"actual", &d.actual}, {"hint", &d.hint}}};
  for (const auto& [key, value] : fields)
    if (!value->empty()) props[key] = *value;
  r["properties"] = std::move(props);
  return r;
}

// A baseline finding this run no longer has (baselineState "absent"): what the baseline said.
json absentResult(const BaselineFinding& f, RuleTable& rules, const SarifRun& run) {
  const std::string ruleId = f.id.ruleId.empty() ? f.id.code : f.id.ruleId;
  json r = {{"ruleId", ruleId},
            {"ruleIndex", rules.indexOf(ruleId, f.message)},
            {"level", "none"},
            {"message", {{"text", f.message.empty() ? f.id.code : f.message}}}};
  json location = json::object();
  if (!run.graphPath.empty()) location["physicalLocation"] = {{"artifactLocation", {{"uri", pathUri(run.graphPath)}}}};
  if (!f.id.node.empty()) location["logicalLocations"] = json::array({{{"name", f.id.node}, {"kind", "object"}}});
  r["locations"] = json::array({std::move(location)});
  r["baselineState"] = "absent";
  json props = {{"code", f.id.code}};
  if (!f.id.node.empty()) props["node"] = f.id.node;
  if (!f.id.port.empty()) props["port"] = f.id.port;
  r["properties"] = std::move(props);
  return r;
}

json invocation(const SarifInvocation& inv) {
  json i = {{"executionSuccessful", inv.successful}, {"exitCode", inv.exitCode}};
  if (!inv.errors.empty()) {
    json notes = json::array();
    for (const std::string& e : inv.errors) notes.push_back({{"level", "error"}, {"message", {{"text", e}}}});
    i["toolExecutionNotifications"] = std::move(notes);
  }
  return i;
}

}  // namespace

std::string formatSarif(const DiagnosticList& diagnostics, const SarifRun& run) {
  RuleTable rules(run.rules);
  json results = json::array();
  for (const Diagnostic& d : diagnostics) {
    results.push_back(result(d, rules, run));
    if (run.baseline) results.back()["baselineState"] = "new";
  }
  if (run.baseline) {
    for (const Diagnostic& d : run.baseline->unchanged) {
      results.push_back(result(d, rules, run));
      results.back()["baselineState"] = "unchanged";
    }
    for (const BaselineFinding& f : run.baseline->absent) results.push_back(absentResult(f, rules, run));
  }
  json driver = {{"name", run.toolName},
                 {"version", run.toolVersion},
                 {"semanticVersion", run.toolVersion},
                 {"rules", rules.take()}};
  json sarifRun = {{"tool", {{"driver", std::move(driver)}}}};
  if (run.invocation) sarifRun["invocations"] = json::array({invocation(*run.invocation)});
  sarifRun["results"] = std::move(results);
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({std::move(sarifRun)})}};
  return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace qnnrules
