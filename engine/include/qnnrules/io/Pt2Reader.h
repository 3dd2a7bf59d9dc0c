// torch.export archives (torch.export.save, ".pt2") -> Graph (docs/inputs.md).
//
// The archive is a zip holding the serialized ExportedProgram as versioned JSON
// (torch/_export/serde/schema.py, written by torch/_export/serde/serialize.py). The reader
// maps it to the in-memory graph the way the JSON graph format and the Python adapter map an
// FX graph: placeholders from the graph signature, one call node per FX node (getitem nodes
// re-created for multi-output ops), arguments by schema position, module paths from
// nn_module_stack, outputs with dtype and shape. Weights are not read; the scales and zero
// points that a converted (pt2e) graph keeps in small lifted tensors are, and are written as
// literal arguments of its quantize/dequantize nodes, so the Q/DQ fold (QdqFold.h) folds them as it folds a
// JSON QDQ graph.
#pragma once

#include <filesystem>

#include "qnnrules/io/GraphReader.h"

namespace qnnrules {

// The newest ExportedProgram schema this reader knows (torch 2.14's SCHEMA_VERSION). Archives
// with a newer major version are refused, naming both versions; a newer minor version only
// adds optional fields and is read.
inline constexpr int kPt2SchemaMajor = 8;
inline constexpr int kPt2SchemaMinor = 20;

// Whether the file starts with the zip magic "PK\3\4" (every .pt2 archive does).
bool isZipFile(const std::filesystem::path& path);

// Reads a .pt2 archive. Errors name the archive and the entry: a corrupt or truncated zip,
// missing entries, malformed JSON (with line and column), a schema newer than
// kPt2SchemaMajor, or JSON that breaks the schema (with the JSON pointer).
// options.maxFileBytes limits every entry read.
GraphReadResult readPt2File(const std::filesystem::path& path, const GraphReadOptions& options = {});

}  // namespace qnnrules
