// The boundary between the engine and its torch.export (.pt2) reader. The reader (Pt2Reader.cpp,
// Pt2Archive.cpp with libzip, Pt2Program.cpp, Pt2Tensor.cpp) is a module of its own, loaded the
// first time a run reads an archive (ReaderModule.h): libzip brings libcrypto, and their
// relocations were most of what kept a run on a small JSON graph above 10 ms. Internal to the
// engine.
#pragma once

#include <filesystem>

#include "qnnrules/io/GraphReader.h"

// The one symbol the module exports (Pt2ModuleEntry.cpp): reads the archive `*path` into `*out`.
#define QNNRULES_PT2_MODULE_ENTRY "qnnrules_pt2_read_file"
extern "C" {
using QnnrulesPt2ReadFile = void (*)(const std::filesystem::path* path, const qnnrules::GraphReadOptions* options,
                                     qnnrules::GraphReadResult* out);
}

namespace qnnrules {
// The reader itself, in the module only (Pt2Reader.cpp); the engine's readPt2File
// (io/Pt2Reader.h) loads the module and calls it through the entry point.
GraphReadResult parsePt2File(const std::filesystem::path& path, const GraphReadOptions& options);
}  // namespace qnnrules
