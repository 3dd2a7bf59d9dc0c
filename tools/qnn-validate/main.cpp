// qnn-validate: checks a serialized graph against a backend's rules for one SoC.
//
// Exit codes: 0 valid (or warn mode), 1 strict mode found violations, 2 usage errors or
// bad input (malformed graph, unknown SoC/backend, rule-file errors).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/report/DotWriter.h"
#include "qnnrules/Engine.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/passes/QdqReader.h"
#include "qnnrules/io/OnnxBinding.h"
#include "qnnrules/core/Suggest.h"
#include "qnnrules/report/HtmlReport.h"
#include "qnnrules/report/OpSummary.h"
#include "qnnrules/report/PlacementRuns.h"
#include "qnnrules/report/RuleDigest.h"
#include "qnnrules/report/SarifWriter.h"
#include "qnnrules/report/TextStyle.h"
#include "qnnrules/report/Verdict.h"

namespace {

constexpr int kExitValid = 0;
constexpr int kExitViolations = 1;
constexpr int kExitBadInput = 2;

struct CliOptions {
  std::string graphPath;
  std::string backend = "htp";
  std::string soc = "SM8750";  // the reference quantizer's default; reports say when it was not chosen
  bool socGiven = false;
  bool strict = false;
  bool warn = false;
  std::string format = "text";
  std::vector<std::string> ruleDirs;
  bool listRules = false;
  bool listSocs = false;
  std::string logLevel = "warn";
  // Annotation (docs/annotation.md)
  std::string annotate;     // config selection, e.g. 16a4w:per_channel
  std::string recipe;
  std::string output;       // annotated graph
  std::string explainNode;
  std::string encodings;    // encodings JSON from the graph's statistics
  // Delegation (docs/delegation.md)
  std::vector<std::string> backendOptions;  // NAME=VALUE
  bool requireFull = false;
  bool noRequireFull = false;
  std::string dot;          // Graphviz picture of the delegation
  // Report surface (docs/schemas/report.schema.json, --format sarif, --html)
  std::string html;         // self-contained HTML report
  std::string color = "auto";
  bool logLevelGiven = false;
};

using ojson = nlohmann::ordered_json;  // reports keep their keys in the order written


void printDiagnostics(const qnnrules::DiagnosticList& diags, std::ostream& os) {
  for (const qnnrules::Diagnostic& d : diags) os << qnnrules::formatText(d);
}

// Errors that stop the run before validation: printed to stderr, exit 2.
int badInput(const std::string& what, const qnnrules::Status& status, const qnnrules::DiagnosticList& errors,
             const std::string& format) {
  if (format == "json") {
    ojson j = {{"tool", "qnn-validate"},
               {"version", QNNRULES_VERSION},
               {"valid", false},
               {"error", {{"kind", what}, {"code", qnnrules::statusCodeName(status.code())},
                          {"message", status.message()}}},
               {"diagnostics", ojson::parse(qnnrules::formatJsonArray(errors))}};
    std::cout << j.dump(2) << "\n";
  } else if (format == "sarif") {
    qnnrules::SarifRun sarif;
    sarif.toolVersion = QNNRULES_VERSION;
    std::cout << qnnrules::formatSarif(errors, sarif);
  }
  printDiagnostics(errors, std::cerr);
  std::cerr << "qnn-validate: error: " << status.message();
  if (!status.fragment().empty() && status.message().find(status.fragment()) == std::string::npos)
    std::cerr << " (" << status.fragment() << ")";
  // What to do next, where the message cannot know it (it does not know the command line).
  if (what == "graph" && status.code() == qnnrules::StatusCode::kNotFound)
    std::cerr << "; check the path: GRAPH is a .pt2 archive, an ONNX model or a JSON graph";
  else if (what == "rules" && !errors.empty())
    std::cerr << "; fix the rule files above (`qnn-rules lint` checks them all)";
  std::cerr << "\n";
  return kExitBadInput;
}

// --- delegation: backend options, partitions, full delegation, DOT (docs/delegation.md) ---

void applyDelegationOptions(const CliOptions& o, qnnrules::EngineOptions& eo) {
  eo.backendOptions = o.backendOptions;
  if (o.requireFull) eo.requireFullDelegation = true;
  if (o.noRequireFull) eo.requireFullDelegation = false;
}

// What failed to open the engine, for the JSON error: bad --backend-option settings are
// reported as option errors, everything else as rule loading.
std::string engineErrorKind(const qnnrules::Engine& engine) {
  return engine.status().code() == qnnrules::StatusCode::kInvalidArgument && !engine.loadErrors().empty()
             ? "backend-option"
             : "rules";
}

ojson backendOptionsJson(const qnnrules::Engine& engine) {
  ojson j = ojson::object();
  for (const qnnrules::ResolvedOption& r : engine.backendOptions())
    j[r.spec->name] = {{"value", r.text()}, {"code", r.code()}, {"type", qnnrules::optionTypeName(r.spec->type)},
                       {"default", !r.fromUser}};
  return j;
}

void addDelegationJson(ojson& j, const qnnrules::Engine& engine, const qnnrules::Graph& graph,
                       const qnnrules::DelegationReport& report) {
  j["backend_options"] = backendOptionsJson(engine);
  j["delegation"] = ojson::parse(qnnrules::formatDelegationJson(graph, report));
}

void printDelegationText(const qnnrules::Engine& engine, const qnnrules::Graph& graph,
                         const qnnrules::DelegationReport& report, std::ostream& os) {
  os << qnnrules::formatDelegationText(graph, report);
  std::string set;
  for (const qnnrules::ResolvedOption& r : engine.backendOptions())
    if (r.fromUser) set += (set.empty() ? "" : ", ") + r.spec->name + "=" + r.text();
  if (!set.empty()) os << "backend options: " << set << " (others default)\n";
}

// Writes the --dot picture; an exit code when it cannot.
std::optional<int> writeDelegationDot(const CliOptions& o, const qnnrules::Graph& graph,
                                      const qnnrules::DelegationReport& report) {
  if (o.dot.empty()) return std::nullopt;
  qnnrules::Status st = qnnrules::writeDotFile(o.dot, graph, report);
  if (!st.isOk()) return badInput("dot", st, {}, "text");
  return std::nullopt;
}

// What happens to a graph between reading and validation: QDQ folding, annotation.
struct Prepared {
  qnnrules::Graph graph;
  qnnrules::DiagnosticList diagnostics;  // shown before the validation diagnostics
  std::optional<qnnrules::AnnotateResult> annotation;
  size_t qdqNodes = 0;
};

void printExplanation(const qnnrules::NodeExplanation& e, std::ostream& os) {
  os << "node '" << e.node << "' (" << e.op << ")\n"
     << "  rule:       " << e.rule << "\n  pattern:    " << e.pattern << "\n  config:     " << e.config
     << "\n  decided by: " << e.decidedBy << "\n";
  for (const qnnrules::PortDecision& p : e.ports)
    os << "  " << p.port << ": " << p.spec << "\n      from " << p.source << "\n";
}

ojson explanationJson(const qnnrules::NodeExplanation& e) {
  ojson ports = ojson::array();
  for (const qnnrules::PortDecision& p : e.ports) ports.push_back({{"port", p.port}, {"spec", p.spec}, {"source", p.source}});
  return {{"node", e.node}, {"op", e.op}, {"rule", e.rule}, {"pattern", e.pattern},
          {"config", e.config}, {"decided_by", e.decidedBy}, {"ports", ports}};
}

// Folds Q/DQ nodes and annotates as asked. Returns an exit code when the run must stop.
std::optional<int> prepare(const qnnrules::Engine& engine, const CliOptions& o, qnnrules::Graph graph, Prepared& p) {
  if (qnnrules::isQdqGraph(graph)) {
    qnnrules::QdqFoldResult folded = qnnrules::foldQdq(graph);
    if (!folded.status.isOk()) return badInput("graph", folded.status, folded.diagnostics, o.format);
    p.qdqNodes = folded.quantizeNodes + folded.dequantizeNodes;
    p.diagnostics = std::move(folded.diagnostics);
    graph = std::move(folded.graph);
  }
  // ONNX models: onnx:: nodes onto the rules, after the fold (io/OnnxBinding.h).
  if (qnnrules::needsOnnxBinding(graph, engine.rules())) qnnrules::bindOnnxOps(graph, engine.rules());
  if (!o.annotate.empty()) {
    qnnrules::AnnotateOptions ao;
    ao.config = o.annotate;
    ao.recipeFile = o.recipe;
    ao.strict = !o.warn;
    ao.explainNode = o.explainNode;
    qnnrules::AnnotateResult r = engine.annotate(graph, ao);
    if (!r.status.isOk()) return badInput("annotation", r.status, r.loadErrors, o.format);
    p.diagnostics.insert(p.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
    p.annotation = std::move(r);
  }
  p.graph = std::move(graph);
  return std::nullopt;
}

// Writes the annotated graph and the encodings when asked, unless the run failed.
int writeOutputs(const qnnrules::Engine& engine, const CliOptions& o, const Prepared& p, bool failed) {
  if (o.output.empty() && o.encodings.empty()) return kExitValid;
  if (failed) {
    std::cerr << "qnn-validate: violations found; nothing written\n";
    return kExitViolations;
  }
  const std::string config = p.annotation ? p.annotation->config : "";
  const bool qat = p.annotation && p.annotation->qat;
  if (!o.output.empty()) {
    qnnrules::GraphWriteOptions wo;
    wo.annotatedWith = config;
    wo.qat = qat;
    qnnrules::Status st = qnnrules::writeGraphFile(p.graph, o.output, wo);
    if (!st.isOk()) return badInput("output", st, {}, "text");
  }
  if (!o.encodings.empty()) {
    qnnrules::EncodingsResult enc = qnnrules::computeEncodings(p.graph, engine.rules());
    printDiagnostics(enc.diagnostics, std::cerr);
    qnnrules::Status st = qnnrules::writeFileAtomically(
        o.encodings, qnnrules::encodingsToJson(enc, p.graph.name, config, qat));
    if (!st.isOk()) return badInput("encodings", st, {}, "text");
  }
  return kExitValid;
}

int listRules(qnnrules::Engine& engine, const std::string& format) {
  if (format == "json") {
    ojson rules = ojson::array();
    for (const qnnrules::Rule& r : engine.rules().rules())
      rules.push_back({{"id", r.id},
                       {"qnn_op", r.qnnOp},
                       {"targets", r.targets},
                       {"description", r.description},
                       {"origin", r.origin},
                       {"location", r.mark.known() ? ojson{{"file", *r.mark.file}, {"line", r.mark.line}} : ojson()}});
    ojson j = {{"tool", "qnn-validate"}, {"version", QNNRULES_VERSION}, {"backend", engine.rules().backend()},
               {"rules", std::move(rules)}};
    std::cout << j.dump(2, ' ', false, ojson::error_handler_t::replace) << "\n";
    return kExitValid;
  }
  for (const qnnrules::Rule& r : engine.rules().rules()) {
    std::cout << r.id << "  [" << r.origin << "]  " << r.mark.toString(false) << "\n";
    std::cout << "    " << (r.qnnOp.empty() ? "(no QNN op)" : r.qnnOp) << " <- ";
    for (size_t i = 0; i < r.targets.size(); ++i) std::cout << (i ? ", " : "") << r.targets[i];
    std::cout << "\n";
  }
  std::cout << engine.rules().rules().size() << " rules for backend " << engine.rules().backend() << "\n";
  return kExitValid;
}

int listSocs(qnnrules::Engine& engine, const std::string& format) {
  const auto& socs = engine.registry().socs();
  if (format == "json") {
    ojson list = ojson::array();
    for (const qnnrules::SocInfo& s : socs.table->all())
      list.push_back({{"name", s.name},
                      {"htp_arch", qnnrules::htpArchName(s.htpArch)},
                      {"vtcm_mb", s.vtcmMb},
                      {"lpai_version", s.lpaiVersion.empty() ? ojson() : ojson(s.lpaiVersion)},
                      {"marketing_name", s.marketingName}});
    ojson j = {{"tool", "qnn-validate"}, {"version", QNNRULES_VERSION}, {"socs", std::move(list)}};
    std::cout << j.dump(2) << "\n";
    return kExitValid;
  }
  for (const qnnrules::SocInfo& s : socs.table->all()) {
    std::cout << s.name << "  HTP " << qnnrules::htpArchName(s.htpArch) << "  VTCM " << s.vtcmMb << " MB";
    if (!s.lpaiVersion.empty()) std::cout << "  LPAI " << s.lpaiVersion;
    if (!s.marketingName.empty()) std::cout << "  (" << s.marketingName << ")";
    std::cout << "\n";
  }
  return kExitValid;
}

// --- report surface: the JSON document, SARIF, HTML, the text summary ---------------------

ojson opsJson(const std::vector<qnnrules::OpSummaryRow>& rows) {
  ojson a = ojson::array();
  for (const qnnrules::OpSummaryRow& r : rows)
    a.push_back({{"op", r.op}, {"nodes", r.count}, {"delegated", r.delegated}, {"on_cpu", r.onCpu},
                 {"diagnostics", r.diagnostics}});
  return a;
}

ojson placementRunsJson(const qnnrules::Graph& graph, const qnnrules::DelegationReport& delegation) {
  ojson a = ojson::array();
  for (const qnnrules::PlacementRun& r : qnnrules::placementRuns(delegation))
    a.push_back({{"on", r.placement == qnnrules::Placement::kCpu ? std::string("cpu") : delegation.backend},
                 {"partition", r.partition < 0 ? ojson() : ojson(r.partition)},
                 {"compute_nodes", r.computeNodes},
                 {"first", graph.node(r.first).name},
                 {"last", graph.node(r.last).name}});
  return a;
}

ojson verdictJson(const qnnrules::Verdict& v) {
  return {{"kind", qnnrules::verdictKindName(v.kind)}, {"text", v.text()}, {"cpu_percent", v.cpuPercent}};
}

// Writes the --html page; an exit code when it cannot.
std::optional<int> writeHtml(const CliOptions& o, const ojson& report) {
  if (o.html.empty()) return std::nullopt;
  const std::string json = report.dump(-1, ' ', false, ojson::error_handler_t::replace);
  qnnrules::Status st = qnnrules::writeFileAtomically(o.html, qnnrules::formatHtmlReport(json));
  if (!st.isOk()) return badInput("html", st, {}, "text");
  return std::nullopt;
}

int run(const CliOptions& o) {
  qnnrules::EngineOptions eo;
  eo.backend = o.backend;
  eo.soc = o.soc;
  eo.mode = o.warn ? qnnrules::Mode::kWarn : qnnrules::Mode::kStrict;
  for (const std::string& d : o.ruleDirs) eo.ruleDirs.emplace_back(d);
  applyDelegationOptions(o, eo);
  qnnrules::Engine engine(eo);
  if (!engine.ok()) return badInput(engineErrorKind(engine), engine.status(), engine.loadErrors(), o.format);
  if (o.listRules) return listRules(engine, o.format);
  if (o.listSocs) return listSocs(engine, o.format);

  qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath);
  if (!read.ok()) return badInput("graph", read.status, read.errors, o.format);

  Prepared prep;
  if (std::optional<int> rc = prepare(engine, o, std::move(read.graph), prep)) return *rc;
  qnnrules::GraphAnalysis analysis = engine.analyze(prep.graph);
  qnnrules::ValidationResult& result = analysis.validation;
  const qnnrules::DelegationReport& delegation = analysis.delegation;
  result.diagnostics.insert(result.diagnostics.begin(), prep.diagnostics.begin(), prep.diagnostics.end());
  qnnrules::applyMode(result, o.warn ? qnnrules::Mode::kWarn : qnnrules::Mode::kStrict);
  const bool failed = !o.warn && (!result.ok() || !delegation.ok());
  const qnnrules::NodeExplanation* explanation =
      prep.annotation && prep.annotation->explanation ? &*prep.annotation->explanation : nullptr;
  const std::string mode = o.warn ? "warn" : "strict";
  const std::string arch(qnnrules::htpArchName(engine.soc().htpArch));
  const qnnrules::Verdict verdict = qnnrules::judge(failed, delegation);
  const std::vector<qnnrules::OpSummaryRow> ops =
      qnnrules::summarizeOps(*analysis.graph, delegation, result.diagnostics);
  if (o.format == "json" || !o.html.empty()) {
    const qnnrules::RuleDigest digest = qnnrules::digestRuleFiles(engine.rules());
    // Key order is the reading order: what judged, what was judged, the verdict, the details.
    ojson j = {
        {"tool", "qnn-validate"},
        {"version", QNNRULES_VERSION},
        {"graph", prep.graph.name.empty() ? o.graphPath : prep.graph.name},
        {"graph_file", o.graphPath},
        {"backend", o.backend},
        {"soc", engine.soc().name},
        {"soc_defaulted", !o.socGiven},
        {"htp_arch", arch},
        {"mode", mode},
        {"rule_dirs", engine.ruleDirs()},
        {"rules", {{"digest", digest.value}, {"files", digest.files}}},
        {"valid", !failed && result.ok()},
        {"verdict", verdictJson(verdict)},
        {"summary", {{"nodes_checked", result.nodesChecked}, {"nodes_with_rule", result.nodesWithRule},
                     {"errors", result.errorCount()}, {"warnings", result.warningCount()}}},
        {"ops", opsJson(ops)},
        {"diagnostics", ojson::parse(qnnrules::formatJsonArray(result.diagnostics))},
    };
    if (prep.annotation)
      j["annotation"] = {{"config", prep.annotation->config}, {"qat", prep.annotation->qat},
                         {"nodes_annotated", prep.annotation->nodesAnnotated},
                         {"nodes_kept", prep.annotation->nodesKept},
                         {"nodes_discarded", prep.annotation->nodesDiscarded}};
    if (prep.qdqNodes) j["qdq_nodes_folded"] = prep.qdqNodes;
    if (explanation) j["explanation"] = explanationJson(*explanation);
    addDelegationJson(j, engine, *analysis.graph, delegation);
    j["placement_runs"] = placementRunsJson(*analysis.graph, delegation);
    if (o.format == "json") std::cout << j.dump(2, ' ', false, ojson::error_handler_t::replace) << "\n";
    if (std::optional<int> rc = writeHtml(o, j)) return *rc;
  }
  if (o.format == "sarif") {
    qnnrules::SarifRun sarif;
    sarif.toolVersion = QNNRULES_VERSION;
    sarif.graphPath = o.graphPath;
    sarif.rules = &engine.rules();
    std::cout << qnnrules::formatSarif(result.diagnostics, sarif);
  } else if (o.format == "text") {
    const bool color = qnnrules::useColor(*qnnrules::parseColorMode(o.color), stdout);
    for (const qnnrules::Diagnostic& d : result.diagnostics) std::cout << qnnrules::styleDiagnostic(d, color) << "\n";
    if (explanation) printExplanation(*explanation, std::cout);
    if (prep.annotation)
      std::cout << "annotated with " << prep.annotation->config << ": " << prep.annotation->nodesAnnotated
                << " node(s) annotated, " << prep.annotation->nodesKept << " kept, "
                << prep.annotation->nodesDiscarded << " discarded\n";
    printDelegationText(engine, *analysis.graph, delegation, std::cout);
    std::cout << qnnrules::formatOpTable(ops);
    std::string dirs;
    for (const std::string& d : engine.ruleDirs()) dirs += (dirs.empty() ? "" : ", ") + d;
    std::cout << "rules from: " << dirs << "\n";
    std::cout << o.graphPath << ": " << result.nodesChecked << " op nodes checked against " << o.backend
              << " rules for " << engine.soc().name
              << (o.backend == "lpai" ? " (LPAI " + engine.soc().lpaiVersion : " (HTP " + std::string(arch))
              << (o.socGiven ? ")" : "; default SoC, choose with --soc)")
              << ", " << mode << " mode: "
              << result.errorCount() << " error(s), " << result.warningCount() << " warning(s)"
              << (delegation.ok() ? "" : ", full delegation not satisfied")
              << (failed ? " - INVALID" : (result.diagnostics.empty() ? " - valid" : "")) << "\n";
    std::cout << "verdict: " << qnnrules::styleVerdict(verdict, color) << "\n";
  }
  if (std::optional<int> rc = writeDelegationDot(o, *analysis.graph, delegation)) return *rc;
  if (int rc = writeOutputs(engine, o, prep, failed); rc != kExitValid) return rc;
  return failed ? kExitViolations : kExitValid;
}

// --- CLI surface: exit codes in --help, did-you-mean for flags --------------------------

constexpr const char* kExitCodeTable =
    "Exit codes:\n"
    "  0  valid, or warn mode\n"
    "  1  strict mode (the default) found violations, or full delegation is required and not met\n"
    "  2  usage error or bad input: unknown flag, SoC, backend or option; malformed graph; rule-file errors\n"
    "Environment: QNNRULES_PATH (rule overlays), SPDLOG_LEVEL (log level), NO_COLOR (no colour)";

// "--frobnicate" -> "unknown option '--frobnicate'; did you mean '--format'?" for each flag of
// argv the app does not know, so a typo is answered with the flag that was meant.
void suggestFlags(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& n : opt->get_lnames()) known.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), arg) != known.end()) continue;
    std::string hint = qnnrules::didYouMean(arg, known);
    std::cerr << "qnn-validate: error: unknown option '" << arg << "'"
              << (hint.empty() ? "; see --help for the options" : "; " + hint) << "\n";
  }
}

