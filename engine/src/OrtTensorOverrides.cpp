// A recipe search's choices as ONNX Runtime tensor overrides (OrtTensorOverrides.h): the graph
// annotated with the search's recipe gives each overridden node's weight encodings; the graph
// annotated with the base config alone tells which activation encodings the override changed.
#include "qnnrules/OrtTensorOverrides.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

// The integer range a spec quantizes to (its dtype's when quant_min / quant_max are absent).
std::pair<int64_t, int64_t> rangeOf(const QuantSpec& q) {
  const QuantRange full = fullQuantRange(q.dtype);
  return {q.quantMin.value_or(full.min), q.quantMax.value_or(full.max)};
}

// ORT's QuantType for a spec; nullopt when it has none (2-bit, 32-bit, float).
std::optional<std::string> quantTypeOf(const QuantSpec& q) {
  const auto [lo, hi] = rangeOf(q);
  const int64_t levels = hi - lo;
  // 4-bit weights live in an int8 / uint8 container with a narrowed range (quant_configs.yaml).
  if (q.dtype == ScalarType::kInt8 || q.dtype == ScalarType::kUInt8) {
    const bool signedType = q.dtype == ScalarType::kInt8;
    if (levels > 15) return signedType ? "QInt8" : "QUInt8";
    if (levels >= 14) return signedType ? "QInt4" : "QUInt4";
    return std::nullopt;  // 2-bit
  }
  if (q.dtype == ScalarType::kInt16) return "QInt16";
  if (q.dtype == ScalarType::kUInt16) return "QUInt16";
  // pt2e spells 16-bit activations as int32 over a 16-bit range (quant_configs.yaml).
  if (q.dtype == ScalarType::kInt32 && lo >= 0 && hi <= 65535) return "QUInt16";
  if (q.dtype == ScalarType::kInt32 && lo >= -32768 && hi <= 32767) return "QInt16";
  return std::nullopt;
}

bool isBias(const QuantSpec& q) {
  return q.dtype == ScalarType::kInt32 && rangeOf(q).second > 65535;
}

const Argument* kwarg(const Node& n, std::string_view name) {
  for (const auto& [k, v] : n.kwargs)
    if (k == name) return &v;
  return nullptr;
}

// The channel axis of an ONNX weight, from the op as read: the annotation's axis is the ATen
// op's (a Gemm without transB, a MatMul store the weight transposed against aten.linear).
int32_t onnxAxis(const Graph& read, const Node& n, const Node& weight, const QuantSpec& q) {
  const std::string_view op = read.target(n);
  const int32_t rank = weight.outputs.empty() ? 2 : static_cast<int32_t>(weight.outputs[0].shape.size());
  if (op == "onnx::Conv") return 0;
  if (op == "onnx::ConvTranspose") return 1;
  if (op == "onnx::Gemm") {
    const Argument* t = kwarg(n, "transB");
    return t && t->i != 0 ? 0 : 1;
  }
  if (op == "onnx::MatMul") return rank - 1;
  return q.chAxis.value_or(0);
}

std::string specText(const QuantSpec& q) {
  const auto [lo, hi] = rangeOf(q);
  return fmt::format("{} {}..{}{}", scalarTypeName(q.dtype), lo, hi, q.blockSize.empty() ? "" : " block-wise");
}

bool sameEncoding(const QuantSpec& a, const QuantSpec& b) {
  return a.dtype == b.dtype && rangeOf(a) == rangeOf(b) && a.qscheme == b.qscheme && a.blockSize.size() == b.blockSize.size();
}

// `graph` annotated with `config` (and `recipe`), or the reason it could not be.
StatusOr<Graph> annotated(const Engine& e, const Graph& graph, const std::string& config, const Recipe* recipe) {
  Graph g = graph;
  AnnotateOptions o;
  o.config = config;
  o.recipe = recipe;
  AnnotateResult r = e.annotate(g, o);
  if (!r.status.isOk()) return r.status;
  return g;
}

}  // namespace

