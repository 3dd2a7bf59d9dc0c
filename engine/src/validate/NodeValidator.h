// Validates one node against its rule: binds the node's tensors to the rule's ports, selects
// the variants whose datatypes match, checks each with the constraint kinds
// (constraints/ConstraintKind.h) and reports the outcome. Internal to validate/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "BoundTensor.h"
#include "validate/constraints/ConstraintKind.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {

// One failed constraint of a variant on one bound tensor.
struct Violation {
  const ConstraintKind* kind;
  int bound;  // index into the node's bound tensors
  const PortConstraint* constraint;
};

class NodeValidator {
 public:
  // `roots`: the run's one resolver of shared encodings (facts/GraphFacts.h).
  NodeValidator(const Graph& g, const SharedRoots& roots, const SocInfo& soc, const ValidateOptions& opt,
                const std::string& backend, DiagnosticList& out);

  // `kinds`: activeKinds(rule), the kinds each variant's port constraints use.
  void run(const Node& node, const Rule& rule, const std::vector<KindMask>& kinds);
  // `nearTarget`: a rule's target the op is likely a typo of ("" when none is close).
  void reportNoRule(const Node& node, std::string_view nearTarget);

 private:
  bool bind(const Node& node, const Rule& rule);
  bool matches(const Variant& v) const;
  // Violations of `v`: the required ones into `out`, the recommended ones into `advice`.
  void check(const Variant& v, std::vector<Violation>& out, std::vector<Violation>& advice) const;
  int tieRank(const std::vector<Violation>& vs) const;
  // The kind masks of variant `v` of the node's rule, one per port.
  const KindMask* masksOf(const Variant& v) const {
    return kinds_ + (&v - rule_->variants.data()) * rule_->ports.size();
  }

  // Diagnostics (NodeDiagnostics.cpp).
  Diagnostic base(const Node& node, const Rule& rule, DiagCode code, Severity sev) const;
  std::string label(const Rule& rule, const BoundTensor& b) const;
  void emitUnsupported(const Node& node, const Rule& rule);
  void emitMissingPort(const Node& node, const Rule& rule, const PortDecl& decl);
  void emitUnresolved(const Node& node, const Rule& rule, const BoundTensor& b);
  // A warning for a recommended constraint, an error otherwise.
  void emitViolation(const Node& node, const Rule& rule, const Variant& v, const Violation& viol,
                     Severity severity = Severity::kError);
  void emitNoVariant(const Node& node, const Rule& rule);
  // The bound tensor of the highest rank (-1 when none is bound) and that rank.
  int highestRank(const Node& node, const Rule& rule, int& rank) const;
  // A tensor of rank `rank` (bound_[at]) above the limit `limit` written at `mark`.
  void emitRank(const Node& node, const Rule& rule, int limit, const SourceMark& mark, int at, int rank);
  // The first bound tensor with a dimension of 0, or -1.
  int emptyTensorAt(const Node& node, const Rule& rule) const;
  void emitEmptyTensor(const Node& node, const Rule& rule, int at);
  void emitGate(const Node& node, const Rule& rule, const Variant& gated);
  void emitUnverifiable(const Node& node, const Rule& rule, const Variant& v);
  bool reportQuantizedPorts(const Node& node, const Rule& rule);

  const Graph& g_;
  const SocInfo& soc_;
  const ValidateOptions& opt_;
  DiagnosticList& out_;
  std::string unsupportedPrefix_;  // "not supported by QNN HTP: ", built once
  const SharedRoots& roots_;
  // Scratch reused across nodes: the per-node path allocates only when a node has more
  // ports than any node before it.
  std::vector<BoundTensor> bound_;
  std::vector<Violation> violations_, best_, advice_;
  // The node being checked: its rule and that rule's kind masks.
  const Rule* rule_ = nullptr;
  const KindMask* kinds_ = nullptr;
};

}  // namespace qnnrules
