// Rules tested as data: for every variant of every rule of every built-in backend, a node
// annotated to satisfy the variant must validate cleanly on a SoC that meets its gate, and
// every single-field mutation of that annotation (datatype, encoding, symmetric, fixed scale,
// fixed offset, shared encoding, an arch below the gate) must be an error naming the rule.
//
// A mutation is only asserted when it is a violation under every variant that could still
// accept the node (the suite never guesses that "any other variant" would fail); the rest
// are counted as skipped, and each variant must see at least one asserted mutation when it
// has anything to mutate.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <sstream>

#include "MutationCase.h"
#include "TestHardware.h"
#include "../../engine/src/validate/constraints/ConstraintKind.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {
namespace {

// Whether port constraint `c` only recommends the kind with YAML key `key` (`recommended:`):
// breaking it is a warning, not the error a mutation must give.
bool recommends(const PortConstraint& c, std::string_view key) {
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  for (size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k]->key == key) return (c.recommended >> k) & 1u;
  return false;
}


using testing::Annotation;
using testing::GroupConstraint;
using testing::PortAnnotation;

const HardwareLevel kNewest = [] {
  size_t n = 0;
  for (const HardwareColumn& c : testing::builtinSocTable().columns()) n = std::max(n, c.versions.size());
  return static_cast<HardwareLevel>(n);
}();

// A SoC with every column of the built-in table, at the `level`-th version of each (or the
// column's newest): the oldest hardware at level 1, the newest at kNewest. Built once.
const SocInfo& socAtLevel(HardwareLevel level) {
  static const std::vector<SocInfo> socs = [] {
    SocTable t = testing::builtinSocTable();
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
  return testing::builtinSocTable().columns().at(gated.gate.column).versions.at(level - 1);
}

struct Outcome {
  size_t errors = 0;
  size_t warnings = 0;
  bool namesRule = false;
  std::string text;
};

Outcome validate(const Rule& rule, const RuleSet& rules, const Annotation& a, HardwareLevel arch) {
  Graph g = testing::buildGraph(rule, rule.targets.front(), a);
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

struct Tally {
  size_t rules = 0, variants = 0, passing = 0, asserted = 0, skipped = 0;
  std::vector<std::string> failures;
};

class Mutator {
 public:
  Mutator(const Rule& rule, const RuleSet& rules, Tally& tally) : rule_(rule), rules_(rules), t_(tally) {}

  void run(const Variant& v) {
    ++t_.variants;
    Annotation base;
    if (auto why = testing::satisfy(rule_, v, base)) {
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
    (void)testing::groupPorts(rule_, v, groups);
    const size_t before = t_.asserted;
    for (const GroupConstraint& g : groups) {
      mutateDatatype(v, base, g);
      mutateEncoding(v, base, g);
      mutateSymmetric(v, base, g);
      mutateScale(v, base, g);
      mutateOffset(v, base, g);
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
    for (const Variant* c : candidates(rule_, testing::datatypesOf(rule_, a), arch))
      if (!violates(*c)) return false;
    return true;
  }

  QuantSpec* rootSpec(Annotation& a, const GroupConstraint& g) {
    PortAnnotation& r = a[g.root];
    return r.kind == PortAnnotation::Kind::kQuantized ? &r.spec : nullptr;
  }

  void mutateDatatype(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    const QnnDatatype current = testing::datatypesOf(rule_, base)[g.root];
    for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i) {
      auto dt = static_cast<QnnDatatype>(i);
      if (dt == current || !testing::realizable(dt)) continue;
      Annotation a = base;
      GroupConstraint any = g;
      any.encodings = EncodingSet{};
      any.bitwidths = 0;
      any.axis.reset();
      if (testing::annotateGroup(rule_, v, any, dt, a)) continue;
      // A datatype no variant (gated or not) accepts with the other ports as they are.
      if (!candidates(rule_, testing::datatypesOf(rule_, a), kNewest).empty()) continue;
      expectError(v, "datatype of " + rule_.ports[g.root].name + " -> " + std::string(datatypeName(dt)), a, true,
                  arch_);
      return;
    }
  }

  void mutateEncoding(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    Annotation a = base;
    QuantSpec* s = rootSpec(a, g);
    if (!s || g.encodings.empty()) return;
    // Per-tensor <-> per-channel, and block-wise -> per-channel.
    if (!s->blockSize.empty()) {
      s->blockSize.clear();
    } else if (isPerChannel(s->qscheme)) {
      s->qscheme = isSymmetric(s->qscheme) ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
      s->chAxis.reset();
      s->scales.resize(1);
      s->zeroPoints.resize(1);
    } else {
      s->qscheme = isSymmetric(s->qscheme) ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
      s->chAxis = g.axis.value_or(0);
      s->scales.push_back(s->scales.front() * 2);
      s->zeroPoints.push_back(s->zeroPoints.front());
    }
    const Encoding now = *portTypeOf(*s).encoding;
    bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
      for (int p : g.members)
        if (!c.ports[p].encodings.empty() && !c.ports[p].encodings.contains(now)) return true;
      return false;
    });
    expectError(v, "encoding of " + rule_.ports[g.root].name + " -> " + std::string(encodingName(now)), a, violation,
                arch_);
  }

  void mutateSymmetric(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    Annotation a = base;
    QuantSpec* s = rootSpec(a, g);
    if (!s || !g.symmetric) return;
    s->qscheme = isPerChannel(s->qscheme) ? QScheme::kPerChannelAffine : QScheme::kPerTensorAffine;
    for (int64_t& zp : s->zeroPoints) zp += 1;
    bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
      for (int p : g.members)
        if (c.ports[p].symmetric.value_or(false)) return true;
      return false;
    });
    expectError(v, "asymmetric " + rule_.ports[g.root].name, a, violation, arch_);
  }

  void mutateScale(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    Annotation a = base;
    QuantSpec* s = rootSpec(a, g);
    if (!s || !g.scale) return;
    const double now = s->scales.front() * 2;
    s->scales = {now};
    s->zeroPoints.resize(1);
    bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
      for (int p : g.members)
        if (c.ports[p].scale && !recommends(c.ports[p], "scale") &&
            std::fabs(*c.ports[p].scale - now) > 1e-5 * *c.ports[p].scale)
          return true;
      return false;
    });
    expectError(v, "scale of " + rule_.ports[g.root].name + " doubled", a, violation, arch_);
  }

  void mutateOffset(const Variant& v, const Annotation& base, const GroupConstraint& g) {
    Annotation a = base;
    QuantSpec* s = rootSpec(a, g);
    if (!s || !g.offset) return;
    for (int64_t& zp : s->zeroPoints) zp += 1;
    const int64_t now = -s->zeroPoints.front();
    bool violation = allCandidatesViolate(a, arch_, [&](const Variant& c) {
      for (int p : g.members)
        if (c.ports[p].offset && !recommends(c.ports[p], "offset") && *c.ports[p].offset != now) return true;
      return false;
    });
    expectError(v, "offset of " + rule_.ports[g.root].name + " moved by one", a, violation, arch_);
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
    bool violation = candidates(rule_, testing::datatypesOf(rule_, base), below).empty();
    expectError(v, "SoC at " + versionAt(v, below) + ", below " + v.gate.version, base, violation, below);
  }

  const Rule& rule_;
  const RuleSet& rules_;
  Tally& t_;
  HardwareLevel arch_ = 1;
  bool mutable_ = false;
};

