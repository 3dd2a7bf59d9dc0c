#include "qnnrules/delegate/Partitioner.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/passes/RankFusion.h"

namespace qnnrules {
namespace {

constexpr uint32_t kNoPartition = UINT32_MAX;

FallbackReason reasonOf(DiagCode code) {
  switch (code) {
    case DiagCode::kNoRule: return FallbackReason::kNoRule;
    case DiagCode::kUnsupportedOp: return FallbackReason::kUnsupported;
    case DiagCode::kArchGate: return FallbackReason::kArchGate;
    case DiagCode::kDynamicShape: return FallbackReason::kDynamicShape;
    case DiagCode::kLoweringCheck:
    case DiagCode::kLoweringFails: return FallbackReason::kLoweringCheck;
    default: return FallbackReason::kConstraint;
  }
}

// Whether some variant of an op rule can run on the SoC at all (before looking at annotations).
bool anyVariantAvailable(const Rule& rule, const SocInfo& soc) {
  if (rule.variants.empty()) return true;
  for (const Variant& v : rule.variants)
    if (soc.meets(v.gate)) return true;
  return false;
}

// Greedy partitioning in topological order, as torch's CapabilityBasedPartitioner merges:
// a delegated node joins the partitions of its delegated producers unless that would make a
// partition depend on itself through a node outside it.
//
// `through_[x]` holds the partitions that reach node x while x is not in them. A node v may
// join partition P only if no producer of v is reached from P (else P -> ... -> v in P is a
// cycle), and two partitions may merge only if neither reaches the other from outside
// (`reach_[P]`, the union of `through_` over P's members). Sets hold partition ids that may
// since have merged, so they are read through find(). A node's set is freed once all its
// users are processed, so memory follows the graph's width, not its length.
//
// Linear time: only partitions that can still take a node matter to these sets, and a
// partition can take a node only while some edge out of it is unprocessed (`open_`). Closed
// partitions are dropped whenever a set is normalized, so a long chain of alternating
// CPU/delegated nodes carries O(1) ids per set instead of every partition before it. Merge
// compatibility is checked against marks of the chosen partitions and of what reaches them,
// not pairwise, so a 100k-way fan-in costs O(fan-in). Both give the decisions the pairwise
// sets gave: a closed partition is never a candidate again.
class Merger {
 public:
  explicit Merger(size_t nodes) : through_(nodes) {}

  uint32_t find(uint32_t p) {
    while (parent_[p] != p) p = parent_[p] = parent_[parent_[p]];
    return p;
  }

  // v's partition, or kNoPartition if it may not start one and can join none. `uses` is the
  // number of users of v, which keep its partition open.
  uint32_t place(uint32_t v, std::span<const uint32_t> producers, const std::vector<uint32_t>& partOf,
                 bool mayStart, uint32_t uses) {
    candidates_.clear();
    blocked_.clear();
    for (uint32_t w : producers) {
      for (uint32_t q : through_[w]) blocked_.push_back(find(q));
      if (partOf[w] != kNoPartition) candidates_.push_back(find(partOf[w]));
    }
    normalize(candidates_);
    normalize(blocked_);
    chosen_.clear();
    ++stamp_;
    for (uint32_t c : candidates_) {
      if (std::binary_search(blocked_.begin(), blocked_.end(), c)) continue;
      if (compatibleWithChosen(c)) choose(c);
    }
    uint32_t part;
    if (!chosen_.empty()) {
      part = chosen_[0];
      for (size_t i = 1; i < chosen_.size(); ++i) {
        const uint32_t other = chosen_[i];
        parent_[other] = part;
        open_[part] += open_[other];
        reach_[part].insert(reach_[part].end(), reach_[other].begin(), reach_[other].end());
        std::vector<uint32_t>().swap(reach_[other]);
      }
    } else if (mayStart) {
      part = static_cast<uint32_t>(parent_.size());
      parent_.push_back(part);
      reach_.emplace_back();
      open_.push_back(0);
      chosenMark_.push_back(0);
      reachedMark_.push_back(0);
    } else {
      return kNoPartition;
    }
    open_[part] += uses;
    // Everything that reaches v from another partition: what reaches its producers, and the
    // producers' partitions other than v's own.
    std::vector<uint32_t>& t = through_[v];
    t = blocked_;
    for (uint32_t c : candidates_)
      if (find(c) != part) t.push_back(c);
    normalize(t);
    std::erase(t, part);
    std::vector<uint32_t>& r = reach_[part];
    r.insert(r.end(), t.begin(), t.end());
    normalize(r);
    std::erase(r, part);
    return part;
  }

