// bitwidth: the meaningful bits a quantized port may have (4 for int8 -8..7). The width of a
// tensor is derived from its quant range once (graph/PortType.h).
#include "ConstraintKindsList.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace {

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  strictyaml::StrictYamlReader& r = p.reader;
  const YAML::Node& v = e.value;
  auto one = [&](const YAML::Node& n) {
    if (auto x = r.integer(n, what, 1, 32, "a bit width from 1 to 32")) c.bitwidths |= uint64_t{1} << *x;
  };
  if (v.IsSequence()) {
    if (v.size() == 0) {
      r.error(DiagCode::kInvalidValue, r.mark(v), what + " must not be an empty list",
              "a bit width or a non-empty list of them", "[]");
      return;
    }
    for (const YAML::Node& n : v) one(n);
  } else if (v.IsScalar()) {
    one(v);
  } else {
    r.error(DiagCode::kWrongType, r.mark(v), what + " must be an integer or a list of integers",
            "a bit width or a list of them", strictyaml::describe(v));
  }
}

bool active(const PortConstraint& c) { return c.bitwidths != 0; }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  return c.bitwidths && t.type.quantized && !((c.bitwidths >> t.type.bitwidth) & 1);
}

void explain(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  d.message = portName(r, t) + " must have a bit width of " + bitwidthSetText(c.bitwidths) + ".";
  d.expected = bitwidthSetText(c.bitwidths) + " bits";
  d.actual = std::to_string(t.type.bitwidth) + " bits (" + (t.root() ? describeQuantSpec(*t.root()) : "") + ")";
  d.hint = "widen the quantization range of " + portName(r, t);
}

std::string summary(const Rule&, const PortConstraint& c) {
  return c.bitwidths ? bitwidthSetText(c.bitwidths) + "-bit" : std::string();
}

bool admits(const PortConstraint& c, const PortType& t) {
  return !t.quantized || !c.bitwidths || ((c.bitwidths >> t.bitwidth) & 1);
}

}  // namespace

const ConstraintKind kBitwidthConstraint = {
    .key = "bitwidth",
    .code = DiagCode::kBitwidth,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = nullptr,
    .admits = admits,
};

}  // namespace qnnrules
