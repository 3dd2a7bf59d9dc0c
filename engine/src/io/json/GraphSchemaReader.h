// Internal to the graph reader: the strict schema walk of graph format v1
// (docs/graph-format.md) over either JSON DOM (JsonValue.h), written once for both.
//
// The reader is strict the same way the rule loader is: unknown keys, wrong types and
// dangling references are schema errors that name the JSON pointer of the offending value,
// and every such error of the file is reported, not only the first. Quant specs and
// statistics are read in GraphSchemaQuant.h.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "GraphSchemaFields.h"
#include "GraphSchemaPath.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/io/GraphReader.h"

namespace qnnrules::graphschema {

template <typename V>
class Reader {
 public:
  Reader(std::string displayName, GraphReadResult& out) : name_(std::move(displayName)), out_(out) {}

  void read(const V& root) {
    if (root.kind() != Kind::kObject) {
      error("the top level must be an object", "an object with format, version and nodes", typeName(root));
      return;
    }
    const auto rootFields = fields<Keys<"format", "version", "name", "nodes", "meta">>(root);
    std::optional<V> format = field<"format">(rootFields);
    if (!format) {
      missing("format", "\"qnnrules-graph\"");
    } else if (!isString(*format, "qnnrules-graph")) {
      PathScope s(path_, "format");
      error("this is not a qnnrules graph", "\"qnnrules-graph\"", format->dump());
    }
    std::optional<V> version = field<"version">(rootFields);
    if (!version) {
      missing("version", "1");
    } else if (!isInteger(*version) || asInt64(*version) != 1) {
      PathScope s(path_, "version");
      error("unsupported graph format version", "1 (the only version this reader knows)", version->dump());
      return;  // a different version may mean anything below; stop here
    }
    if (std::optional<V> name = field<"name">(rootFields)) {
      PathScope s(path_, "name");
      if (name->kind() == Kind::kString) out_.graph.name = std::string(name->str());
      else wrongType("a string", *name);
    }
    std::optional<V> nodes = field<"nodes">(rootFields);
    if (!nodes) {
      missing("nodes", "a list of nodes");
      return;
    }
    PathScope s(path_, "nodes");
    if (nodes->kind() != Kind::kArray) {
      wrongType("a list of nodes", *nodes);
      return;
    }
    nodes_ = &*nodes;
    out_.graph.reserve(nodes->size());
    nodes->forEach([&](size_t i, const V& n) {
      PathScope ns(path_, i);
      readNode(n);
    });
    resolveShared();
    nodes_ = nullptr;  // a view of a local: valid only while the nodes are read
  }

  // Node by node (GraphStreamedRead.h): read() has read the document with its node list
  // emptied; the nodes then come one at a time, each in a document that lives only while
  // readStreamedNode runs. Any error makes the caller read the whole document with read()
  // instead, so only read()'s messages are ever shown: the streamed reading records that an
  // error happened, not where (the JSON pointers of pending shared references would be views
  // into node documents that are gone).
  void reserveStreamedNodes(size_t count) {
    streamed_ = true;
    path_.setOn(false);  // its errors are not shown: the document is then read whole
    out_.graph.reserve(count);
  }
  void readStreamedNode(size_t index, const V& n) {
    PathScope s(path_, "nodes");
    PathScope ns(path_, index);
    readNode(n);
  }
  void finishStreamedNodes() { resolveShared(); }

 private:
  // --- errors ---
  void error(std::string message, std::string expected, std::string actual) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = DiagCode::kGraphSchema;
    d.message = std::move(message);
    d.expected = std::move(expected);
    d.actual = std::move(actual);
    d.port = path_.str();  // the JSON pointer of the offending value
    d.mark.file = file_;
    out_.errors.push_back(std::move(d));
  }
  void missing(std::string_view key, std::string expected) {
    error("missing required key '" + std::string(key) + "'", std::move(expected), "nothing");
  }
  void wrongType(std::string expected, const V& v) {
    std::string actual = typeName(v);
    if (v.kind() != Kind::kObject && v.kind() != Kind::kArray) actual += " " + v.dump();
    error("wrong type", std::move(expected), std::move(actual));
  }

