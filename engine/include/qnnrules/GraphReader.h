// Serialized graph (JSON, format v1, docs/graph-format.md) -> Graph.
// One interface so the JSON backend can change (nlohmann DOM today) without touching callers.
#pragma once

#include <filesystem>
#include <string>

#include "qnnrules/Diagnostic.h"
#include "qnnrules/Graph.h"
#include "qnnrules/Status.h"

namespace qnnrules {

struct GraphReadLimits {
  uint64_t maxFileBytes = 1ull << 30;  // 1 GiB
  int maxDepth = 64;                   // JSON nesting
};

struct GraphReadResult {
  Graph graph;
  Status status;          // kParseError, kSchemaError, kLimitExceeded, kNotFound, kIoError
  DiagnosticList errors;  // every schema error found, with JSON pointer paths in `actual`
  bool ok() const { return status.isOk(); }
};

GraphReadResult readGraphFile(const std::filesystem::path& path, const GraphReadLimits& limits = {});
GraphReadResult readGraphText(std::string_view text, const std::string& displayName,
                              const GraphReadLimits& limits = {});

}  // namespace qnnrules
