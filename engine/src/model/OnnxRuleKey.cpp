#include "OnnxRuleKey.h"

#include "OnnxOpTypes.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 4> kEntryKeys = {"op", "aten", "inputs", "when"};
constexpr std::array<std::string_view, 3> kWhenKeys = {"rank", "constant_inputs", "activation_inputs"};
constexpr int kMaxInputs = 64;
constexpr int kMaxRank = 8;

class OnnxKeyReader {
 public:
  OnnxKeyReader(StrictYamlReader& r, const std::string& ruleScope, Rule& rule)
      : r_(r), ruleScope_(ruleScope), rule_(rule) {}

  void read(const YAML::Node& v) {
    rule_.onnx.clear();
    if (!v.IsSequence()) {
      r_.error(DiagCode::kWrongType, r_.mark(v), "'onnx' in " + ruleScope_ + " must be a list of ONNX op entries",
               "a list of op types or {op, inputs, when} mappings", describe(v),
               v.IsScalar() ? "write [" + clip(v.Scalar()) + "]" : "");
      return;
    }
    size_t index = 0;
    for (const YAML::Node& e : v) {
      ++index;
      if (auto m = entry(e, index)) {
        for (const OnnxMapping& earlier : rule_.onnx) {
          if (!onnxConditionsOverlap(earlier, *m)) continue;
          r_.error(DiagCode::kDuplicateTarget, m->mark,
                   "ONNX entry '" + describeOnnxMapping(*m) + "' of " + ruleScope_ + " overlaps the entry at " +
                       earlier.mark.toString() + "; one node would match both",
                   "conditions (when) that separate entries of the same op type", describeOnnxMapping(earlier));
          break;
        }
        rule_.onnx.push_back(std::move(*m));
      }
    }
  }

 private:
  std::optional<OnnxMapping> entry(const YAML::Node& node, size_t index) {
    const std::string scope = "ONNX entry #" + std::to_string(index) + " of " + ruleScope_;
    OnnxMapping m;
    m.mark = r_.mark(node);
    const size_t before = r_.errorCount();
    if (node.IsScalar()) {  // the short form: just the op type
      opType(node, scope, m);
      return r_.errorCount() == before ? std::optional(m) : std::nullopt;
    }
    Map map = r_.readMap(node, scope, kEntryKeys, "an op type, or a mapping with keys op, inputs, when");
    if (!map.valid) return std::nullopt;
    if (const Entry* e = map.get("op")) opType(e->value, scope, m);
    else r_.missing(node, map, scope, "op");
    if (const Entry* e = map.get("aten")) aten(e->value, scope, m);
    if (const Entry* e = map.get("inputs")) inputs(e->value, scope, m);
    if (const Entry* e = map.get("when")) when(e->value, scope, m);
    return r_.errorCount() == before ? std::optional(m) : std::nullopt;
  }

  void opType(const YAML::Node& v, const std::string& scope, OnnxMapping& m) {
    auto s = r_.str(v, "the op type of " + scope);
    if (!s) return;
    // com.microsoft::<op>: ONNX Runtime's contrib ops that its QNN EP lowers (its op builders
    // are registered by op type, whatever the domain).
    constexpr std::string_view kContrib = "com.microsoft::";
    if (std::string_view(*s).substr(0, kContrib.size()) == kContrib) {
      const std::span<const std::string_view> contrib = onnxContribOpTypes();
      const std::string_view op = std::string_view(*s).substr(kContrib.size());
      if (!std::binary_search(contrib.begin(), contrib.end(), op)) {
        std::vector<std::string> full;
        for (std::string_view c : contrib) full.push_back(std::string(kContrib) + std::string(c));
        std::vector<std::string_view> names(full.begin(), full.end());
        r_.error(DiagCode::kUnknownEnumValue, r_.mark(v), "unknown ONNX op type '" + clip(*s) + "' in " + scope,
                 "an ONNX Runtime contrib op type (com.microsoft::<op>, case matters)", clip(*s), suggest(*s, names));
        return;
      }
      m.opType = *s;
      return;
    }
    const std::span<const std::string_view> known = onnxDefaultDomainOpTypes();
    if (!std::binary_search(known.begin(), known.end(), std::string_view(*s))) {
      std::vector<std::string_view> names(known.begin(), known.end());
      r_.error(DiagCode::kUnknownEnumValue, r_.mark(v), "unknown ONNX op type '" + clip(*s) + "' in " + scope,
               "an op type of the ONNX default domain (case matters)", clip(*s), suggest(*s, names));
      return;
    }
    m.opType = *s;
  }

  // aten: which of the rule's targets a matched node is reported as.
  void aten(const YAML::Node& v, const std::string& scope, OnnxMapping& m) {
    auto s = r_.str(v, "'aten' of " + scope);
    if (!s) return;
    if (std::find(rule_.targets.begin(), rule_.targets.end(), *s) == rule_.targets.end()) {
      std::vector<std::string_view> names(rule_.targets.begin(), rule_.targets.end());
      r_.error(DiagCode::kInvalidValue, r_.mark(v), "'aten' of " + scope + " is '" + clip(*s) + "', which is not a target of " + ruleScope_,
               "one of the rule's targets", clip(*s), suggest(*s, names));
      return;
    }
    m.aten = *s;
  }

