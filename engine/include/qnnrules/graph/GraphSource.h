// Where a graph was read from. A lowering path is the default for some sources
// (rules/lowering/*.yaml `default_for`); the readers record it on the graph (Graph::source), so
// a step that depends on it reads the graph, not what a run did.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace qnnrules {

enum class GraphSource : uint8_t { kJson, kOnnx, kPt2, kCount };

// The names lowering files use, indexed by GraphSource.
inline constexpr std::array<std::string_view, static_cast<size_t>(GraphSource::kCount)> kGraphSourceNames = {
    "json", "onnx", "pt2"};

constexpr std::string_view graphSourceName(GraphSource s) {
  const auto i = static_cast<size_t>(s);
  return i < kGraphSourceNames.size() ? kGraphSourceNames[i] : std::string_view("json");
}

}  // namespace qnnrules
