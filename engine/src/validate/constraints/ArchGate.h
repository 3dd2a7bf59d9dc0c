// min_arch: a variant that needs a newer HTP architecture than the SoC's is a gate, not a
// violation: the variant's own sentence and hint are reported, because the SoC is the
// problem. Unlike the port kinds it constrains a whole variant. Internal to the engine.
#pragma once

#include <optional>
#include <string>

#include "../../yaml/StrictYaml.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/Rule.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {

// An HTP architecture in its canonical spelling only (V73, not v73).
std::optional<HtpArch> readHtpArch(strictyaml::StrictYamlReader& r, const YAML::Node& v, const std::string& what);

// Reads a variant's `min_arch`; an error on a backend whose manifest sets htp_arch_gates: false.
void parseMinArch(strictyaml::StrictYamlReader& r, const strictyaml::Entry& e, const std::string& variantScope,
                  const BackendManifest* manifest, Variant& v);

// Message, expected, actual and hint of the gate diagnostic of `gated` on `soc`.
void explainGate(const Rule& rule, const Variant& gated, const SocInfo& soc, Diagnostic& d);

// The docs' note for a gated variant ("" for an ungated one).
std::string gateNote(const Rule& rule, const Variant& v);

}  // namespace qnnrules
