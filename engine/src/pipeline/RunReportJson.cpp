// The JSON report (qnn-validate --format json, RunReport.to_json() in Python), a function of
// the run report only. Keys come out in the order docs/schemas/report.schema.json lists them
// (ordered_json): what judged, what was judged, the verdict, then the details.
#include <nlohmann/json.hpp>

#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/OpSummary.h"
#include "qnnrules/report/PlacementRuns.h"
#include "qnnrules/report/RuleDigest.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kTool = "qnn-validate";

json parsed(const std::string& text) { return json::parse(text); }

json explanationJson(const NodeExplanation& e) {
  json ports = json::array();
  for (const PortDecision& p : e.ports) ports.push_back({{"port", p.port}, {"spec", p.spec}, {"source", p.source}});
  return {{"node", e.node}, {"op", e.op}, {"rule", e.rule}, {"pattern", e.pattern},
          {"config", e.config}, {"decided_by", e.decidedBy}, {"ports", ports}};
}

json backendOptionsJson(const RunReport& r) {
  json j = json::object();
  for (const ResolvedOption& o : r.backendOptions)
    j[o.spec->name] = {{"value", o.text()}, {"code", o.code()}, {"type", optionTypeName(o.spec->type)},
                       {"default", !o.fromUser}};
  return j;
}

json timesJson(const PhaseTimes& times) {
  json j = json::object();
  auto entry = [](const PhaseTime& t) { return json{{"wall_ms", t.wallMs}, {"cpu_ms", t.cpuMs}}; };
  for (size_t i = 0; i < times.phases.size(); ++i)
    if (times.phases[i].ran) j[std::string(phaseKey(static_cast<Phase>(i)))] = entry(times.phases[i]);
  j["total"] = entry(times.total());
  return j;
}

json opsJson(const std::vector<OpSummaryRow>& rows) {
  json a = json::array();
  for (const OpSummaryRow& r : rows)
    a.push_back({{"op", r.op}, {"nodes", r.count}, {"delegated", r.delegated}, {"on_cpu", r.onCpu},
                 {"diagnostics", r.diagnostics}});
  return a;
}

json placementRunsJson(const Graph& graph, const DelegationReport& delegation) {
  json a = json::array();
  for (const PlacementRun& r : placementRuns(delegation))
    a.push_back({{"on", r.placement == Placement::kCpu ? std::string("cpu") : delegation.backend},
                 {"partition", r.partition < 0 ? json() : json(r.partition)},
                 {"compute_nodes", r.computeNodes},
                 {"first", graph.node(r.first).name},
                 {"last", graph.node(r.last).name}});
  return a;
}

json verdictJson(const Verdict& v) {
  return {{"kind", verdictKindName(v.kind)}, {"text", v.text()}, {"cpu_percent", v.cpuPercent}};
}

json stoppedJson(const RunReport& r) {
  return {{"tool", kTool},
          {"version", QNNRULES_VERSION},
          {"valid", false},
          {"error", {{"kind", runStageName(r.stoppedAt)}, {"code", statusCodeName(r.status.code())},
                     {"message", r.status.message()}}},
          {"diagnostics", parsed(formatJsonArray(r.stageErrors))}};
}

json reportJson(const RunReport& r) {
  const ValidationResult& v = r.validation;
  const RuleDigest digest = r.rules ? digestRuleFiles(*r.rules) : RuleDigest{};
  json j = {
      {"tool", kTool},
      {"version", QNNRULES_VERSION},
      {"graph", r.graph->name.empty() ? r.graphPath : r.graph->name},
      {"graph_file", r.graphPath},
      {"backend", r.backend},
      {"soc", r.soc.name},
      {"soc_defaulted", r.socDefaulted},
      {"htp_arch", htpArchName(r.soc.htpArch)},
      {"mode", r.mode == Mode::kWarn ? "warn" : "strict"},
      {"rule_dirs", r.ruleDirs},
      {"rules", {{"digest", digest.value}, {"files", digest.files}}},
      {"valid", r.valid()},
      {"verdict", verdictJson(judge(r.failed(), r.delegation))},
      {"summary", {{"nodes_checked", v.nodesChecked}, {"nodes_with_rule", v.nodesWithRule},
                   {"errors", v.errorCount()}, {"warnings", v.warningCount()}}},
      {"ops", opsJson(summarizeOps(*r.graph, r.delegation, v.diagnostics))},
      {"diagnostics", parsed(formatJsonArray(v.diagnostics))},
  };
  if (r.annotation) {
    const AnnotateResult& a = *r.annotation;
    j["annotation"] = {{"config", a.config}, {"qat", a.qat}, {"nodes_annotated", a.nodesAnnotated},
                       {"nodes_kept", a.nodesKept}, {"nodes_discarded", a.nodesDiscarded}};
  }
  if (r.qdqNodesFolded) j["qdq_nodes_folded"] = r.qdqNodesFolded;
  if (r.annotation && r.annotation->explanation) j["explanation"] = explanationJson(*r.annotation->explanation);
  j["backend_options"] = backendOptionsJson(r);
  j["delegation"] = parsed(formatDelegationJson(*r.graph, r.delegation));
  j["placement_runs"] = placementRunsJson(*r.graph, r.delegation);
  return j;
}

}  // namespace

std::string formatRunJson(const RunReport& r, const RenderOptions& options) {
  PhaseTimes times = r.times;
  PhaseTimer timer(times, Phase::kReport);
  json j = r.ok() ? reportJson(r) : stoppedJson(r);
  timer.stop();
  if (options.times && r.ok()) j["times"] = timesJson(times);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace qnnrules