  // inputs: [port or null, ...]: ONNX input i -> the rule's input port of that name.
  void inputs(const YAML::Node& v, const std::string& scope, OnnxMapping& m) {
    const std::string what = "'inputs' of " + scope;
    if (!v.IsSequence() || v.size() == 0 || v.size() > kMaxInputs) {
      r_.error(DiagCode::kWrongType, r_.mark(v), what + " must be a non-empty list of port names (null: not checked)",
               "a list like [input, weight, bias]", describe(v));
      return;
    }
    size_t position = 0;
    for (const YAML::Node& p : v) {
      ++position;
      if (p.IsNull()) {
        m.inputs.emplace_back();
        continue;
      }
      auto s = r_.str(p, "an element of " + what);
      if (!s) continue;
      if (s->size() > 3 && s->ends_with("...")) {
        if (position != v.size()) {
          r_.error(DiagCode::kInvalidValue, r_.mark(p), what + ": only the last port may take the rest ('" + clip(*s) + "')",
                   "'name...' as the last element", clip(*s));
          continue;
        }
        s->resize(s->size() - 3);
        m.restAsList = true;
      }
      int port = rule_.findPort(*s);
      if (port < 0 || !rule_.ports[static_cast<size_t>(port)].isInput) {
        r_.error(DiagCode::kUnknownPort, r_.mark(p), what + " names '" + clip(*s) + "', which is not an input port of " +
                     ruleScope_, "one of: " + inputPortList(), clip(*s), suggest(*s, inputPortNames()));
        continue;
      }
      if (std::find(m.inputs.begin(), m.inputs.end(), *s) != m.inputs.end()) {
        r_.error(DiagCode::kInvalidValue, r_.mark(p), what + " names port '" + *s + "' twice",
                 "each port at most once", clip(*s));
        continue;
      }
      m.inputs.push_back(*s);
    }
  }

  void when(const YAML::Node& v, const std::string& scope, OnnxMapping& m) {
    const std::string whenScope = "'when' of " + scope;
    Map map = r_.readMap(v, whenScope, kWhenKeys);
    if (!map.valid) return;
    if (v.size() == 0)  // (unknown keys are reported on their own)
      r_.error(DiagCode::kInvalidValue, r_.mark(v), whenScope + " is empty", "at least one condition", "{}");
    if (const Entry* e = map.get("rank")) ints(e->value, "'rank' in " + whenScope, 0, kMaxRank, m.ranks);
    if (const Entry* e = map.get("constant_inputs"))
      ints(e->value, "'constant_inputs' in " + whenScope, 0, kMaxInputs - 1, m.constantInputs);
    if (const Entry* e = map.get("activation_inputs"))
      ints(e->value, "'activation_inputs' in " + whenScope, 0, kMaxInputs - 1, m.activationInputs);
    for (int i : m.constantInputs)
      if (std::find(m.activationInputs.begin(), m.activationInputs.end(), i) != m.activationInputs.end())
        r_.error(DiagCode::kInvalidValue, r_.mark(v),
                 whenScope + " wants input " + std::to_string(i) + " both constant and not constant",
                 "each input in at most one of constant_inputs, activation_inputs", std::to_string(i));
  }

  // An int or a list of ints, each within [min, max], each once.
  void ints(const YAML::Node& v, const std::string& what, int min, int max, std::vector<int>& out) {
    auto one = [&](const YAML::Node& x) {
      if (auto i = r_.integer(x, what, min, max)) {
        if (std::find(out.begin(), out.end(), static_cast<int>(*i)) != out.end())
          r_.error(DiagCode::kInvalidValue, r_.mark(x), what + " lists " + std::to_string(*i) + " twice",
                   "each value once", std::to_string(*i));
        else
          out.push_back(static_cast<int>(*i));
      }
    };
    if (v.IsSequence() && v.size() > 0) {
      for (const YAML::Node& x : v) one(x);
    } else if (v.IsScalar()) {
      one(v);
    } else {
      r_.error(DiagCode::kWrongType, r_.mark(v), what + " must be an integer or a non-empty list of integers",
               "an integer or a list of integers", describe(v));
    }
  }

  std::vector<std::string_view> inputPortNames() const {
    std::vector<std::string_view> v;
    for (const PortDecl& p : rule_.ports)
      if (p.isInput) v.push_back(p.name);
    return v;
  }
  std::string inputPortList() const {
    std::string s;
    for (std::string_view n : inputPortNames()) s += (s.empty() ? "" : ", ") + std::string(n);
    return s.empty() ? "(the rule has no input ports)" : s;
  }

  StrictYamlReader& r_;
  const std::string& ruleScope_;
  Rule& rule_;
};

}  // namespace

void parseOnnxKey(StrictYamlReader& reader, const YAML::Node& value, const std::string& ruleScope, Rule& rule) {
  OnnxKeyReader(reader, ruleScope, rule).read(value);
}

void checkOnnxPorts(StrictYamlReader& reader, const YAML::Node& at, const std::string& ruleScope, const Rule& rule) {
  for (const OnnxMapping& m : rule.onnx)
    for (const std::string& p : m.inputs)
      if (!p.empty() && rule.findPort(p) < 0)
        reader.error(DiagCode::kUnknownPort, reader.mark(at),
                     ruleScope + " redeclares its ports, and the inherited ONNX entry '" + describeOnnxMapping(m) +
                         "' names port '" + p + "', which no longer exists",
                     "an 'onnx' key for the new ports", p);
}

}  // namespace qnnrules
