#include "qnnrules/annotate/Annotator.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>

#include "AnnotatorState.h"
#include "Decompose.h"
#include "LiftNumbers.h"

namespace qnnrules {

int namedInputArg(const Rule& rule, std::string_view name) {
  for (const PortDecl& d : rule.ports)
    if (d.isInput && d.name == name) return d.index;
  return -1;
}

int convWeightArg(const Rule& rule) {
  int a = namedInputArg(rule, "weight");
  return a >= 0 ? a : 1;
}

int convBiasArg(const Rule& rule) {
  int a = namedInputArg(rule, "bias");
  return a >= 0 ? a : 2;
}

namespace annotator_detail {
namespace {

QuantSpec makeSpec(const TensorQuant& t, bool symmetric) {
  QuantSpec q;
  q.dtype = t.dtype;
  if (t.isFloat()) return q;
  q.quantMin = t.quantMin;
  q.quantMax = t.quantMax;
  q.qscheme = symmetric ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
  return q;
}

CompiledSelection compile(const ConfigSelection& sel) {
  const QuantConfig& c = *sel.config;
  CompiledSelection cs;
  cs.sel = sel;
  // Signed roles are symmetric by construction (offset 0); unsigned activation-like roles are
  // affine unless ":sym" asks for symmetric activations.
  auto role = [&](const TensorQuant& t) { return makeSpec(t, t.quantMin < 0 || sel.actSymmetric); };
  cs.act = role(c.activation);
  cs.weightPerTensor = makeSpec(c.weight, true);
  cs.matmulIn1 = role(c.matmulIn1);
  cs.normWeight = role(c.normWeight);
  cs.normBias = c.activation.isFloat() ? cs.act : makeSpec(c.normBias, true);
  TensorQuant i32{ScalarType::kInt32, INT32_MIN, INT32_MAX};
  cs.convBias = c.activation.isFloat() ? cs.act : makeSpec(i32, true);
  cs.actType = portTypeOf(cs.act);
  return cs;
}

}  // namespace

const CompiledSelection* Annotator::compiled(const ConfigSelection& s) {
  for (const auto& c : selections_)
    if (c->sel.config == s.config && c->sel.granularity == s.granularity && c->sel.actSymmetric == s.actSymmetric &&
        c->sel.qat == s.qat)
      return c.get();
  selections_.push_back(std::make_unique<CompiledSelection>(compile(s)));
  return selections_.back().get();
}

const RuleFacts& Annotator::facts(const Rule& rule) {
  auto [it, fresh] = facts_.try_emplace(&rule);
  if (!fresh) return it->second;
  RuleFacts& f = it->second;
  f.weightArg = namedInputArg(rule, "weight");
  f.biasArg = namedInputArg(rule, "bias");
  for (const char* name : {"other", "weight", "key", "value"})
    if (int a = namedInputArg(rule, name); a >= 0) f.secondOperandArgs.push_back(a);
  for (int p = 0; p < static_cast<int>(rule.ports.size()); ++p) {
    const PortDecl& d = rule.ports[p];
    if (!d.isInput && f.firstOutputPort < 0) f.firstOutputPort = p;
    if (d.isInput && d.name == "weight") f.weightPort = p;
  }
  for (const Variant& v : rule.variants)
    for (int p = 0; p < static_cast<int>(v.ports.size()); ++p) {
      const int q = v.ports[p].sharedWith;
      if (q < 0 || !rule.ports[q].isInput || rule.ports[q].variadic) continue;
      if (std::none_of(f.sharedPorts.begin(), f.sharedPorts.end(), [&](const auto& e) { return e.first == p; }))
        f.sharedPorts.emplace_back(p, q);
    }
  if (f.weightPort >= 0)
    for (const Variant& v : rule.variants) {
      if (v.ports[f.weightPort].axis && !f.ruleAxis) f.ruleAxis = v.ports[f.weightPort].axis;
      const EncodingSet& enc = v.ports[f.weightPort].encodings;  // empty: not constrained
      f.weightPerChannelAllowed |= enc.empty() || enc.contains(Encoding::kAxisScaleOffset);
    }
  return f;
}

bool Annotator::isFloatArg(const Argument& a) const {
  if (!isTensor(a)) return false;
  const Node& p = g_.node(a.tensor.node);
  return a.tensor.output < p.outputs.size() ? isFloatType(p.outputs[a.tensor.output].dtype) : false;
}

std::string Annotator::explainSpec(const Node& n, const QuantSpec& spec) const {
  if (!spec.sharedWith) return describeQuantSpec(spec, true);
  const SharedRef& r = *spec.sharedWith;
  return r.kind == SharedRef::Kind::kEdge
             ? "shared with the edge " + g_.node(r.node).name + " -> " + n.name
             : "shared with output " + std::to_string(r.output) + " of " + g_.node(r.node).name;
}

void Annotator::setIn(Node& n, size_t arg, int listIndex, QuantSpec spec, const char* why) {
  Argument& a = listIndex < 0 ? n.args[arg] : n.args[arg].list[static_cast<size_t>(listIndex)];
  if (expl_) {
    std::string port = "in[" + std::to_string(arg) + "]" + (listIndex < 0 ? "" : "[" + std::to_string(listIndex) + "]");
    expl_->ports.push_back({port, explainSpec(n, spec), std::string(why) + "; " + contextText_});
  }
  a.qspec = std::move(spec);
}

void Annotator::setOut(Node& n, size_t out, QuantSpec spec, const char* why) {
  if (expl_) {
    expl_->ports.push_back({"out[" + std::to_string(out) + "]", explainSpec(n, spec), std::string(why) + "; " + contextText_});
  }
  n.outputs[out].qspec = std::move(spec);
}

QuantSpec Annotator::sharedNode(uint32_t node, uint32_t output) const {
  QuantSpec q;
  q.sharedWith = SharedRef{SharedRef::Kind::kNodeOutput, node, output, 0};
  return q;
}

QuantSpec Annotator::sharedEdge(uint32_t producer, uint32_t consumer) const {
  QuantSpec q;
  q.sharedWith = SharedRef{SharedRef::Kind::kEdge, producer, 0, consumer};
  return q;
}

void Annotator::note(const Node& n, DiagCode code, Severity sev, std::string message, std::string hint) {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.node = n.name;
  d.op = std::string(g_.target(n));
  d.message = std::move(message);
  d.hint = std::move(hint);
  r_.diagnostics.push_back(std::move(d));
}

Annotator::Choice Annotator::choose(const Node& n) {
  Choice ch;
  ch.cs = default_;
  if (n.targetId != Node::kNoTarget) {
    if (auto it = floatTargets_.find(n.targetId); it != floatTargets_.end()) {
      ch.discard = true;
      ch.discardWhy = it->second;
      return ch;
    }
  }
  if (!recipe_) return ch;
  if (auto it = discardNodes_.find(n.name); it != discardNodes_.end()) {
    for (size_t i : it->second) discardNodeSeen_[i] = true;
    ch.discard = true;
    ch.discardWhy = "listed in discard_nodes";
    return ch;
  }
  if (n.targetId != Node::kNoTarget && discardTargets_.count(n.targetId)) {
    ch.discard = true;
    ch.discardWhy = "its op is listed in discard_ops";
    return ch;
  }
  const auto& ovs = recipe_->overrides;
  int best = -1;
  int tieWith = -1;
  auto consider = [&](uint32_t i) {
    ++overrideHits_[i];
    if (best < 0 || ovs[i].priority > ovs[static_cast<size_t>(best)].priority) {
      best = static_cast<int>(i);
      tieWith = -1;
    } else if (ovs[i].priority == ovs[static_cast<size_t>(best)].priority) {
      // Equal priority: the later override wins, and the tie is reported.
      if (static_cast<int>(i) > best) {
        tieWith = best;
        best = static_cast<int>(i);
      } else {
        tieWith = static_cast<int>(i);
      }
    }
  };
  if (n.targetId != Node::kNoTarget)
    for (uint32_t i : targetOverrides_[n.targetId]) consider(i);
  if (n.moduleId != Node::kNoModule) {
    // Module overrides are matched once per distinct module path (interned by the graph).
    if (n.moduleId >= moduleMemo_.size()) moduleMemo_.resize(g_.modules().size());
    std::optional<std::vector<uint32_t>>& memo = moduleMemo_[n.moduleId];
    if (!memo) {
      const std::string_view path = g_.modulePath(n);
      memo.emplace();
      for (uint32_t i = 0; i < ovs.size(); ++i)
        if (ovs[i].by == Override::By::kModule && RE2::PartialMatch(path, *ovs[i].regex)) memo->push_back(i);
    }
    for (uint32_t i : *memo) consider(i);
  }
  // Node-name overrides: those naming the node exactly by its name, the regexes run; both in
  // the recipe's order, as written.
  nameHits_.clear();
  if (auto it = exactNameOverrides_.find(n.name); it != exactNameOverrides_.end()) nameHits_ = it->second;
  for (uint32_t i : nameRegexOverrides_)
    if (RE2::PartialMatch(n.name, *ovs[i].regex)) nameHits_.push_back(i);
  std::sort(nameHits_.begin(), nameHits_.end());
  for (uint32_t i : nameHits_) consider(i);
  if (best < 0) return ch;
  if (tieWith >= 0) {
    auto& t = ties_[{static_cast<uint32_t>(tieWith), static_cast<uint32_t>(best)}];
    if (t.first++ == 0) t.second = n.name;
  }
  const Override& o = ovs[static_cast<size_t>(best)];
  ch.winner = &o;
  if (o.discard) {
    ch.discard = true;
    ch.discardWhy = "discarded by override " + o.describe();
    return ch;
  }
  ch.cs = overrideSel_[static_cast<size_t>(best)];
  return ch;
}

void Annotator::run(const ConfigSelection& defaultSel) {
  default_ = compiled(defaultSel);
  ruleOfTarget_ = rules_.rulesOfTargets(g_.targets());
  if (recipe_) indexRecipe();
  for (const auto& [op, why] : opt_.floatOps)
    for (size_t k = 0; k < g_.targets().size(); ++k)
      if (g_.targets()[k] == op) floatTargets_.emplace(static_cast<uint32_t>(k), why);
  if (!opt_.explainNode.empty()) {
    if (auto i = g_.findNode(opt_.explainNode)) explainIdx_ = *i;
    else
      note(Node{}, DiagCode::kNotAnnotated, Severity::kWarning,
           "--explain-node: no node named '" + opt_.explainNode + "' in the graph");
  }

  for (uint32_t idx = 0; idx < g_.nodes().size(); ++idx) {
    const Node& n = g_.node(idx);
    if (n.kind != NodeKind::kCall) continue;
    annotateNode(idx, n);
  }

  if (!recipe_) return;
  reportUnmatchedRecipe();
  reportOverrideTies();
}

void Annotator::indexRecipe() {
  const auto& ovs = recipe_->overrides;
  targetOverrides_.assign(g_.targets().size(), {});
  overrideHits_.assign(ovs.size(), 0);
  for (uint32_t i = 0; i < ovs.size(); ++i) {
    overrideSel_.push_back(ovs[i].selection ? compiled(*ovs[i].selection) : nullptr);
    if (ovs[i].by == Override::By::kNodeName) {
      if (ovs[i].exactName)
        exactNameOverrides_[*ovs[i].exactName].push_back(i);
      else
        nameRegexOverrides_.push_back(i);
    }
    if (ovs[i].by != Override::By::kTarget) continue;
    for (const std::string& t : ovs[i].targets)
      for (size_t k = 0; k < g_.targets().size(); ++k)
        if (g_.targets()[k] == t) targetOverrides_[k].push_back(i);
  }
  for (size_t i = 0; i < recipe_->discardNodes.size(); ++i) discardNodes_[recipe_->discardNodes[i]].push_back(i);
  discardNodeSeen_.assign(recipe_->discardNodes.size(), false);
  for (const std::string& op : recipe_->discardOps)
    for (size_t k = 0; k < g_.targets().size(); ++k)
      if (g_.targets()[k] == op) discardTargets_.insert(static_cast<uint32_t>(k));
}

void Annotator::annotateNode(uint32_t idx, const Node& n) {
  const Rule* rule = n.targetId == Node::kNoTarget ? nullptr : ruleOfTarget_[n.targetId];
  const bool explain = idx == explainIdx_;
  if (explain) {
    r_.explanation.emplace();
    expl_ = &*r_.explanation;
    expl_->node = n.name;
    expl_->op = std::string(g_.target(n));
    expl_->sourceOp = std::string(g_.sourceOp(n));
    expl_->rule = rule ? rule->id + " (" + rule->mark.toString() + ")" : "no rule covers this op";
    expl_->pattern = rule ? std::string(patternName(rule->pattern)) : "none";
  }
  bool annotatedBefore = false;
  for (const Argument& a : n.args) {
    annotatedBefore |= a.qspec.has_value();
    for (const Argument& e : a.list) annotatedBefore |= e.qspec.has_value();
  }
  for (const TensorMeta& o : n.outputs) annotatedBefore |= o.qspec.has_value();
  Choice ch = choose(n);
  if (explain) {
    expl_->config = ch.discard ? "none (discarded)" : ch.cs->sel.text();
    expl_->decidedBy = ch.discard ? ch.discardWhy
                       : ch.winner ? "override " + ch.winner->describe()
                                   : "the default config";
  }
  if (annotatedBefore) {
    ++r_.nodesKept;
    if (explain) expl_->ports.push_back({"*", "unchanged", "the node was annotated before; annotations are kept"});
  } else if (ch.discard) {
    ++r_.nodesDiscarded;
    note(n, DiagCode::kDiscarded, Severity::kNote, "node left unannotated: " + ch.discardWhy + "; it stays float (on CPU unless the backend has a float variant)");
  } else if (rule && rule->kind != RuleKind::kUnsupported) {
    contextText_ = expl_ ? "config " + ch.cs->sel.text() + ", pattern " + std::string(patternName(rule->pattern)) +
                               " of rule " + rule->id
                         : std::string();
    annotate(idx, *rule, ch);
    ++r_.nodesAnnotated;
  } else if (explain) {
    expl_->ports.push_back({"*", "unannotated", rule ? "the rule declares the op unsupported" : "no rule: the op runs on CPU"});
  }
  expl_ = nullptr;
}

void Annotator::reportUnmatchedRecipe() {
  const Severity unmatched = opt_.strict ? Severity::kError : Severity::kWarning;
  auto report = [&](std::string what, SourceMark mark) {
    Diagnostic d;
    d.severity = unmatched;
    d.code = DiagCode::kOverrideUnmatched;
    d.message = what + " matches no node of the graph.";
    d.mark = std::move(mark);
    d.expected = "at least one matching node";
    d.actual = "none";
    d.hint = "fix the pattern or remove it from the recipe";
    r_.diagnostics.push_back(std::move(d));
  };
  for (size_t i = 0; i < recipe_->overrides.size(); ++i)
    if (overrideHits_[i] == 0) report("override " + recipe_->overrides[i].describe(), recipe_->overrides[i].mark);
  for (size_t i = 0; i < recipe_->discardNodes.size(); ++i)
    if (!discardNodeSeen_[i]) report("discard_nodes entry '" + recipe_->discardNodes[i] + "'", recipe_->mark);
  for (const std::string& op : recipe_->discardOps)
    if (std::find(g_.targets().begin(), g_.targets().end(), op) == g_.targets().end())
      report("discard_ops entry '" + op + "'", recipe_->mark);
}

void Annotator::reportOverrideTies() {
  for (const auto& [pair, info] : ties_) {
    const Override& loser = recipe_->overrides[pair.first];
    const Override& winner = recipe_->overrides[pair.second];
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.code = DiagCode::kOverrideTie;
    d.node = info.second;
    d.message = "overrides of equal priority " + std::to_string(winner.priority) + " both match " +
                std::to_string(info.first) + " node(s); the later one wins.";
    d.mark = winner.mark;
    d.expected = "winner: " + winner.describe();
    d.actual = "also matched: " + loser.describe();
    d.hint = "give one of them a higher priority";
    r_.diagnostics.push_back(std::move(d));
  }
}

}  // namespace annotator_detail

AnnotateResult annotateGraph(Graph& graph, const RuleSet& rules, const QuantConfigTable& configs,
                             const ConfigSelection& selection, const Recipe* recipe, const AnnotateOptions& options) {
  AnnotateResult result;
  ConfigSelection sel = recipe && recipe->defaultSelection ? *recipe->defaultSelection : selection;
  result.status = checkSelection(sel);
  if (!result.status.isOk()) return result;
  if (recipe)
    for (const Override& o : recipe->overrides)
      if (o.by != Override::By::kTarget && !o.regex && !(o.by == Override::By::kNodeName && o.exactName)) {
        result.status = Status(StatusCode::kInvalidArgument,
                               "override " + o.describe() + " is not compiled; call compileOverride first");
        return result;
      }
  result.config = sel.text();
  result.qat = sel.qat;
  // Before any spec is written, the graph takes the forms ExecuTorch's QnnQuantizer annotates:
  // decomposed ops, then numbers lifted to constants (annotated like the operand they stand for).
  annotator_detail::decomposeForAnnotation(graph, rules);
  annotator_detail::liftNumberOperands(graph, rules);
  annotator_detail::Annotator a(graph, rules, configs, recipe, options, result);
  a.run(sel);
  return result;
}

}  // namespace qnnrules
