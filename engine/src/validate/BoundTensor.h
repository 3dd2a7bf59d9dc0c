// One tensor of a node bound to one port of its rule, with what QNN will see on it and the
// encoding facts the checks need, computed once when the node is bound (not once per variant
// that matches: a block-wise weight has thousands of zero points). Internal to validate/.
#pragma once

#include <cstdint>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/graph/QuantSpec.h"
#include "qnnrules/graph/SharedRoots.h"

namespace qnnrules {

struct BoundTensor {
  int port = 0;         // index into Rule::ports
  int listIndex = -1;   // element of a list argument
  int position = -1;    // argument or output index (differs from the port's for variadic ports)
  const QuantSpec* spec = nullptr;  // as annotated (may be shared)
  Resolved resolved;
  PortType type;
  // Where the tensor is: output `output` of node `producer` of `graph` (an input's producer, the
  // node itself for an output), or a Python number the path lifts (graph null: 0-d). Only read by
  // elements(): binding does not touch the producer, a node elsewhere in memory.
  const Graph* graph = nullptr;
  uint32_t producer = 0;
  uint32_t output = 0;
  // The tensor's element count (1 for a 0-d tensor); -1 when a dimension is unknown (max_elements).
  int64_t elements() const;
  const QuantSpec* root() const { return resolved.root; }

  // Encoding facts of the resolved spec, computed on first use and then kept for every other
  // variant the node is checked against: a pass over thousands of zero points happens at most
  // once per tensor, and not at all when no variant asks.
  // Symmetric qscheme, and every zero point is the datatype's symmetric one.
  bool symmetric() const;

 private:
  mutable int8_t symmetric_ = -1;  // -1: not computed yet
};

}  // namespace qnnrules
