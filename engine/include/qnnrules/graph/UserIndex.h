// The consumers of every node of a graph, built once in linear time (compressed rows), so
// passes can walk a graph forwards as cheaply as backwards.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "qnnrules/graph/Graph.h"

namespace qnnrules {

class UserIndex {
 public:
  explicit UserIndex(const Graph& graph);

  // Nodes that take an output of `node` as an argument (list elements and kwargs included),
  // each once, in graph order.
  std::span<const uint32_t> users(uint32_t node) const {
    return {users_.data() + offsets_[node], users_.data() + offsets_[node + 1]};
  }
  // Tensor producers of `node` (each once, in argument order).
  std::span<const uint32_t> producers(uint32_t node) const {
    return {producers_.data() + producerOffsets_[node], producers_.data() + producerOffsets_[node + 1]};
  }
  // Whether an output of `node` is a graph output (an argument of an output node).
  bool isGraphOutput(uint32_t node) const { return graphOutput_[node] != 0; }

 private:
  std::vector<uint32_t> offsets_, users_;
  std::vector<uint32_t> producerOffsets_, producers_;
  std::vector<uint8_t> graphOutput_;
};

}  // namespace qnnrules
