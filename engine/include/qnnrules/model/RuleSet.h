// A backend's compiled rule table: immutable after loading, shared across threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/Rule.h"

namespace qnnrules {

// Hash that lets string_view look up std::string keys without building a string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class DelegationPolicy;

class RuleSet {
 public:
  // `manifest` (rules/<backend>/backend.yaml) may be null: a backend without one.
  RuleSet(std::string backend, std::vector<Rule> rules, std::shared_ptr<const BackendManifest> manifest = nullptr);

  const std::string& backend() const { return backend_; }
  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* findByTarget(std::string_view target) const;
  // findByTarget for each of a graph's interned targets (Graph::targets()), indexed like them:
  // the passes look a node's rule up by its targetId, once per distinct op rather than per node.
  std::vector<const Rule*> rulesOfTargets(const std::vector<std::string>& targets) const;
  const Rule* findById(std::string_view id) const;
  // The entries of every rule naming this ONNX op type, in rule order; null when none.
  const std::vector<OnnxCandidate>* onnxCandidates(std::string_view opType) const;
  const BackendManifest* manifest() const { return manifest_.get(); }
  // The backend's delegation policy, built from its manifest (never null).
  const DelegationPolicy& delegationPolicy() const;

 private:
  std::string backend_;
  std::shared_ptr<const BackendManifest> manifest_;
  std::shared_ptr<const DelegationPolicy> policy_;
  std::vector<Rule> rules_;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> byTarget_;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> byId_;
  std::unordered_map<std::string, std::vector<OnnxCandidate>, StringHash, std::equal_to<>> byOnnxOp_;
};

}  // namespace qnnrules
