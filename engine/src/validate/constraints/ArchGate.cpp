#include "ArchGate.h"

#include <optional>
#include <vector>

#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {

void parseMinArch(strictyaml::StrictYamlReader& r, const strictyaml::Entry& e, const std::string& variantScope,
                  const std::string& backend, const HardwareColumn* column, Variant& v) {
  const std::string what = "'min_arch' in " + variantScope;
  if (!column) {
    r.error(DiagCode::kInvalidValue, r.mark(e.keyNode),
            what + " gates on a hardware version, which means nothing on backend " + backend +
                " (its backend.yaml names no 'hardware' column of socs.yaml)",
            "no 'min_arch'", "min_arch " + strictyaml::clip(e.value.IsScalar() ? e.value.Scalar() : std::string()));
    return;
  }
  const std::vector<std::string_view> names(column->versions.begin(), column->versions.end());
  auto version = r.enumValue<std::string>(e.value, what, hardwareLabel(column->name) + " version", names,
                                          [&](std::string_view s) {
                                            std::optional<std::string> found;
                                            if (column->levelOf(s)) found = std::string(s);
                                            return found;
                                          });
  if (version) v.gate = {column->index, column->levelOf(*version), column->name, *version};
}

namespace {

std::string needs(const HardwareGate& g) { return hardwareLabel(g.columnName) + " " + g.version + " or newer"; }

}  // namespace

std::string gateSentence(const Rule& r, const Variant& v) {
  if (!v.description.empty()) return v.description;
  return "variant " + v.name + " of " + r.id + " needs " + needs(v.gate) + ".";
}

void explainGate(const Rule& rule, const Variant& gated, const SocInfo& soc, Diagnostic& d) {
  d.message = gateSentence(rule, gated);
  d.expected = needs(gated.gate);
  d.actual = soc.name + " is " + soc.versionOn(gated.gate.columnName);
  d.hint = gated.hint;
}

std::string gateNote(const Rule& rule, const Variant& v) {
  if (!v.gate.gated()) return {};
  return gateSentence(rule, v) + (v.hint.empty() ? "" : " (" + v.hint + ")");
}

}  // namespace qnnrules
