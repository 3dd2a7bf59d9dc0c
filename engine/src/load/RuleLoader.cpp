// YAML -> Rule values (rule format v1, docs/rule-format.md). Strict: every mapping is read
// by iterating its pairs, so duplicate keys are seen (yaml-cpp keeps both and silently picks
// one on lookup); every key is checked against the keys its place allows; scalars are typed by
// YAML 1.2 core rules (only `true`/`false` are booleans). All errors of a file are reported.
#include "qnnrules/load/RuleLoader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/StrictYaml.h"
#include "PortConstraintParse.h"
#include "RuleFileParts.h"
#include "model/OnnxRuleKey.h"
#include "validate/constraints/ArchGate.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 2> kTopKeys = {"version", "rules"};
constexpr std::array<std::string_view, 15> kRuleKeys = {
    "id", "kind", "extends", "targets", "onnx", "qnn_op", "pattern", "description", "reason",
    "max_rank", "empty_tensors", "inputs", "outputs", "variants", "add_variants"};
constexpr std::array<std::string_view, 4> kInputKeys = {"name", "arg", "optional", "variadic"};
constexpr std::array<std::string_view, 4> kOutputKeys = {"name", "index", "optional", "variadic"};
constexpr std::array<std::string_view, 7> kVariantKeys = {"name", "description", "min_arch", "gate_fails_at",
                                                          "hint",  "max_rank",    "ports"};
constexpr std::array<std::string_view, 3> kKindNames = {"op", "structural", "unsupported"};

// --- the loader ---------------------------------------------------------------------------

