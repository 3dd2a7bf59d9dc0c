#include "qnnrules/validate/ConstraintText.h"

#include <cstdio>

namespace qnnrules {
namespace {

template <typename Set, typename NameFn>
std::string joinSet(Set s, NameFn name) {
  std::string out;
  int n = 0, total = 0;
  s.forEach([&](auto) { ++total; });
  s.forEach([&](auto e) {
    if (n > 0) out += (n == total - 1) ? " or " : ", ";
    out += name(e);
    ++n;
  });
  return out;
}

std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string portLabel(const PortDecl& port, int listIndex, int position) {
  std::string s = port.isInput ? "in[" : "out[";
  s += std::to_string(position >= 0 ? position : static_cast<int>(port.index));
  s += ']';
  if (listIndex >= 0) {
    s += '[';
    s += std::to_string(listIndex);
    s += ']';
  }
  s += ' ';
  s += port.name;
  return s;
}

std::string datatypeSetText(DatatypeSet s) {
  return joinSet(s, [](QnnDatatype t) { return std::string(datatypeName(t)); });
}

std::string encodingSetText(EncodingSet s) {
  return joinSet(s, [](Encoding e) { return std::string(encodingName(e)); });
}

std::string bitwidthSetText(uint64_t mask) {
  std::string out;
  int total = 0, n = 0;
  for (int b = 1; b < 64; ++b) total += (mask >> b) & 1;
  for (int b = 1; b < 64; ++b) {
    if (!((mask >> b) & 1)) continue;
    if (n > 0) out += (n == total - 1) ? " or " : ", ";
    out += std::to_string(b);
    ++n;
  }
  return out;
}

std::string scaleText(const PortConstraint& c) {
  if (!c.scale) return {};
  std::string v = formatDouble(*c.scale);
  if (!c.scaleText.empty() && c.scaleText != v) return c.scaleText + " (" + v + ")";
  return v;
}

std::string datatypeSentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must be " + datatypeSetText(c.datatypes) + ".";
}

std::string encodingSentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must use " + encodingSetText(c.encodings) + " encoding.";
}

std::string bitwidthSentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must have a bit width of " + bitwidthSetText(c.bitwidths) + ".";
}

std::string symmetricSentence(const Rule& r, int port, const PortConstraint&) {
  return r.ports[port].name +
         " must be symmetrically quantized (offset 0 for SFIXED, -2^(n-1) for UFIXED).";
}

std::string axisSentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must be quantized per channel along axis " +
         std::to_string(c.axis.value_or(0)) + ".";
}

std::string fixedQParamsSentence(const Rule& r, int port, const PortConstraint& c) {
  std::string s = r.ports[port].name + " must have";
  if (c.scale) s += " scale " + scaleText(c);
  if (c.scale && c.offset) s += " and";
  if (c.offset) s += " offset " + std::to_string(*c.offset);
  return s + ".";
}

std::string sharedSentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must share the encoding of " + r.ports[c.sharedWith].name +
         " (math-invariant).";
}

std::string gateSentence(const Rule& r, const Variant& v) {
  if (!v.description.empty()) return v.description;
  return "variant " + v.name + " of " + r.id + " needs HTP " + std::string(htpArchName(v.minArch)) +
         " or newer.";
}

std::string constraintSummary(const Rule& r, const PortConstraint& c) {
  std::string s = datatypeSetText(c.datatypes);
  if (!c.encodings.empty()) s += "; " + encodingSetText(c.encodings);
  if (c.bitwidths) s += "; " + bitwidthSetText(c.bitwidths) + "-bit";
  if (c.symmetric.value_or(false)) s += "; symmetric";
  if (c.axis) s += "; axis " + std::to_string(*c.axis);
  if (c.scale) s += "; scale " + scaleText(c);
  if (c.offset) s += "; offset " + std::to_string(*c.offset);
  if (c.sharedWith >= 0) s += "; shared with " + r.ports[c.sharedWith].name;
  return s;
}

}  // namespace qnnrules
