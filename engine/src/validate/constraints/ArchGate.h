// min_arch: a variant that needs a newer version of its backend's hardware (the manifest's
// column of the SoC table, model/Hardware.h) than the SoC has is a gate, not a violation: the
// variant's own sentence and hint are reported, because the SoC is the problem. Unlike the
// port kinds it constrains a whole variant. Internal to the engine.
#pragma once

#include <string>

#include "yaml/StrictYaml.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/Hardware.h"
#include "qnnrules/model/Rule.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {

// Reads a variant's `min_arch`: a version of `column`, resolved to its level now so that the
// check per node is an integer comparison. An error when the backend names no column.
void parseMinArch(strictyaml::StrictYamlReader& r, const strictyaml::Entry& e, const std::string& variantScope,
                  const std::string& backend, const HardwareColumn* column, Variant& v);

// Message, expected, actual and hint of the gate diagnostic of `gated` on `soc`.
void explainGate(const Rule& rule, const Variant& gated, const SocInfo& soc, Diagnostic& d);

// The docs' note for a gated variant ("" for an ungated one).
std::string gateNote(const Rule& rule, const Variant& v);

}  // namespace qnnrules
