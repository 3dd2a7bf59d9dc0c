// Internal to the graph reader: argument values in the schema walk (docs/graph-format.md
// "Argument values"): scalars, lists and tensor references, whose producers must come earlier in the
// file. Included by GraphSchemaReader.h.
#pragma once

#include "GraphSchemaReader.h"

namespace qnnrules::graphschema {

// Argument values: null, bool, int, float, string, lists, and tensor references.
template <typename V>
Argument Reader<V>::readValue(const V& v) {
  Argument a;
  switch (v.kind()) {
    case Kind::kNull: a.kind = Argument::Kind::kNone; break;
    case Kind::kBool: a.kind = Argument::Kind::kBool; a.b = v.boolean(); break;
    case Kind::kInt:
    case Kind::kUInt: a.kind = Argument::Kind::kInt; a.i = asInt64(v); break;
    case Kind::kDouble: a.kind = Argument::Kind::kFloat; a.f = v.f64(); break;
    case Kind::kString: a.kind = Argument::Kind::kString; a.s = std::string(v.str()); break;
    case Kind::kArray:
      a.kind = Argument::Kind::kList;
      a.list.reserve(v.size());
      readList(v, a.list);
      break;
    case Kind::kObject: readTensorRef(v, a); break;
  }
  return a;
}

// A list's elements in order. In a long list of tensor references (a cat of 100k inputs,
// the graph's outputs) of a graph whose name index has outgrown the cache, each element's
// producer is looked up two steps ahead of reading it, kAhead elements apart: its index slot,
// then its node, so that the lookups' cache misses overlap instead of each element waiting for
// two. (In a smaller graph the extra lookups only cost: 5% more instructions on a 100k fan-in.)
template <typename V>
void Reader<V>::readList(const V& list, std::vector<Argument>& out) {
  auto readElement = [&](size_t i, const V& e) {
    PathScope s(path_, i);
    where_.push_back(i);
    out.push_back(readValue(e));
    where_.pop_back();
  };
  constexpr size_t kAhead = 8, kRing = 2 * kAhead, kLong = 64, kLargeGraph = size_t{1} << 17;
  if (list.size() < kLong || out_.graph.nodes().size() < kLargeGraph) {
    list.forEach(readElement);
    return;
  }
  struct Pending {
    std::optional<V> value;
    std::string_view producer;  // empty unless a tensor reference
  };
  std::array<Pending, kRing> ring;
  const auto producerOf = [](const V& e) {
    if (e.kind() != Kind::kObject) return std::string_view();
    std::optional<V> ref = e.get("ref");
    return ref && ref->kind() == Kind::kString ? ref->str() : std::string_view();
  };
  size_t count = 0;
  list.forEach([&](size_t i, const V& e) {
    Pending& p = ring[i % kRing];
    if (i >= kRing) readElement(i - kRing, *p.value);  // the slot's previous element
    p.value = e;
    p.producer = producerOf(e);
    if (!p.producer.empty()) out_.graph.prefetchNodeName(p.producer);
    if (i >= kAhead) {
      if (std::string_view n = ring[(i - kAhead) % kRing].producer; !n.empty()) out_.graph.prefetchNode(n);
    }
    count = i + 1;
  });
  for (size_t i = count > kRing ? count - kRing : 0; i < count; ++i) readElement(i, *ring[i % kRing].value);
}

template <typename V>
void Reader<V>::readTensorRef(const V& v, Argument& a) {
  const auto refFields = fields<Keys<"ref", "output", "qspec">>(v);
  std::optional<V> ref = field<"ref">(refFields);
  if (!ref) {
    missing("ref", "a tensor reference {\"ref\": \"<node>\"}");
    return;
  }
  std::string_view producer;
  {
    PathScope s(path_, "ref");
    if (ref->kind() != Kind::kString) {
      wrongType("the name of an earlier node", *ref);
      return;
    }
    producer = ref->str();
    auto idx = out_.graph.findNode(producer);
    if (!idx) {
      const std::string who(producer);
      if (unread_.count(who)) return;  // a node with errors of its own, said above: not "comes after it"
      if (producer == currentNode_)
        error("node '" + who + "' uses its own output", "a node that comes before it", "\"" + who + "\"");
      else if (namedLater(producer))
        error("node uses '" + who + "', which comes after it (nodes must be in topological order)",
              "a node that comes before it", "\"" + who + "\"");
      else
        error("unknown node '" + who + "'", "the name of an earlier node", "\"" + who + "\"");
      return;
    }
    a.kind = Argument::Kind::kTensor;
    a.tensor.node = *idx;
  }
  if (std::optional<V> output = field<"output">(refFields)) {
    PathScope s(path_, "output");
    if (auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index")) a.tensor.output = *o;
    // An index past the producer's outputs. Output 1 or later of a node that lists no outputs
    // is Graph::verify's to report; reading node by node runs no verify (its reader checks all
    // the rest as it reads), so it hands such a graph to the whole-document reading, whose
    // verify says it.
    const Node& p = out_.graph.node(a.tensor.node);
    if (!p.outputs.empty() && a.tensor.output >= p.outputs.size())
      error("node '" + std::string(producer) + "' has no output " + std::to_string(a.tensor.output),
            "an index below " + std::to_string(p.outputs.size()), output->dump());
    else if (streamed_ && p.outputs.empty() && a.tensor.output > 0)
      error("an output of a node without outputs", "output 0", output->dump());
  }
  if (std::optional<V> q = field<"qspec">(refFields)) {
    PathScope s(path_, "qspec");
    if (q->kind() != Kind::kNull) a.qspec = readQSpec(*q);
  }
}

// Whether some node of the document has this name. Only asked on the error path, so the
// set of all names is built then rather than for every graph.
template <typename V>
bool Reader<V>::namedLater(std::string_view name) {
  if (allNames_.empty() && nodes_)
    nodes_->forEach([&](size_t, const V& n) {
      if (n.kind() != Kind::kObject) return;
      if (auto nm = n.get("name"); nm && nm->kind() == Kind::kString) allNames_.emplace(nm->str());
    });
  return allNames_.count(name) != 0;
}

}  // namespace qnnrules::graphschema
