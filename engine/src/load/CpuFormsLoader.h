// A lowering path's `cpu_forms` (LoweringPath::cpuForms): forms of ONNX ops the path refuses by
// its own checks. Read strictly, like the rest of the lowering file: an unknown key, op type,
// attribute test or form name is an error with file:line:column.
#pragma once

#include <vector>

#include "yaml/StrictYaml.h"
#include "qnnrules/model/Lowering.h"

namespace qnnrules {

void readCpuForms(strictyaml::StrictYamlReader& r, const YAML::Node& list, std::vector<CpuForm>& out);

}  // namespace qnnrules
