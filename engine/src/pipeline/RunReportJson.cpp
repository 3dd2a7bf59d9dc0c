// The JSON report (qnn-validate --format json, RunReport.to_json() in Python), a function of
// the run report only.
#include <nlohmann/json.hpp>

#include "qnnrules/pipeline/RunReportFormat.h"

namespace qnnrules {
namespace {

using json = nlohmann::json;

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

json stoppedJson(const RunReport& r) {
  return {{"valid", false},
          {"error", {{"kind", runStageName(r.stoppedAt)}, {"code", statusCodeName(r.status.code())},
                     {"message", r.status.message()}}},
          {"diagnostics", parsed(formatJsonArray(r.stageErrors))}};
}

json reportJson(const RunReport& r) {
  const ValidationResult& v = r.validation;
  json j = {
      {"graph", r.graph->name.empty() ? r.graphPath : r.graph->name},
      {"backend", r.backend},
      {"soc", r.soc.name},
      {"soc_defaulted", r.socDefaulted},
      {"rule_dirs", r.ruleDirs},
      {"htp_arch", htpArchName(r.soc.htpArch)},
      {"mode", r.mode == Mode::kWarn ? "warn" : "strict"},
      {"valid", r.valid()},
      {"summary", {{"nodes_checked", v.nodesChecked}, {"nodes_with_rule", v.nodesWithRule},
                   {"errors", v.errorCount()}, {"warnings", v.warningCount()}}},
      {"diagnostics", parsed(formatJsonArray(v.diagnostics))},
      {"backend_options", backendOptionsJson(r)},
      {"delegation", parsed(formatDelegationJson(*r.graph, r.delegation))},
  };
  if (r.annotation) {
    const AnnotateResult& a = *r.annotation;
    j["annotation"] = {{"config", a.config}, {"qat", a.qat}, {"nodes_annotated", a.nodesAnnotated},
                       {"nodes_kept", a.nodesKept}, {"nodes_discarded", a.nodesDiscarded}};
    if (a.explanation) j["explanation"] = explanationJson(*a.explanation);
  }
  if (r.qdqNodesFolded) j["qdq_nodes_folded"] = r.qdqNodesFolded;
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
