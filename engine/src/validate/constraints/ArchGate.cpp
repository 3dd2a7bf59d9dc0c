#include "ArchGate.h"

#include "../../model/EnumNames.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {

std::optional<HtpArch> readHtpArch(strictyaml::StrictYamlReader& r, const YAML::Node& v, const std::string& what) {
  return r.enumValue<HtpArch>(v, what, "HTP architecture", archNames(), parseCanonicalHtpArch);
}

void parseMinArch(strictyaml::StrictYamlReader& r, const strictyaml::Entry& e, const std::string& variantScope,
                  const BackendManifest* manifest, Variant& v) {
  if (auto a = readHtpArch(r, e.value, "'min_arch' in " + variantScope)) v.minArch = *a;
  if (manifest && !manifest->htpArchGates)
    r.error(DiagCode::kInvalidValue, r.mark(e.keyNode),
            "'min_arch' in " + variantScope + " gates on the HTP architecture, which means nothing on backend " +
                manifest->backend + " (its backend.yaml sets htp_arch_gates: false)",
            "no 'min_arch'", "min_arch " + strictyaml::clip(e.value.IsScalar() ? e.value.Scalar() : std::string()));
}

std::string gateSentence(const Rule& r, const Variant& v) {
  if (!v.description.empty()) return v.description;
  return "variant " + v.name + " of " + r.id + " needs HTP " + std::string(htpArchName(v.minArch)) + " or newer.";
}

void explainGate(const Rule& rule, const Variant& gated, const SocInfo& soc, Diagnostic& d) {
  d.message = gateSentence(rule, gated);
  d.expected = "HTP " + std::string(htpArchName(gated.minArch)) + " or newer";
  d.actual = soc.name + " is " + std::string(htpArchName(soc.htpArch));
  d.hint = gated.hint;
}

std::string gateNote(const Rule& rule, const Variant& v) {
  if (v.minArch == HtpArch::kNone) return {};
  return gateSentence(rule, v) + (v.hint.empty() ? "" : " (" + v.hint + ")");
}

}  // namespace qnnrules
