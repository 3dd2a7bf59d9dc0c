// Internal to the .pt2 reader: the serialized ExportedProgram (JSON, schema in
// torch/_export/serde/schema.py) -> Graph.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qnnrules/graph/Graph.h"

namespace qnnrules::pt2 {

// A value of the JSON that breaks the schema: where (a JSON pointer) and what.
struct SchemaError : std::runtime_error {
  SchemaError(std::string pointer, const std::string& what) : std::runtime_error(what), pointer(std::move(pointer)) {}
  std::string pointer;
};

// The values of a lifted tensor (parameter, buffer or constant), by placeholder name, in
// row-major order; nullopt when they cannot be read (pickled, too large, unknown dtype).
using ConstantValues = std::function<std::optional<std::vector<double>>(const std::string& placeholder)>;

// What the signature says a placeholder is: kind and fully qualified name ("conv.weight").
struct LiftedInput {
  NodeKind kind = NodeKind::kInput;
  std::string fqn;
  enum class Store : uint8_t { kNone, kWeights, kConstants } store = Store::kNone;
};

// Reads graph_module.signature.input_specs: placeholder name -> what it is.
std::unordered_map<std::string, LiftedInput> readSignature(const nlohmann::json& program);

// Builds the graph. Throws SchemaError on JSON that breaks the schema.
Graph buildGraph(const nlohmann::json& program, const std::unordered_map<std::string, LiftedInput>& lifted,
                 const ConstantValues& constants);

}  // namespace qnnrules::pt2
