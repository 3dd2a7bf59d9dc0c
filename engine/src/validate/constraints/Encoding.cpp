// encoding: the QNN quantization encodings a port accepts (SCALE_OFFSET, AXIS_SCALE_OFFSET,
// BW_*, BLOCKWISE_EXPANSION for block-wise/LPBQ weights). The encoding a tensor has is
// derived from its annotation once (graph/PortType.h).
#include "ConstraintKindsList.h"
#include "qnnrules/validate/ConstraintText.h"
#include "model/EnumNames.h"

namespace qnnrules {
namespace {

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  p.reader.enumList<Encoding>(e.value, what, "encoding", encodingNames(),
                              [](std::string_view s) { return parseEncoding(s); },
                              [&](Encoding x) { c.encodings.insert(x); });
  if (p.manifest && p.manifest->encodings)
    checkInsideBackend(p, c.encodings, *p.manifest->encodings, e.value, what, "encoding",
                       [](Encoding x) { return encodingName(x); });
}

bool active(const PortConstraint& c) { return !c.encodings.empty(); }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  return !c.encodings.empty() && t.type.encoding && !c.encodings.contains(*t.type.encoding);
}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must use " + encodingSetText(c.encodings) + " encoding.";
}

void explain(const Rule& r, const Variant& v, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  d.message = sentence(r, t.port, c);
  d.expected = encodingSetText(c.encodings);
  d.actual = actualOf(t);
  d.hint = "annotate " + portName(r, t) + " with an encoding of variant " + v.name;
}

std::string summary(const Rule&, const PortConstraint& c) {
  return c.encodings.empty() ? std::string() : encodingSetText(c.encodings);
}

bool admits(const PortConstraint& c, const PortType& t) {
  return !t.encoding || c.encodings.empty() || c.encodings.contains(*t.encoding);
}

// Per-tensor <-> per-channel, and block-wise -> per-channel.
bool mutate(const PortConstraint& c, QuantSpec& s) {
  if (c.encodings.empty()) return false;
  if (!s.blockSize.empty()) {
    s.blockSize.clear();
  } else if (isPerChannel(s.qscheme)) {
    s.qscheme = isSymmetric(s.qscheme) ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
    s.chAxis.reset();
    s.scales.resize(1);
    s.zeroPoints.resize(1);
  } else {
    s.qscheme = isSymmetric(s.qscheme) ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
    s.chAxis = c.axis.value_or(0);
    s.scales.push_back(s.scales.front() * 2);
    s.zeroPoints.push_back(s.zeroPoints.front());
  }
  return true;
}

}  // namespace

const ConstraintKind kEncodingConstraint = {
    .key = "encoding",
    .code = DiagCode::kEncoding,
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = nullptr,
    .admits = admits,
    .mutate = mutate,
};

}  // namespace qnnrules
