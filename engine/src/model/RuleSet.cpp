#include "qnnrules/model/RuleSet.h"

#include <algorithm>

#include "qnnrules/model/DelegationPolicy.h"

namespace qnnrules {

const DelegationPolicy& RuleSet::delegationPolicy() const { return *policy_; }

namespace {

// Port names -> port indices, once. Without an explicit list, ONNX input i is the rule's i-th
// input port.
OnnxCandidate compileOnnx(const Rule& rule, uint32_t index, uint32_t mapping) {
  const OnnxMapping& m = rule.onnx[mapping];
  OnnxCandidate c;
  c.rule = index;
  c.mapping = mapping;
  if (m.inputs.empty()) {
    for (size_t p = 0; p < rule.ports.size(); ++p)
      if (rule.ports[p].isInput) c.portOf.push_back(static_cast<int>(p));
  } else {
    for (const std::string& name : m.inputs) c.portOf.push_back(name.empty() ? -1 : rule.findPort(name));
  }
  // The entry's `aten` target, unless the rule lost it (an inherited rule whose target a
  // manifest excluded): then the rule's first target, so the validator finds this rule.
  const bool owned = std::find(rule.targets.begin(), rule.targets.end(), m.aten) != rule.targets.end();
  c.target = owned ? m.aten : rule.targets.front();
  c.lastTakesRest = !c.portOf.empty() && c.portOf.back() >= 0 &&
                    (m.restAsList || rule.ports[static_cast<size_t>(c.portOf.back())].variadic);
  return c;
}

}  // namespace

RuleSet::RuleSet(std::string backend, std::vector<Rule> rules, std::shared_ptr<const BackendManifest> manifest)
    : backend_(std::move(backend)),
      manifest_(std::move(manifest)),
      policy_(makeDelegationPolicy(manifest_.get())),
      rules_(std::move(rules)) {
  byTarget_.reserve(rules_.size() * 2);
  for (uint32_t i = 0; i < rules_.size(); ++i) {
    byId_.emplace(rules_[i].id, i);
    for (const std::string& t : rules_[i].targets) byTarget_.emplace(t, i);
    for (uint32_t m = 0; m < rules_[i].onnx.size(); ++m)
      byOnnxOp_[rules_[i].onnx[m].opType].push_back(compileOnnx(rules_[i], i, m));
  }
}

const std::vector<OnnxCandidate>* RuleSet::onnxCandidates(std::string_view opType) const {
  auto it = byOnnxOp_.find(opType);
  return it == byOnnxOp_.end() ? nullptr : &it->second;
}

const Rule* RuleSet::findByTarget(std::string_view target) const {
  auto it = byTarget_.find(target);
  return it == byTarget_.end() ? nullptr : &rules_[it->second];
}

std::vector<const Rule*> RuleSet::rulesOfTargets(const std::vector<std::string>& targets) const {
  std::vector<const Rule*> out;
  out.reserve(targets.size());
  for (const std::string& t : targets) out.push_back(findByTarget(t));
  return out;
}

const Rule* RuleSet::findById(std::string_view id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &rules_[it->second];
}

}  // namespace qnnrules
