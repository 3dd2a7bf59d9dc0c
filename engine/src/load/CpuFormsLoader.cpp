#include "CpuFormsLoader.h"

#include <algorithm>
#include <array>

#include "model/CpuFormTests.h"
#include "model/OnnxOpTypes.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 8> kFormKeys = {"id", "op", "when", "message", "expected", "hint", "source", "outcome"};
constexpr std::array<std::string_view, 6> kTestKeys = {"default", "in", "not_in", "last_axis", "form", "not_form"};

// A scalar attribute value: a number (ONNX INT or FLOAT) or a string.
struct Scalar {
  std::optional<double> number;
  std::optional<std::string> text;
};

Scalar scalar(StrictYamlReader& r, const YAML::Node& v, const std::string& what) {
  Scalar s;
  if (v.IsScalar() && isPlain(v) && (looksInt(v.Scalar()) || looksFloat(v.Scalar()))) {
    s.number = parseNumber(v.Scalar());
    if (!s.number) r.error(DiagCode::kWrongType, r.mark(v), what + " must be a number or a string", "a number", clip(v.Scalar()));
    return s;
  }
  s.text = r.str(v, what);
  return s;
}

void scalars(StrictYamlReader& r, const YAML::Node& v, const std::string& what, std::vector<double>& numbers,
             std::vector<std::string>& texts) {
  if (!v.IsSequence() || v.size() == 0) {
    r.error(DiagCode::kWrongType, r.mark(v), what + " must be a non-empty list of values", "a list", describe(v));
    return;
  }
  for (const YAML::Node& item : v) {
    Scalar s = scalar(r, item, what);
    if (s.number) numbers.push_back(*s.number);
    if (s.text) texts.push_back(std::move(*s.text));
  }
}

void ranks(StrictYamlReader& r, const YAML::Node& v, const std::string& what, std::vector<int>& out) {
  if (v.IsScalar()) {
    if (auto x = r.integer(v, what, 0, 64)) out.push_back(static_cast<int>(*x));
    return;
  }
  if (!v.IsSequence() || v.size() == 0) {
    r.error(DiagCode::kWrongType, r.mark(v), what + " must be a rank or a non-empty list of ranks", "a list", describe(v));
    return;
  }
  for (const YAML::Node& item : v)
    if (auto x = r.integer(item, what, 0, 64)) out.push_back(static_cast<int>(*x));
}

std::optional<std::string> formOp(StrictYamlReader& r, const YAML::Node& v, const std::string& scope) {
  auto s = r.str(v, "'op' of " + scope);
  if (!s) return std::nullopt;
  // An ATen target, as a .pt2 names it: "aten.<op>.<overload>".
  if (std::string_view(*s).starts_with("aten.")) {
    const size_t dot = s->find('.', 5);
    if (dot == std::string::npos || dot == 5 || dot + 1 == s->size() || s->find('.', dot + 1) != std::string::npos) {
      r.error(DiagCode::kInvalidValue, r.mark(v), "'" + clip(*s) + "' in " + scope + " is not an ATen target",
              "aten.<op>.<overload> (e.g. aten.silu.default)", clip(*s));
      return std::nullopt;
    }
    return *s;
  }
  constexpr std::string_view kContrib = "com.microsoft::";
  const bool contrib = std::string_view(*s).starts_with(kContrib);
  const std::span<const std::string_view> known = contrib ? onnxContribOpTypes() : onnxDefaultDomainOpTypes();
  const std::string_view op = contrib ? std::string_view(*s).substr(kContrib.size()) : std::string_view(*s);
  if (!std::binary_search(known.begin(), known.end(), op)) {
    std::vector<std::string_view> names(known.begin(), known.end());
    r.error(DiagCode::kUnknownEnumValue, r.mark(v), "unknown ONNX op type '" + clip(*s) + "' in " + scope,
            contrib ? "an ONNX Runtime contrib op type" : "an op type of the ONNX default domain (case matters)", clip(*s),
            suggest(op, names));
    return std::nullopt;
  }
  return contrib ? *s : "onnx::" + *s;  // Graph::sourceOp's spelling
}

