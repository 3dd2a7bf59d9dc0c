#include "RuleMutator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>

#include "MutationCase.h"
#include "TestHardware.h"
#include "validate/BoundTensor.h"
#include "validate/constraints/ConstraintKind.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules::testing {
namespace {

// Whether port constraint `c` only recommends the kind with YAML key `key` (`recommended:`):
// breaking it is a warning, not the error a mutation must give.
bool recommends(const PortConstraint& c, std::string_view key) {
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  for (size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k]->key == key) return (c.recommended >> k) & 1u;
  return false;
}



const HardwareLevel kNewest = [] {
  size_t n = 0;
  for (const HardwareColumn& c : builtinSocTable().columns()) n = std::max(n, c.versions.size());
  return static_cast<HardwareLevel>(n);
}();

// A SoC with every column of the built-in table, at the `level`-th version of each (or the
// column's newest): the oldest hardware at level 1, the newest at kNewest. Built once.
const SocInfo& socAtLevel(HardwareLevel level) {
  static const std::vector<SocInfo> socs = [] {
    SocTable t = builtinSocTable();
    std::vector<SocInfo> out;
    for (HardwareLevel l = 1; l <= kNewest; ++l) {
      SocInfo s;
      s.name = "TEST_" + std::to_string(l);
      for (const HardwareColumn& c : t.columns())
        s.hardware.push_back({c.name, c.versions[std::min<size_t>(l, c.versions.size()) - 1], 0});
      t.add(s);
      out.push_back(*t.find(s.name));
    }
    return out;
  }();
  return socs.at(level - 1);
}

// "V69" for a gate's level on its column.
std::string versionAt(const Variant& gated, HardwareLevel level) {
  return builtinSocTable().columns().at(gated.gate.column).versions.at(level - 1);
}

struct Outcome {
  size_t errors = 0;
  size_t warnings = 0;
  bool namesRule = false;
  std::string text;
};

Outcome validate(const Rule& rule, const RuleSet& rules, const Annotation& a, HardwareLevel arch) {
  Graph g = buildGraph(rule, rule.targets.front(), a);
  ValidationResult r = validateGraph(g, rules, socAtLevel(arch));
  Outcome o;
  for (const Diagnostic& d : r.diagnostics) {
    o.errors += d.severity == Severity::kError;
    o.warnings += d.severity == Severity::kWarning;
    o.namesRule = o.namesRule || (d.severity == Severity::kError && d.ruleId == rule.id);
    o.text += formatText(d);
  }
  return o;
}

// Variants that accept the datatype tuple and are available on `arch`.
std::vector<const Variant*> candidates(const Rule& rule, const std::vector<QnnDatatype>& types, HardwareLevel arch) {
  std::vector<const Variant*> out;
  for (const Variant& v : rule.variants) {
    if (v.gate.level > arch) continue;
    bool all = true;
    for (size_t p = 0; p < types.size(); ++p) all = all && v.ports[p].datatypes.contains(types[p]);
    if (all) out.push_back(&v);
  }
  return out;
}

using Tally = MutationTally;

class Mutator {
 public:
  Mutator(const Rule& rule, const RuleSet& rules, Tally& tally) : rule_(rule), rules_(rules), t_(tally) {}

  void run(const Variant& v) {
    ++t_.variants;
    Annotation base;
    if (auto why = satisfy(rule_, v, base)) {
      fail(v, "cannot be satisfied: " + *why);
      return;
    }
    arch_ = v.gate.gated() ? v.gate.level : 1;
    Outcome ok = validate(rule_, rules_, base, arch_);
    if (ok.errors || ok.warnings) {
      fail(v, "a node built to satisfy it does not validate cleanly on " + socAtLevel(arch_).name +
                  ":\n" + ok.text);
      return;
    }
    ++t_.passing;
    std::vector<GroupConstraint> groups;
    (void)groupPorts(rule_, v, groups);
    const size_t before = t_.asserted;
    for (const GroupConstraint& g : groups) {
      mutateDatatype(v, base, g);
      mutateKinds(v, base, g);
      mutateShared(v, base, g);
    }
    mutateArch(v, base);
    if (t_.asserted == before && mutable_) fail(v, "has constraints but no mutation of them is a violation");
    mutable_ = false;
  }

 private:
  void fail(const Variant& v, const std::string& what) {
    t_.failures.push_back(rule_.id + " variant " + v.name + " (" + v.mark.toString(false) + "): " + what);
  }

  // Asserts that `a` is an error naming the rule when `expectViolation` holds.
  void expectError(const Variant& v, const std::string& mutation, const Annotation& a, bool expectViolation,
                   HardwareLevel arch) {
    mutable_ = true;
    if (!expectViolation) {
      ++t_.skipped;
      return;
    }
    ++t_.asserted;
    Outcome o = validate(rule_, rules_, a, arch);
    if (!o.namesRule) fail(v, "mutation '" + mutation + "' is not reported as an error of " + rule_.id + ":\n" + o.text);
  }

  // True when every candidate variant for `a` fails `violates(variant)`.
  bool allCandidatesViolate(const Annotation& a, HardwareLevel arch, const std::function<bool(const Variant&)>& violates) {
    for (const Variant* c : candidates(rule_, datatypesOf(rule_, a), arch))
      if (!violates(*c)) return false;
    return true;
  }