  // Reads an object's fields once: keeps the first value of each allowed key (K, a Keys<...>)
  // and reports unknown and duplicate keys in field order, one check per key. Files mostly
  // write an object's keys in one order, so the search for a key's slot starts after the
  // previous key's.
  template <typename K>
  FieldValues<V, K> fields(const V& obj) {
    FieldValues<V, K> f;
    size_t next = 0;
    bool unknownSeen = false;
    obj.forEachField([&](std::string_view key, const V& value) {
      size_t slot = next, tried = 0;
      for (; tried < K::kCount && !sameKey(K::kNames[slot], key); ++tried) slot = slot + 1 == K::kCount ? 0 : slot + 1;
      if (tried < K::kCount) {
        next = slot + 1 == K::kCount ? 0 : slot + 1;
        if (f.at(slot).has_value()) duplicateKey(key);
        else f.at(slot) = value;
        return;
      }
      if (!unknownSeen) {  // the unknown keys of this object, each reported once
        seenKeys_.clear();
        seenKeySet_.clear();
        unknownSeen = true;
      }
      if (seenBefore(key)) duplicateKey(key);
      else unknownKey(key, K::kNames);
    });
    return f;
  }

  void duplicateKey(std::string_view key) {
    PathScope s(path_, key);
    error("duplicate key '" + std::string(key) + "'", "each key once per object", "'" + std::string(key) + "' twice");
  }
  void unknownKey(std::string_view key, std::span<const std::string_view> allowed) {
    PathScope s(path_, key);
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    error("unknown key '" + std::string(key) + "'", "one of: " + list, "'" + std::string(key) + "'");
  }

  // An object whose keys are free (keyword arguments) still has each key once: JSON parsers
  // keep one of two duplicates silently.
  void checkUniqueKeys(const V& obj) {
    seenKeys_.clear();
    seenKeySet_.clear();
    obj.forEachField([&](std::string_view key, const V&) {
      if (seenBefore(key)) duplicateKey(key);
    });
  }

  // Whether `key` was already seen in the object being walked, and records it. Objects here
  // mostly have a handful of keys, where a linear scan beats hashing; past kLinearKeys (a
  // kwargs object with 100k keys) a hash set keeps the check linear in the object's size.
  static constexpr size_t kLinearKeys = 16;
  bool seenBefore(std::string_view key) {
    if (seenKeys_.size() < kLinearKeys) {
      if (std::find(seenKeys_.begin(), seenKeys_.end(), key) != seenKeys_.end()) return true;
      seenKeys_.push_back(key);
      if (seenKeys_.size() == kLinearKeys) seenKeySet_.insert(seenKeys_.begin(), seenKeys_.end());
      return false;
    }
    return !seenKeySet_.insert(key).second;
  }

  template <typename T>
  std::optional<T> integer(const V& v, int64_t lo, int64_t hi, const char* what) {
    const Kind k = v.kind();  // once: read for every dimension, range and zero point
    if (k != Kind::kInt && k != Kind::kUInt) {
      wrongType(what, v);
      return std::nullopt;
    }
    int64_t x = k == Kind::kInt ? v.i64() : asInt64(v);
    if (x < lo || x > hi) {
      error("value out of range", std::string(what) + " in " + std::to_string(lo) + ".." +
                                                        std::to_string(hi),
            v.dump());
      return std::nullopt;
    }
    return static_cast<T>(x);
  }

  std::optional<std::string_view> nonEmptyString(const V& v, const char* what) {
    if (v.kind() != Kind::kString || v.str().empty()) {
      if (v.kind() == Kind::kString) error("an empty string", what, "\"\"");
      else wrongType(what, v);
      return std::nullopt;
    }
    return v.str();
  }

  // --- nodes ---
  void readNode(const V& n) {
    if (n.kind() != Kind::kObject) {
      wrongType("a node object", n);
      return;
    }
    const auto nodeFields = fields<Keys<"name", "kind", "target", "source_op", "module", "outputs", "args", "kwargs", "meta">>(n);
    Node node;
    std::optional<V> name = field<"name">(nodeFields);
    if (!name) {
      missing("name", "a unique node name");
      return;
    }
    if (!readNodeIdentity(nodeFields, *name, node)) return;
    self_ = static_cast<uint32_t>(out_.graph.nodes().size());
    const size_t errorsBefore = out_.errors.size();
    const size_t pendingBefore = pending_.size();
    readNodeLists(nodeFields, node);
    bool added = out_.errors.size() == errorsBefore;
    if (added) {
      StatusOr<uint32_t> index = out_.graph.addNode(std::move(node));
      if (!index.isOk()) {
        PathScope s(path_, "name");
        error(index.status().message(), "a name no other node has", name->dump());
        added = false;
      }
    }
    if (!added) {
      pending_.resize(pendingBefore);  // the node is not in the graph
      unread_.emplace(name->str());
    }
  }

