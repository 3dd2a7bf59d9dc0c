// The spellings a rule file may use for QNN datatypes, encodings and HTP architectures, for
// "expected one of" messages and did-you-mean suggestions. Internal to the engine.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "qnnrules/core/QnnTypes.h"

namespace qnnrules {

inline constexpr std::array<HtpArch, 6> kGateArchs = {HtpArch::kV68, HtpArch::kV69, HtpArch::kV73,
                                                     HtpArch::kV75, HtpArch::kV79, HtpArch::kV81};

const std::vector<std::string_view>& datatypeNames();
const std::vector<std::string_view>& encodingNames();
const std::vector<std::string_view>& archNames();

// An HTP architecture in its canonical spelling only (V73, not v73).
std::optional<HtpArch> parseCanonicalHtpArch(std::string_view s);

}  // namespace qnnrules