  // A node outside every partition: everything that reaches its producers, plus their partitions.
  void pass(uint32_t v, std::span<const uint32_t> producers, const std::vector<uint32_t>& partOf) {
    std::vector<uint32_t>& t = through_[v];
    for (uint32_t w : producers) {
      t.insert(t.end(), through_[w].begin(), through_[w].end());
      if (partOf[w] != kNoPartition) t.push_back(partOf[w]);
    }
    normalize(t);
  }

  // The edge from `producer` (in partition `part`, or none) to a node has been processed.
  void used(uint32_t part) {
    if (part != kNoPartition) --open_[find(part)];
  }

  void release(uint32_t v) { std::vector<uint32_t>().swap(through_[v]); }

 private:
  bool open(uint32_t p) const { return open_[p] != 0; }

  // Roots of `s`, sorted, unique, closed partitions left out.
  void normalize(std::vector<uint32_t>& s) {
    for (uint32_t& p : s) p = find(p);
    std::erase_if(s, [&](uint32_t p) { return !open(p); });
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }

  // Neither c reaches a chosen partition from outside it, nor a chosen one reaches c.
  bool compatibleWithChosen(uint32_t c) {
    if (reachedMark_[c] == stamp_) return false;
    for (uint32_t q : reach_[c])
      if (chosenMark_[find(q)] == stamp_) return false;
    return true;
  }
  void choose(uint32_t c) {
    chosen_.push_back(c);
    chosenMark_[c] = stamp_;
    for (uint32_t q : reach_[c]) reachedMark_[find(q)] = stamp_;
  }

  std::vector<std::vector<uint32_t>> through_;
  std::vector<uint32_t> parent_;
  std::vector<std::vector<uint32_t>> reach_;
  std::vector<uint32_t> open_;  // per partition root: unprocessed edges out of its members
  // Per partition: stamp_ when chosen for the node being placed / reached by a chosen one.
  std::vector<uint32_t> chosenMark_, reachedMark_;
  uint32_t stamp_ = 0;
  std::vector<uint32_t> candidates_, blocked_, chosen_;
};

class Partitioner {
 public:
  Partitioner(const Graph& g, const RuleSet& rules, const SocInfo& soc, const ValidationResult& validation,
              const PartitionOptions& options)
      : g_(g), rules_(rules), soc_(soc), validation_(validation), options_(options),
        facts_(options.facts ? *options.facts : ownFacts_.emplace(g, rules)), users_(facts_.users()) {}

  DelegationReport run();

 private:
  void classify();
  void partition();
  void placeFollowers();
  void finish();
  void checkFullDelegation();
  void fallback(uint32_t node, FallbackReason reason, const Diagnostic* d, std::string message = {});
  // The first refused node whose refusal the lowering path turns into a failed session;
  // `byPathCheck`: the path refused it itself (cpu_forms), not the backend.
  void noteSessionFailure(uint32_t node, const Rule& rule, bool byPathCheck = false);
  // What a refused node does to the whole graph: nothing, or the path fails (session failure).
  void noteRefusalOutcome(uint32_t node, const Rule& rule, FallbackReason reason, const Diagnostic* err);
  // A CPU node reading a quantized parameter whose dequantize the backend cannot build
  // (LoweringPath::parameterDequantize*): the whole lowering fails.
  void noteParameterDequantize();
  // A form the lowering path itself fails on (DiagCode::kLoweringFails): the whole lowering fails.
  void noteLoweringFailure(uint32_t node, const Rule& rule, const Diagnostic& err);
  // The variant whose arch gate `err` reports when QNN applies it at graph finalize, or nullptr.
  static const Variant* finalizeGate(const Rule& rule, const Diagnostic* err);
  void noteFinalizeFailure(uint32_t node, const Rule& rule, const SourceMark& mark, const Diagnostic& err);
  bool chainCompositionFails(uint32_t node) const;
  void noteNonFiniteScales();