std::string lowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions o;
  CLI::App app{"Checks a quantized graph against QNN backend rules before lowering."};
  app.set_version_flag("--version", "qnn-validate " QNNRULES_VERSION);
  app.add_option("graph", o.graphPath,
                 "graph file: a torch.export archive (.pt2), an ONNX model, or a JSON graph (format v1)");
  app.footer(kExitCodeTable);
  // Names are case-insensitive, like --soc: backends are folder names in lower case.
  app.add_option("--backend", o.backend, "backend: htp, lpai, gpu")->transform(lowerCase)->capture_default_str();
  auto* soc = app.add_option("--soc", o.soc, "target SoC, e.g. SM8650 (see --list-socs)")->capture_default_str();
  auto* strict = app.add_flag("--strict", o.strict, "violations are errors, exit 1 (default)");
  app.add_flag("--warn", o.warn, "report violations as warnings, exit 0")->excludes(strict);
  app.add_option("--format", o.format, "report format: text, json (docs/schemas/report.schema.json), sarif (SARIF 2.1.0)")
      ->transform(CLI::IsMember({"text", "json", "sarif"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--html", o.html, "also write a self-contained HTML report here (open it in any browser)");
  app.add_option("--color", o.color, "colour the text report: auto (when stdout is a terminal), always, never")
      ->transform(CLI::IsMember({"auto", "always", "never"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--rules", o.ruleDirs, "overlay rules directory (repeatable, one per --rules; after QNNRULES_PATH)")
      ->expected(1)
      ->allow_extra_args(false)  // `--rules DIR graph.json`: the graph stays the graph
      ->take_all();
  app.add_flag("--list-rules", o.listRules, "list the backend's rules and where each came from");
  app.add_flag("--list-socs", o.listSocs, "list known SoCs");
  auto* annotate = app.add_option("--annotate", o.annotate,
                                  "annotate first with CONFIG (NAME[:per_tensor|per_channel|per_block][,sym][,qat])");
  app.add_option("--recipe", o.recipe, "recipe YAML of overrides (with --annotate)")->needs(annotate);
  app.add_option("--output", o.output, "write the annotated graph here (atomically; not on violations)");
  app.add_option("--explain-node", o.explainNode, "say which config, override and rule decided each port of NAME")
      ->needs(annotate);
  app.add_option("--encodings", o.encodings, "write encodings computed from the graph's min/max statistics");
  app.add_option("--backend-option", o.backendOptions, "backend option NAME=VALUE (repeatable), e.g. fps=30")
      ->expected(1)
      ->allow_extra_args(false)  // one NAME=VALUE per flag, so a following graph path is not swallowed
      ->take_all();
  auto* full = app.add_flag("--require-full-delegation", o.requireFull,
                            "fail unless the graph is one partition with no compute on CPU (default for lpai)");
  app.add_flag("--no-require-full-delegation", o.noRequireFull, "allow partial delegation")->excludes(full);
  app.add_option("--dot", o.dot, "write a Graphviz picture of the delegation (partitions, fallbacks) here");
  auto* logLevel = app.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off (default: $SPDLOG_LEVEL, else warn)")
      ->transform(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}, CLI::ignore_case))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) suggestFlags(app, argc, argv);
    int rc = app.exit(e);
    return rc == 0 ? kExitValid : kExitBadInput;
  }
  o.socGiven = soc->count() > 0;
  auto logger = spdlog::stderr_color_mt("qnnrules");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  if (logLevel->count() == 0) spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug, unless --log-level
  if (o.graphPath.empty() && !o.listRules && !o.listSocs) {
    std::cerr << "qnn-validate: error: a graph file is required (or --list-rules / --list-socs)\n"
              << "Run with --help for more information.\n";
    return kExitBadInput;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    // The engine reports errors as values; reaching here is a bug, but still a defined exit.
    std::cerr << "qnn-validate: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
