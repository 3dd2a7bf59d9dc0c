// The boundary between the engine and its ONNX reader. The reader (OnnxReader.cpp, with
// libonnx and libprotobuf) is built as a module of its own, loaded with dlopen the first time
// a run reads an ONNX model (OnnxModuleLoader.cpp, ReaderModule.h), so a run that reads none
// pays nothing for those libraries: they were half the start-up time of every process (symbol
// relocation and protobuf's static descriptors). Internal to the engine.
#pragma once

#include <string>
#include <string_view>

#include "qnnrules/io/GraphReader.h"

// The one symbol the module exports (OnnxModuleEntry.cpp): reads `*bytes` into `*out`.
#define QNNRULES_ONNX_MODULE_ENTRY "qnnrules_onnx_read_model"
extern "C" {
using QnnrulesOnnxReadModel = void (*)(const std::string_view* bytes, const std::string* displayName,
                                       qnnrules::GraphReadResult* out);
}

namespace qnnrules {
// The reader itself, in the module only (OnnxReader.cpp); the engine's readOnnxModel
// (io/OnnxReader.h) loads the module and calls it through the entry point.
GraphReadResult parseOnnxModel(std::string_view bytes, const std::string& displayName);
}  // namespace qnnrules
