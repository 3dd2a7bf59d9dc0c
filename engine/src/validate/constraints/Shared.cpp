// shared_with: the port must carry the encoding of another port of the rule (math-invariant
// ops: reshape, max, cat). Shared when both resolve to the same spec, or when independent
// specs carry the same datatype and calibrated scales and zero points.
#include <algorithm>
#include <cmath>

#include "ConstraintKindsList.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

void parse(const ConstraintParse& p, const Entry& e, const std::string& what, PortConstraint& c) {
  StrictYamlReader& r = p.reader;
  auto s = r.str(e.value, what);
  if (!s) return;
  const int idx = p.rule.findPort(*s);
  std::vector<std::string_view> names;
  for (const PortDecl& port : p.rule.ports) names.push_back(port.name);
  if (idx < 0) {
    r.error(DiagCode::kUnknownPort, r.mark(e.value), what + " names port '" + clip(*s) + "', which the rule does not declare",
            names.empty() ? "a port of the rule" : oneOf(names), clip(*s), suggest(*s, names));
  } else if (*s == p.portKey) {
    r.error(DiagCode::kInvalidValue, r.mark(e.value), what + " names the port itself", "another port of the rule",
            clip(*s));
  } else {
    c.sharedWith = idx;
  }
}

bool sharesEncoding(const BoundTensor& a, const BoundTensor& b, double tolerance) {
  if (!a.type.quantized && !b.type.quantized) return true;  // both float: nothing to share
  if (a.root() && a.root() == b.root()) return true;
  // Independent specs that happen to carry identical calibrated numbers also share.
  const QuantSpec* x = a.root();
  const QuantSpec* y = b.root();
  if (!x || !y || x->scales.empty() || y->scales.empty()) return false;
  if (a.type.datatype != b.type.datatype || x->scales.size() != y->scales.size()) return false;
  for (size_t i = 0; i < x->scales.size(); ++i)
    if (std::fabs(x->scales[i] - y->scales[i]) > tolerance * std::fabs(y->scales[i])) return false;
  auto zp = [](const QuantSpec* s, size_t i) {
    return s->zeroPoints.empty() ? 0 : s->zeroPoints[std::min(i, s->zeroPoints.size() - 1)];
  };
  for (size_t i = 0; i < x->scales.size(); ++i)
    if (zp(x, i) != zp(y, i)) return false;
  return true;
}

bool active(const PortConstraint& c) { return c.sharedWith >= 0; }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck& env) {
  if (c.sharedWith < 0) return false;
  for (const BoundTensor& other : env.bound)  // every tensor of the port (a variadic port has several)
    if (other.port == c.sharedWith && !sharesEncoding(t, other, env.scaleRelTolerance)) return true;
  return false;
}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must share the encoding of " + r.ports[c.sharedWith].name + " (math-invariant).";
}

void explain(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  const PortDecl& other = r.ports[c.sharedWith];
  d.message = sentence(r, t.port, c);
  d.expected = "the same encoding as " + portLabel(other) + " (a shared_with reference or identical scale/offset)";
  d.actual = t.spec && t.spec->isShared() ? "shared with a different encoding" : "its own encoding";
  if (t.root()) d.actual += " (" + describeQuantSpec(*t.root()) + ")";
  d.hint = "annotate " + portName(r, t) + " with shared_with the " + other.name + " edge (SharedQuantizationSpec)";
}

std::string summary(const Rule& r, const PortConstraint& c) {
  return c.sharedWith >= 0 ? "shared with " + r.ports[c.sharedWith].name : std::string();
}

std::string docNote(const Rule& r, const Variant&, int port, const PortConstraint& c) {
  return c.sharedWith >= 0 ? sentence(r, port, c) : "";
}

}  // namespace

const ConstraintKind kSharedConstraint = {
    .key = "shared_with",
    .code = DiagCode::kShared,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
};

}  // namespace qnnrules