  // name, kind, target, source_op, module; false when the node cannot be read further.
  template <typename Fields>
  bool readNodeIdentity(const Fields& nodeFields, const V& name, Node& node) {
    {
      PathScope s(path_, "name");
      auto nm = nonEmptyString(name, "a non-empty node name");
      if (!nm) return false;
      node.name = std::string(*nm);
      currentNode_ = *nm;
      out_.graph.prefetchNodeName(*nm);
    }
    if (std::optional<V> kind = field<"kind">(nodeFields)) {
      PathScope s(path_, "kind");
      auto k = kind->kind() == Kind::kString ? parseNodeKind(kind->str()) : std::nullopt;
      if (!k) {
        error("unknown node kind", "input, parameter, constant, call or output", kind->dump());
        return false;
      }
      node.kind = *k;
    } else {
      missing("kind", "input, parameter, constant, call or output");
      return false;
    }
    std::optional<V> target = field<"target">(nodeFields);
    if (node.kind == NodeKind::kCall) {
      if (!target) {
        missing("target", "the ATen target of the call, e.g. \"aten.conv2d.default\"");
        return false;
      }
      PathScope s(path_, "target");
      auto t = nonEmptyString(*target, "an ATen target such as \"aten.conv2d.default\"");
      if (!t) return false;
      node.targetId = out_.graph.internTarget(*t);
    } else if (target) {
      PathScope s(path_, "target");
      error("only call nodes have a target", "no target for kind " + std::string(nodeKindName(node.kind)),
            target->dump());
    }
    if (std::optional<V> sourceOp = field<"source_op">(nodeFields)) {
      // The op type the user's own file named (an ONNX model's "onnx::Gemm"): reports show it.
      PathScope s(path_, "source_op");
      if (node.kind != NodeKind::kCall) {
        error("only call nodes have a source op", "no source_op for kind " + std::string(nodeKindName(node.kind)),
              sourceOp->dump());
      } else if (auto op = nonEmptyString(*sourceOp, "the op type of the user's file, such as \"onnx::Gemm\"")) {
        node.sourceId = out_.graph.internTarget(*op);
      }
    }
    if (std::optional<V> module = field<"module">(nodeFields)) {
      PathScope s(path_, "module");
      if (module->kind() != Kind::kString) wrongType("a module path string", *module);
      else node.moduleId = out_.graph.internModule(module->str());
    }
    return true;
  }

  // outputs, args, kwargs.
  template <typename Fields>
  void readNodeLists(const Fields& nodeFields, Node& node) {
    if (std::optional<V> outputs = field<"outputs">(nodeFields)) {
      PathScope s(path_, "outputs");
      if (outputs->kind() != Kind::kArray) {
        wrongType("a list of outputs", *outputs);
      } else {
        node.outputs.reserve(outputs->size());
        outputs->forEach([&](size_t o, const V& out) {
          PathScope os(path_, o);
          section_ = Section::kOutputs;
          where_.assign(1, o);
          readOutput(out, node);
        });
      }
    }
    if (std::optional<V> args = field<"args">(nodeFields)) {
      PathScope s(path_, "args");
      if (args->kind() != Kind::kArray) {
        wrongType("a list of arguments", *args);
      } else {
        node.args.reserve(args->size());
        args->forEach([&](size_t a, const V& arg) {
          PathScope as(path_, a);
          section_ = Section::kArgs;
          where_.assign(1, a);
          node.args.push_back(readValue(arg));
        });
      }
    }
    if (std::optional<V> kwargs = field<"kwargs">(nodeFields)) {
      PathScope s(path_, "kwargs");
      if (kwargs->kind() != Kind::kObject) {
        wrongType("an object of keyword arguments", *kwargs);
      } else {
        checkUniqueKeys(*kwargs);  // any keyword name, but each once
        kwargs->forEachField([&](std::string_view key, const V& value) {
          PathScope ks(path_, key);
          section_ = Section::kKwargs;
          where_.assign(1, node.kwargs.size());
          node.kwargs.emplace_back(std::string(key), readValue(value));
        });
      }
    }
  }

