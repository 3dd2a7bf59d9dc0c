// Serialized graph (JSON, format v1, docs/graph-format.md) -> Graph.
// One interface whatever JSON parser is underneath (GraphReadOptions::parser).
#pragma once

#include <filesystem>
#include <string>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/io/ReaderModules.h"

namespace qnnrules {

// The JSON parser underneath. Both build the same Graph and report the same schema errors;
// simdjson parses several times faster (benchmarks/graph_reader_bench.cpp) and sees duplicate
// keys, which nlohmann's DOM drops silently.
enum class JsonParser : uint8_t { kSimdjson, kNlohmann };

struct GraphReadOptions {
  uint64_t maxFileBytes = 1ull << 30;  // 1 GiB
  int maxDepth = 64;                   // JSON nesting
  JsonParser parser = JsonParser::kSimdjson;
  // simdjson only: parse one node at a time into a small document (engine/src/io/
  // GraphStreamedRead.h) instead of the whole file into one. The same Graph, and the same
  // errors (a file with any error is read whole), in about half the peak memory; false reads
  // the whole document always (for comparisons: tests, benchmarks/graph_reader_bench).
  bool nodeByNode = true;
  // Memory bounded by the input (docs/inputs.md, "Reader limits"). Scales and zero points read
  // from a .pt2 or ONNX tensor: at most this many elements each, and a .pt2 tensor that repeats
  // its storage (stride 0) reads at most its storage's element count + 65,536.
  uint64_t maxQParamElements = 1ull << 24;
  // .pt2 archives (zip bombs): bytes decompressed from all entries read together, at most
  // inflateFloorBytes + inflateRatio x the archive's size (each entry also at most
  // maxFileBytes); values (numbers, strings, lists, objects, ...) of one JSON entry, at most
  // jsonValueFloor + jsonValuesPerByte x the archive's size. Files torch.export.save writes are
  // stored uncompressed, so neither is reached by one.
  uint64_t inflateFloorBytes = 64ull << 20;
  uint64_t inflateRatio = 32;
  uint64_t jsonValueFloor = 1ull << 20;
  uint64_t jsonValuesPerByte = 2;
};
using GraphReadLimits = GraphReadOptions;

struct GraphReadResult {
  Graph graph;
  Status status;          // kParseError, kSchemaError, kLimitExceeded, kNotFound, kIoError
  DiagnosticList errors;  // every schema error found, with JSON pointer paths in `actual`
  bool ok() const { return status.isOk(); }
};

// A file that starts with the zip magic is read as a torch.export archive (io/Pt2Reader.h).
GraphReadResult readGraphFile(const std::filesystem::path& path, const GraphReadOptions& options = {});
GraphReadResult readGraphText(std::string_view text, const std::string& displayName,
                              const GraphReadOptions& options = {});

}  // namespace qnnrules
