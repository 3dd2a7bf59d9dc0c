// A Graphviz picture of a delegation report: delegated, fallback and invalid nodes in their
// own colours, each partition drawn as a cluster, so a person can look instead of read.
#pragma once

#include <filesystem>
#include <string>

#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

// Fill colours, exposed so tests and docs name the same values the picture uses.
namespace dotcolor {
inline constexpr const char* kDelegated = "#a8e6a3";  // runs on the backend
inline constexpr const char* kInvalid = "#f28b82";    // fails validation (CPU in strict mode, flagged in warn)
inline constexpr const char* kFallback = "#fdd663";   // on CPU: no rule, unsupported, arch gate
inline constexpr const char* kPolicy = "#aecbfa";     // on CPU by backend policy (LPAI graph I/O Q/DQ)
inline constexpr const char* kOther = "#ffffff";      // inputs, outputs, parameters on CPU
}  // namespace dotcolor

std::string formatDot(const Graph& graph, const DelegationReport& report);

// Writes formatDot's text to `path` atomically (a temporary file in the same directory,
// then rename), so a reader never sees half a file.
Status writeDotFile(const std::filesystem::path& path, const Graph& graph, const DelegationReport& report);

}  // namespace qnnrules
