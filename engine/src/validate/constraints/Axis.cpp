// axis: the channel axis a per-channel (or block-wise) encoding must use. A per-tensor
// encoding is not an axis violation; the encoding kind says whether per-channel is required.
#include <limits>

#include "ConstraintKindsList.h"

namespace qnnrules {
namespace {

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  if (auto x = p.reader.integer(e.value, what, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()))
    c.axis = static_cast<int>(*x);
}

bool active(const PortConstraint& c) { return c.axis.has_value(); }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  const QuantSpec* s = t.root();
  return c.axis && s && isPerChannel(s->qscheme) && s->chAxis.value_or(0) != *c.axis;
}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must be quantized per channel along axis " + std::to_string(c.axis.value_or(0)) + ".";
}

void explain(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  d.message = sentence(r, t.port, c);
  d.expected = "ch_axis " + std::to_string(*c.axis);
  d.actual = "ch_axis " + std::to_string(t.root()->chAxis.value_or(0));
  d.hint = "set ch_axis to " + std::to_string(*c.axis) + " for " + portName(r, t);
}

std::string summary(const Rule&, const PortConstraint& c) {
  return c.axis ? "axis " + std::to_string(*c.axis) : std::string();
}

std::string docNote(const Rule& r, const Variant&, int port, const PortConstraint& c) {
  return c.axis ? sentence(r, port, c) : "";
}

// Another axis: only a per-channel spec has one to move.
bool mutate(const PortConstraint& c, QuantSpec& s) {
  if (!c.axis || !isPerChannel(s.qscheme)) return false;
  s.chAxis = *c.axis + 1;
  return true;
}

}  // namespace

const ConstraintKind kAxisConstraint = {
    .key = "axis",
    .code = DiagCode::kAxis,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
    .mutate = mutate,
};

}  // namespace qnnrules