class RuleMutation : public ::testing::TestWithParam<const char*> {};

TEST_P(RuleMutation, EveryVariantPassesAndEveryMutationFailsWithTheRuleId) {
  RegistryOptions o;
  o.builtinDir = QNNRULES_SOURCE_DIR "/rules";
  o.useEnvironment = false;
  RuleRegistry reg(o);
  const BackendLoad& load = reg.backend(GetParam());
  ASSERT_TRUE(load.status.isOk()) << load.status.toString()
                                  << (load.errors.empty() ? "" : "\n" + formatText(load.errors.front()));
  Tally tally;
  for (const Rule& rule : load.rules->rules()) {
    ++tally.rules;
    if (rule.kind == RuleKind::kUnsupported) {
      // A declared-unsupported op is reported with its rule id, never passed.
      Outcome o2 = validate(rule, *load.rules, Annotation(rule.ports.size()), kNewest);
      if (!o2.namesRule) tally.failures.push_back(rule.id + ": unsupported op not reported:\n" + o2.text);
      continue;
    }
    if (rule.kind == RuleKind::kStructural) {
      // Graph plumbing (getitem, identities at inference) is never an error or a warning.
      Outcome o2 = validate(rule, *load.rules, Annotation(rule.ports.size()), 1);
      if (o2.errors || o2.warnings) tally.failures.push_back(rule.id + ": structural op reported:\n" + o2.text);
      continue;
    }
    Mutator m(rule, *load.rules, tally);
    for (const Variant& v : rule.variants) m.run(v);
  }
  std::ostringstream summary;
  summary << GetParam() << ": " << tally.rules << " rules, " << tally.variants << " variants, " << tally.passing
          << " passing cases, " << tally.asserted << " mutations asserted, " << tally.skipped
          << " skipped (accepted by another variant)";
  RecordProperty("summary", summary.str());
  std::cout << summary.str() << "\n";
  EXPECT_GT(tally.passing, 0u);
  std::string report;
  for (size_t i = 0; i < tally.failures.size() && i < 40; ++i) report += tally.failures[i] + "\n";
  EXPECT_TRUE(tally.failures.empty()) << tally.failures.size() << " problem(s):\n" << report;
}

INSTANTIATE_TEST_SUITE_P(Builtin, RuleMutation, ::testing::Values("htp", "lpai", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace qnnrules
