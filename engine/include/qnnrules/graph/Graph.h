// The in-memory graph: nodes in topological order, their arguments, outputs and
// quantization annotations. Built by a GraphReader or in memory by an embedder.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qnnrules/core/OptionalBox.h"
#include "qnnrules/graph/GraphSource.h"
#include "qnnrules/graph/NameIndex.h"
#include "qnnrules/graph/QuantSpec.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

enum class NodeKind : uint8_t {
  kInput,      // graph input (FX placeholder)
  kParameter,  // weight or bias (FX get_attr / lifted parameter)
  kConstant,   // lifted constant tensor
  kCall,       // an operator call; has a target
  kOutput,     // the graph's output node
};
std::string_view nodeKindName(NodeKind k);  // "input", "parameter", ...
std::optional<NodeKind> parseNodeKind(std::string_view s);

struct TensorRef {
  uint32_t node = 0;    // index into Graph::nodes()
  uint32_t output = 0;  // which output of that node
};

// One positional argument (or keyword value). Literals are kept so rules can look at attributes.
struct Argument {
  // kNumbers: a long list of numbers — the per-channel or per-block scales or zero points of a
  // quantize/dequantize node, read from a tensor (.pt2) or an array (Python) — packed as float64,
  // 8 bytes each, in `s` rather than one Argument per value (an 8-layer block-wise decoder has
  // 7.9 M of them: 0.75 GB as Arguments). `b`: the values are integers (zero points). Read with
  // numberCount() / numberAt(); written out, it is a list like kList's.
  enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kString, kList, kTensor, kNumbers };
  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<Argument> list;
  TensorRef tensor;                 // when kind == kTensor
  OptionalBox<QuantSpec> qspec;     // annotation of this input edge (kTensor only)

  static Argument tensorRef(uint32_t node, uint32_t output = 0) {
    Argument a; a.kind = Kind::kTensor; a.tensor = {node, output}; return a;
  }
  static Argument integer(int64_t v) { Argument a; a.kind = Kind::kInt; a.i = v; return a; }
  static Argument numbers(const double* values, size_t count, bool integers) {
    Argument a;
    a.kind = Kind::kNumbers;
    a.b = integers;
    a.s.resize(count * sizeof(double));
    if (count) std::memcpy(a.s.data(), values, count * sizeof(double));
    return a;
  }
  size_t numberCount() const { return kind == Kind::kNumbers ? s.size() / sizeof(double) : 0; }
  double numberAt(size_t i) const {
    double v;
    std::memcpy(&v, s.data() + i * sizeof(double), sizeof v);
    return v;
  }
};

// Observed value ranges from calibration, from which encodings are computed (Encodings.h).
// Per-tensor: one min and one max. Per-channel: one per channel along `axis`. Per-block:
// `blocks` values per channel, channel-major (LPBQ weights).
struct TensorStats {
  std::vector<double> min;
  std::vector<double> max;
  int32_t axis = -1;   // -1: per-tensor
  int64_t blocks = 0;  // 0: not block-wise
};

struct TensorMeta {
  ScalarType dtype = ScalarType::kFloat32;
  std::vector<int64_t> shape;        // -1: a dimension the reader does not know
  // The shape is known only at run time: it depends on a value the lowering path computes when
  // the graph runs (ONNX: shape arithmetic ONNX Runtime does not fold, io/onnx/OnnxRuntimeShapes.h).
  // A path that needs static shapes (LoweringPath::dynamicShapesMessage) refuses such a tensor.
  bool runtimeShape = false;
  // The value is computed when the graph runs although every input is a constant: the lowering
  // path does not fold it (ONNX: ONNX Runtime never folds a DequantizeLinear outside a DQ -> X -> Q
  // unit, so a node reading a quantized constant reaches the backend; io/onnx/OnnxRuntimeShapes.h).
  bool runtimeValue = false;
  OptionalBox<QuantSpec> qspec;     // annotation of this output
  OptionalBox<TensorStats> stats;   // calibration statistics of this output, if recorded
};

struct Node {
  std::string name;
  NodeKind kind = NodeKind::kCall;
  uint32_t targetId = kNoTarget;    // index into Graph::targets(); kNoTarget unless kind == kCall
  std::vector<Argument> args;
  std::vector<std::pair<std::string, Argument>> kwargs;
  std::vector<TensorMeta> outputs;
  // Index into Graph::modules() of the module path, e.g. "layer1.0.conv1" (from
  // nn_module_stack); kNoModule when the node has none. Read it with Graph::modulePath(node).
  uint32_t moduleId = kNoModule;
  // The op the user's file names, when a reader bound the node to a rule's target (an ONNX
  // Gemm, "onnx::Gemm", bound to aten.linear.default): an index into Graph::targets(), or
  // kNoTarget when the target is the file's own op (.pt2, JSON). Read it with Graph::sourceOp.
  uint32_t sourceId = kNoTarget;

