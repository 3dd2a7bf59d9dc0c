// Annotation patterns: how a rule's op gets quantization specs. Rules name them; the
// annotator implements each once. The loader rejects names that are not listed here.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace qnnrules {

enum class AnnotationPattern : uint8_t {
  kNone,             // nothing annotated (structural or unsupported ops)
  kSingleInSingleOut,// args[0] and the output
  kBinary,           // args[0], args[1] and the output
  kConv,             // input, weight, derived bias, output
  kShared,           // output shares the input's encoding (math-invariant)
  kSingleIn,         // args[0] only (index or tuple outputs)
  kConstant,         // output only
  kFixedQParams,     // input plus an output with fixed scale/offset
  kMultiOutput,      // split/unbind/topk/sort: outputs share the input
  kConcat,           // all inputs and the output share one range
  kGetItem,          // tuple element: follows its producer
  kMatMul,           // in0 activation, in1 weight spec when activations are 16-bit
  kNorm,             // layer/group/rms/batch norm: weight spec depends on activation width
  kEmbedding,        // table and output
  kCustom,           // op-specific logic in the annotator
  kCount
};

std::string_view patternName(AnnotationPattern p);  // "siso", "binary", ...
std::optional<AnnotationPattern> parsePattern(std::string_view name);
std::span<const std::string_view> patternNames();

}  // namespace qnnrules
