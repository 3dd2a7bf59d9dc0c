#include "NodeValidator.h"

#include "graph/NumberOperand.h"

#include <algorithm>
#include <bit>
#include <cctype>

namespace qnnrules {

NodeValidator::NodeValidator(const Graph& g, const SharedRoots& roots, const SocInfo& soc,
                             const ValidateOptions& opt, const std::string& backend, DiagnosticList& out)
    : g_(g), soc_(soc), opt_(opt), out_(out), roots_(roots) {
  unsupportedPrefix_ = "not supported by QNN ";
  for (char c : backend) unsupportedPrefix_ += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsupportedPrefix_ += ": ";
}

bool NodeValidator::bind(const Node& node, const Rule& rule) {
  bound_.clear();
  // A Python number where the rule declares a tensor port: the lowering path may hand it to QNN
  // as a float32 static tensor with no encoding (ValidateOptions::numberOperandFloatRules).
  const bool numbersAreFloatTensors =
      !opt_.numberOperandFloatRules.empty() &&
      std::find(opt_.numberOperandFloatRules.begin(), opt_.numberOperandFloatRules.end(), &rule) !=
          opt_.numberOperandFloatRules.end();
  for (int p = 0; p < static_cast<int>(rule.ports.size()); ++p) {
    const PortDecl& decl = rule.ports[p];
    size_t before = bound_.size();
    if (decl.isInput) {
      for (size_t a = decl.index; a < node.args.size(); ++a) {
        const Argument& arg = node.args[a];
        auto add = [&](const Argument& t, int listIndex) {
          BoundTensor b;
          b.port = p;
          b.listIndex = listIndex;
          b.position = static_cast<int>(a);
          b.spec = t.qspec ? &*t.qspec : nullptr;
          b.graph = &g_;
          b.producer = t.tensor.node;
          b.output = t.tensor.output;
          // A concrete annotation decides the type below; only an unannotated (or shared, possibly
          // unresolved) edge needs its producer's dtype, a node elsewhere in memory.
          if (!b.spec || b.spec->isShared()) {
            const Node& producer = g_.node(t.tensor.node);
            ScalarType dt = t.tensor.output < producer.outputs.size() ? producer.outputs[t.tensor.output].dtype
                                                                       : ScalarType::kFloat32;
            b.type = portTypeOf(dt);
          }
          bound_.push_back(b);
        };
        if (arg.kind == Argument::Kind::kTensor) add(arg, -1);
        if (numbersAreFloatTensors && (arg.kind == Argument::Kind::kFloat || arg.kind == Argument::Kind::kInt)) {
          BoundTensor b;
          b.port = p;
          b.position = static_cast<int>(a);
          b.type = portTypeOf(numberOperandType(g_, node));  // no encoding: the path lifts it as is
          bound_.push_back(b);
        }
        // A 1M-way cat: room for the list and for a tensor per port still to bind (its output),
        // so that no push regrows (and copies) a million bound tensors.
        if (arg.kind == Argument::Kind::kList) bound_.reserve(bound_.size() + arg.list.size() + rule.ports.size());
        if (arg.kind == Argument::Kind::kList)
          for (size_t j = 0; j < arg.list.size(); ++j)
            if (arg.list[j].kind == Argument::Kind::kTensor) add(arg.list[j], static_cast<int>(j));
        if (!decl.variadic) break;
      }
    } else {
      for (size_t o = decl.index; o < node.outputs.size(); ++o) {
        BoundTensor b;
        b.port = p;
        b.position = static_cast<int>(o);
        b.spec = node.outputs[o].qspec ? &*node.outputs[o].qspec : nullptr;
        b.graph = &g_;
        b.producer = static_cast<uint32_t>(&node - g_.nodes().data());
        b.output = static_cast<uint32_t>(o);
        if (!b.spec || b.spec->isShared()) b.type = portTypeOf(node.outputs[o].dtype);
        bound_.push_back(b);
        if (!decl.variadic) break;
      }
    }
    if (bound_.size() == before && !decl.optional) {
      emitMissingPort(node, rule, decl);
      return false;
    }
  }
  // Resolve shared references and derive what QNN will see on each port.
  bool ok = true;
  for (BoundTensor& b : bound_) {
    b.resolved = roots_.resolve(b.spec);
    if (b.resolved.how == Resolution::kConcrete) {
      b.type = portTypeOf(*b.resolved.root);
    } else if (b.resolved.how == Resolution::kCycle || b.resolved.how == Resolution::kUnresolved) {
      emitUnresolved(node, rule, b);
      ok = false;
    }
  }
  return ok;
}

bool NodeValidator::matches(const Variant& v) const {
  for (const BoundTensor& b : bound_)
    if (!v.ports[b.port].datatypes.contains(b.type.datatype)) return false;
  return true;
}

void NodeValidator::check(const Variant& v, std::vector<Violation>& out, std::vector<Violation>& advice) const {
  out.clear();
  advice.clear();
  const ConstraintCheck env{bound_, opt_.scaleRelTolerance};
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  const KindMask* masks = masksOf(v);
  for (int i = 0; i < static_cast<int>(bound_.size()); ++i) {
    const PortConstraint& c = v.ports[bound_[i].port];
    // Only the kinds this port constraint uses, in table order.
    for (KindMask m = masks[bound_[i].port]; m != 0; m &= KindMask(m - 1)) {
      const auto bit = std::countr_zero(m);
      const ConstraintKind* k = kinds[static_cast<size_t>(bit)];
      // A recommended kind (PortConstraint::recommended) never fails the variant.
      if (k->violated(c, bound_[i], env)) ((c.recommended >> bit) & 1u ? advice : out).push_back({k, i, &c});
    }
  }
}

void NodeValidator::run(const Node& node, const Rule& rule, const std::vector<KindMask>& kinds) {
  if (rule.kind == RuleKind::kStructural) return;
  rule_ = &rule;
  kinds_ = kinds.data();
  if (rule.kind == RuleKind::kUnsupported) {
    emitUnsupported(node, rule);
    return;
  }
  if (!bind(node, rule)) return;
  // QNN checks ranks before datatypes: a tensor above the rule's limit refuses the node whatever
  // its encodings; a variant's own limit (a kernel of one datatype taking fewer dimensions)
  // removes that variant below.
  int tensorRank = 0;
  const auto index = static_cast<size_t>(&node - g_.nodes().data());
  const bool exempt = index < opt_.rankExempt.size() && opt_.rankExempt[index];
  const int rankAt = rule.hasRankLimit() && !exempt ? highestRank(node, rule, tensorRank) : -1;
  if (rankAt >= 0 && rule.maxRank != 0 && tensorRank > rule.maxRank) {
    emitRank(node, rule, rule.maxRank, rule.maxRankMark, rankAt, tensorRank);
    return;
  }
  // A tensor with a dimension of 0: the op refuses it, or graph composition fails on it.
  if (rule.emptyTensors == EmptyTensors::kRefused || rule.emptyTensors == EmptyTensors::kFinalizeFails) {
    if (const int at = emptyTensorAt(node, rule); at >= 0) {
      emitEmptyTensor(node, rule, at);
      return;
    }
  }
  if (!rule.noQuantizedTypes.empty() && reportQuantizedPorts(node, rule)) return;

  // Every variant whose datatypes match is evaluated; the node is valid when an available
  // one passes. A gated variant that passes means the only problem is the SoC.
  const Variant* bestVariant = nullptr;
  const Variant* passingGated = nullptr;
  const Variant* passing = nullptr;
  const Variant* rankBlocked = nullptr;
  bool bestAvailable = false;
  int bestRank = 0;
  bool anyMatch = false;
  for (const Variant& v : rule.variants) {
    if (!matches(v)) continue;
    anyMatch = true;
    if (rankAt >= 0 && v.maxRank != 0 && tensorRank > v.maxRank) {
      if (!rankBlocked) rankBlocked = &v;
      continue;
    }
    check(v, violations_, advice_);
    bool available = soc_.meets(v.gate);
    if (violations_.empty()) {
      if (available) {
        passing = &v;
        break;
      }
      if (!passingGated) passingGated = &v;
      continue;
    }
    const int tie = tieRank(violations_);
    bool better = !bestVariant || (available && !bestAvailable) ||
                  (available == bestAvailable &&
                   (violations_.size() < best_.size() || (violations_.size() == best_.size() && tie < bestRank)));
    if (better) {
      bestVariant = &v;
      bestAvailable = available;
      bestRank = tie;
      best_.swap(violations_);
    }
  }
  if (passing) {
    // advice_ is the passing variant's: the loop stopped at it.
    for (const Violation& viol : advice_) emitViolation(node, rule, *passing, viol, Severity::kWarning);
    emitUnverifiable(node, rule, *passing);
  } else if (rankBlocked) {
    emitRank(node, rule, rankBlocked->maxRank, rankBlocked->maxRankMark, rankAt, tensorRank);
  } else if (passingGated) {
    emitGate(node, rule, *passingGated);
  } else if (bestVariant) {
    if (!bestAvailable) emitGate(node, rule, *bestVariant);
    for (const Violation& viol : best_) emitViolation(node, rule, *bestVariant, viol);
  } else if (!anyMatch) {
    emitNoVariant(node, rule);
  }
}

// Among variants with as many violations, the nearest is the one whose violations are the
// smallest fix: a per-tensor vs per-channel encoding (1) before a bit width (2) before an
// encoding of another family (3: plain vs BW_* vs block-wise), so a per-tensor 2-bit weight
// is told to go per-channel rather than to use 8 bits.
int NodeValidator::tieRank(const std::vector<Violation>& vs) const {
  auto family = [](Encoding e) {
    return e == Encoding::kBlockwiseExpansion ? 2 : (e == Encoding::kBwScaleOffset || e == Encoding::kBwAxisScaleOffset) ? 1 : 0;
  };
  int rank = 0;
  for (const Violation& v : vs) {
    if (v.kind->code == DiagCode::kBitwidth) {
      rank += 2;
    } else if (v.kind->code == DiagCode::kEncoding && bound_[v.bound].type.encoding) {
      const int f = family(*bound_[v.bound].type.encoding);
      bool sameFamily = false;
      for (int e = 0; e < static_cast<int>(Encoding::kCount); ++e)
        sameFamily |= v.constraint->encodings.contains(static_cast<Encoding>(e)) && family(static_cast<Encoding>(e)) == f;
      rank += sameFamily ? 1 : 3;
    } else {
      rank += 1;
    }
  }
  return rank;
}

}  // namespace qnnrules