  static constexpr uint32_t kNoTarget = UINT32_MAX;
  static constexpr uint32_t kNoModule = UINT32_MAX;
};

class Graph;
// The argument of an input edge named by a shared_with edge reference: the first tensor
// argument of `ref.consumer` (positional arguments and their list elements, in order) that
// reads `ref.node`; nullptr when there is none. O(1) when the reference carries its slot.
const Argument* edgeArgument(const Graph& graph, const SharedRef& ref);
// The slot edgeArgument looks for, found by scanning the consumer's arguments (kUnknown arg
// when the edge does not exist).
SharedRef withEdgeSlot(const Graph& graph, SharedRef ref);

class Graph {
 public:
  std::string name;
  int formatVersion = 1;
  // What the reader and the Q/DQ fold know, recorded on the graph so that a later step reads the
  // graph rather than asking what a run did (Engine::annotate then validate and a run with
  // annotation see the same graph): the format it was read from (a JSON graph whose targets are
  // onnx:: ops is an ONNX model written as JSON), and whether its encodings were folded from
  // Q/DQ nodes (passes/QdqFold.h), so each node was grouped with the Q/DQ nodes around it.
  GraphSource source = GraphSource::kJson;
  bool qdqFolded = false;

  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& mutableNodes() { return nodes_; }
  const Node& node(uint32_t i) const { return nodes_[i]; }
  // Interned ATen targets: each distinct target string is stored once, so passes map
  // targets to rules once per distinct target rather than once per node.
  const std::vector<std::string>& targets() const { return targets_; }
  std::string_view target(const Node& n) const {
    return n.targetId == Node::kNoTarget ? std::string_view() : std::string_view(targets_[n.targetId]);
  }

  uint32_t internTarget(std::string_view target);
  // The op type the user sees in their file: an ONNX node's "onnx::Gemm" (domain::op_type) after
  // binding, a .pt2's ATen target.
  std::string_view sourceOp(const Node& n) const {
    return n.sourceId == Node::kNoTarget ? target(n) : std::string_view(targets_[n.sourceId]);
  }

  // Interned module paths, like targets: a real export has a few hundred distinct paths for
  // hundreds of thousands of nodes, most longer than a short string, so each is stored once.
  const std::vector<std::string>& modules() const { return modules_; }
  std::string_view modulePath(const Node& n) const {
    return n.moduleId == Node::kNoModule ? std::string_view() : std::string_view(modules_[n.moduleId]);
  }
  // The id of `path` in modules(); kNoModule for an empty path.
  uint32_t internModule(std::string_view path);
  // Room for `nodes` nodes, so that reading a large graph does not rehash its name index.
  void reserve(size_t nodes);
  // Appends a node; fails on a duplicate name. Returns the node's index.
  StatusOr<uint32_t> addNode(Node node);
  std::optional<uint32_t> findNode(std::string_view name) const;
  // A hint that a node named `name` is about to be added (or looked up): readers call it when
  // they read a node's name, before its arguments, so that addNode does not wait for memory.
  void prefetchNodeName(std::string_view name) const { nodeIndex_.prefetch(name); }
  // The second step of looking `name` up ahead of findNode (after prefetchNodeName): starts
  // loading the node the index points at. A long list of references to nodes read long ago
  // (a 100k-way cat) otherwise waits for two cache misses per element.
  void prefetchNode(std::string_view name) const {
    nodeIndex_.prefetchEntry(name, [&](uint32_t i) { return &nodes_[i]; });
  }

  // Checks the invariants a reader guarantees: tensor references point at earlier nodes and
  // existing outputs, shared references point at existing nodes/outputs/edges, calls have targets.
  Status verify() const;

 private:
  std::string_view nodeName(uint32_t i) const { return nodes_[i].name; }
  std::string_view targetName(uint32_t i) const { return targets_[i]; }
  std::string_view moduleName(uint32_t i) const { return modules_[i]; }

  std::vector<Node> nodes_;
  std::vector<std::string> targets_;
  NameIndex targetIndex_;  // keys are targets_ itself
  std::vector<std::string> modules_;
  NameIndex moduleIndex_;  // keys are modules_ itself
  uint32_t lastModule_ = Node::kNoModule;  // internModule's last answer
  NameIndex nodeIndex_;    // keys are the nodes' names
};

}  // namespace qnnrules
