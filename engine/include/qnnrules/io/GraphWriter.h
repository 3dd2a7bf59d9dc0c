// Graph -> JSON (graph format v1, docs/graph-format.md), the inverse of GraphReader: what it
// writes reads back to the same graph. Files are written atomically (temporary file in the
// same directory, then rename), so a failed write never leaves a half-written file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

struct GraphWriteOptions {
  int indent = 1;            // JSON indentation; -1 writes one line
  std::string annotatedWith; // when set, top-level meta.qnnrules records the config
  bool qat = false;          // recorded with annotatedWith: the graph is prepared for QAT
};

std::string writeGraphText(const Graph& graph, const GraphWriteOptions& options = {});
// One node as the graph format writes it (one line), in time proportional to the node, not the
// graph: what Python's Graph.node(name) returns.
std::string writeNodeText(const Graph& graph, uint32_t node);
Status writeGraphFile(const Graph& graph, const std::filesystem::path& path, const GraphWriteOptions& options = {});

}  // namespace qnnrules