  const Graph& g_;
  const RuleSet& rules_;
  const SocInfo& soc_;
  const ValidationResult& validation_;
  const PartitionOptions& options_;
  const DelegationPolicy* policy_ = nullptr;
  std::optional<GraphFacts> ownFacts_;  // built here unless the caller passes the run's
  const GraphFacts& facts_;
  const UserIndex& users_;
  DelegationReport r_;
  std::vector<int32_t> firstError_;     // per node: index of its first error diagnostic, -1 none
  std::vector<uint32_t> partOf_;        // per node: working partition id
  std::vector<uint8_t> pending_;        // followers placed after partitioning, by their users
};

void Partitioner::fallback(uint32_t node, FallbackReason reason, const Diagnostic* d, std::string message) {
  NodeDelegation& nd = r_.nodes[node];
  nd.placement = Placement::kCpu;
  nd.reason = reason;
  Fallback f;
  f.node = node;
  f.reason = reason;
  if (d) {
    f.code = d->code;
    f.message = d->message;
    f.ruleId = d->ruleId;
    f.mark = d->mark;
    f.hint = d->hint;
  }
  if (!message.empty()) f.message = std::move(message);
  r_.fallbacks.push_back(std::move(f));
}

void Partitioner::classify() {
  const size_t n = g_.nodes().size();
  firstError_.assign(n, -1);
  for (size_t i = 0; i < validation_.diagnostics.size(); ++i) {
    const Diagnostic& d = validation_.diagnostics[i];
    if (d.severity != Severity::kError || d.node.empty()) continue;
    // The validator's diagnostics carry the node's index; a caller's own may carry only its name.
    std::optional<uint32_t> idx;
    if (d.nodeIndex < n) idx = d.nodeIndex;
    else idx = g_.findNode(d.node);
    // A shape known only at run time, or a form the path refuses itself, keeps the node off the
    // backend before it is asked (the EP's GetCapability): that is its reason whatever else is
    // wrong with it.
    const auto beforeBackend = [](DiagCode c) {
      return c == DiagCode::kDynamicShape || c == DiagCode::kLoweringCheck || c == DiagCode::kLoweringFails;
    };
    if (idx && (firstError_[*idx] < 0 ||
                (beforeBackend(d.code) && !beforeBackend(validation_.diagnostics[firstError_[*idx]].code))))
      firstError_[*idx] = static_cast<int32_t>(i);
  }
  std::vector<std::string> policyReason(n);
  std::vector<uint8_t> byPolicy(n, 0);
  for (PolicyPlacement& p : policy_->cpuNodes(g_, users_)) {
    if (p.node >= n) continue;
    byPolicy[p.node] = 1;
    policyReason[p.node] = std::move(p.reason);
  }

  r_.nodes.assign(n, {});
  pending_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = g_.node(i);
    NodeDelegation& nd = r_.nodes[i];
    if (node.kind == NodeKind::kInput || node.kind == NodeKind::kOutput) continue;
    const PruneKind pruned = options_.pruned ? options_.pruned->of(i) : PruneKind::kKept;
    if (pruned == PruneKind::kDead) continue;  // no placement, no partition
    if (node.kind != NodeKind::kCall || pruned == PruneKind::kConstant || pruned == PruneKind::kNoOp) {
      nd.role = NodeRole::kFollower;
      pending_[i] = 1;
      continue;
    }
    const Rule* rule = facts_.ruleOf(node);
    const Diagnostic* err = firstError_[i] >= 0 ? &validation_.diagnostics[firstError_[i]] : nullptr;
    if (rule && rule->kind == RuleKind::kStructural && !byPolicy[i]) {
      nd.role = NodeRole::kFollower;
      continue;  // placed with its producer during partitioning
    }
    nd.role = NodeRole::kCompute;
    ++r_.computeNodes;
    if (byPolicy[i]) {
      fallback(i, FallbackReason::kBackendPolicy, nullptr, policyReason[i]);
    } else if (!rule) {
      fallback(i, FallbackReason::kNoRule, err,
               err ? std::string() : "no rule covers " + std::string(g_.target(node)));
    } else if (rule->kind == RuleKind::kUnsupported) {
      fallback(i, FallbackReason::kUnsupported, err, err ? std::string() : rule->reason);
    } else if (!anyVariantAvailable(*rule, soc_)) {
      // Every variant is gated here (none is available): name the one the oldest hardware runs.
      const HardwareGate* earliest = &rule->variants.front().gate;
      for (const Variant& v : rule->variants)
        if (v.gate.level < earliest->level) earliest = &v.gate;
      fallback(i, FallbackReason::kArchGate, err,
               "no variant of " + rule->id + " is available on " + soc_.name + " (" +
                   hardwareLabel(earliest->columnName) + " " + soc_.versionOn(earliest->columnName) +
                   "); the earliest needs " + earliest->version);
      Fallback& f = r_.fallbacks.back();
      f.code = DiagCode::kArchGate;
      f.ruleId = rule->id;
      if (!f.mark.known()) f.mark = rule->mark;
    } else if (err && err->code == DiagCode::kEmptyTensor && rule->emptyTensors == EmptyTensors::kFinalizeFails) {
      // Op validation accepts an empty tensor here; composing the graph then fails.
      nd.placement = Placement::kDelegated;
      noteFinalizeFailure(i, *rule, rule->emptyTensorsMark, *err);
    } else if (err && err->code == DiagCode::kRank && chainCompositionFails(i)) {
      // The rank-6 chain's first nodes pass op validation against the rank-5 tensors the EP's
      // refused fusion left behind; composing them at rank 6 fails (passes/RankFusion.h).
      nd.placement = Placement::kDelegated;
      noteFinalizeFailure(i, *rule, rule->maxRankMark, *err);
    } else if (const Variant* v = finalizeGate(*rule, err)) {
      // QNN's op validation accepts the node, so every lowering path delegates it; graph
      // finalize then refuses it and the whole graph does not compile.
      nd.placement = Placement::kDelegated;
      noteFinalizeFailure(i, *rule, v->mark, *err);
    } else {
      // Supported here: any error is a validation failure of this node's annotation, which the
      // backend's op validation refuses whatever the mode.
      nd.invalid = err != nullptr;
      if (err) fallback(i, reasonOf(err->code), err);
      else nd.placement = Placement::kDelegated;
    }
    // An op the backend has no builder for is never claimed, so never laid out, nor is a node with
    // a shape known only at run time: only a refusal by op validation (constraint, arch gate) or
    // by the path's own checks can fail the session.
    if (nd.placement == Placement::kCpu && rule) noteRefusalOutcome(i, *rule, nd.reason, err);
  }
  noteNonFiniteScales();
}

// A node on the backend whose output a quantize node gave a scale that is not a finite number
// (passes/QdqFold.h): op validation takes it, composing the graph fails (a constant with such a
// scale is not computed, so it does not count).
void Partitioner::noteNonFiniteScales() {
  const BackendManifest* manifest = rules_.manifest();
  const std::vector<uint32_t>* nodes = options_.nonFiniteScaleNodes;
  if (!nodes || !manifest || manifest->nonFiniteScales != EmptyTensors::kFinalizeFails || r_.sessionFailure) return;
  for (uint32_t i : *nodes) {
    if (i >= r_.nodes.size() || r_.nodes[i].role != NodeRole::kCompute || r_.nodes[i].placement != Placement::kDelegated)
      continue;
    const Rule* rule = facts_.ruleOf(g_.node(i));
    SessionFailure s;
    s.node = i;
    s.message = "QNN's op validation accepts this node and graph composition then fails on " + soc_.name +
                ": the backend cannot compute a tensor whose scale is not a finite number, and the whole graph "
                "fails to compile, whatever the lowering path";
    s.cause = "a quantize node gives the output of '" + g_.node(i).name +
              "' a scale that is inf or NaN (calibration met an infinite value)";
    s.ruleId = rule ? rule->id : std::string();
    s.mark = manifest->nonFiniteScalesMark;
    r_.sessionFailure = std::move(s);
    return;
  }
}

bool Partitioner::chainCompositionFails(uint32_t node) const {
  const std::vector<uint8_t>* chains = options_.rankChains;
  return chains && node < chains->size() && (*chains)[node] == kRankChainCompositionFails;
}

const Variant* Partitioner::finalizeGate(const Rule& rule, const Diagnostic* err) {
  if (!err || err->code != DiagCode::kArchGate) return nullptr;
  const Variant* v = rule.findVariant(err->variant);
  return v && v->gateAtFinalize ? v : nullptr;
}

void Partitioner::noteFinalizeFailure(uint32_t node, const Rule& rule, const SourceMark& mark, const Diagnostic& err) {
  if (r_.sessionFailure) return;
  SessionFailure s;
  s.node = node;
  s.message = "QNN's op validation accepts this node and graph finalize then refuses it on " + soc_.name +
              ": the whole graph fails to compile, whatever the lowering path";
  s.cause = err.message;
  s.ruleId = rule.id;
  s.mark = mark;
  r_.sessionFailure = std::move(s);
}

void Partitioner::noteRefusalOutcome(uint32_t node, const Rule& rule, FallbackReason reason, const Diagnostic* err) {
  if (reason == FallbackReason::kConstraint || reason == FallbackReason::kArchGate) noteSessionFailure(node, rule);
  // The path's own refusal: a form it fails on fails the lowering; a refused op it asked not to
  // decompose fails it too (ExecuTorch), whichever check refused it.
  if (reason != FallbackReason::kLoweringCheck) return;
  if (err && err->code == DiagCode::kLoweringFails) noteLoweringFailure(node, rule, *err);
  else noteSessionFailure(node, rule, /*byPathCheck=*/true);
}

void Partitioner::noteParameterDequantize() {
  const BoundLowering* lowering = options_.lowering;
  if (!lowering || !lowering->path->parameterDequantizeFails || r_.sessionFailure) return;
  for (uint32_t i = 0; i < r_.nodes.size(); ++i) {
    if (r_.nodes[i].role != NodeRole::kCompute || r_.nodes[i].placement != Placement::kCpu) continue;
    const Node& n = g_.node(i);
    for (const Argument& a : n.args) {
      if (a.kind != Argument::Kind::kTensor || !a.qspec || a.qspec->isShared() || isFloatType(a.qspec->dtype)) continue;
      const Node& param = g_.node(a.tensor.node);
      // A weight, or a constant tensor (a frozen parameter of a .pt2 is one).
      if (param.kind != NodeKind::kParameter && param.kind != NodeKind::kConstant) continue;
      const Rule* rule = facts_.ruleOf(n);
      SessionFailure s;
      s.node = i;
      s.message = lowering->path->parameterDequantizeMessage;
      s.cause = "'" + n.name + "' runs on CPU and reads the quantized parameter '" + param.name + "' (" +
                describeQuantSpec(*a.qspec, false) + ")";
      s.ruleId = rule ? rule->id : std::string();
      s.mark = lowering->path->parameterDequantizeMark;
      s.byPath = true;
      r_.sessionFailure = std::move(s);
      return;
    }
  }
}

void Partitioner::noteLoweringFailure(uint32_t node, const Rule& rule, const Diagnostic& err) {
  if (r_.sessionFailure) return;
  SessionFailure s;
  s.node = node;
  s.message = err.message;
  s.cause = "seen: " + err.actual;
  s.ruleId = rule.id;
  s.mark = err.mark;
  s.byPath = true;
  r_.sessionFailure = std::move(s);
}

void Partitioner::noteSessionFailure(uint32_t node, const Rule& rule, bool byPathCheck) {
  const BoundLowering* lowering = options_.lowering;
  if (!lowering || r_.sessionFailure) return;
  const auto index = static_cast<size_t>(&rule - rules_.rules().data());
  // ORT's layout-sensitive ops fail the session only when QNN refuses them; its own checks
  // (cpu_forms) keep them on CPU before layout.
  const bool byRule = !byPathCheck && index < lowering->sessionFailureRule.size() && lowering->sessionFailureRule[index];
  const std::vector<std::string>& ops = lowering->path->sessionFailureOps;
  const Node& n = g_.node(node);
  // Only a refused node gets here: comparing its target with the list costs nothing elsewhere.
  const bool byOp = !ops.empty() && std::find(ops.begin(), ops.end(), g_.target(n)) != ops.end();
  if (!byRule && !byOp) return;
  const Fallback& f = r_.fallbacks.back();
  SessionFailure s;
  s.node = node;
  s.message = lowering->path->sessionFailureMessage;
  s.cause = f.message;
  s.ruleId = rule.id;
  s.mark = lowering->path->sessionFailureMark;
  r_.sessionFailure = std::move(s);
}

void Partitioner::partition() {
  const size_t n = g_.nodes().size();
  partOf_.assign(n, kNoPartition);
  std::vector<uint32_t> remaining(n);
  for (uint32_t i = 0; i < n; ++i) remaining[i] = static_cast<uint32_t>(users_.users(i).size());
  Merger m(n);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = g_.node(i);
    NodeDelegation& nd = r_.nodes[i];
    std::span<const uint32_t> producers = users_.producers(i);
    const auto uses = static_cast<uint32_t>(users_.users(i).size());
    if (nd.role == NodeRole::kFollower && node.kind == NodeKind::kCall) {
      // Plumbing follows its producing call; fed only by inputs and parameters it waits
      // for its users instead.
      bool anyCall = false, anyDelegated = false;
      for (uint32_t w : producers) {
        anyCall = anyCall || (g_.node(w).kind == NodeKind::kCall && !pending_[w]);
        anyDelegated = anyDelegated || partOf_[w] != kNoPartition;
      }
      if (!anyCall) {
        pending_[i] = 1;
      } else if (anyDelegated && (partOf_[i] = m.place(i, producers, partOf_, false, uses)) != kNoPartition) {
        nd.placement = Placement::kDelegated;
      } else {
        nd.placement = Placement::kCpu;
        nd.reason = FallbackReason::kFollowsCpu;
      }
    } else if (nd.placement == Placement::kDelegated) {
      partOf_[i] = m.place(i, producers, partOf_, true, uses);
    }
    if (partOf_[i] == kNoPartition) m.pass(i, producers, partOf_);
    for (uint32_t w : producers) {
      m.used(partOf_[w]);
      if (--remaining[w] == 0) m.release(w);
    }
  }
  for (uint32_t i = 0; i < n; ++i)
    if (partOf_[i] != kNoPartition) partOf_[i] = m.find(partOf_[i]);
}

