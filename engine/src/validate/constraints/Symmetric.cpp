// symmetric: the port must be symmetrically quantized, i.e. a symmetric qscheme whose zero
// points are all the datatype's symmetric one (0 for SFIXED, 2^(n-1) for UFIXED). Whether a
// tensor is, is a fact computed once per tensor (BoundTensor::symmetric).
#include "ConstraintKindsList.h"

namespace qnnrules {
namespace {

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  if (auto b = p.reader.boolean(e.value, what)) c.symmetric = *b;
}

bool active(const PortConstraint& c) { return c.symmetric.value_or(false); }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  return c.symmetric.value_or(false) && t.root() && !t.symmetric();
}

std::string sentence(const Rule& r, int port) {
  return r.ports[port].name + " must be symmetrically quantized (offset 0 for SFIXED, -2^(n-1) for UFIXED).";
}

void explain(const Rule& r, const Variant&, const PortConstraint&, const BoundTensor& t, Diagnostic& d) {
  const QuantSpec* s = t.root();
  d.message = sentence(r, t.port);
  d.expected = "per_tensor_symmetric or per_channel_symmetric, QNN offset " +
               std::to_string(symmetricOffset(t.type.datatype));
  d.actual = s ? describeQuantSpec(*s) : "";
  if (s && !s->zeroPoints.empty()) d.actual += ", zero_point " + std::to_string(s->zeroPoints[0]);
  d.hint = "quantize " + portName(r, t) + " with a symmetric qscheme";
}

std::string summary(const Rule&, const PortConstraint& c) {
  return c.symmetric.value_or(false) ? "symmetric" : "";
}

std::string docNote(const Rule& r, const Variant&, int port, const PortConstraint& c) {
  return c.symmetric.value_or(false) ? sentence(r, port) : "";
}

bool mutate(const PortConstraint& c, QuantSpec& s) {
  if (!c.symmetric.value_or(false)) return false;
  s.qscheme = isPerChannel(s.qscheme) ? QScheme::kPerChannelAffine : QScheme::kPerTensorAffine;
  for (int64_t& zp : s.zeroPoints) zp += 1;
  return true;
}

}  // namespace

const ConstraintKind kSymmetricConstraint = {
    .key = "symmetric",
    .code = DiagCode::kSymmetric,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
    .mutate = mutate,
};

}  // namespace qnnrules