class Loader : public strictyaml::StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void setContext(const RuleFileContext& ctx) { ctx_ = ctx; }

  // --- rules ---

  void loadRules(const YAML::Node& root, std::vector<Rule>& out) {
    Map top = readMap(root, "the top level", kTopKeys, "a mapping with keys version and rules");
    if (!top.valid) return;
    bool fileOk = version(root, top);
    const Entry* rules = top.get("rules");
    if (!rules) {
      missing(root, top, "the top level", "rules");
      return;
    }
    if (!rules->value.IsSequence()) {
      error(DiagCode::kWrongType, mark(rules->value), "'rules' must be a list of rules", "a list of rules",
            describe(rules->value));
      return;
    }
    size_t index = 0;
    for (const YAML::Node& node : rules->value) {
      ++index;
      std::optional<Rule> rule = parseRule(node, index);
      if (rule && fileOk) out.push_back(std::move(*rule));
    }
  }

  // The keys of the rule parseRule is reading, shared by its steps.
  struct RuleEntries {
    const YAML::Node& node;
    const Map& m;
    const std::string& scope;
    bool inherits = false;                // `extends` given
    RuleKind parentKind = RuleKind::kOp;  // the parent rule's kind when it inherits
    bool kindOk = true;                   // `kind` absent or valid
    bool inheritedOp = false;             // an op rule extending an op rule
    const Entry* qnnOp = nullptr;
    const Entry* pattern = nullptr;
    const Entry* reason = nullptr;
    const Entry* variants = nullptr;
    const Entry* addVariants = nullptr;
    const Entry* maxRank = nullptr;
    const Entry* emptyTensors = nullptr;
    std::string in(std::string_view key) const { return "'" + std::string(key) + "' in " + scope; }
  };

  std::optional<Rule> parseRule(const YAML::Node& node, size_t index) {
    const size_t before = errorCount();
    Rule rule;
    ruleId_ = peek(node, "id");
    variant_.clear();
    const std::string scope = ruleId_.empty() ? "rule #" + std::to_string(index) : "rule '" + ruleId_ + "'";
    Map m = readMap(node, scope, kRuleKeys);
    if (!m.valid) {
      ruleId_.clear();
      return std::nullopt;
    }
    RuleEntries r{node, m, scope};
    // `extends: <parent rule id>` starts the rule from the parent backend's rule: every key not
    // written here is inherited (variants narrowed to this backend, see BackendManifest.h).
    r.inherits = m.get("extends") != nullptr;
    r.parentKind = r.inherits ? parseExtends(*m.get("extends"), scope, rule) : RuleKind::kOp;
    rule.mark = mark(node);
    parseIdentity(r, rule);
    parseOpKeys(r, rule);
    checkKeysOfKind(r, rule);
    parsePortsAndVariants(r, rule);
    applyManifest(rule);

    ruleId_.clear();
    variant_.clear();
    if (errorCount() != before) return std::nullopt;
    return rule;
  }

  // id, kind, targets, description.
  void parseIdentity(RuleEntries& r, Rule& rule) {
    if (const Entry* e = r.m.get("id")) {
      if (auto s = str(e->value, r.in("id"))) rule.id = *s;
    } else {
      missing(r.node, r.m, r.scope, "id");
    }
    if (const Entry* e = r.m.get("kind")) {
      auto k = enumValue<RuleKind>(e->value, r.in("kind"), "rule kind", kKindNames, [](std::string_view s) {
        std::optional<RuleKind> parsed;
        if (s == "op") parsed = RuleKind::kOp;
        else if (s == "structural") parsed = RuleKind::kStructural;
        else if (s == "unsupported") parsed = RuleKind::kUnsupported;
        return parsed;
      });
      if (k) rule.kind = *k;
      else r.kindOk = false;
    }
    if (r.inherits && rule.kind != r.parentKind) {
      // A different kind keeps only what every kind has: targets, description, ports.
      rule.qnnOp.clear();
      rule.maxRank = 0;
      rule.reason.clear();
      rule.variants.clear();
      rule.pattern = AnnotationPattern::kNone;
    }
    r.inheritedOp = r.inherits && r.parentKind == RuleKind::kOp && rule.kind == RuleKind::kOp;
    if (const Entry* e = r.m.get("targets")) {
      rule.targets.clear();
      parseTargetList(*this, e->value, r.in("targets"), rule.targets);
    } else if (!r.inherits) {
      missing(r.node, r.m, r.scope, "targets");
    }
    if (const Entry* e = r.m.get("description")) {
      if (auto s = str(e->value, r.in("description"))) rule.description = *s;
    } else if (!r.inherits) {
      missing(r.node, r.m, r.scope, "description");
    }
  }

  // qnn_op, pattern, reason, max_rank, empty_tensors (and where variants are given).
  void parseOpKeys(RuleEntries& r, Rule& rule) {
    r.qnnOp = r.m.get("qnn_op");
    r.pattern = r.m.get("pattern");
    r.reason = r.m.get("reason");
    r.variants = r.m.get("variants");
    r.addVariants = r.m.get("add_variants");
    r.maxRank = r.m.get("max_rank");
    r.emptyTensors = r.m.get("empty_tensors");
    if (r.qnnOp) {
      if (auto s = str(r.qnnOp->value, r.in("qnn_op"))) rule.qnnOp = *s;
    }
    if (r.pattern) {
      auto p = enumValue<AnnotationPattern>(r.pattern->value, r.in("pattern"), "annotation pattern", patternNames(),
                                            [](std::string_view s) { return parsePattern(s); },
                                            DiagCode::kUnknownPattern);
      if (p) rule.pattern = *p;
    }
    if (r.reason) {
      if (auto s = str(r.reason->value, r.in("reason"))) rule.reason = *s;
    }
    if (r.maxRank) {
      if (auto v = integer(r.maxRank->value, r.in("max_rank"), 1, 64, "a rank from 1 to 64")) {
        rule.maxRank = static_cast<int>(*v);
        rule.maxRankMark = mark(r.maxRank->keyNode);
      }
    }
    if (r.emptyTensors) {
      if (auto v = enumValue<EmptyTensors>(r.emptyTensors->value, r.in("empty_tensors"), "empty-tensor behaviour",
                                           kEmptyTensorsNames, parseEmptyTensors)) {
        rule.emptyTensors = *v;
        rule.emptyTensorsMark = mark(r.emptyTensors->keyNode);
      }
    }
  }

  // The keys a rule's kind requires or forbids, and variants against add_variants.
  void checkKeysOfKind(const RuleEntries& r, const Rule& rule) {
    const std::string kindName(kKindNames[static_cast<size_t>(rule.kind)]);
    if (r.kindOk) {
      auto onlyFor = [&](const Entry* e, std::string_view kinds) {
        error(DiagCode::kInvalidValue, mark(e->keyNode),
              "'" + e->key + "' is only allowed in rules of kind " + std::string(kinds) + "; " + r.scope +
                  " has kind " + kindName,
              "no '" + e->key + "' for kind " + kindName, "'" + e->key + "' given");
      };
      auto requiredFor = [&](std::string_view key, std::string_view what) {
        error(DiagCode::kInvalidValue, mark(r.node),
              r.scope + " has kind " + kindName + " but no '" + std::string(key) + "'; kind " + kindName +
                  " requires " + std::string(what),
              "a '" + std::string(key) + "' key", r.m.keyList());
      };
      if (rule.kind == RuleKind::kOp) {
        if (!r.qnnOp && !r.inheritedOp) requiredFor("qnn_op", "the QNN op type it lowers to");
        if (!r.pattern && !r.inheritedOp) requiredFor("pattern", "an annotation pattern");
        if (!r.variants && !r.addVariants && !r.inheritedOp) requiredFor("variants", "a non-empty list of variants");
      } else {
        for (const Entry* e : {r.qnnOp, r.maxRank, r.emptyTensors, r.variants, r.addVariants})
          if (e) onlyFor(e, "op");
      }
      if (rule.kind == RuleKind::kUnsupported && !r.reason && rule.reason.empty()) requiredFor("reason", "a reason");
      if (rule.kind != RuleKind::kUnsupported && r.reason) onlyFor(r.reason, "unsupported");
    }
    if (r.variants && r.addVariants) {
      error(DiagCode::kInvalidValue, mark(r.addVariants->keyNode),
            r.scope + " gives both 'variants' and 'add_variants'; 'variants' replaces the inherited variants, "
                      "'add_variants' adds to them",
            "one of 'variants' or 'add_variants'", r.m.keyList());
    }
    if (r.addVariants && !r.inherits) {
      error(DiagCode::kInvalidValue, mark(r.addVariants->keyNode),
            "'add_variants' in " + r.scope + " adds to inherited variants, but the rule has no 'extends'",
            "'variants', or 'extends' naming the parent rule", "'add_variants' without 'extends'");
    }
  }

  // inputs, outputs, onnx, then the variants written for those ports.
  void parsePortsAndVariants(const RuleEntries& r, Rule& rule) {
    bool portsOk = true;
    const Entry* inputs = r.m.get("inputs");
    const Entry* outputs = r.m.get("outputs");
    if (r.inherits && (inputs || outputs)) {
      // New ports invalidate every inherited variant (they are written per port).
      rule.ports.clear();
      rule.variants.clear();
      if (!r.variants && rule.kind == RuleKind::kOp)
        error(DiagCode::kInvalidValue, mark((inputs ? inputs : outputs)->keyNode),
              r.scope + " redeclares its ports, so it must also give 'variants'; inherited variants are "
                        "written for the parent's ports",
              "'variants' next to 'inputs'/'outputs'", r.m.keyList());
    }
    if (inputs) portsOk &= parsePorts(inputs->value, true, r.scope, rule);
    if (outputs) portsOk &= parsePorts(outputs->value, false, r.scope, rule);
    if (const Entry* e = r.m.get("onnx")) {
      if (portsOk) parseOnnxKey(*this, e->value, r.scope, rule);
    } else if (r.inherits && (inputs || outputs)) {
      checkOnnxPorts(*this, (inputs ? inputs : outputs)->keyNode, r.scope, rule);
    }
    const bool variantsAllowed = !r.kindOk || rule.kind == RuleKind::kOp;
    if (r.variants && variantsAllowed) {
      rule.variants.clear();
      parseVariants(r.variants->value, r.scope, portsOk, rule);
    }
    if (r.addVariants && variantsAllowed && r.inherits) parseVariants(r.addVariants->value, r.scope, portsOk, rule);
    // (An unknown parent is reported by parseExtends; no second error about its variants.)
    if (r.inheritedOp && !rule.inheritedFrom.empty() && !r.variants && !r.addVariants && rule.variants.empty()) {
      error(DiagCode::kInvalidValue, mark(r.m.get("extends")->value),
            r.scope + " inherits no variant from '" + rule.inheritedFrom + "': none exists on " + backendName(),
            "at least one variant; write 'variants'", joinNotes(rule));
    }
  }

  std::string backendName() const {
    return ctx_.manifest ? ctx_.manifest->backend : std::string("this backend");
  }

  static std::string joinNotes(const Rule& r) {
    std::string s;
    for (const std::string& n : r.notes) s += (s.empty() ? "" : "; ") + n;
    return s.empty() ? "no variants" : s;
  }

  // Reads `extends`, copies the parent rule (through inheritRule) into `rule`, and returns the
  // parent's kind.
  RuleKind parseExtends(const Entry& e, const std::string& scope, Rule& rule) {
    auto s = str(e.value, "'extends' in " + scope);
    if (!s) return RuleKind::kOp;
    if (!ctx_.parent || !ctx_.manifest) {
      error(DiagCode::kInvalidValue, mark(e.value),
            "'extends' in " + scope + " names a parent rule, but " + backendName() +
                " extends no backend (its backend.yaml has no 'extends')",
            "a rule of the backend named by backend.yaml's 'extends'", clip(*s));
      return RuleKind::kOp;
    }
    const Rule* parent = ctx_.parent->findById(*s);
    if (!parent) {
      std::vector<std::string_view> ids;
      for (const Rule& r : ctx_.parent->rules()) ids.push_back(r.id);
      error(DiagCode::kInvalidValue, mark(e.value),
            "'extends' in " + scope + " names rule '" + clip(*s) + "', which backend " + ctx_.manifest->extends +
                " does not have",
            "a rule id of backend " + ctx_.manifest->extends, clip(*s), suggest(*s, ids));
      return RuleKind::kOp;
    }
    rule = inheritRule(*parent, *ctx_.manifest, mark(e.value));
    return parent->kind;
  }

  // Backend-wide facts on written variants: a datatype or encoding the backend does not have,
  // or an HTP gate on a backend without them, is an error; symmetry is applied.
  void applyManifest(Rule& rule) {
    const BackendManifest* bm = ctx_.manifest;
    if (!bm) return;
    if (!bm->quantized) rule.noQuantizedTypes = bm->whyNotQuantized;
    if (rule.kind == RuleKind::kOp && rule.maxRank == 0 && bm->maxRank != 0) {
      rule.maxRank = bm->maxRank;
      rule.maxRankMark = bm->maxRankMark;
    }
    if (rule.kind == RuleKind::kOp && rule.emptyTensors == EmptyTensors::kUnstated) {
      rule.emptyTensors = bm->emptyTensors;
      rule.emptyTensorsMark = bm->emptyTensorsMark;
    }
    for (Variant& v : rule.variants) applySymmetric(v, *bm);
  }

  // its port name, so that checking variants against the port list would mislead.
  bool parsePorts(const YAML::Node& v, bool inputs, const std::string& ruleScope, Rule& rule) {
    const char* listKey = inputs ? "inputs" : "outputs";
    const char* indexKey = inputs ? "arg" : "index";
    if (!v.IsSequence()) {
      error(DiagCode::kWrongType, mark(v), "'" + std::string(listKey) + "' in " + ruleScope +
            " must be a list of port declarations", "a list of port declarations", describe(v));
      return false;
    }
    bool allNamed = true;
    const size_t firstOfList = rule.ports.size();
    int position = 0;
    for (const YAML::Node& node : v) {
      const std::string name = peek(node, "name");
      const std::string scope = std::string(inputs ? "input" : "output") +
                                (name.empty() ? " #" + std::to_string(position + 1) : " port '" + name + "'") +
                                " of " + ruleScope;
      PortDecl port;
      port.isInput = inputs;
      port.index = position;
      port.mark = mark(node);
      ++position;
      Map m = readMap(node, scope, inputs ? Names(kInputKeys) : Names(kOutputKeys));
      if (!m.valid) {
        allNamed = false;
        continue;
      }
      auto in = [&](std::string_view key) { return "'" + std::string(key) + "' in " + scope; };
      bool named = false;
      if (const Entry* e = m.get("name")) {
        if (auto s = str(e->value, in("name"))) {
          int dup = rule.findPort(*s);
          if (dup >= 0) {
            error(DiagCode::kInvalidValue, mark(e->value),
                  "port name '" + *s + "' is declared twice in " + ruleScope + "; it is first declared at " +
                      rule.ports[static_cast<size_t>(dup)].mark.toString(),
                  "port names unique among the rule's inputs and outputs", *s);
          } else {
            named = true;
          }
          port.name = *s;
        }
      } else {
        missing(node, m, scope, "name");
      }
      if (const Entry* e = m.get(indexKey)) {
        if (auto x = integer(e->value, in(indexKey), 0, std::numeric_limits<int>::max(), "0 or greater")) {
          port.index = static_cast<int>(*x);
          for (size_t i = firstOfList; i < rule.ports.size(); ++i) {
            if (rule.ports[i].index == port.index) {
              error(DiagCode::kInvalidValue, mark(e->value),
                    std::string(inputs ? "argument " : "output index ") + std::to_string(port.index) +
                        " of " + scope + " is already bound to port '" + rule.ports[i].name + "'",
                    std::string("a ") + (inputs ? "argument position" : "output index") + " no other port uses",
                    std::to_string(port.index));
              break;
            }
          }
        }
      } else {
        for (size_t i = firstOfList; i < rule.ports.size(); ++i) {
          if (rule.ports[i].index == port.index) {
            error(DiagCode::kInvalidValue, mark(node),
                  scope + " defaults to " + (inputs ? "argument " : "output index ") +
                      std::to_string(port.index) + ", which port '" + rule.ports[i].name + "' already uses",
                  std::string("an explicit '") + indexKey + "'", std::to_string(port.index));
            break;
          }
        }
      }
      if (const Entry* e = m.get("optional")) {
        if (auto b = boolean(e->value, in("optional"))) port.optional = *b;
      }
      if (const Entry* e = m.get("variadic")) {
        if (auto b = boolean(e->value, in("variadic"))) port.variadic = *b;
      }
      // A named port is kept even when another of its keys is wrong, so that variants and
      // shared_with resolve against it; the rule is dropped anyway.
      if (named) rule.ports.push_back(std::move(port));
      else allNamed = false;
    }
    return allNamed;
  }

  void parseVariants(const YAML::Node& v, const std::string& ruleScope, bool portsOk, Rule& rule) {
    if (!v.IsSequence()) {
      error(DiagCode::kWrongType, mark(v), "'variants' in " + ruleScope + " must be a list of variants",
            "a list of variants", describe(v));
      return;
    }
    if (v.size() == 0) {
      error(DiagCode::kInvalidValue, mark(v), "'variants' in " + ruleScope + " must not be empty",
            "at least one variant", "[]");
      return;
    }
    size_t index = 0;
    for (const YAML::Node& node : v) {
      ++index;
      variant_ = peek(node, "name");
      const std::string scope =
          (variant_.empty() ? "variant #" + std::to_string(index) : "variant '" + variant_ + "'") + " of " + ruleScope;
      Variant variant;
      variant.mark = mark(node);
      Map m = readMap(node, scope, kVariantKeys);
      if (!m.valid) continue;
      auto in = [&](std::string_view key) { return "'" + std::string(key) + "' in " + scope; };
      if (const Entry* e = m.get("name")) {
        if (auto s = str(e->value, in("name"))) {
          auto dup = std::find_if(rule.variants.begin(), rule.variants.end(),
                                  [&](const Variant& x) { return x.name == *s; });
          if (dup != rule.variants.end()) {
            error(DiagCode::kInvalidValue, mark(e->value),
                  "variant name '" + *s + "' is used twice in " + ruleScope + "; it is first used at " +
                      dup->mark.toString(),
                  "variant names unique within the rule", *s);
          }
          variant.name = *s;
        }
      } else {
        missing(node, m, scope, "name");
      }
      if (const Entry* e = m.get("description")) {
        if (auto s = str(e->value, in("description"))) variant.description = *s;
      }
      if (const Entry* e = m.get("hint")) {
        if (auto s = str(e->value, in("hint"))) variant.hint = *s;
      }
      if (const Entry* e = m.get("min_arch")) parseMinArch(*this, *e, scope, backendName(), ctx_.hardware, variant);
      if (const Entry* e = m.get("max_rank")) {
        if (auto r = integer(e->value, in("max_rank"), 1, 64, "a rank from 1 to 64")) {
          variant.maxRank = static_cast<int>(*r);
          variant.maxRankMark = mark(e->keyNode);
        }
      }
      if (const Entry* e = m.get("gate_fails_at")) {
        if (auto s = str(e->value, in("gate_fails_at"))) {
          if (*s == "finalize" || *s == "validation") {
            variant.gateAtFinalize = *s == "finalize";
          } else {
            error(DiagCode::kInvalidValue, mark(e->value), "'gate_fails_at' of " + scope + " must be validation or finalize",
                  "validation or finalize", *s);
          }
          if (!m.get("min_arch"))
            error(DiagCode::kInvalidValue, mark(e->keyNode), "'gate_fails_at' of " + scope + " needs a min_arch to qualify",
                  "a min_arch beside it", "no min_arch");
        }
      }
      if (const Entry* e = m.get("ports")) {
        parseVariantPorts(e->value, scope, portsOk, rule, variant);
      } else {
        missing(node, m, scope, "ports");
      }
      rule.variants.push_back(std::move(variant));
    }
    variant_.clear();
  }

  void parseVariantPorts(const YAML::Node& v, const std::string& variantScope, bool portsOk, const Rule& rule,
                         Variant& variant) {
    variant.ports.resize(rule.ports.size());
    Map m = readMap(v, "'ports' of " + variantScope, {}, "a mapping from port name to constraint");
    if (!m.valid) return;
    std::vector<bool> seen(rule.ports.size(), false);
    std::vector<std::string_view> portNames;
    for (const PortDecl& p : rule.ports) portNames.push_back(p.name);
    for (const Entry& e : m.entries) {
      const std::string scope = "port '" + clip(e.key) + "' in " + variantScope;
      int idx = rule.findPort(e.key);
      PortConstraint c;
      parseConstraint(e, scope, rule, c);
      if (idx < 0) {
        if (portsOk) {
          error(DiagCode::kUnknownPort, mark(e.keyNode),
                variantScope + " constrains port '" + clip(e.key) + "', which the rule does not declare",
                portNames.empty() ? "no ports (the rule declares none)" : oneOf(portNames), clip(e.key),
                suggest(e.key, portNames));
        }
        continue;
      }
      seen[static_cast<size_t>(idx)] = true;
      variant.ports[static_cast<size_t>(idx)] = std::move(c);
    }
    if (!portsOk) return;
    for (size_t i = 0; i < rule.ports.size(); ++i) {
      if (seen[i]) continue;
      error(DiagCode::kMissingKey, mark(v),
            variantScope + " does not constrain port '" + rule.ports[i].name + "'; every port of the rule must appear",
            "a constraint for port '" + rule.ports[i].name + "'", m.keyList(),
            "declared at " + rule.ports[i].mark.toString());
    }
  }

  // A port constraint: each key is read by its constraint kind (load/PortConstraintParse.h).
  void parseConstraint(const Entry& entry, const std::string& scope, const Rule& rule, PortConstraint& c) {
    parsePortConstraint(*this, entry, scope, rule, ctx_.manifest, c);
  }

 private:
  RuleFileContext ctx_;
};

}  // namespace

void loadRuleText(const std::string& text, const std::string& displayPath, std::vector<Rule>& out,
                  DiagnosticList& errors, const LoadLimits& limits, const RuleFileContext& context) {
  Loader l(displayPath, errors);
  l.setContext(context);
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the rule file")) l.loadRules(*root, out);
  });
}

void loadRuleFile(const std::filesystem::path& file, const std::string& displayPath, std::vector<Rule>& out,
                  DiagnosticList& errors, const LoadLimits& limits, const RuleFileContext& context) {
  loadFileWith(file, displayPath, limits, errors, "rule file",
               [&](const std::string& text) { loadRuleText(text, displayPath, out, errors, limits, context); });
}

}  // namespace qnnrules