  void readOutput(const V& o, Node& node) {
    if (o.kind() != Kind::kObject) {
      wrongType("an output object {dtype, shape, qspec}", o);
      return;
    }
    const auto outputFields = fields<Keys<"dtype", "shape", "runtime_shape", "runtime_value", "qspec", "stats", "meta">>(o);
    TensorMeta meta;
    if (std::optional<V> dt = field<"dtype">(outputFields)) {
      PathScope s(path_, "dtype");
      auto t = dt->kind() == Kind::kString ? parseScalarType(dt->str()) : std::nullopt;
      if (!t) error("unknown tensor dtype", "a PyTorch dtype name such as \"float32\"", dt->dump());
      else meta.dtype = *t;
    } else {
      missing("dtype", "the tensor's dtype");
    }
    if (std::optional<V> shape = field<"shape">(outputFields)) {
      PathScope s(path_, "shape");
      if (shape->kind() != Kind::kArray) {
        wrongType("a list of dimensions", *shape);
      } else {
        meta.shape.reserve(shape->size());
        shape->forEach([&](size_t i, const V& dim) {
          PathScope ds(path_, i);
          // -1 marks a dynamic dimension.
          if (auto d = integer<int64_t>(dim, -1, INT64_MAX, "a dimension (integer >= -1)")) meta.shape.push_back(*d);
        });
      }
    }
    if (std::optional<V> rs = field<"runtime_shape">(outputFields)) {
      PathScope s(path_, "runtime_shape");
      if (rs->kind() != Kind::kBool) wrongType("true or false", *rs);
      else meta.runtimeShape = rs->boolean();
    }
    if (std::optional<V> rv = field<"runtime_value">(outputFields)) {
      PathScope s(path_, "runtime_value");
      if (rv->kind() != Kind::kBool) wrongType("true or false", *rv);
      else meta.runtimeValue = rv->boolean();
    }
    if (std::optional<V> q = field<"qspec">(outputFields)) {
      PathScope s(path_, "qspec");
      if (q->kind() != Kind::kNull) meta.qspec = readQSpec(*q);
    }
    if (std::optional<V> st = field<"stats">(outputFields)) {
      PathScope s(path_, "stats");
      meta.stats = readStats(*st);
    }
    node.outputs.push_back(std::move(meta));
  }

  // Calls one(x) for a value, or for each element (with its JSON pointer) of a list.
  template <typename F>
  void oneOrMany(const V& v, F&& one) {
    if (v.kind() != Kind::kArray) {
      one(v);
      return;
    }
    v.forEach([&](size_t i, const V& e) {
      PathScope is(path_, i);
      one(e);
    });
  }

  // Calibration statistics (docs/graph-format.md "Statistics"): min/max as numbers or lists.
  std::optional<TensorStats> readStats(const V& st);

  // Argument values: null, bool, int, float, string, lists, and tensor references
  // (GraphSchemaArgs.h).
  Argument readValue(const V& v);
  void readList(const V& list, std::vector<Argument>& out);
  void readTensorRef(const V& v, Argument& a);
  bool namedLater(std::string_view name);

  std::optional<QuantSpec> readQSpec(const V& q);
  // readQSpec's parts: a shared_with reference, or the keys of a spec of its own by group.
  using SharedKeys = Keys<"node", "edge", "output">;
  using QSpecKeys = Keys<"dtype", "quant_min", "quant_max", "qscheme", "ch_axis", "block_size", "scale", "zero_point">;
  static constexpr int64_t kQuantLo = INT32_MIN, kQuantHi = static_cast<int64_t>(UINT32_MAX);  // int32 or uint32
  std::optional<QuantSpec> readSharedWith(const V& q, const V& sw);
  void resolveSharedName(std::string_view name, uint32_t& index, std::string& byName);
  bool readSharedNode(const V& node, const FieldValues<V, SharedKeys>& sharedFields, PendingShared& p);
  bool readSharedEdge(const V& edge, PendingShared& p);
  void readQuantRange(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec);
  void readQuantLayout(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec);
  void readQuantValues(const FieldValues<V, QSpecKeys>& specFields, QuantSpec& spec);
  void checkRangeFitsDtype(const QuantSpec& spec);

  // The spec a pending reference was read into, now that its node is in the graph.
  QuantSpec* locate(const PendingShared& p);
  void resolveShared();
  void fillEdgeSlots(std::vector<SharedRef*>& edges);

  std::string name_;
  std::shared_ptr<const std::string> file_ = std::make_shared<const std::string>(name_);
  GraphReadResult& out_;
  Path path_;
  std::unordered_set<std::string_view> allNames_;  // views into the parsed document
  std::unordered_set<std::string> unread_;  // nodes left out of the graph for their errors
  std::vector<std::string_view> seenKeys_;
  std::unordered_set<std::string_view> seenKeySet_;
  std::vector<PendingShared> pending_;
  // Where the value being read lives, for pending shared references.
  uint32_t self_ = 0;
  std::string_view currentNode_;  // a view into the parsed document
  const V* nodes_ = nullptr;  // the document's node list, while reading it
  bool streamed_ = false;     // nodes read one at a time (reserveStreamedNodes)
  Section section_ = Section::kArgs;
  std::vector<size_t> where_;
};

}  // namespace qnnrules::graphschema

#include "GraphSchemaArgs.h"
#include "GraphSchemaQuant.h"
