// "Did you mean ...?" for every name a user types: SoCs, backends, configs, flags, rule ids,
// backend options, graph ops and rule-file keys all go through these few functions, so every
// typo is answered the same way.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qnnrules {

// Edit distance (Levenshtein) ignoring ASCII case.
size_t editDistanceIgnoringCase(std::string_view a, std::string_view b);
bool equalsIgnoringCase(std::string_view a, std::string_view b);

// The candidate nearest to `word`, or "" when none is close enough to be a likely typo
// (distance at most a third of the longer name, and at least 2).
std::string_view nearestName(std::string_view word, std::span<const std::string_view> candidates);
// "did you mean 'X'?" for nearestName, or "" when none is close.
std::string didYouMean(std::string_view word, std::span<const std::string_view> candidates);
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

// The candidate equal to `word` ignoring case (for names that are case-insensitive).
std::optional<std::string> findIgnoringCase(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace qnnrules
