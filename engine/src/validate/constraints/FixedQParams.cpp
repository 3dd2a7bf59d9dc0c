// scale and offset: fixed quantization parameters (sigmoid's output is 1/256, offset 0). One
// concept with two keys: both report the same sentence ("output must have scale 1/256 and
// offset 0."), and a passing variant whose fixed values cannot be compared yet (no
// calibrated scale or zero point in the annotation) is one `unverifiable` warning per port.
#include <cmath>
#include <limits>

#include "ConstraintKindsList.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  std::string s = r.ports[port].name + " must have";
  if (c.scale) s += " scale " + scaleText(c);
  if (c.scale && c.offset) s += " and";
  if (c.offset) s += " offset " + std::to_string(*c.offset);
  return s + ".";
}

std::string hint(const Rule& r, const BoundTensor& t) {
  return "use fixed quantization parameters for " + portName(r, t) +
         " (a FixedQParams observer), not a calibrated range";
}

void parseScale(const ConstraintParse& p, const Entry& e, const std::string& what, PortConstraint& c) {
  StrictYamlReader& r = p.reader;
  const YAML::Node& v = e.value;
  const char* expected = "a positive number or a fraction \"a/b\"";
  if (!v.IsScalar() || (isPlain(v) && looksBool(v.Scalar()))) {
    r.error(DiagCode::kWrongType, r.mark(v), what + " must be a number or a string \"a/b\"", expected, describe(v));
    return;
  }
  const std::string& s = v.Scalar();
  std::optional<double> x;
  if (isPlain(v) && (looksInt(s) || looksFloat(s))) {
    x = parseNumber(s);  // rejects hex, octal, .inf and .nan
    if (!x) {
      r.error(DiagCode::kInvalidValue, r.mark(v), what + " must be a positive finite decimal number", expected,
              describe(v));
      return;
    }
  } else {
    x = parseFraction(s);
    if (!x) {
      r.error(DiagCode::kInvalidValue, r.mark(v), what + " '" + clip(s) + "' is not a number or a fraction \"a/b\"",
              "a positive number or a fraction \"a/b\" such as \"1/256\"", describe(v));
      return;
    }
  }
  if (*x <= 0) {
    r.error(DiagCode::kInvalidValue, r.mark(v), what + " must be greater than 0", "a positive number", describe(v));
    return;
  }
  c.scale = *x;
  c.scaleText = s;
}

void parseOffset(const ConstraintParse& p, const Entry& e, const std::string& what, PortConstraint& c) {
  if (auto x = p.reader.integer(e.value, what, std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max()))
    c.offset = *x;
}

bool scaleActive(const PortConstraint& c) { return c.scale.has_value(); }

bool offsetActive(const PortConstraint& c) { return c.offset.has_value(); }

bool scaleViolated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck& env) {
  const QuantSpec* s = t.root();
  if (!s || !c.scale) return false;
  if (s->scales.size() > 1) return true;  // per-channel scales are never one fixed scale
  return s->scales.size() == 1 && std::fabs(s->scales[0] - *c.scale) > env.scaleRelTolerance * *c.scale;
}

bool offsetViolated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  const QuantSpec* s = t.root();
  return s && c.offset && !s->zeroPoints.empty() && -s->zeroPoints[0] != *c.offset;
}

void explainScale(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  const QuantSpec* s = t.root();
  d.message = sentence(r, t.port, c);
  d.expected = "scale " + scaleText(c);
  if (s->scales.size() == 1) {
    d.actual = "scale " + formatDouble(s->scales[0]);
    if (s->scales[0] > 0) d.actual += " (= 1/" + formatDouble(1.0 / s->scales[0]) + ")";
  } else {
    d.actual = std::to_string(s->scales.size()) + " per-channel scales";
  }
  d.hint = hint(r, t);
}

void explainOffset(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  const QuantSpec* s = t.root();
  d.message = sentence(r, t.port, c);
  d.expected = "offset " + std::to_string(*c.offset) + " (zero_point " + std::to_string(-*c.offset) + ")";
  d.actual = "offset " + std::to_string(-s->zeroPoints[0]) + " (zero_point " + std::to_string(s->zeroPoints[0]) + ")";
  d.hint = hint(r, t);
}

std::string scaleSummary(const Rule&, const PortConstraint& c) { return c.scale ? "scale " + scaleText(c) : ""; }

std::string offsetSummary(const Rule&, const PortConstraint& c) {
  return c.offset ? "offset " + std::to_string(*c.offset) : std::string();
}

// Both keys give the same note; the docs list a sentence once.
std::string docNote(const Rule& r, const Variant& v, int port, const PortConstraint& c) {
  return c.scale || c.offset ? v.name + ": " + sentence(r, port, c) : "";
}

// Registered on the scale kind only, and covers both keys, so a port with a fixed scale and
// offset gets one warning.
bool unverifiable(const PortConstraint& c, const BoundTensor& t) {
  const QuantSpec* s = t.root();
  return s && ((c.scale && s->scales.empty()) || (c.offset && s->zeroPoints.empty()));
}

void explainUnverifiable(const Rule& r, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  const QuantSpec* s = t.root();
  const bool scaleUnknown = c.scale && s->scales.empty();
  d.message = sentence(r, t.port, c) + " This cannot be checked: the annotation has no " +
              (scaleUnknown ? "scale" : "zero_point") + " yet.";
  d.expected = c.scale ? "scale " + scaleText(c) : "offset " + std::to_string(*c.offset);
  d.actual = "no " + std::string(scaleUnknown ? "scale" : "zero_point") + " in the annotation";
  d.hint = "validate after calibration, or annotate the fixed scale and zero_point";
}

bool mutateScale(const PortConstraint& c, QuantSpec& s) {
  if (!c.scale || s.scales.empty()) return false;
  s.scales = {s.scales.front() * 2};
  s.zeroPoints.resize(1);
  return true;
}

bool mutateOffset(const PortConstraint& c, QuantSpec& s) {
  if (!c.offset || s.zeroPoints.empty()) return false;
  for (int64_t& zp : s.zeroPoints) zp += 1;
  return true;
}

}  // namespace

const ConstraintKind kScaleConstraint = {
    .key = "scale",
    .code = DiagCode::kFixedScale,
    .parse = parseScale,
    .active = scaleActive,
    .violated = scaleViolated,
    .explain = explainScale,
    .summary = scaleSummary,
    .docNote = docNote,
    .unverifiable = unverifiable,
    .explainUnverifiable = explainUnverifiable,
    .mutate = mutateScale,
};

const ConstraintKind kOffsetConstraint = {
    .key = "offset",
    .code = DiagCode::kFixedOffset,
    .parse = parseOffset,
    .active = offsetActive,
    .violated = offsetViolated,
    .explain = explainOffset,
    .summary = offsetSummary,
    .docNote = docNote,
    .mutate = mutateOffset,
};

}  // namespace qnnrules
