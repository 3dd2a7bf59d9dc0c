#include "MutationCase.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "validate/constraints/ConstraintKind.h"
#include "qnnrules/validate/ConstraintText.h"
#include "qnnrules/graph/PortType.h"

namespace qnnrules::testing {
namespace {

std::optional<ScalarType> tensorDtypeOf(QnnDatatype t) {
  switch (t) {
    case QnnDatatype::kFloat32: return ScalarType::kFloat32;
    case QnnDatatype::kFloat16: return ScalarType::kFloat16;
    case QnnDatatype::kBFloat16: return ScalarType::kBFloat16;
    case QnnDatatype::kInt8: return ScalarType::kInt8;
    case QnnDatatype::kInt16: return ScalarType::kInt16;
    case QnnDatatype::kInt32: return ScalarType::kInt32;
    case QnnDatatype::kInt64: return ScalarType::kInt64;
    case QnnDatatype::kUInt8: return ScalarType::kUInt8;
    case QnnDatatype::kUInt16: return ScalarType::kUInt16;
    case QnnDatatype::kUInt32: return ScalarType::kUInt32;
    case QnnDatatype::kBool8: return ScalarType::kBool;
    default: return std::nullopt;
  }
}

bool perChannel(Encoding e) {
  return e == Encoding::kAxisScaleOffset || e == Encoding::kBwAxisScaleOffset || e == Encoding::kBlockwiseExpansion;
}

// Meaningful bits an encoding gives in a container: SCALE/AXIS use the whole container, BW
// fewer bits, block-wise any. Picks from the allowed bit widths (mask 0 = any).
std::optional<int> bitsFor(Encoding e, int container, uint64_t allowed) {
  auto ok = [&](int b) { return allowed == 0 || ((allowed >> b) & 1); };
  const int lower = container == 8 ? 1 : container / 2 + 1;  // a narrower range would pick a smaller container
  if (e == Encoding::kScaleOffset || e == Encoding::kAxisScaleOffset) {
    if (ok(container)) return container;
    return std::nullopt;
  }
  const int preferred = container == 8 ? 4 : container == 16 ? 12 : 24;
  if (ok(preferred)) return preferred;
  for (int b = lower; b < container; ++b)
    if (b >= 2 && ok(b)) return b;
  if (e == Encoding::kBlockwiseExpansion && ok(container)) return container;
  return std::nullopt;
}

}  // namespace

bool realizable(QnnDatatype t) {
  return isFixedPoint(t) || tensorDtypeOf(t).has_value();
}

std::optional<std::string> groupPorts(const Rule& rule, const Variant& v, std::vector<GroupConstraint>& out) {
  const int n = static_cast<int>(rule.ports.size());
  std::vector<int> root(n, -1);
  for (int p = 0; p < n; ++p) {
    int cur = p;
    for (int steps = 0; v.ports[cur].sharedWith >= 0; ++steps) {
      if (steps > n) return "the shared_with references of port " + rule.ports[p].name + " form a cycle";
      cur = v.ports[cur].sharedWith;
    }
    root[p] = cur;
  }
  for (int r = 0; r < n; ++r) {
    if (root[r] != r) continue;
    GroupConstraint g;
    g.root = r;
    bool first = true;
    for (int p = 0; p < n; ++p) {
      if (root[p] != r) continue;
      g.members.push_back(p);
      const PortConstraint& c = v.ports[p];
      if (first) {
        g.datatypes = c.datatypes;
        first = false;
      } else {
        DatatypeSet both;
        g.datatypes.forEach([&](QnnDatatype t) {
          if (c.datatypes.contains(t)) both.insert(t);
        });
        g.datatypes = both;
      }
      if (!c.encodings.empty()) {
        if (g.encodings.empty()) {
          g.encodings = c.encodings;
        } else {
          EncodingSet both;
          g.encodings.forEach([&](Encoding e) {
            if (c.encodings.contains(e)) both.insert(e);
          });
          if (both.empty())
            return "ports sharing the encoding of " + rule.ports[r].name + " allow no common encoding";
          g.encodings = both;
        }
      }
      if (c.bitwidths) g.bitwidths = g.bitwidths ? (g.bitwidths & c.bitwidths) : c.bitwidths;
      g.symmetric = g.symmetric || c.symmetric.value_or(false);
      if (c.axis) {
        if (g.axis && *g.axis != *c.axis) return "ports sharing an encoding require different axes";
        g.axis = c.axis;
      }
      if (c.scale) g.scale = c.scale;
      if (c.offset) g.offset = c.offset;
    }
    if (g.datatypes.empty())
      return "ports sharing the encoding of " + rule.ports[r].name + " have no datatype in common";
    out.push_back(std::move(g));
  }
  return std::nullopt;
}

std::optional<std::string> annotateGroup(const Rule& rule, const Variant& v, const GroupConstraint& g, QnnDatatype dt,
                                         Annotation& a) {
  if (!isFixedPoint(dt)) {
    std::optional<ScalarType> st = tensorDtypeOf(dt);
    if (!st) return std::string("datatype ") + std::string(datatypeName(dt)) + " cannot be produced by a tensor";
    for (int p : g.members) {
      a[p] = PortAnnotation{};
      a[p].tensorDtype = *st;
    }
    return std::nullopt;
  }
  const int container = containerBits(dt);
  const bool isSigned = isSignedFixedPoint(dt);
  // Encodings in order of preference: per-tensor first when the scale is fixed.
  std::vector<Encoding> order = {Encoding::kScaleOffset, Encoding::kAxisScaleOffset, Encoding::kBwScaleOffset,
                                 Encoding::kBwAxisScaleOffset, Encoding::kBlockwiseExpansion};
  std::optional<Encoding> enc;
  std::optional<int> bits;
  for (Encoding e : order) {
    if (!g.encodings.empty() && !g.encodings.contains(e)) continue;
    if (g.encodings.empty() && e != Encoding::kScaleOffset && g.bitwidths == 0) continue;
    if (auto b = bitsFor(e, container, g.bitwidths)) {
      enc = e;
      bits = b;
      break;
    }
  }
  if (!enc) return "no encoding of " + encodingSetText(g.encodings) + " fits " + std::string(datatypeName(dt)) +
                   " with bit widths " + bitwidthSetText(g.bitwidths);
  QuantSpec s;
  switch (container) {
    case 8: s.dtype = isSigned ? ScalarType::kInt8 : ScalarType::kUInt8; break;
    case 16: s.dtype = isSigned ? ScalarType::kInt16 : ScalarType::kUInt16; break;
    default: s.dtype = isSigned ? ScalarType::kInt32 : ScalarType::kUInt32; break;
  }
  const int b = *bits;
  if (b < container) {
    s.quantMin = isSigned ? -(int64_t{1} << (b - 1)) : 0;
    s.quantMax = isSigned ? (int64_t{1} << (b - 1)) - 1 : (int64_t{1} << b) - 1;
  }
  const bool pc = perChannel(*enc);
  s.qscheme = pc ? (g.symmetric ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine)
                 : (g.symmetric ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine);
  if (pc) s.chAxis = g.axis.value_or(0);
  if (*enc == Encoding::kBlockwiseExpansion) s.blockSize = {1, 16};
  int64_t zp = 0;
  if (g.offset) zp = -*g.offset;
  else if (g.symmetric) zp = -symmetricOffset(dt);
  else zp = isSigned ? 0 : (int64_t{1} << (b - 1)) - 1;
  // Distinct calibrated-looking scales per variant, so independent specs never match by accident.
  const double base = 0.01 * static_cast<double>(1 + (&v - rule.variants.data()));
  if (g.scale) {
    s.scales = {*g.scale};
  } else if (pc) {
    s.scales = {base, base * 1.5};
  } else {
    s.scales = {base};
  }
  s.zeroPoints.assign(s.scales.size(), zp);
  for (int p : g.members) {
    a[p] = PortAnnotation{};
    if (p == g.root) {
      a[p].kind = PortAnnotation::Kind::kQuantized;
      a[p].spec = s;
    } else {
      a[p].kind = PortAnnotation::Kind::kShared;
      a[p].sharedWith = v.ports[p].sharedWith;
    }
  }
  return std::nullopt;
}

std::optional<std::string> satisfy(const Rule& rule, const Variant& v, Annotation& out) {
  out.assign(rule.ports.size(), PortAnnotation{});
  std::vector<GroupConstraint> groups;
  if (auto why = groupPorts(rule, v, groups)) return why;
  for (const GroupConstraint& g : groups) {
    std::optional<std::string> last;
    bool done = false;
    for (int i = 0; i < static_cast<int>(QnnDatatype::kCount) && !done; ++i) {
      auto dt = static_cast<QnnDatatype>(i);
      if (!g.datatypes.contains(dt) || !realizable(dt)) continue;
      last = annotateGroup(rule, v, g, dt, out);
      done = !last;
    }
    if (!done)
      return "port " + rule.ports[g.root].name + ": " +
             (last ? *last : "no datatype of " + datatypeSetText(g.datatypes) + " can be produced");
    // Kinds the group solver does not know (an embedder's) meet their constraint themselves.
    if (out[g.root].kind != PortAnnotation::Kind::kQuantized) continue;
    for (const ConstraintKind* k : constraintKinds())
      for (int p : g.members)
        if (k->satisfy && k->active && k->active(v.ports[p])) k->satisfy(v.ports[p], out[g.root].spec);
  }
  return std::nullopt;
}

std::vector<QnnDatatype> datatypesOf(const Rule& rule, const Annotation& a) {
  std::vector<QnnDatatype> out(rule.ports.size());
  for (size_t p = 0; p < a.size(); ++p) {
    size_t cur = p;
    for (size_t steps = 0; a[cur].kind == PortAnnotation::Kind::kShared && steps <= a.size(); ++steps)
      cur = static_cast<size_t>(a[cur].sharedWith);
    out[p] = a[cur].kind == PortAnnotation::Kind::kQuantized ? portTypeOf(a[cur].spec).datatype
                                                             : portTypeOf(a[cur].tensorDtype).datatype;
  }
  return out;
}

Graph buildGraph(const Rule& rule, const std::string& target, const Annotation& a) {
  Graph g;
  const int n = static_cast<int>(rule.ports.size());
  std::vector<uint32_t> firstProducer(n, 0);
  size_t args = 0, outputs = 0;
  for (int p = 0; p < n; ++p) {
    const PortDecl& d = rule.ports[p];
    if (d.isInput) args = std::max(args, static_cast<size_t>(d.index) + 1);
    else outputs = std::max(outputs, static_cast<size_t>(d.index) + (d.variadic ? 2 : 1));
  }
  // Producers first, so the op node's index is known for shared references.
  for (int p = 0; p < n; ++p) {
    const PortDecl& d = rule.ports[p];
    if (!d.isInput) continue;
    firstProducer[p] = static_cast<uint32_t>(g.nodes().size());
    for (int k = 0; k < (d.variadic ? 2 : 1); ++k) {
      Node src;
      src.name = "in_" + d.name + "_" + std::to_string(k);
      src.kind = NodeKind::kInput;
      TensorMeta t;
      t.dtype = a[p].kind == PortAnnotation::Kind::kTensor ? a[p].tensorDtype : ScalarType::kFloat32;
      src.outputs.push_back(t);
      (void)g.addNode(std::move(src));
    }
  }
  const auto self = static_cast<uint32_t>(g.nodes().size());
  auto specOf = [&](int p) -> std::optional<QuantSpec> {
    if (a[p].kind == PortAnnotation::Kind::kQuantized) return a[p].spec;
    if (a[p].kind == PortAnnotation::Kind::kTensor) return std::nullopt;
    const int t = a[p].sharedWith;
    const PortDecl& td = rule.ports[t];
    QuantSpec s;
    SharedRef r;
    if (td.isInput) {
      r.kind = SharedRef::Kind::kEdge;
      r.node = firstProducer[t];
      r.consumer = self;
    } else {
      r.kind = SharedRef::Kind::kNodeOutput;
      r.node = self;
      r.output = static_cast<uint32_t>(td.index);
    }
    s.sharedWith = r;
    return s;
  };
  Node node;
  node.name = "op";
  node.kind = NodeKind::kCall;
  node.targetId = g.internTarget(target);
  node.args.resize(args);
  node.outputs.resize(outputs);
  for (int p = 0; p < n; ++p) {
    const PortDecl& d = rule.ports[p];
    if (d.isInput) {
      Argument& arg = node.args[d.index];
      auto ref = [&](int k) {
        Argument t = Argument::tensorRef(firstProducer[p] + static_cast<uint32_t>(k));
        t.qspec = specOf(p);
        return t;
      };
      if (d.variadic) {
        arg.kind = Argument::Kind::kList;
        arg.list = {ref(0), ref(1)};
      } else {
        arg = ref(0);
      }
    } else {
      for (int k = 0; k < (d.variadic ? 2 : 1); ++k) {
        TensorMeta& t = node.outputs[static_cast<size_t>(d.index + k)];
        t.dtype = a[p].kind == PortAnnotation::Kind::kTensor ? a[p].tensorDtype : ScalarType::kFloat32;
        t.qspec = specOf(p);
      }
    }
  }
  (void)g.addNode(std::move(node));
  return g;
}

}  // namespace qnnrules::testing
