// What ONNX Runtime's basic graph optimizations do to the encodings around a no-op conversion
// before its QNN EP sees the graph: CastElimination drops a Cast to the dtype its input has,
// leaving Q1 -> DQ1 -> Q2 -> DQ2, and DoubleQDQPairsRemover merges the two pairs into one
// encoding, the intersection of the two ranges. The producer of the conversion's input then
// writes that encoding, which may no longer equal its own input's: ORT's QDQ grouping of
// DQ -> Gather -> Q needs equal scales, so such a Gather reaches QNN as float (model suite:
// qwen2 and gpt2 on V68, where the float Gather fails at graph finalize).
#pragma once

#include <cstddef>

#include "qnnrules/graph/Graph.h"

namespace qnnrules {

// Merges the encodings on either side of every no-op conversion (passes/Prune.h) whose input
// is the only live use of its producer's output (dead users, which no graph output depends on,
// are not in the model ORT runs) and whose two per-tensor encodings of one integer type differ:
// the producer's output, the conversion's input and output and its users' input edges get the
// merged encoding. Likewise a producer every live user of which reads it in one other encoding
// of its type (a requantization with no node in between: the exporter dropped the cast).
// Returns how many conversions and requantizations it merged across.
size_t mergeEncodingsAcrossNoOpConversions(Graph& graph);

}  // namespace qnnrules
