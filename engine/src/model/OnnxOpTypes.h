// The op types of the ONNX default domain, as a table compiled into the engine: the rule
// loader checks a rule's `onnx` op names against it without linking ONNX (the ONNX reader is
// a module loaded on first use, OnnxModuleLoader.cpp) and without building ONNX's schema registry,
// which cost a tenth of a cold start. The table is the linked ONNX library's schemas (1.12,
// opset 17) plus the ops of opsets 18-23 (the ONNX changelog); a unit test checks it against
// the schema registry of the ONNX library the build finds.
#pragma once

#include <span>
#include <string_view>

namespace qnnrules {

// Sorted, unique.
std::span<const std::string_view> onnxDefaultDomainOpTypes();
// ONNX Runtime contrib op types (domain com.microsoft) a rule may name as com.microsoft::<op>.
// Sorted, unique.
std::span<const std::string_view> onnxContribOpTypes();
// The part of it newer than ONNX 1.12, for the test that compares the rest with the library.
std::span<const std::string_view> onnxOpTypesNewerThanLinked();

}  // namespace qnnrules
