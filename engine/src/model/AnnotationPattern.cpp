#include "qnnrules/model/AnnotationPattern.h"

#include <array>

namespace qnnrules {
namespace {
constexpr std::array<std::string_view, static_cast<size_t>(AnnotationPattern::kCount)> kNames = {
    "none", "siso", "binary", "conv", "shared", "single_in", "constant", "fixed_qparams",
    "multi_output", "concat", "getitem", "matmul", "norm", "embedding", "custom",
};
}  // namespace

std::string_view patternName(AnnotationPattern p) {
  auto i = static_cast<size_t>(p);
  return i < kNames.size() ? kNames[i] : "none";
}

std::optional<AnnotationPattern> parsePattern(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<AnnotationPattern>(i);
  return std::nullopt;
}

std::span<const std::string_view> patternNames() { return kNames; }

}  // namespace qnnrules
