// max_elements: the port's tensor holds at most N elements. QNN Prelu takes a 16-bit slope only
// when it is one value (ORT's LeakyRelu, an alpha; ExecuTorch's leaky_relu lifted to prelu, a 0-d
// slope), not a per-channel one (conformance cases leaky_relu/16a/<SoC> accepted, prelu/16a/<SoC>
// "could not create op"). A tensor of unknown shape meets it (nothing says it does not). The value
// lives in PortConstraint::kindValues.
#include "ConstraintKindsList.h"

#include <cstdint>

namespace qnnrules {
namespace {

// The kind's index in constraintKinds(), the `kind` of its KindValue.
uint16_t index() {
  static const uint16_t i = static_cast<uint16_t>(kindIndex("max_elements"));
  return i;
}

// The port's value, or null when the port does not use the kind.
const KindValue* value(const PortConstraint& c) { return c.valueOf(index()); }

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  if (auto n = p.reader.integer(e.value, what, 1, INT64_MAX)) c.kindValues.push_back({index(), *n, 0, ""});
}

bool active(const PortConstraint& c) { return value(c) != nullptr; }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck& /*env*/) {
  const KindValue* v = value(c);
  return v != nullptr && t.elements() > v->integer;
}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  const int64_t n = value(c)->integer;
  return r.ports[port].name + " must hold at most " + std::to_string(n) + (n == 1 ? " element." : " elements.");
}

void explain(const Rule& r, const Variant& /*v*/, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  d.message = sentence(r, t.port, c);
  d.expected = "at most " + std::to_string(value(c)->integer) + " element(s)";
  d.actual = std::to_string(t.elements()) + " elements";
  d.hint = "give " + portName(r, t) + " one value (a shared slope), or use 8-bit activations for this op";
}

std::string summary(const Rule& /*r*/, const PortConstraint& c) {
  const KindValue* v = value(c);
  return v ? "max_elements " + std::to_string(v->integer) : std::string();
}

std::string docNote(const Rule& r, const Variant& /*v*/, int port, const PortConstraint& c) {
  return active(c) ? sentence(r, port, c) : std::string();
}

// No `mutate`: a shape is not an encoding the mutation suite can change (the unit test and the
// prelu rule fixtures cover the kind).

}  // namespace

const ConstraintKind kMaxElementsConstraint = {
    .key = "max_elements",
    .code = DiagCode::kElements,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
};

}  // namespace qnnrules
