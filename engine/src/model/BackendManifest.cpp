#include "qnnrules/model/BackendManifest.h"

#include <map>

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
  // A gate names a version of the parent's hardware; on other hardware it means nothing.
  if (v.gate.columnName != manifest.hardware) {
    v.gate = {};
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

Status checkSocRequirement(const BackendManifest* manifest, const std::string& backend, const SocInfo& soc,
                           const SocTable& socs) {
  if (!manifest || manifest->hardware.empty()) return Status::ok();
  const std::string& column = manifest->hardware;
  if (!soc.versionOn(column).empty()) return Status::ok();
  std::string able;
  for (const SocInfo& s : socs.all())
    if (!s.versionOn(column).empty()) able += (able.empty() ? "" : ", ") + s.name;
  return Status(StatusCode::kInvalidArgument,
                "SoC " + soc.name + " has no " + hardwareLabel(column) + "; the " + backend +
                    " backend needs one of: " + able,
                soc.name);
}

std::string socScopeText(const BackendManifest* manifest, const SocTable& socs) {
  if (!manifest || manifest->hardware.empty()) return "any SoC";
  const std::string& column = manifest->hardware;
  const std::string label = hardwareLabel(column);
  std::map<std::string, std::vector<std::string>> byVersion;
  for (const SocInfo& s : socs.all())
    if (const std::string& v = s.versionOn(column); !v.empty()) byVersion[v].push_back(s.name);
  std::string out;
  for (const auto& [version, names] : byVersion) {
    out += (out.empty() ? "" : "; ") + label + " " + version + ": ";
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  }
  return out.empty() ? "no SoC of the table has an " + label : out;
}

std::string hardwareText(const BackendManifest* manifest, const SocInfo& soc) {
  if (!manifest || manifest->hardware.empty()) return {};
  return hardwareLabel(manifest->hardware) + " " + soc.versionOn(manifest->hardware);
}

}  // namespace qnnrules
