// One port constraint of a rule variant (`in: {dtype: [...], encoding: ..., symmetric: true}`):
// every key is read by its constraint kind (validate/constraints/), so the loader names no kind.
// Internal to the engine.
#pragma once

#include <string>

#include "yaml/StrictYaml.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/Rule.h"

namespace qnnrules {

// Reads `entry` (a port's constraint mapping) into `c`; errors go to `reader` with
// file:line:column. `manifest` (may be null) bounds the datatypes and encodings a kind accepts.
void parsePortConstraint(strictyaml::StrictYamlReader& reader, const strictyaml::Entry& entry,
                         const std::string& scope, const Rule& rule, const BackendManifest* manifest,
                         PortConstraint& c);

}  // namespace qnnrules