OrtTensorOverrides ortTensorOverrides(const Engine& engine, const Graph& graph, const RecipeSearchResult& search) {
  OrtTensorOverrides out;
  if (!search.ok()) {
    out.status = search.status;
    return out;
  }
  auto withRecipe = annotated(engine, graph, search.base, &search.recipe);
  auto base = annotated(engine, graph, search.base, nullptr);
  if (!withRecipe.isOk() || !base.isOk()) {
    out.status = withRecipe.isOk() ? base.status() : withRecipe.status();
    return out;
  }
  const Graph& g = *withRecipe;
  const Graph& b = *base;
  std::unordered_map<std::string, size_t> written;  // tensor -> index in out.overrides
  for (const NodeChoice& c : search.choices) {
    const std::optional<uint32_t> i = g.findNode(c.node), j = b.findNode(c.node), k = graph.findNode(c.node);
    if (!i || !j || !k) {
      out.unexpressed.push_back(c.node + ": not in the annotated graph");
      continue;
    }
    const Node& n = g.node(*i);
    const Node& was = b.node(*j);
    for (size_t a = 0; a < n.args.size(); ++a) {
      const Argument& arg = n.args[a];
      if (arg.kind != Argument::Kind::kTensor || !arg.qspec) continue;
      const QuantSpec& q = *arg.qspec;
      const Node& producer = g.node(arg.tensor.node);
      if (producer.kind != NodeKind::kParameter) {
        // An activation edge the override re-encoded: ORT keys it by a tensor name we do not keep.
        const Argument* before = a < was.args.size() ? &was.args[a] : nullptr;
        if (before && before->qspec && !sameEncoding(*before->qspec, q))
          out.unexpressed.push_back(fmt::format("{}: input {} ({}) from {} to {} (an activation tensor)", c.node, a,
                                                producer.name, specText(*before->qspec), specText(q)));
        continue;
      }
      if (isBias(q)) continue;  // ORT derives it from the input's and the weight's scales
      std::optional<std::string> type = quantTypeOf(q);
      if (!type || !q.blockSize.empty()) {
        out.unexpressed.push_back(fmt::format("{}: weight {} as {} (no ONNX Runtime QuantType)", c.node,
                                              producer.name, specText(q)));
        continue;
      }
      OrtTensorOverride o{producer.name, c.node, *type, isSymmetric(q.qscheme), std::nullopt};
      if (isPerChannel(q.qscheme)) o.axis = onnxAxis(graph, graph.node(*k), producer, q);
      if (auto w = written.find(o.tensor); w != written.end()) {
        const OrtTensorOverride& first = out.overrides[w->second];
        if (first.quantType != o.quantType || first.symmetric != o.symmetric || first.axis != o.axis)
          out.unexpressed.push_back(fmt::format("{}: weight {} is shared with {}, which needs {}", c.node, o.tensor,
                                                first.node, first.quantType));
        continue;
      }
      written.emplace(o.tensor, out.overrides.size());
      out.overrides.push_back(std::move(o));
    }
    for (size_t p = 0; p < n.outputs.size() && p < was.outputs.size(); ++p) {
      const auto& now = n.outputs[p].qspec;
      const auto& before = was.outputs[p].qspec;
      if (now && before && !sameEncoding(*before, *now))
        out.unexpressed.push_back(fmt::format("{}: output {} from {} to {} (an activation tensor)", c.node, p,
                                              specText(*before), specText(*now)));
    }
  }
  return out;
}

std::string OrtTensorOverrides::json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const OrtTensorOverride& o : overrides) {
    nlohmann::ordered_json d;
    d["quant_type"] = o.quantType;
    d["symmetric"] = o.symmetric;
    if (o.axis) d["axis"] = *o.axis;
    j[o.tensor] = nlohmann::ordered_json::array({d});
  }
  return j.dump(2) + "\n";
}

}  // namespace qnnrules