  QuantSpec* rootSpec(Annotation& a, const GroupConstraint& g) {
    PortAnnotation& r = a[g.root];
    return r.kind == PortAnnotation::Kind::kQuantized ? &r.spec : nullptr;
  }

  void mutateDatatype(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    const QnnDatatype current = datatypesOf(rule_, base)[g.root];
    for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i) {
      auto dt = static_cast<QnnDatatype>(i);
      if (dt == current || !realizable(dt)) continue;
      Annotation a = base;
      GroupConstraint any = g;
      any.encodings = EncodingSet{};
      any.bitwidths = 0;
      any.axis.reset();
      if (annotateGroup(rule_, v, any, dt, a)) continue;
      // A datatype no variant (gated or not) accepts with the other ports as they are.
      if (!candidates(rule_, datatypesOf(rule_, a), kNewest).empty()) continue;
      expectError(v, "datatype of " + rule_.ports[g.root].name + " -> " + std::string(datatypeName(dt)), a, true,
                  arch_);
      return;
    }
  }

  // Every kind with a `mutate` (encoding, symmetric, axis, fixed scale and offset, and any kind
  // registered by an embedder) breaks its own constraint on the group's spec; the mutation is
  // asserted when, under every candidate variant, some port of the group has the kind and its
  // check fails (the kind's own `violated`, so the suite never restates a check).
  void mutateKinds(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    const std::span<const ConstraintKind* const> kinds = constraintKinds();
    for (size_t k = 0; k < kinds.size(); ++k) {
      const ConstraintKind& kind = *kinds[k];
      if (!kind.mutate || !kind.active || !kind.violated) continue;
      const PortConstraint* used = nullptr;
      for (int p : g.members)
        if (!used && kind.active(v.ports[p])) used = &v.ports[p];
      Annotation a = base;
      QuantSpec* s = rootSpec(a, g);
      if (!used || !s || !kind.mutate(*used, *s)) continue;
      BoundTensor t;
      t.spec = s;
      t.resolved = Resolved{Resolution::kConcrete, s};
      t.type = portTypeOf(*s);
      const ConstraintCheck env{std::span<const BoundTensor>(&t, 1)};
      const bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
        for (int p : g.members) {
          const PortConstraint& pc = c.ports[p];
          t.port = p;
          if (kind.active(pc) && !((pc.recommended >> k) & 1u) && kind.violated(pc, t, env)) return true;
        }
        return false;
      });
      expectError(v, std::string(kind.key) + " of " + rule_.ports[g.root].name + " broken", a, violation, arch_);
    }
  }

  // A port that must share an encoding gets its own spec with other numbers.
  void mutateShared(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    const QuantSpec* root = base[g.root].kind == PortAnnotation::Kind::kQuantized ? &base[g.root].spec : nullptr;
    if (!root) return;
    for (int p : g.members) {
      if (p == g.root) continue;
      Annotation a = base;
      a[p] = PortAnnotation{};
      a[p].kind = PortAnnotation::Kind::kQuantized;
      a[p].spec = *root;
      for (double& s : a[p].spec.scales) s *= 3;
      bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
        return c.ports[p].sharedWith >= 0 && !recommends(c.ports[p], "shared_with");
      });
      expectError(v, rule_.ports[p].name + " with its own encoding", a, violation, arch_);
    }
  }

  void mutateArch(const Variant& v, const Annotation& base) {
    if (v.gate.level <= 1) return;
    const HardwareLevel below = v.gate.level - 1;
    bool violation = candidates(rule_, datatypesOf(rule_, base), below).empty();
    expectError(v, "SoC at " + versionAt(v, below) + ", below " + v.gate.version, base, violation, below);
  }

  const Rule& rule_;
  const RuleSet& rules_;
  Tally& t_;
  HardwareLevel arch_ = 1;
  bool mutable_ = false;
};

}  // namespace

std::string MutationTally::summary() const {
  return std::to_string(rules) + " rules, " + std::to_string(variants) + " variants, " + std::to_string(passing) +
         " passing cases, " + std::to_string(asserted) + " mutations asserted, " + std::to_string(skipped) +
         " skipped (accepted by another variant)";
}

MutationTally mutateRules(const RuleSet& rules) {
  Tally tally;
  for (const Rule& rule : rules.rules()) {
    ++tally.rules;
    if (rule.kind == RuleKind::kUnsupported) {
      // A declared-unsupported op is reported with its rule id, never passed.
      Outcome o2 = validate(rule, rules, Annotation(rule.ports.size()), kNewest);
      if (!o2.namesRule) tally.failures.push_back(rule.id + ": unsupported op not reported:\n" + o2.text);
      continue;
    }
    if (rule.kind == RuleKind::kStructural) {
      // Graph plumbing (getitem, identities at inference) is never an error or a warning.
      Outcome o2 = validate(rule, rules, Annotation(rule.ports.size()), 1);
      if (o2.errors || o2.warnings) tally.failures.push_back(rule.id + ": structural op reported:\n" + o2.text);
      continue;
    }
    Mutator m(rule, rules, tally);
    for (const Variant& v : rule.variants) m.run(v);
  }
  return tally;
}

}  // namespace qnnrules::testing
