// The `onnx` key of a rule (docs/rule-format.md): read strictly, like every other key, with
// op types checked against the ONNX operator set so a typo is an error at file:line:column.
// Internal to the engine (the rule loader calls it).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "qnnrules/model/Rule.h"
#include "yaml/StrictYaml.h"

namespace qnnrules {

// Reads the `onnx` value into rule.onnx (replacing inherited entries). Port names are checked
// against rule.ports, so call it after the ports are read.
void parseOnnxKey(strictyaml::StrictYamlReader& reader, const YAML::Node& value, const std::string& ruleScope,
                  Rule& rule);

// After a rule redeclares its ports: inherited entries naming a port that no longer exists are
// errors at `at`.
void checkOnnxPorts(strictyaml::StrictYamlReader& reader, const YAML::Node& at, const std::string& ruleScope,
                    const Rule& rule);

}  // namespace qnnrules
