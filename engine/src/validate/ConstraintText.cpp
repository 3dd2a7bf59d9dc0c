#include "qnnrules/validate/ConstraintText.h"

#include "validate/constraints/ArchGate.h"
#include "validate/constraints/ConstraintKind.h"

namespace qnnrules {
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

std::string rankLimitSentence(const Rule& r, int limit) {
  if (limit == 0) limit = r.maxRank;
  if (limit == 0) return "";
  return "QNN " + r.qnnOp + " takes tensors of rank " + std::to_string(limit) + " or less.";
}

std::string emptyTensorSentence(const Rule& r) {
  switch (r.emptyTensors) {
    case EmptyTensors::kUnstated: return "";
    case EmptyTensors::kAccepted: return "QNN " + r.qnnOp + " takes tensors with a dimension of 0.";
    case EmptyTensors::kRefused:
      return "QNN " + r.qnnOp + " refuses a tensor with a dimension of 0: the node runs on CPU.";
    case EmptyTensors::kFinalizeFails:
      return "QNN " + r.qnnOp + " takes no tensor with a dimension of 0: graph composition fails on it, and the "
             "whole graph with it.";
  }
  return "";
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string constraintSummary(const Rule& r, const PortConstraint& c) {
  std::string s;
  for (const ConstraintKind* k : constraintKinds()) {
    std::string part = k->summary(r, c);
    if (part.empty()) continue;
    s += (s.empty() ? "" : "; ") + part;
  }
  return s;
}

std::vector<std::string> constraintNotes(const Rule& r, const Variant& v) {
  std::vector<std::string> notes;
  if (std::string gate = gateNote(r, v); !gate.empty()) notes.push_back(std::move(gate));
  if (v.maxRank != 0) notes.push_back("Variant " + v.name + ": " + rankLimitSentence(r, v.maxRank));
  for (size_t p = 0; p < v.ports.size(); ++p)
    for (const ConstraintKind* k : constraintKinds()) {
      if (!k->docNote) continue;
      if (std::string n = k->docNote(r, v, static_cast<int>(p), v.ports[p]); !n.empty()) notes.push_back(std::move(n));
    }
  return notes;
}

}  // namespace qnnrules
