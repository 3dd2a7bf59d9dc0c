// Sanity of the quantization parameters a graph carries, whatever the rules say: a scale
// that is infinite or NaN, a scale below 1e-10 (1e-20 for 32-bit encodings, whose scale is a
// product input x weight) or above float32's largest value (QNN stores scales as float32), a
// zero point outside its dtype's
// range, and a conv/linear bias whose scale is not input scale x weight scale. Each concrete
// spec is checked once (not once per rule variant that looks at it); only problems build
// strings.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

struct NumericCheckOptions {
  double minScale = 1e-10;
  // No upper bound short of float32's range: the HTP backend accepts an attention-mask Add whose
  // mask encoding spans float32's lowest value (scale ~5.2e33 at 16 bits, ~1.3e36 at 8 bits;
  // conformance cases add/16a_mask/<SoC>, add/8a_mask/<SoC>, every architecture).
  double maxScale = static_cast<double>(std::numeric_limits<float>::max());
  // |bias - input x weight| <= tol x |input x weight|: float32 scales multiplied and stored
  // again differ from the exact product by a few ulps, far below this.
  double biasScaleRelTolerance = 1e-4;
  std::vector<uint8_t> skipNodes;  // per node, nonzero: not checked (passes/Prune.h)
};

// Errors with codes scale-not-finite, scale-out-of-range, zero-point-out-of-range,
// channel-count, block-size and bias-scale, in graph order.
DiagnosticList checkQuantParams(const Graph& graph, const RuleSet& rules, const NumericCheckOptions& options = {});
// The same over the run's facts (rules per target, shared roots), built once by the engine.
DiagnosticList checkQuantParams(const GraphFacts& facts, const NumericCheckOptions& options = {});

}  // namespace qnnrules