std::optional<AttributeTest> test(StrictYamlReader& r, const Entry& e, const std::string& scope) {
  AttributeTest t;
  t.attribute = e.key;
  const std::string where = "'" + e.key + "' of " + scope;
  Map m = r.readMap(e.value, where, kTestKeys, "a mapping with keys default, in, not_in, last_axis, form, not_form");
  if (!m.valid) return std::nullopt;
  if (const Entry* x = m.get("default")) {
    Scalar s = scalar(r, x->value, "'default' of " + where);
    t.fallbackNumber = s.number;
    t.fallbackString = std::move(s.text);
  }
  if (const Entry* x = m.get("in")) scalars(r, x->value, "'in' of " + where, t.inNumbers, t.inStrings);
  if (const Entry* x = m.get("not_in")) scalars(r, x->value, "'not_in' of " + where, t.notInNumbers, t.notInStrings);
  if (const Entry* x = m.get("last_axis")) t.lastAxis = r.boolean(x->value, "'last_axis' of " + where);
  for (std::string_view key : {std::string_view("form"), std::string_view("not_form")}) {
    const Entry* x = m.get(key);
    if (!x) continue;
    auto s = r.str(x->value, "'" + std::string(key) + "' of " + where);
    if (!s) continue;
    const std::span<const std::string_view> names = cpuFormTestNames();
    if (!std::binary_search(names.begin(), names.end(), std::string_view(*s))) {
      r.error(DiagCode::kUnknownEnumValue, r.mark(x->value), "unknown form test '" + clip(*s) + "' in " + where,
              oneOf(names), clip(*s), suggest(*s, names));
      continue;
    }
    if (!t.form.empty())
      r.error(DiagCode::kInvalidValue, r.mark(x->keyNode), where + " has both form and not_form", "one of them", "both");
    t.form = *s;
    t.formNegated = key == "not_form";
  }
  if (t.inNumbers.empty() && t.inStrings.empty() && t.notInNumbers.empty() && t.notInStrings.empty() && !t.lastAxis &&
      t.form.empty())
    r.error(DiagCode::kMissingKey, r.mark(e.value), where + " tests nothing", "one of in, not_in, last_axis, form, not_form",
            "none");
  return t;
}

void readForm(StrictYamlReader& r, const YAML::Node& v, std::vector<CpuForm>& out) {
  const std::string scope = "a cpu form of 'cpu_forms'";
  Map m = r.readMap(v, scope, kFormKeys, "a mapping with keys id, op, when, message, expected");
  if (!m.valid) return;
  CpuForm f;
  f.mark = r.mark(v);
  const size_t before = r.errorCount();
  auto text = [&](std::string_view key, std::string& into, bool required) {
    if (const Entry* x = m.get(key)) {
      if (auto s = r.str(x->value, "'" + std::string(key) + "' of " + scope)) into = *s;
    } else if (required) {
      r.missing(v, m, scope, key);
    }
  };
  text("id", f.id, true);
  text("message", f.message, true);
  text("expected", f.expected, true);
  text("hint", f.hint, false);
  std::string source;
  text("source", source, false);  // where the check is written (a comment the loader keeps out of reports)
  if (const Entry* x = m.get("op")) {
    if (auto op = formOp(r, x->value, scope)) f.op = *op;
  } else {
    r.missing(v, m, scope, "op");
  }
  if (const Entry* x = m.get("when")) {
    Map w = r.readMap(x->value, "'when' of " + scope, {}, "a mapping of attribute names to tests");
    for (const Entry& a : w.entries) {
      if (a.key == "rank") {  // not an attribute: the ranks of input 0 the form applies to
        ranks(r, a.value, "'rank' of 'when' of " + scope, f.ranks);
        continue;
      }
      if (a.key == "quantized") {  // not an attribute: whether a port of the node is quantized
        if (auto b = r.boolean(a.value, "'quantized' of 'when' of " + scope)) f.quantized = *b;
        continue;
      }
      if (a.key == "arguments_below") {  // not an attribute: the count of positional arguments
        if (auto n = r.integer(a.value, "'arguments_below' of 'when' of " + scope, 1, 64)) f.argumentsBelow = static_cast<int>(*n);
        continue;
      }
      if (auto t = test(r, a, "'when' of " + scope)) f.when.push_back(std::move(*t));
    }
    if (w.valid && f.when.empty() && f.ranks.empty() && !f.quantized && f.argumentsBelow == 0)
      r.error(DiagCode::kMissingKey, r.mark(x->value), "'when' of " + scope + " names no attribute", "an attribute test",
              "none");
  } else {
    r.missing(v, m, scope, "when");
  }
  if (const Entry* x = m.get("outcome")) {
    if (auto s = r.str(x->value, "'outcome' of " + scope)) {
      if (*s == "lowering_fails") f.failsLowering = true;
      else if (*s != "cpu")
        r.error(DiagCode::kInvalidValue, r.mark(x->value), "'outcome' of " + scope + " must be cpu or lowering_fails",
                "cpu or lowering_fails", clip(*s));
    }
  }
  for (const CpuForm& other : out)
    if (!f.id.empty() && other.id == f.id)
      r.error(DiagCode::kDuplicateRuleId, r.mark(v), "cpu form '" + clip(f.id) + "' is given twice", "a unique id",
              clip(f.id), "the first is at " + other.mark.toString());
  if (r.errorCount() == before) out.push_back(std::move(f));
}

}  // namespace

void readCpuForms(StrictYamlReader& r, const YAML::Node& list, std::vector<CpuForm>& out) {
  if (!list.IsSequence()) {
    r.error(DiagCode::kWrongType, r.mark(list), "'cpu_forms' must be a list of forms", "a list", describe(list));
    return;
  }
  for (const YAML::Node& v : list) readForm(r, v, out);
}

}  // namespace qnnrules
