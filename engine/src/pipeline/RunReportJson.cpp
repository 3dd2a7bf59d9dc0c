// The JSON report (qnn-validate --format json, RunReport.to_json() in Python), a function of
// the run report only. Keys come out in the order docs/schemas/report.schema.json lists them:
// what judged, what was judged, the verdict, then the details. Written in one pass with the
// streaming JsonWriter (formatted byte for byte as the nlohmann DOM it replaces): with 100k
// diagnostics, building and re-parsing a DOM cost several times the text report.
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/Baseline.h"
#include "qnnrules/report/DelegatedViolations.h"
#include "qnnrules/core/JsonWriter.h"
#include "qnnrules/report/OpSummary.h"
#include "qnnrules/report/PlacementRuns.h"
#include "qnnrules/report/RuleDigest.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

constexpr const char* kTool = "qnn-validate";

void writeExplanation(JsonWriter& w, const NodeExplanation& e) {
  w.beginObject();
  w.field("node", e.node);
  w.field("op", e.op);
  w.field("source_op", e.sourceOp);
  w.field("rule", e.rule);
  w.field("pattern", e.pattern);
  w.field("config", e.config);
  w.field("decided_by", e.decidedBy);
  w.key("ports");
  w.beginArray();
  for (const PortDecision& p : e.ports) {
    w.beginObject();
    w.field("port", p.port);
    w.field("spec", p.spec);
    w.field("source", p.source);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void writeBackendOptions(JsonWriter& w, const RunReport& r) {
  w.beginObject();
  for (const ResolvedOption& o : r.backendOptions) {
    w.key(o.spec->name);
    w.beginObject();
    w.field("value", o.text());
    w.field("code", o.code());
    w.field("type", optionTypeName(o.spec->type));
    w.field("default", !o.fromUser);
    w.endObject();
  }
  w.endObject();
}

void writeTimes(JsonWriter& w, const PhaseTimes& times) {
  auto entry = [&](std::string_view key, const PhaseTime& t) {
    w.key(key);
    w.beginObject();
    w.field("wall_ms", t.wallMs);
    w.field("cpu_ms", t.cpuMs);
    w.endObject();
  };
  w.beginObject();
  for (size_t i = 0; i < times.phases.size(); ++i)
    if (times.phases[i].ran) entry(phaseKey(static_cast<Phase>(i)), times.phases[i]);
  entry("total", times.total());
  w.endObject();
}

void writeOps(JsonWriter& w, const std::vector<OpSummaryRow>& rows) {
  w.beginArray();
  for (const OpSummaryRow& r : rows) {
    w.beginObject();
    w.field("op", r.op);
    if (!r.targets.empty()) w.field("rule_targets", r.targets);
    w.field("nodes", r.count);
    w.field("delegated", r.delegated);
    w.field("on_cpu", r.onCpu);
    w.field("diagnostics", r.diagnostics);
    w.endObject();
  }
  w.endArray();
}

void writePlacementRuns(JsonWriter& w, const Graph& graph, const DelegationReport& delegation) {
  w.beginArray();
  for (const PlacementRun& r : placementRuns(delegation)) {
    w.beginObject();
    w.field("on", r.placement == Placement::kCpu ? std::string_view("cpu") : std::string_view(delegation.backend));
    w.key("partition");
    if (r.partition < 0) w.null();
    else w.value(r.partition);
    w.field("compute_nodes", r.computeNodes);
    w.field("first", graph.node(r.first).name);
    w.field("last", graph.node(r.last).name);
    w.endObject();
  }
  w.endArray();
}

void writeVerdict(JsonWriter& w, const Verdict& v) {
  w.beginObject();
  w.field("kind", verdictKindName(v.kind));
  w.field("text", v.text());
  w.field("cpu_percent", v.cpuPercent);
  w.endObject();
}

void writeStopped(JsonWriter& w, const RunReport& r) {
  w.beginObject();
  w.field("tool", kTool);
  w.field("version", QNNRULES_VERSION);
  w.field("valid", false);
  w.key("error");
  w.beginObject();
  w.field("kind", runStageName(r.stoppedAt));
  w.field("code", statusCodeName(r.status.code()));
  w.field("message", r.status.message());
  w.endObject();
  w.key("diagnostics");
  writeJsonArray(w, r.stageErrors);
  w.endObject();
}

// The lowering path the graph was judged for and the encodings it rewrote first.
void writeLowering(JsonWriter& w, const RunReport& r) {
  if (!r.lowering) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("name", r.lowering->name);
  w.field("description", r.lowering->description);
  w.field("defaulted", r.loweringDefaulted);
  w.field("merged_conversions", r.mergedConversions);
  w.key("rewrites");
  w.beginArray();
  for (const AppliedRewrite& a : r.rewrites) {
    w.beginObject();
    w.field("id", a.rewrite->id);
    w.field("ports", a.ports);
    w.field("message", a.rewrite->says);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

// What judged and what was judged: the tool, the graph, the backend and SoC, the lowering path
// and the rules read.
void writeJudgedBy(JsonWriter& w, const RunReport& r) {
  const RuleDigest digest = r.rules ? digestRuleFiles(*r.rules) : RuleDigest{};
  w.field("tool", kTool);
  w.field("version", QNNRULES_VERSION);
  w.field("graph", r.graph->name.empty() ? r.graphPath : r.graph->name);
  w.field("graph_file", r.graphPath);
  w.field("backend", r.backend);
  w.field("soc", r.soc.name);
  w.field("soc_defaulted", r.socDefaulted);
  // Every hardware column the SoC has (socs.yaml), whichever the backend runs on.
  w.key("soc_hardware");
  w.beginObject();
  for (const SocHardware& h : r.soc.hardware)
    if (!h.version.empty()) w.field(h.column, h.version);
  w.endObject();
  w.field("hardware", hardwareText(r.rules ? r.rules->manifest() : nullptr, r.soc));
  w.field("mode", r.mode == Mode::kWarn ? "warn" : "strict");
  w.key("lowering");
  writeLowering(w, r);
  w.key("rule_dirs");
  w.beginArray();
  for (const std::string& d : r.ruleDirs) w.value(d);
  w.endArray();
  w.key("rules");
  w.beginObject();
  w.field("digest", digest.value);
  w.field("files", digest.files);
  w.endObject();
}

void writeSummary(JsonWriter& w, const ValidationResult& v) {
  w.beginObject();
  w.field("nodes_checked", v.nodesChecked);
  w.field("nodes_with_rule", v.nodesWithRule);
  w.field("errors", v.errorCount());
  w.field("warnings", v.warningCount());
  w.endObject();
}

// The findings the baseline had: still here (full diagnostics), or gone (their identity).
void writeBaseline(JsonWriter& w, const BaselineComparison& b) {
  w.beginObject();
  w.field("file", b.file);
  w.key("unchanged");
  writeJsonArray(w, b.unchanged);
  w.key("absent");
  w.beginArray();
  for (const BaselineFinding& f : b.absent) {
    w.beginObject();
    w.field("code", f.id.code);
    w.field("node", f.id.node);
    w.field("port", f.id.port);
    w.field("rule", f.id.ruleId);
    w.field("message", f.message);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void writeAnnotation(JsonWriter& w, const AnnotateResult& a) {
  w.beginObject();
  w.field("config", a.config);
  w.field("qat", a.qat);
  w.field("nodes_annotated", a.nodesAnnotated);
  w.field("nodes_kept", a.nodesKept);
  w.field("nodes_discarded", a.nodesDiscarded);
  w.endObject();
}

void writeDelegatedViolations(JsonWriter& w, const Graph& graph, const std::vector<DelegatedViolation>& rows) {
  w.beginArray();
  for (const DelegatedViolation& row : rows) {
    const Node& n = graph.node(row.node);
    w.beginObject();
    w.field("node", n.name);
    w.field("op", graph.target(n));
    w.field("source_op", graph.sourceOp(n));
    w.field("partition", row.partition);
    w.key("codes");
    w.beginArray();
    for (const std::string& c : row.codes) w.value(c);
    w.endArray();
    w.endObject();
  }
  w.endArray();
}

// Everything but the closing brace, so that the times can follow.
void writeReport(JsonWriter& w, const RunReport& r) {
  const ValidationResult& v = r.validation;
  w.beginObject();
  writeJudgedBy(w, r);
  w.field("valid", r.valid());
  w.key("verdict");
  writeVerdict(w, judge(r.failed(), r.delegation));
  w.key("summary");
  writeSummary(w, v);
  w.key("ops");
  writeOps(w, summarizeOps(*r.graph, r.delegation, v.diagnostics));
  w.key("diagnostics");
  writeJsonArray(w, v.diagnostics);
  if (r.baseline) {
    w.key("baseline");
    writeBaseline(w, *r.baseline);
  }
  if (r.annotation) {
    w.key("annotation");
    writeAnnotation(w, *r.annotation);
  }
  if (r.qdqNodesFolded) w.field("qdq_nodes_folded", r.qdqNodesFolded);
  if (r.annotation && r.annotation->explanation) {
    w.key("explanation");
    writeExplanation(w, *r.annotation->explanation);
  }
  w.key("backend_options");
  writeBackendOptions(w, r);
  w.key("delegation");
  writeDelegationJson(w, *r.graph, r.delegation);
  w.key("placement_runs");
  writePlacementRuns(w, *r.graph, r.delegation);
  // Warn mode: the delegated nodes that violate their rules (only when there are some).
  if (auto rows = delegatedWithViolations(*r.graph, r.delegation, r.validation.diagnostics); !rows.empty()) {
    w.key("delegated_with_violations");
    writeDelegatedViolations(w, *r.graph, rows);
  }
}

}  // namespace

void writeRunJson(const RunReport& r, const RenderOptions& options, const OutputSink& sink) {
  PhaseTimes times = r.times;
  std::string out;
  JsonWriter w(out, /*indent=*/2);
  w.drainInto(&sink, kOutputPieceBytes);
  if (!r.ok()) {
    writeStopped(w, r);
  } else {
    PhaseTimer timer(times, Phase::kReport);
    writeReport(w, r);
    timer.stop();
    if (options.times) {
      w.key("times");
      writeTimes(w, times);
    }
    w.endObject();
  }
  out += '\n';
  sink(out);
}

std::string formatRunJson(const RunReport& r, const RenderOptions& options) {
  std::string out;
  writeRunJson(r, options, [&out](std::string_view piece) { out += piece; });
  return out;
}

}  // namespace qnnrules
