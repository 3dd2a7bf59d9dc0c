// Which call nodes of a graph do no device work: dead nodes (no graph output depends on them,
// like the empty.memory_format nodes make_fx leaves after batch-norm decomposition) and
// constant nodes (they depend on no graph input, like attention-mask construction or RoPE table
// slicing, which export-time constant folding computes once; and the shape of a statically
// shaped tensor, which ORT's constant folding computes), and no-op conversions (a Cast to the
// dtype its input has, which ORT's CastElimination and ExecuTorch's RemoveRedundancy drop).
// None is validated nor counted in partitions; constant nodes travel with their users as static
// tensors, like parameters, and no-op conversions go where their producer goes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/UserIndex.h"

namespace qnnrules {

enum class PruneKind : uint8_t {
  kKept,      // validated and partitioned
  kDead,      // no graph output depends on it
  kConstant,  // depends on no graph input (or only on a static shape): folded to a static tensor
  kNoOp,      // a conversion to the dtype its input already has: removed
};

struct PruneResult {
  std::vector<PruneKind> kind;     // per node; empty when nothing was pruned
  std::vector<uint32_t> dead;      // call nodes, graph order
  std::vector<uint32_t> constant;  // call nodes, graph order (dead ones are only in `dead`)
  std::vector<uint32_t> noOp;      // call nodes, graph order (neither dead nor constant)

  PruneKind of(uint32_t node) const { return kind.empty() ? PruneKind::kKept : kind[node]; }
  bool empty() const { return dead.empty() && constant.empty() && noOp.empty(); }
};

// Dead nodes are found only in a graph with an output node and constant nodes only in a graph
// with an input node: without them every node counts (a hand-written fragment is checked whole).
// Random factories (aten.rand*, normal, bernoulli, uniform, multinomial) are never constant.
// `runtimeValues`: a value the reader marked TensorMeta::runtimeValue is variable though its
// producers are constants (the lowering path computes nodes of quantized constants when the graph
// runs: LoweringPath::computesQuantizedConstants); otherwise the mark is ignored.
PruneResult pruneGraph(const Graph& graph, const UserIndex& users, bool runtimeValues = false);

// Conversions (Cast, aten.to, _to_copy), and whether one changes nothing: its one output has the
// dtype and shape of its first tensor input.
bool isConversionTarget(std::string_view target);
bool isNoOpConversion(const Graph& graph, const Node& node);

}  // namespace qnnrules