void Partitioner::placeFollowers() {
  // Reverse order: a follower's users are placed before it.
  for (uint32_t i = static_cast<uint32_t>(g_.nodes().size()); i-- > 0;) {
    if (!pending_[i]) continue;
    NodeDelegation& nd = r_.nodes[i];
    nd.placement = Placement::kCpu;
    for (uint32_t u : users_.users(i)) {
      if (partOf_[u] != kNoPartition) {
        partOf_[i] = partOf_[u];
        nd.placement = Placement::kDelegated;
        break;
      }
    }
  }
}

void Partitioner::finish() {
  // Number partitions by their first node.
  std::vector<int32_t> index(g_.nodes().size() + 1, -1);
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    if (partOf_[i] == kNoPartition) continue;
    int32_t& id = index[partOf_[i]];
    if (id < 0) {
      id = static_cast<int32_t>(r_.partitions.size());
      r_.partitions.emplace_back();
    }
    NodeDelegation& nd = r_.nodes[i];
    nd.partition = id;
    nd.placement = Placement::kDelegated;
    Partition& p = r_.partitions[id];
    p.nodes.push_back(i);
    if (nd.role == NodeRole::kCompute) {
      ++p.computeNodes;
      ++r_.delegatedComputeNodes;
      r_.invalidDelegatedNodes += nd.invalid;
    }
  }
}

