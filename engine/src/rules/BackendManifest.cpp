#include "qnnrules/rules/BackendManifest.h"

#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace {

template <typename E>
EnumSet<E> intersect(EnumSet<E> a, EnumSet<E> b) {
  EnumSet<E> r;
  a.forEach([&](E e) {
    if (b.contains(e)) r.insert(e);
  });
  return r;
}

bool hasFixedPoint(DatatypeSet s) {
  bool any = false;
  s.forEach([&](QnnDatatype t) { any = any || isFixedPoint(t); });
  return any;
}

}  // namespace

std::string inheritedId(const std::string& parentId, const std::string& parentBackend, const std::string& backend) {
  const std::string prefix = parentBackend + ".";
  if (parentId.compare(0, prefix.size(), prefix) == 0) return backend + "." + parentId.substr(prefix.size());
  return backend + "." + parentId;
}

std::optional<std::string> narrowVariant(const Rule& rule, Variant& v, const BackendManifest& manifest) {
  if (!manifest.htpArchGates) {
    v.minArch = HtpArch::kNone;
    v.hint.clear();
  }
  for (size_t p = 0; p < v.ports.size() && p < rule.ports.size(); ++p) {
    PortConstraint& c = v.ports[p];
    if (manifest.datatypes) {
      DatatypeSet kept = intersect(c.datatypes, *manifest.datatypes);
      if (kept.empty())
        return "port " + rule.ports[p].name + " allows only " + datatypeSetText(c.datatypes) + ", which " +
               manifest.backend + " does not have";
      c.datatypes = kept;
    }
    if (manifest.encodings && !c.encodings.empty()) {
      EncodingSet kept = intersect(c.encodings, *manifest.encodings);
      if (kept.empty() && hasFixedPoint(c.datatypes))
        return "port " + rule.ports[p].name + " allows only " + encodingSetText(c.encodings) + ", which " +
               manifest.backend + " does not have";
      c.encodings = kept;
    }
  }
  return std::nullopt;
}

void applySymmetric(Variant& v, const BackendManifest& manifest) {
  if (!manifest.symmetric) return;
  for (PortConstraint& c : v.ports) {
    if (!hasFixedPoint(c.datatypes) || c.scale || c.offset || c.sharedWith >= 0) continue;
    c.symmetric = true;
  }
}

Rule inheritRule(const Rule& parent, const BackendManifest& manifest, const SourceMark& via) {
  Rule r = parent;
  r.id = inheritedId(parent.id, manifest.extends, manifest.backend);
  r.inheritedFrom = parent.id;
  r.via = via;
  r.notes.clear();
  r.variants.clear();
  for (const Variant& original : parent.variants) {
    Variant v = original;
    if (std::optional<std::string> why = narrowVariant(r, v, manifest)) {
      r.notes.push_back("variant " + v.name + " is not inherited: " + *why);
      continue;
    }
    applySymmetric(v, manifest);
    r.variants.push_back(std::move(v));
  }
  if (!manifest.quantized) r.noQuantizedTypes = manifest.whyNotQuantized;
  return r;
}

}  // namespace qnnrules
