// The table of constraint kinds and the helpers their diagnostics share.
#include "ConstraintKind.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

#include "ConstraintKindsList.h"

namespace qnnrules {

namespace {

// The built-in kinds in check order: a node's violations are reported in this order, and the
// docs summarize a port constraint in it.
constexpr std::array<const ConstraintKind*, 9> kBuiltinKinds = {
    &kDtypeConstraint,     &kEncodingConstraint, &kBitwidthConstraint,    &kSymmetricConstraint,
    &kAxisConstraint,      &kScaleConstraint,    &kOffsetConstraint,      &kSharedConstraint,
    &kMaxElementsConstraint,
};
constexpr size_t kMaxKinds = sizeof(KindMask) * 8;  // one bit per kind in a KindMask
static_assert(kBuiltinKinds.size() <= kMaxKinds, "KindMask has one bit per kind");

struct KindTable {
  std::mutex mutex;
  std::vector<const ConstraintKind*> kinds{kBuiltinKinds.begin(), kBuiltinKinds.end()};
  std::atomic<bool> sealed{false};
};

KindTable& table() {
  static KindTable t;
  return t;
}

}  // namespace

std::span<const ConstraintKind* const> constraintKinds() {
  KindTable& t = table();
  if (!t.sealed.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(t.mutex);
    t.sealed.store(true, std::memory_order_release);
  }
  return t.kinds;
}

bool registerConstraintKind(const ConstraintKind& kind) {
  KindTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.sealed.load(std::memory_order_acquire) || t.kinds.size() >= kMaxKinds) return false;
  for (const ConstraintKind* k : t.kinds)
    if (k->key == kind.key || kind.key == "recommended") return false;
  t.kinds.push_back(&kind);
  return true;
}

int kindIndex(std::string_view key) {
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  for (size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k]->key == key) return static_cast<int>(k);
  return -1;
}

bool admitsType(const PortConstraint& c, const PortType& t) {
  for (const ConstraintKind* k : constraintKinds())
    if (k->admits && !k->admits(c, t)) return false;
  return true;
}

std::vector<KindMask> activeKinds(const Rule& rule) {
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  std::vector<KindMask> masks;
  masks.reserve(rule.variants.size() * rule.ports.size());
  for (const Variant& v : rule.variants)
    for (const PortConstraint& c : v.ports) {
      KindMask m = 0;
      for (size_t k = 0; k < kinds.size(); ++k)
        if (kinds[k]->active && kinds[k]->active(c)) m |= KindMask(1u << k);
      masks.push_back(m);
    }
  return masks;
}

std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string actualOf(const BoundTensor& t) {
  std::string s = std::string(datatypeName(t.type.datatype));
  if (t.type.encoding) s += " " + std::string(encodingName(*t.type.encoding));
  if (t.root()) s += " (" + describeQuantSpec(*t.root()) + ")";
  else if (!t.type.quantized) s += " (not annotated)";
  return s;
}

std::string portName(const Rule& rule, const BoundTensor& t) { return rule.ports[t.port].name; }

void reportOutsideBackend(const ConstraintParse& p, const YAML::Node& at, const std::string& what,
                          std::string_view kindName, const std::string& bad, const std::string& allowed) {
  p.reader.error(DiagCode::kInvalidValue, p.reader.mark(at),
                 what + " names " + std::string(kindName) + " " + bad + ", which backend " + p.manifest->backend +
                     " does not have (see its backend.yaml)",
                 "one of: " + allowed, bad);
}

}  // namespace qnnrules
