// The spellings a rule file may use for QNN datatypes and encodings, for
// "expected one of" messages and did-you-mean suggestions. Internal to the engine.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "qnnrules/core/QnnTypes.h"

namespace qnnrules {

const std::vector<std::string_view>& datatypeNames();
const std::vector<std::string_view>& encodingNames();

}  // namespace qnnrules
