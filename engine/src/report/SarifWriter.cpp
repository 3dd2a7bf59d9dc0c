#include "qnnrules/report/SarifWriter.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "qnnrules/report/DiagnosticCodes.h"
#include "qnnrules/rules/RuleSet.h"

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

}  // namespace

std::string formatSarif(const DiagnosticList& diagnostics, const SarifRun& run) {
  RuleTable rules(run.rules);
  json results = json::array();
  for (const Diagnostic& d : diagnostics) {
    const size_t ruleIndex = rules.indexOf(d);
    json r = {{"ruleId", d.ruleId.empty() ? std::string(diagCodeName(d.code)) : d.ruleId},
              {"ruleIndex", ruleIndex},
              {"level", severityName(d.severity)},  // SARIF's level names are the severity names
              {"message", {{"text", messageText(d)}}}};
    json location = json::object();
    const bool onGraph = !d.node.empty() || !d.mark.known();
    if (onGraph && !run.graphPath.empty()) {
      location["physicalLocation"] = {{"artifactLocation", {{"uri", pathUri(run.graphPath)}}}};
      if (!d.node.empty())
        location["logicalLocations"] = json::array({{{"name", d.node}, {"kind", "object"}}});
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
    const std::array<std::pair<const char*, const std::string*>, 7> fields{
        {{"node", &d.node}, {"op", &d.op}, {"port", &d.port}, {"variant", &d.variant}, {"expected", &d.expected},
         {"actual", &d.actual}, {"hint", &d.hint}}};
    for (const auto& [key, value] : fields)
      if (!value->empty()) props[key] = *value;
    r["properties"] = std::move(props);
    results.push_back(std::move(r));
  }
  json driver = {{"name", run.toolName},
                 {"version", run.toolVersion},
                 {"semanticVersion", run.toolVersion},
                 {"rules", rules.take()}};
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({{{"tool", {{"driver", std::move(driver)}}}, {"results", std::move(results)}}})}};
  return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace qnnrules
