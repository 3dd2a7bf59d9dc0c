#include "qnnrules/graph/Graph.h"

#include <array>

namespace qnnrules {
namespace {

constexpr std::array<std::string_view, 5> kNodeKindNames = {"input", "parameter", "constant", "call", "output"};

std::string refText(const Graph& g, uint32_t node, uint32_t output) {
  return "'" + g.node(node).name + "' output " + std::to_string(output);
}

}  // namespace

std::string_view nodeKindName(NodeKind k) {
  auto i = static_cast<size_t>(k);
  return i < kNodeKindNames.size() ? kNodeKindNames[i] : "unknown";
}

std::optional<NodeKind> parseNodeKind(std::string_view s) {
  for (size_t i = 0; i < kNodeKindNames.size(); ++i)
    if (kNodeKindNames[i] == s) return static_cast<NodeKind>(i);
  return std::nullopt;
}

SharedRef withEdgeSlot(const Graph& graph, SharedRef ref) {
  ref.arg = SharedRef::kUnknown;
  ref.element = SharedRef::kWhole;
  if (ref.consumer >= graph.nodes().size()) return ref;
  const std::vector<Argument>& args = graph.node(ref.consumer).args;
  auto reads = [&](const Argument& a) { return a.kind == Argument::Kind::kTensor && a.tensor.node == ref.node; };
  for (uint32_t i = 0; i < args.size(); ++i) {
    if (reads(args[i])) {
      ref.arg = i;
      return ref;
    }
    for (uint32_t e = 0; e < args[i].list.size(); ++e)
      if (reads(args[i].list[e])) {
        ref.arg = i;
        ref.element = e;
        return ref;
      }
  }
  return ref;
}

const Argument* edgeArgument(const Graph& graph, const SharedRef& ref) {
  if (ref.consumer >= graph.nodes().size()) return nullptr;
  const std::vector<Argument>& args = graph.node(ref.consumer).args;
  if (ref.arg < args.size()) {
    const Argument& a = args[ref.arg];
    const Argument* e = ref.element == SharedRef::kWhole ? &a
                        : ref.element < a.list.size()    ? &a.list[ref.element]
                                                         : nullptr;
    if (e && e->kind == Argument::Kind::kTensor && e->tensor.node == ref.node) return e;
  }
  // No slot, or a stale one (arguments rewritten since it was taken): look for the edge.
  const SharedRef found = withEdgeSlot(graph, ref);
  if (found.arg == SharedRef::kUnknown) return nullptr;
  const Argument& a = args[found.arg];
  return found.element == SharedRef::kWhole ? &a : &a.list[found.element];
}

// The index keeps only (hash, index) pairs, so a name is inserted before the string it names
// is stored; the lookup callback is only asked about names already stored.
uint32_t Graph::internTarget(std::string_view target) {
  const auto next = static_cast<uint32_t>(targets_.size());
  const uint32_t id = targetIndex_.insert(target, next, [&](uint32_t i) { return targetName(i); });
  if (id == next) targets_.emplace_back(target);
  return id;
}

// Consecutive nodes mostly belong to the same module: the last path interned is compared
// first, which spares hashing the path again.
uint32_t Graph::internModule(std::string_view path) {
  if (path.empty()) return Node::kNoModule;
  if (lastModule_ < modules_.size() && modules_[lastModule_] == path) return lastModule_;
  const auto next = static_cast<uint32_t>(modules_.size());
  const uint32_t id = moduleIndex_.insert(path, next, [&](uint32_t i) { return moduleName(i); });
  if (id == next) modules_.emplace_back(path);
  lastModule_ = id;
  return id;
}

void Graph::reserve(size_t nodes) {
  nodes_.reserve(nodes);
  nodeIndex_.reserve(nodes);
}

StatusOr<uint32_t> Graph::addNode(Node node) {
  auto index = static_cast<uint32_t>(nodes_.size());
  if (nodeIndex_.insert(node.name, index, [&](uint32_t i) { return nodeName(i); }) != index)
    return Status(StatusCode::kSchemaError, "duplicate node name '" + node.name + "'", node.name);
  nodes_.push_back(std::move(node));
  return index;
}

std::optional<uint32_t> Graph::findNode(std::string_view name) const {
  return nodeIndex_.find(name, [&](uint32_t i) { return nodeName(i); });
}

Status Graph::verify() const {
  // `whereOf()` names the port; called only when there is an error to report, so that a valid
  // graph costs no string per annotated port.
  auto checkShared = [&](const QuantSpec& spec, auto&& whereOf) -> Status {
    if (!spec.sharedWith) return Status::ok();
    const SharedRef& r = *spec.sharedWith;
    if (r.node >= nodes_.size())
      return Status(StatusCode::kSchemaError, whereOf() + ": shared_with names a node that does not exist");
    if (r.kind == SharedRef::Kind::kNodeOutput) {
      if (r.output >= nodes_[r.node].outputs.size())
        return Status(StatusCode::kSchemaError,
                      whereOf() + ": shared_with names " + refText(*this, r.node, r.output) + ", which does not exist",
                      nodes_[r.node].name);
      return Status::ok();
    }
    if (r.consumer >= nodes_.size())
      return Status(StatusCode::kSchemaError, whereOf() + ": shared_with edge names a consumer that does not exist");
    if (!edgeArgument(*this, r))
      return Status(StatusCode::kSchemaError,
                    whereOf() + ": shared_with edge ['" + nodes_[r.node].name + "', '" + nodes_[r.consumer].name +
                        "'] is not an edge of the graph: '" + nodes_[r.consumer].name + "' does not use '" +
                        nodes_[r.node].name + "'",
                    nodes_[r.consumer].name);
    return Status::ok();
  };

  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.kind == NodeKind::kCall && (n.targetId == Node::kNoTarget || n.targetId >= targets_.size()))
      return Status(StatusCode::kSchemaError, "node '" + n.name + "' is a call without a target", n.name);
    if (n.moduleId != Node::kNoModule && n.moduleId >= modules_.size())
      return Status(StatusCode::kSchemaError, "node '" + n.name + "' names a module path the graph does not have",
                    n.name);
    Status st;
    auto checkArg = [&](const Argument& a, auto& self) -> void {
      if (!st.isOk()) return;
      if (a.kind == Argument::Kind::kList) {
        for (const Argument& e : a.list) self(e, self);
        return;
      }
      if (a.kind != Argument::Kind::kTensor) return;
      if (a.tensor.node >= i) {
        st = Status(StatusCode::kSchemaError,
                    "node '" + n.name + "' uses a tensor of a node that does not come before it (nodes must be in "
                    "topological order)",
                    n.name);
        return;
      }
      if (a.tensor.output >= nodes_[a.tensor.node].outputs.size() &&
          !(a.tensor.output == 0 && nodes_[a.tensor.node].outputs.empty())) {
        st = Status(StatusCode::kSchemaError,
                    "node '" + n.name + "' uses " + refText(*this, a.tensor.node, a.tensor.output) +
                        ", which does not exist",
                    n.name);
        return;
      }
      if (a.qspec)
        st = checkShared(*a.qspec, [&] { return "node '" + n.name + "' input edge from '" + nodes_[a.tensor.node].name + "'"; });
    };
    for (const Argument& a : n.args) checkArg(a, checkArg);
    for (const auto& [key, a] : n.kwargs) checkArg(a, checkArg);
    if (!st.isOk()) return st;
    for (size_t o = 0; o < n.outputs.size(); ++o)
      if (n.outputs[o].qspec) {
        Status s = checkShared(*n.outputs[o].qspec, [&] { return "node '" + n.name + "' output " + std::to_string(o); });
        if (!s.isOk()) return s;
      }
  }
  return Status::ok();
}

}  // namespace qnnrules
