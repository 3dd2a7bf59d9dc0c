// Internal to the graph reader: the quant spec and calibration statistics parts of the
// schema walk (docs/graph-format.md "Quant specs", "Statistics"), and the resolution of
// shared_with references once every node is known. Included by GraphSchemaReader.h.
#pragma once

#include "GraphSchemaReader.h"

namespace qnnrules::graphschema {

// Calibration statistics (docs/graph-format.md "Statistics"): min/max as numbers or lists.
template <typename V>
std::optional<TensorStats> Reader<V>::readStats(const V& st) {
  if (st.kind() != Kind::kObject) {
    wrongType("a statistics object {min, max, axis?, blocks?}", st);
    return std::nullopt;
  }
  const auto statFields = fields<Keys<"min", "max", "axis", "blocks">>(st);
  TensorStats t;
  size_t errorsBefore = out_.errors.size();
  auto numbers = [&](const char* key, const std::optional<V>& v, std::vector<double>& out) {
    if (!v) {
      missing(key, "the observed range");
      return;
    }
    PathScope s(path_, key);
    oneOrMany(*v, [&](const V& x) {
      if (!isNumber(x) || !std::isfinite(x.f64())) wrongType("a finite number", x);
      else out.push_back(x.f64());
    });
  };
  numbers("min", field<"min">(statFields), t.min);
  numbers("max", field<"max">(statFields), t.max);
  if (std::optional<V> v = field<"axis">(statFields)) {
    PathScope s(path_, "axis");
    if (auto a = integer<int32_t>(*v, 0, 64, "a channel axis")) t.axis = *a;
  }
  if (std::optional<V> v = field<"blocks">(statFields)) {
    PathScope s(path_, "blocks");
    if (auto b = integer<int64_t>(*v, 1, INT32_MAX, "a block count (>= 1)")) t.blocks = *b;
  }
  if (t.min.size() != t.max.size() || t.min.empty())
    error("stats min and max need the same, non-zero number of values", "as many max values as min values",
          std::to_string(t.min.size()) + " min, " + std::to_string(t.max.size()) + " max");
  if (out_.errors.size() != errorsBefore) return std::nullopt;
  return t;
}

template <typename V>
std::optional<QuantSpec> Reader<V>::readQSpec(const V& q) {
  if (q.kind() != Kind::kObject) {
    wrongType("a quant spec object", q);
    return std::nullopt;
  }
  if (std::optional<V> sw = q.get("shared_with")) return readSharedWith(q, *sw);
  QuantSpec spec;
  const auto specFields = fields<QSpecKeys>(q);
  size_t errorsBefore = out_.errors.size();
  readQuantRange(specFields, spec);
  readQuantLayout(specFields, spec);
  readQuantValues(specFields, spec);
  if (out_.errors.size() != errorsBefore) return std::nullopt;
  return spec;
}

// A spec that shares another's encoding, {"shared_with": {"node": name, "output"?: index}} or
// {"shared_with": {"edge": [producer, consumer]}}: recorded in pending_, resolved by resolveShared.
template <typename V>
std::optional<QuantSpec> Reader<V>::readSharedWith(const V& q, const V& sw) {
  fields<Keys<"shared_with">>(q);
  PathScope s(path_, "shared_with");
  if (sw.kind() != Kind::kObject) {
    wrongType("{\"node\": name} or {\"edge\": [producer, consumer]}", sw);
    return std::nullopt;
  }
  const auto sharedFields = fields<SharedKeys>(sw);
  PendingShared p;
  p.node = self_;
  p.section = section_;
  p.where = where_;
  if (!streamed_) p.pointer = path_.parts();
  std::optional<V> node = field<"node">(sharedFields);
  std::optional<V> edge = field<"edge">(sharedFields);
  if (node.has_value() == edge.has_value()) {
    error("shared_with needs exactly one of 'node' and 'edge'", "{\"node\": name} or {\"edge\": [producer, consumer]}",
          sw.dump());
    return std::nullopt;
  }
  if (node ? !readSharedNode(*node, sharedFields, p) : !readSharedEdge(*edge, p)) return std::nullopt;
  QuantSpec spec;
  spec.sharedWith = SharedRef{};
  pending_.push_back(std::move(p));
  return spec;
}

// Node by node, a name already read is resolved now (PendingShared); the whole document
// resolves every name at the end, as its error messages expect.
template <typename V>
void Reader<V>::resolveSharedName(std::string_view name, uint32_t& index, std::string& byName) {
  if (streamed_) {
    if (name == currentNode_) {
      index = self_;
      return;
    }
    if (std::optional<uint32_t> found = out_.graph.findNode(name)) {
      index = *found;
      return;
    }
  }
  byName = std::string(name);
}

// shared_with's "node" and its "output" (read under "node" in the pointer, as always).
template <typename V>
bool Reader<V>::readSharedNode(const V& node, const FieldValues<V, SharedKeys>& sharedFields, PendingShared& p) {
  PathScope ns(path_, "node");
  if (node.kind() != Kind::kString) {
    wrongType("a node name", node);
    return false;
  }
  resolveSharedName(node.str(), p.producerIndex, p.producer);
  if (std::optional<V> output = field<"output">(sharedFields)) {
    PathScope os(path_, "output");
    auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index");
    if (!o) return false;
    p.output = *o;
  }
  return true;
}

template <typename V>
bool Reader<V>::readSharedEdge(const V& edge, PendingShared& p) {
  PathScope es(path_, "edge");
  std::array<std::string_view, 2> ends;
  size_t strings = 0;
  if (edge.kind() == Kind::kArray && edge.size() == 2)
    edge.forEach([&](size_t i, const V& e) {
      if (e.kind() != Kind::kString) return;
      ends[i] = e.str();
      ++strings;
    });
  if (strings != 2) {
    wrongType("[\"<producer>\", \"<consumer>\"]", edge);
    return false;
  }
  p.edge = true;
  resolveSharedName(ends[0], p.producerIndex, p.producer);
  resolveSharedName(ends[1], p.consumerIndex, p.consumer);
  return true;
}

// dtype (required), quant_min and quant_max, and whether the range fits the dtype.
template <typename V>
void Reader<V>::readQuantRange(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec) {
  bool dtypeRead = false;
  if (std::optional<V> dt = field<"dtype">(specFields)) {
    PathScope s(path_, "dtype");
    auto t = dt->kind() == Kind::kString ? parseScalarType(dt->str()) : std::nullopt;
    if (!t) error("unknown quantization dtype", "uint8, int8, uint16, int16, int32, float16, ...", dt->dump());
    else spec.dtype = *t, dtypeRead = true;
  } else {
    missing("dtype", "the storage dtype, e.g. \"uint8\"");
  }
  if (std::optional<V> v = field<"quant_min">(specFields)) {
    PathScope s(path_, "quant_min");
    spec.quantMin = integer<int64_t>(*v, kQuantLo, kQuantHi, "an integer");
  }
  if (std::optional<V> v = field<"quant_max">(specFields)) {
    PathScope s(path_, "quant_max");
    spec.quantMax = integer<int64_t>(*v, kQuantLo, kQuantHi, "an integer");
  }
  if (spec.quantMin && spec.quantMax && *spec.quantMin >= *spec.quantMax) {
    PathScope s(path_, "quant_max");
    error("quant_max must be greater than quant_min", "quant_max > " + std::to_string(*spec.quantMin),
          std::to_string(*spec.quantMax));
  }
  if (dtypeRead) checkRangeFitsDtype(spec);
}

// qscheme, ch_axis and block_size: how the values are laid over the tensor.
template <typename V>
void Reader<V>::readQuantLayout(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec) {
  if (std::optional<V> v = field<"qscheme">(specFields)) {
    PathScope s(path_, "qscheme");
    auto qs = v->kind() == Kind::kString ? parseQScheme(v->str()) : std::nullopt;
    if (!qs)
      error("unknown qscheme", "per_tensor_affine, per_tensor_symmetric, per_channel_affine or per_channel_symmetric",
            v->dump());
    else spec.qscheme = *qs;
  }
  if (std::optional<V> v = field<"ch_axis">(specFields)) {
    PathScope s(path_, "ch_axis");
    spec.chAxis = integer<int32_t>(*v, -64, 64, "an axis");
  }
  if (std::optional<V> v = field<"block_size">(specFields)) {
    PathScope s(path_, "block_size");
    if (v->kind() != Kind::kArray || v->size() == 0) {
      wrongType("a non-empty list of block sizes", *v);
    } else {
      v->forEach([&](size_t i, const V& e) {
        PathScope bs(path_, i);
        if (auto b = integer<int64_t>(e, 1, INT32_MAX, "a block size (>= 1)")) spec.blockSize.push_back(*b);
      });
    }
  }
}

// scale and zero_point: one value, or one per channel or block.
template <typename V>
void Reader<V>::readQuantValues(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec) {
  if (std::optional<V> v = field<"scale">(specFields)) {
    PathScope s(path_, "scale");
    auto one = [&](const V& x) {
      if (!isNumber(x)) {
        wrongType("a positive number", x);
        return;
      }
      double d = x.f64();
      if (!(d > 0) || !std::isfinite(d)) {
        error("scales must be positive and finite", "a number > 0", x.dump());
        return;
      }
      spec.scales.push_back(d);
    };
    oneOrMany(*v, one);
  }
  if (std::optional<V> v = field<"zero_point">(specFields)) {
    PathScope s(path_, "zero_point");
    auto one = [&](const V& x) {
      if (auto z = integer<int64_t>(x, kQuantLo, kQuantHi, "an integer zero point")) spec.zeroPoints.push_back(*z);
    };
    oneOrMany(*v, one);
    recordZeroPointRange(spec);  // while the zero points are in cache: validation reads the range
  }
}

// quant_min and quant_max are values of the storage dtype: a uint8 tensor with 0..65535 cannot
// hold its own range (it would be judged a 16-bit port that stores 8 bits). Integer dtypes
// only; a float dtype's quant range is not a storage bound.
template <typename V>
void Reader<V>::checkRangeFitsDtype(const QuantSpec& spec) {
  const QuantRange full = fullQuantRange(spec.dtype);
  if (full.min == full.max) return;  // float, bool: no integer range
  for (auto [key, value] : {std::pair{"quant_min", spec.quantMin}, std::pair{"quant_max", spec.quantMax}}) {
    if (!value || (*value >= full.min && *value <= full.max)) continue;
    // Words only for an error: this runs for every spec of the graph.
    const std::string dtype(scalarTypeName(spec.dtype));
    PathScope s(path_, key);
    error(std::string(key) + " " + std::to_string(*value) + " of node '" + std::string(currentNode_) +
              "' is not a value of its dtype " + dtype,
          dtype + " values " + std::to_string(full.min) + ".." + std::to_string(full.max), std::to_string(*value));
  }
}

// The spec a pending reference was read into, now that its node is in the graph.
template <typename V>
QuantSpec* Reader<V>::locate(const PendingShared& p) {
  Node& n = out_.graph.mutableNodes()[p.node];
  if (p.section == Section::kOutputs) {
    auto& q = n.outputs[p.where[0]].qspec;
    return q ? &*q : nullptr;
  }
  Argument* a = p.section == Section::kArgs ? &n.args[p.where[0]] : &n.kwargs[p.where[0]].second;
  for (size_t i = 1; i < p.where.size(); ++i) a = &a->list[p.where[i]];
  return a->qspec ? &*a->qspec : nullptr;
}

template <typename V>
void Reader<V>::resolveShared() {
  std::vector<SharedRef*> edges;
  for (PendingShared& p : pending_) {
    QuantSpec* spec = locate(p);
    if (!spec || !spec->sharedWith) continue;
    auto fail = [&](const std::string& message, const std::string& expected, const std::string& actual) {
      Diagnostic d;
      d.code = DiagCode::kGraphSchema;
      d.message = message;
      d.expected = expected;
      d.actual = actual;
      if (!streamed_) d.port = Path::str(p.pointer);  // streamed: views into documents now gone
      d.mark.file = file_;
      out_.errors.push_back(std::move(d));
    };
    auto producer = p.producerIndex != PendingShared::kByName ? std::optional<uint32_t>(p.producerIndex)
                                                              : out_.graph.findNode(p.producer);
    if (!producer) {
      fail("shared_with names unknown node '" + p.producer + "'", "the name of a node of the graph",
           "\"" + p.producer + "\"");
      continue;
    }
    SharedRef& ref = *spec->sharedWith;
    ref.node = *producer;
    ref.output = p.output;
    if (!p.edge) {
      ref.kind = SharedRef::Kind::kNodeOutput;
      const Node& n = out_.graph.node(*producer);
      if (p.output >= n.outputs.size())
        fail("shared_with names output " + std::to_string(p.output) + " of '" + n.name + "', which has " +
                 std::to_string(n.outputs.size()) + " output(s)",
             "an existing output", std::to_string(p.output));
      continue;
    }
    auto consumer = p.consumerIndex != PendingShared::kByName ? std::optional<uint32_t>(p.consumerIndex)
                                                              : out_.graph.findNode(p.consumer);
    if (!consumer) {
      fail("shared_with edge names unknown node '" + p.consumer + "'", "the name of a node of the graph",
           "\"" + p.consumer + "\"");
      continue;
    }
    ref.kind = SharedRef::Kind::kEdge;
    ref.consumer = *consumer;
    edges.push_back(&ref);
  }
  fillEdgeSlots(edges);
}

// Records where each edge reference's edge is among its consumer's arguments (the first
// argument or list element reading the producer, as edgeArgument finds it), scanning each
// consumer's arguments once however many of its edges are referenced: a cat whose 100k
// inputs share their edges' encodings costs 100k steps, not 100k^2.
template <typename V>
void Reader<V>::fillEdgeSlots(std::vector<SharedRef*>& edges) {
  std::stable_sort(edges.begin(), edges.end(),
                   [](const SharedRef* a, const SharedRef* b) { return a->consumer < b->consumer; });
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> first;  // producer -> (arg, element)
  for (size_t from = 0; from < edges.size();) {
    const uint32_t consumer = edges[from]->consumer;
    size_t to = from;
    while (to < edges.size() && edges[to]->consumer == consumer) ++to;
    first.clear();
    const std::vector<Argument>& args = out_.graph.node(consumer).args;
    auto note = [&](const Argument& a, uint32_t arg, uint32_t element) {
      if (a.kind == Argument::Kind::kTensor) first.try_emplace(a.tensor.node, arg, element);
    };
    for (uint32_t i = 0; i < args.size(); ++i) {
      note(args[i], i, SharedRef::kWhole);
      for (uint32_t e = 0; e < args[i].list.size(); ++e) note(args[i].list[e], i, e);
    }
    for (; from < to; ++from) {
      if (auto it = first.find(edges[from]->node); it != first.end())
        std::tie(edges[from]->arg, edges[from]->element) = it->second;
      else if (streamed_)  // not an edge: Graph::verify's to report, as for outputs (GraphSchemaArgs.h)
        error("shared_with names an edge the graph does not have", "an edge of the graph", "none");
    }
  }
}

}  // namespace qnnrules::graphschema
