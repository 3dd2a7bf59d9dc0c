// The engine's one pipeline (pipeline/RunReport.h): Engine::run and the narrower entry points
// built on it (analyze, validate), so every front end gets the same graph, the same
// diagnostics in the same order, and the same delegation report.
#include <utility>

#include "qnnrules/Engine.h"
#include "qnnrules/delegate/Partitioner.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/OnnxBinding.h"
#include "qnnrules/passes/CpuForms.h"
#include "qnnrules/passes/DynamicShapes.h"
#include "qnnrules/passes/EncodingMerge.h"
#include "qnnrules/passes/RankFusion.h"
#include "qnnrules/passes/NumericChecks.h"
#include "qnnrules/passes/Prune.h"
#include "qnnrules/passes/QdqFold.h"
#include "qnnrules/passes/QdqGrouping.h"
#include "EngineImpl.h"
#include "GraphIntake.h"
#include "report/Remedies.h"

namespace qnnrules {
namespace detail {

IntakeResult intakeGraph(WorkingGraph& g, const RuleSet& rules) {
  IntakeResult r;
  if (isQdqGraph(g.get())) {
    QdqFoldResult folded = foldQdq(g.get());
    r.status = std::move(folded.status);
    r.diagnostics = std::move(folded.diagnostics);
    if (!r.status.isOk()) return r;
    r.qdqNodesFolded = folded.quantizeNodes + folded.dequantizeNodes;
    r.nonFiniteScaleProducers = std::move(folded.nonFiniteScaleProducers);
    g.replace(std::move(folded.graph));
  }
  // ONNX models: onnx:: nodes onto the rules, after the fold (so weights behind a
  // DequantizeLinear count as constants).
  if (needsOnnxBinding(g.get(), rules)) bindOnnxOps(g.mutate(), rules);
  return r;
}

}  // namespace detail

using detail::WorkingGraph;

namespace {

void stop(RunReport& r, RunStage stage, Status status, DiagnosticList errors) {
  r.stoppedAt = stage;
  r.status = std::move(status);
  r.stageErrors = std::move(errors);
}

std::vector<uint8_t> skipMask(const PruneResult& pruned) {
  std::vector<uint8_t> skip(pruned.kind.size());
  for (size_t i = 0; i < pruned.kind.size(); ++i) skip[i] = pruned.kind[i] != PruneKind::kKept;
  return skip;
}

// The rules' checks, then the quantization-parameter checks, on the nodes pruning kept.
ValidationResult check(const GraphFacts& facts, const SocInfo& soc, ValidateOptions vo, const PruneResult& pruned) {
  vo.skipNodes = skipMask(pruned);
  ValidationResult r = validateGraph(facts, soc, vo);
  NumericCheckOptions no;
  no.skipNodes = std::move(vo.skipNodes);
  DiagnosticList numeric = checkQuantParams(facts, no);
  r.diagnostics.insert(r.diagnostics.end(), numeric.begin(), numeric.end());
  return r;
}

// A stopped run as the narrow entry points report it: the stage's errors as diagnostics.
ValidationResult stoppedValidation(const RunReport& r) {
  ValidationResult v;
  v.diagnostics = r.stageErrors;
  if (v.diagnostics.empty()) {
    // Say which stage stopped the run: an engine that did not open folded nothing.
    Diagnostic d;
    if (r.stoppedAt == RunStage::kGraph) {
      d.code = DiagCode::kQdqMismatch;
      d.message = "the quantize/dequantize nodes could not be folded: " + r.status.message();
    } else {
      d.code = DiagCode::kInvalidValue;
      d.message = "the engine did not open, so nothing was validated: " + r.status.message();
    }
    v.diagnostics.push_back(std::move(d));
  }
  applyMode(v, r.mode);
  return v;
}

}  // namespace

RunReport Engine::startReport(const RunOptions& options) const {
  const Impl& e = *impl_;
  RunReport r;
  r.graphPath = options.graphPath.string();
  r.backend = e.options.backend;
  r.socDefaulted = e.options.soc.empty();
  r.mode = e.options.mode;
  r.times[Phase::kRuleLoad] = e.loadTime;
  if (!ok()) {
    // Bad --backend-option settings are option errors; everything else is rule loading.
    const bool optionError = e.status.code() == StatusCode::kInvalidArgument && !e.loadErrors.empty();
    stop(r, optionError ? RunStage::kBackendOption : RunStage::kRules, e.status, e.loadErrors);
    return r;
  }
  r.soc = e.soc;
  r.ruleDirs = ruleDirs();
  r.backendOptions = e.backendOptions;
  r.optionTable = e.optionTable;
  r.rules = e.rules;
  return r;
}

RunReport Engine::run(const RunOptions& options) const {
  RunReport r = startReport(options);
  if (!r.ok()) return r;
  GraphReadResult read;
  {
    PhaseTimer timer(r.times, Phase::kRead);
    read = readGraphFile(options.graphPath);
  }
  if (!read.ok()) {
    stop(r, RunStage::kGraph, read.status, std::move(read.errors));
    return r;
  }
  WorkingGraph g(std::move(read.graph));
  runPasses(r, g, options);
  return r;
}

RunReport Engine::run(const Graph& graph, const RunOptions& options) const {
  RunReport r = startReport(options);
  if (!r.ok()) return r;
  WorkingGraph g(graph);
  runPasses(r, g, options);
  return r;
}

// Where a graph comes from, as far as choosing its lowering path goes: what its reader recorded
// (Graph::source; binding an ONNX model's ops records it too), else a graph built in memory or
// read as JSON whose targets are onnx:: ops is an ONNX model.
static GraphSource sourceOf(const Graph& g) {
  if (g.source != GraphSource::kJson) return g.source;
  for (const std::string& t : g.targets())
    if (t.starts_with("onnx::")) return GraphSource::kOnnx;
  return GraphSource::kJson;
}

void Engine::runPasses(RunReport& r, WorkingGraph& g, const RunOptions& options) const {
  const Impl& e = *impl_;
  const RuleSet& rules = *e.rules;
  DiagnosticList before;  // fold and annotation diagnostics, reported before the rules' ones
  const GraphSource source = sourceOf(g.get());
  const BoundLowering* lowering = e.loweringFor(source);
  if (lowering) {
    for (const auto& p : e.lowerings->paths)
      if (p.get() == lowering->path) r.lowering = p;
    r.loweringDefaulted = e.options.lowering.empty();
  }
  // Whose remedies the hints name (report/Remedies.h).
  const InputKind inputKind = source == GraphSource::kOnnx ? InputKind::kOnnx : InputKind::kTorch;
  std::vector<std::string> nonFiniteScaleProducers;  // QdqFoldResult::nonFiniteScaleProducers
  {
    PhaseTimer timer(r.times, Phase::kFold);
    detail::IntakeResult intake = detail::intakeGraph(g, rules);
    if (!intake.status.isOk()) return stop(r, RunStage::kGraph, intake.status, std::move(intake.diagnostics));
    r.qdqNodesFolded = intake.qdqNodesFolded;
    nonFiniteScaleProducers = std::move(intake.nonFiniteScaleProducers);
    before = std::move(intake.diagnostics);
  }
  if (options.annotate) {
    PhaseTimer timer(r.times, Phase::kAnnotate);
    AnnotateResult a = annotate(g.mutate(), *options.annotate);
    if (!a.status.isOk()) return stop(r, RunStage::kAnnotation, a.status, std::move(a.loadErrors));
    before.insert(before.end(), std::make_move_iterator(a.diagnostics.begin()),
                  std::make_move_iterator(a.diagnostics.end()));
    a.diagnostics.clear();
    r.annotation = std::move(a);
  }
  // What the lowering path hands the backend: its merging of encodings across the conversions it
  // removes, then its encoding rewrites, before any rule judges.
  if (lowering && lowering->path->mergeEncodingsAcrossNoOps) r.mergedConversions = mergeEncodingsAcrossNoOpConversions(g.mutate());
  // Then ORT groups each node with its Q/DQ nodes, or hands it to QNN as float (ONNX models whose
  // encodings came from Q/DQ nodes: a fact of the graph, so annotate-then-validate agrees).
  if (lowering && lowering->path->floatUngroupedQdq && source == GraphSource::kOnnx && g.get().qdqFolded)
    r.floatUngroupedNodes = floatUngroupedQdqNodes(g.mutate(), rules);
  if (lowering && !lowering->rewrites.empty()) r.rewrites = applyLoweringRewrites(g.mutate(), rules, *lowering);
  r.graph = g.share();
  const Graph& graph = *r.graph;
  // From here on the graph does not change: what every later pass needs to know about it is
  // built once (facts/GraphFacts.h), so the passes agree on it.
  std::optional<GraphFacts> facts;
  PruneResult pruned;
  std::vector<uint8_t> rankChains;  // passes/RankFusion.h, per node
  {
    PhaseTimer timer(r.times, Phase::kValidate);
    facts.emplace(graph, rules);
    pruned = pruneGraph(graph, facts->users(), lowering && lowering->path->computesQuantizedConstants);
    ValidateOptions vo = e.options.validate;
    if (lowering) vo.numberOperandFloatRules = lowering->numberOperandFloatRules;
    if (lowering && lowering->path->fuseRank6ReshapeTranspose) {
      rankChains = rank6ReshapeTransposeChains(*facts);
      vo.rankExempt.reserve(rankChains.size());
      for (uint8_t c : rankChains) vo.rankExempt.push_back(c == kRankChainFused ? 1 : 0);
    }
    r.validation = check(*facts, e.soc, std::move(vo), pruned);
    if (lowering) {
      DiagnosticList shapes = checkDynamicShapes(*facts, pruned, *lowering->path);
      r.validation.diagnostics.insert(r.validation.diagnostics.end(), std::make_move_iterator(shapes.begin()),
                                      std::make_move_iterator(shapes.end()));
      DiagnosticList forms = checkCpuForms(*facts, pruned, *lowering->path);
      r.validation.diagnostics.insert(r.validation.diagnostics.end(), std::make_move_iterator(forms.begin()),
                                      std::make_move_iterator(forms.end()));
    }
  }
  if (options.partition) {
    PhaseTimer timer(r.times, Phase::kPartition);
    PartitionOptions po;
    po.strict = e.options.mode == Mode::kStrict;
    po.requireFullDelegation = e.options.requireFullDelegation;
    po.pruned = &pruned;
    po.facts = &*facts;
    po.lowering = lowering;
    po.rankChains = &rankChains;
    std::vector<uint32_t> nonFinite;
    for (const std::string& name : nonFiniteScaleProducers)
      if (std::optional<uint32_t> i = graph.findNode(name)) nonFinite.push_back(*i);
    po.nonFiniteScaleNodes = &nonFinite;
    // Partitioning reads the rules' diagnostics before the mode is applied.
    r.delegation = partitionGraph(graph, rules, e.soc, r.validation, po);
  }
  // The mode is applied here, once, for every front end.
  r.validation.diagnostics.insert(r.validation.diagnostics.begin(), std::make_move_iterator(before.begin()),
                                  std::make_move_iterator(before.end()));
  applyMode(r.validation, e.options.mode);
  adaptDiagnostics(r.validation.diagnostics, graph, rules, r.backend, inputKind);
  if (options.computeEncodings && !r.failed()) {
    PhaseTimer timer(r.times, Phase::kEncodings);
    r.encodings = computeEncodings(*facts);
  }
}

GraphAnalysis Engine::analyze(const Graph& graph) const {
  RunReport r = run(graph, RunOptions{});
  GraphAnalysis a;
  if (!r.ok()) {
    a.validation = stoppedValidation(r);
    a.graph = std::shared_ptr<const Graph>(std::shared_ptr<const Graph>(), &graph);
    return a;
  }
  a.validation = std::move(r.validation);
  a.delegation = std::move(r.delegation);
  a.graph = std::move(r.graph);
  a.qdqNodesFolded = r.qdqNodesFolded;
  return a;
}

ValidationResult Engine::validate(const Graph& graph) const {
  RunOptions o;
  o.partition = false;
  RunReport r = run(graph, o);
  if (!r.ok()) return stoppedValidation(r);
  return std::move(r.validation);
}

}  // namespace qnnrules