void Partitioner::checkFullDelegation() {
  r_.fullDelegationRequired = options_.requireFullDelegation.value_or(policy_->requiresFullDelegation());
  if (!r_.fullDelegationRequired) return;
  for (const Fallback& f : r_.fallbacks)
    if (f.reason != FallbackReason::kBackendPolicy) r_.fullDelegationOffenders.push_back(f.node);
  const std::string who = "the " + r_.backend + " backend needs the whole graph in one partition";
  if (r_.partitions.size() > 1)
    r_.fullDelegationProblems.push_back("the graph splits into " + std::to_string(r_.partitions.size()) +
                                        " partitions; " + who);
  if (!r_.fullDelegationOffenders.empty()) {
    std::string names;
    for (uint32_t node : r_.fullDelegationOffenders) {
      if (names.size() > 400) {
        names += ", ...";
        break;
      }
      const Fallback& f = *std::find_if(r_.fallbacks.begin(), r_.fallbacks.end(),
                                        [&](const Fallback& x) { return x.node == node; });
      names += (names.empty() ? "" : ", ") + g_.node(node).name + " (" + std::string(fallbackReasonName(f.reason)) + ")";
    }
    r_.fullDelegationProblems.push_back(std::to_string(r_.fullDelegationOffenders.size()) +
                                        " compute node(s) fall back to CPU: " + names + "; " + who);
  }
}

DelegationReport Partitioner::run() {
  r_.backend = rules_.backend();
  if (options_.lowering) r_.lowering = options_.lowering->path->name;
  r_.strict = options_.strict;
  if (options_.pruned) {
    r_.deadNodes = options_.pruned->dead;
    r_.constantNodes = options_.pruned->constant;
    r_.noOpNodes = options_.pruned->noOp;
  }
  policy_ = options_.policy ? options_.policy : &rules_.delegationPolicy();
  for (PolicyPlacement& c : policy_->cpuConversions(g_, users_))
    r_.cpuConversions.emplace_back(c.node, std::move(c.reason));
  classify();
  noteParameterDequantize();
  partition();
  placeFollowers();
  finish();
  checkFullDelegation();
  return std::move(r_);
}

}  // namespace

DelegationReport partitionGraph(const Graph& graph, const RuleSet& rules, const SocInfo& soc,
                                const ValidationResult& validation, const PartitionOptions& options) {
  return Partitioner(graph, rules, soc, validation, options).run();
}

}  // namespace qnnrules
