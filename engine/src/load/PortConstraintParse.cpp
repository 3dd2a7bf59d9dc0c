#include "PortConstraintParse.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "validate/constraints/ConstraintKind.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

// The keys of a port constraint: one per constraint kind, and `recommended`.
Names constraintKeys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> v;
    for (const ConstraintKind* k : constraintKinds()) v.push_back(k->key);
    v.push_back("recommended");
    return v;
  }();
  return keys;
}

// `recommended: [scale, offset]`: kinds this port constraint uses whose violation the backend
// accepts. Only kinds that fail a variant can be recommendations (not dtype, which selects).
void parseRecommended(StrictYamlReader& r, const Entry& e, const std::string& what, PortConstraint& c) {
  const std::span<const ConstraintKind* const> kinds = constraintKinds();
  std::vector<std::string_view> names;
  for (const ConstraintKind* k : kinds)
    if (k->violated) names.push_back(k->key);
  if (!e.value.IsSequence() || e.value.size() == 0) {
    r.error(DiagCode::kWrongType, r.mark(e.value), what + " must be a non-empty list of constraint keys",
            "a list such as [scale, offset]", describe(e.value));
    return;
  }
  for (const YAML::Node& item : e.value) {
    auto name = r.str(item, what);
    if (!name) continue;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const ConstraintKind* k) { return k->key == *name; });
    if (it == kinds.end() || !(*it)->violated) {
      r.error(DiagCode::kUnknownEnumValue, r.mark(item),
              what + " names '" + clip(*name) + "', which is not a constraint a variant can fail", oneOf(names),
              clip(*name), suggest(*name, names));
      continue;
    }
    if (!(*it)->active(c)) {
      r.error(DiagCode::kInvalidValue, r.mark(item),
              what + " names '" + clip(*name) + "', which this port does not constrain", "a key given on this port",
              clip(*name));
      continue;
    }
    c.recommended |= static_cast<uint16_t>(1u << (it - kinds.begin()));
  }
}

}  // namespace

void parsePortConstraint(StrictYamlReader& reader, const Entry& entry, const std::string& scope, const Rule& rule,
                         const BackendManifest* manifest, PortConstraint& c) {
  c.mark = reader.mark(entry.keyNode);
  Map m = reader.readMap(entry.value, scope, constraintKeys());
  if (!m.valid) return;
  const ConstraintParse parse{reader, rule, manifest, entry.key};
  for (const ConstraintKind* k : constraintKinds()) {
    if (const Entry* e = m.get(k->key)) k->parse(parse, *e, "'" + std::string(k->key) + "' of " + scope, c);
    else if (k->required) reader.missing(entry.value, m, scope, k->key);
  }
  if (const Entry* e = m.get("recommended")) parseRecommended(reader, *e, "'recommended' of " + scope, c);
}

}  // namespace qnnrules
