// The serialized ExportedProgram -> Graph, mirroring what torch's own deserializer
// (torch/_export/serde/serialize.py, GraphModuleDeserializer) rebuilds as an FX graph, and what
// the Python adapter (python/qnnrules/torch.py, to_dict) then writes for that FX graph:
//  - one node per graph input, named as the placeholder, its kind from the signature;
//  - one call node per serialized node; a node with several outputs (or one tensor list)
//    gets one `getitem` node per element, named after the element, as FX re-creates them;
//  - arguments in schema order: POSITIONAL ones in `args`, KEYWORD ones in `kwargs`;
//  - an `output` node whose first argument lists the graph outputs.
#include "Pt2Program.h"

#include <cmath>
#include <unordered_map>

#include "Pt2Json.h"

namespace qnnrules::pt2 {
namespace {

// torch/_export/serde/schema.py ScalarType -> the dtype names of graph format v1.
std::optional<ScalarType> scalarTypeOf(int64_t code) {
  switch (code) {
    case 1: return ScalarType::kUInt8;      // BYTE
    case 2: return ScalarType::kInt8;       // CHAR
    case 3: return ScalarType::kInt16;      // SHORT
    case 4: return ScalarType::kInt32;      // INT
    case 5: return ScalarType::kInt64;      // LONG
    case 6: return ScalarType::kFloat16;    // HALF
    case 7: return ScalarType::kFloat32;    // FLOAT
    case 8: return ScalarType::kFloat64;    // DOUBLE
    case 12: return ScalarType::kBool;      // BOOL
    case 13: return ScalarType::kBFloat16;  // BFLOAT16
    case 28: return ScalarType::kUInt16;    // UINT16
    case 34: return ScalarType::kUInt32;    // UINT32
    default: return std::nullopt;
  }
}

// "torch.ops.aten.conv2d.default" -> "aten.conv2d.default" (as FX prints an OpOverload);
// Python operators ("_operator.add") by their bare name, as the adapter names them.
std::string targetName(std::string_view t) {
  for (std::string_view prefix : {"torch.ops.", "_operator.", "operator.", "builtins."})
    if (t.substr(0, prefix.size()) == prefix) return std::string(t.substr(prefix.size()));
  return std::string(t);
}

// The innermost nn_module_stack entry's path. The serializer writes "key,path,type" entries
// joined by ';' (serialize.py, ST_DELIMITER); path and type may contain commas inside brackets.
std::string modulePath(std::string_view stack) {
  if (stack.empty()) return {};
  size_t last = stack.rfind(';');
  std::string_view entry = last == std::string_view::npos ? stack : stack.substr(last + 1);
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < entry.size(); ++i) {
    char c = entry[i];
    if (c == '[' || c == '(') ++depth;
    else if (c == ']' || c == ')') --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(entry.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(entry.substr(start));
  if (parts.size() != 3) return {};
  std::string_view path = parts[1];
  // Placeholder the serializer writes for nodes without a stack.
  if (path == "_empty_nn_module_stack_from_metadata_hook") return {};
  for (std::string_view prefix : {"L['self'].", "L['self']", "L__self___", "L__self__"})
    if (path.substr(0, prefix.size()) == prefix) {
      path.remove_prefix(prefix.size());
      break;
    }
  return std::string(path);
}

class Builder {
 public:
  Builder(const std::unordered_map<std::string, LiftedInput>& lifted, const ConstantValues& constants)
      : lifted_(lifted), constants_(constants) {}

  Graph build(const nlohmann::json& program) {
    Json root(program, "");
    Json graph = root.at("graph_module").at("graph");
    tensorValues_ = graph.at("tensor_values");
    tensorValues_.expectObject();
    Json inputs = graph.at("inputs");
    graph_.reserve(graph.at("nodes").size() + inputs.size() + 1);
    for (size_t i = 0; i < inputs.size(); ++i) addInput(inputs[i], i);
    Json nodes = graph.at("nodes");
    for (size_t i = 0; i < nodes.size(); ++i) addCall(nodes[i]);
    addOutput(graph);
    shareOutputsWithGetitems();
    return std::move(graph_);
  }

 private:
  uint32_t add(Node n, const Json& where) {
    StatusOr<uint32_t> idx = graph_.addNode(std::move(n));
    if (!idx.isOk()) throw SchemaError(where.pointer(), idx.status().message());
    return *idx;
  }

  TensorMeta meta(const std::string& tensor, const Json& where) {
    std::optional<Json> v = tensorValues_.find(tensor);
    if (!v) throw SchemaError(where.pointer(), "tensor '" + tensor + "' has no entry in graph.tensor_values");
    TensorMeta m;
    int64_t code = v->at("dtype").integer();
    std::optional<ScalarType> t = scalarTypeOf(code);
    if (!t)
      throw SchemaError(v->at("dtype").pointer(), "tensor '" + tensor + "' has dtype code " + std::to_string(code) +
                                                      ", which graph format v1 has no name for");
    m.dtype = *t;
    Json sizes = v->at("sizes");
    m.shape.reserve(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      Json s = sizes[i];
      // A symbolic size (as_expr) is unknown here: -1, as the Python adapter writes it.
      std::optional<Json> n = s.find("as_int");
      const int64_t size = n ? n->integer() : -1;
      // A negative size would be written by --output as a shape the JSON reader refuses.
      if (size < 0 && n)
        throw SchemaError(n->pointer(), "tensor '" + tensor + "' has size " + std::to_string(size) + " (a size is >= 0)");
      m.shape.push_back(size);
    }
    return m;
  }

  void addInput(const Json& in, size_t i) {
    Node n;
    auto [kind, value] = in.unionMember();
    if (kind == "as_tensor" || kind == "as_custom_obj") n.name = value.at("name").string();
    else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") n.name = value.at("as_name").string();
    else n.name = "arg" + std::to_string(i);  // a constant input; torch names it from the signature or argN
    auto it = lifted_.find(n.name);
    n.kind = it == lifted_.end() ? NodeKind::kInput : it->second.kind;
    if (kind == "as_tensor") n.outputs.push_back(meta(n.name, in));
    std::string name = n.name;  // `a = b` evaluates b first (C++17): read the name before the move
    tensors_[std::move(name)] = TensorRef{add(std::move(n), in), 0};
  }

  Argument tensorRef(std::string_view name, const Json& where) {
    auto it = tensors_.find(std::string(name));
    if (it == tensors_.end())
      throw SchemaError(where.pointer(), "refers to tensor '" + std::string(name) + "', which no earlier node produces");
    return Argument::tensorRef(it->second.node, it->second.output);
  }

  static Argument floatValue(const Json& v) {
    Argument a;
    // JSON has no inf/nan; the serializer spells them "Infinity", "-Infinity", "NaN" and the
    // Python adapter as "inf", "-inf", "nan".
    if (v.isString()) {
      std::string_view s = v.string();
      a.kind = Argument::Kind::kString;
      a.s = s == "Infinity" ? "inf" : s == "-Infinity" ? "-inf" : s == "NaN" ? "nan" : std::string(s);
      return a;
    }
    a.kind = Argument::Kind::kFloat;
    a.f = v.number();
    return a;
  }

  static Argument boolValue(bool b) {
    Argument a;
    a.kind = Argument::Kind::kBool;
    a.b = b;
    return a;
  }

  static Argument stringValue(std::string s) {
    Argument a;
    a.kind = Argument::Kind::kString;
    a.s = std::move(s);
    return a;
  }

  template <typename F>
  static Argument listOf(const Json& v, F&& one) {
    Argument a;
    a.kind = Argument::Kind::kList;
    a.list.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) a.list.push_back(one(v[i]));
    return a;
  }

  // One schema Argument (a union: exactly one as_* key) as a graph argument.
  Argument value(const Json& arg) {
    auto [kind, v] = arg.unionMember();
    auto symbolic = [&](const Json& s) {
      auto [k, x] = s.unionMember();
      if (k == "as_name") return tensorRef(x.string(), s);
      if (k == "as_int") return Argument::integer(x.integer());
      if (k == "as_float") return floatValue(x);
      if (k == "as_bool") return boolValue(x.boolean());
      throw SchemaError(s.pointer(), "unknown symbolic value kind '" + std::string(k) + "'");
    };
    if (kind == "as_none") return Argument();
    if (kind == "as_tensor") return tensorRef(v.at("name").string(), v);
    if (kind == "as_tensors") return listOf(v, [&](const Json& t) { return tensorRef(t.at("name").string(), t); });
    if (kind == "as_optional_tensor" || kind == "as_optional_tensors") {
      auto optional = [&](const Json& o) {
        auto [k, x] = o.unionMember();
        return k == "as_tensor" ? tensorRef(x.at("name").string(), x) : Argument();
      };
      return kind == "as_optional_tensor" ? optional(v) : listOf(v, optional);
    }
    if (kind == "as_int") return Argument::integer(v.integer());
    if (kind == "as_ints") return listOf(v, [](const Json& x) { return Argument::integer(x.integer()); });
    if (kind == "as_int_lists")
      return listOf(v, [](const Json& l) { return listOf(l, [](const Json& x) { return Argument::integer(x.integer()); }); });
    if (kind == "as_float") return floatValue(v);
    if (kind == "as_floats") return listOf(v, floatValue);
    if (kind == "as_float_lists") return listOf(v, [](const Json& l) { return listOf(l, floatValue); });
    if (kind == "as_bool") return boolValue(v.boolean());
    if (kind == "as_bools") return listOf(v, [](const Json& x) { return boolValue(x.boolean()); });
    if (kind == "as_string") return stringValue(std::string(v.string()));
    if (kind == "as_strings") return listOf(v, [](const Json& x) { return stringValue(std::string(x.string())); });
    if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") return symbolic(v);
    if (kind == "as_sym_ints" || kind == "as_sym_floats" || kind == "as_sym_bools") return listOf(v, symbolic);
    if (kind == "as_scalar_type") {
      int64_t code = v.integer();
      std::optional<ScalarType> t = scalarTypeOf(code);
      // The adapter writes a torch.dtype argument by its name ("int8"), which the Q/DQ fold reads.
      return stringValue(t ? std::string(scalarTypeName(*t)) : "scalar_type_" + std::to_string(code));
    }
    if (kind == "as_memory_format") return stringValue("memory_format_" + std::to_string(v.integer()));
    if (kind == "as_layout") return stringValue(v.integer() == 7 ? "torch.strided" : "layout_" + std::to_string(v.integer()));
    if (kind == "as_device") return stringValue(std::string(v.at("type").string()));
    if (kind == "as_graph" || kind == "as_custom_obj") return stringValue(std::string(v.at("name").string()));
    if (kind == "as_operator") return stringValue(targetName(v.string()));
    if (kind == "as_nested_tensors")
      return listOf(v, [&](const Json& l) { return listOf(l, [&](const Json& t) { return tensorRef(t.at("name").string(), t); }); });
    // as_complex, as_string_to_argument: nothing a rule reads; kept as their kind's name.
    return stringValue(std::string(kind));
  }

  static bool isQdqTarget(std::string_view t) {
    for (std::string_view p : {"quantized_decomposed.quantize_", "quantized_decomposed.dequantize_",
                               "torchao.quantize_affine", "torchao.dequantize_affine"})
      if (t.substr(0, p.size()) == p) return true;
    return false;
  }

  // After convert_pt2e, scales and zero points that are tensors (per-channel, the `.tensor`
  // forms, torchao's affine ops) are lifted buffers or constants. Their values replace the
  // reference, so the quantize/dequantize node carries literals as in a JSON QDQ graph and
  // The Q/DQ fold (QdqFold.h) folds real scales. A tensor whose bytes cannot be read stays a reference (the
  // scale is then unknown, as for any tensor-valued scale).
  void inlineQParams(const Json& in, std::string_view target, Argument& a) {
    std::string_view name = in.at("name").string();
    const bool isScale = name == "scale" || name == "scales";
    if (!isScale && name != "zero_point" && name != "zero_points") return;
    if (a.kind != Argument::Kind::kTensor || !constants_) return;
    const std::string& placeholder = graph_.node(a.tensor.node).name;
    if (lifted_.find(placeholder) == lifted_.end()) return;
    std::optional<std::vector<double>> values = constants_(placeholder);
    if (!values || values->empty()) return;
    auto literal = [&](double v) {
      if (isScale) {
        Argument f;
        f.kind = Argument::Kind::kFloat;
        f.f = v;
        return f;
      }
      return Argument::integer(static_cast<int64_t>(std::llround(v)));
    };
    const bool perTensor = target.find("per_tensor") != std::string_view::npos;
    if (perTensor && values->size() == 1) {
      a = literal(values->front());
      return;
    }
    // Packed (Graph.h Argument::Kind::kNumbers): a block-wise weight has a scale per block.
    if (!isScale)
      for (double& v : *values) v = std::round(v);  // inf/NaN/huge stay, for the fold to refuse
    a = Argument::numbers(values->data(), values->size(), !isScale);
  }

  // Names of a node's output values, flattened: one per tensor (or symbolic value, or None).
  struct OutputValue {
    std::string name;   // empty for None
    bool tensor = false;
    Json where;
  };

  void addCall(const Json& sn) {
    Node n;
    n.kind = NodeKind::kCall;
    std::string target = targetName(sn.at("target").string());
    n.targetId = graph_.internTarget(target);
    if (std::optional<Json> meta = sn.find("metadata"))
      if (std::optional<Json> stack = meta->find("nn_module_stack"))
        n.moduleId = graph_.internModule(modulePath(stack->string()));
    Json inputs = sn.at("inputs");
    const bool qdq = isQdqTarget(target);
    n.args.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      Json in = inputs[i];
      Argument a = value(in.at("arg"));
      if (qdq) inlineQParams(in, target, a);
      std::optional<Json> kind = in.find("kind");
      // ArgumentKind: 1 POSITIONAL, 2 KEYWORD; archives older than the field list arguments
      // positionally in schema order, and only trailing defaults are left out.
      if (kind && !kind->isNull() && kind->integer() == 2) n.kwargs.emplace_back(std::string(in.at("name").string()), std::move(a));
      else n.args.push_back(std::move(a));
    }
    std::vector<OutputValue> outs;
    Json outputs = sn.at("outputs");
    bool list = false;
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto [kind, v] = outputs[i].unionMember();
      if (kind == "as_tensor") outs.push_back({std::string(v.at("name").string()), true, v});
      else if (kind == "as_tensors") {
        list = true;
        for (size_t j = 0; j < v.size(); ++j) outs.push_back({std::string(v[j].at("name").string()), true, v[j]});
      } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
        auto [k, x] = v.unionMember();
        outs.push_back({k == "as_name" ? std::string(x.string()) : std::string(), false, v});
      } else if (kind == "as_none") {
        outs.push_back({std::string(), false, outputs[i]});
      } else {
        throw SchemaError(outputs[i].pointer(), "unsupported node output kind '" + std::string(kind) + "'");
      }
    }
    const bool single = outs.size() == 1 && !list;
    std::optional<Json> nm = sn.find("name");
    if (nm && !nm->isNull()) n.name = std::string(nm->string());
    else if (single && !outs[0].name.empty()) n.name = outs[0].name;
    else n.name = target + "_" + std::to_string(graph_.nodes().size());  // older archives: FX invents one too
    if (single) {
      if (outs[0].tensor) n.outputs.push_back(meta(outs[0].name, outs[0].where));
      const uint32_t idx = add(std::move(n), sn);
      if (!outs[0].name.empty()) tensors_[outs[0].name] = TensorRef{idx, 0};
      return;
    }
    for (const OutputValue& o : outs) {
      // As the adapter writes an element that is not a tensor: int64 scalar, keeping indices.
      if (o.tensor) n.outputs.push_back(meta(o.name, o.where));
      else n.outputs.emplace_back().dtype = ScalarType::kInt64;
    }
    const uint32_t moduleId = n.moduleId;
    const uint32_t producer = add(std::move(n), sn);
    const uint32_t getitem = graph_.internTarget("getitem");
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].name.empty()) continue;
      Node g;
      g.name = outs[i].name;
      g.kind = NodeKind::kCall;
      g.targetId = getitem;
      g.moduleId = moduleId;
      // FX's getitem reads the whole tuple: its argument is the producer (output 0) and the index.
      g.args = {Argument::tensorRef(producer, 0), Argument::integer(static_cast<int64_t>(i))};
      if (outs[i].tensor) g.outputs.push_back(meta(outs[i].name, outs[i].where));
      std::string name = g.name;  // before the move (see addInput)
      const uint32_t idx = add(std::move(g), outs[i].where);
      tensors_[std::move(name)] = TensorRef{idx, 0};
      getitems_.push_back({idx, producer, static_cast<uint32_t>(i)});
    }
  }

  // pt2e quantizes a multi-output node (chunk, split, unbind, ...) on its getitem users, never
  // on the node itself. As the Python adapter does (qnnrules.torch, _share_outputs_with_getitems):
  // output i of such a node takes the encoding of `getitem(node, i)` when a quantize node reads
  // that getitem (the Q/DQ fold then gives the getitem the quantize node's encoding).
  void shareOutputsWithGetitems() {
    if (getitems_.empty()) return;
    std::vector<Node>& nodes = graph_.mutableNodes();
    std::vector<uint8_t> quantized(nodes.size(), 0);
    for (const Node& n : nodes) {
      if (n.kind != NodeKind::kCall || n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) continue;
      std::string_view t = graph_.target(n);
      if (t.rfind("quantized_decomposed.quantize_", 0) == 0 || t.rfind("torchao.quantize_affine", 0) == 0)
        quantized[n.args[0].tensor.node] = 1;
    }
    for (const GetitemOf& g : getitems_) {
      if (!quantized[g.getitem]) continue;
      Node& producer = nodes[g.producer];
      if (producer.outputs.size() < 2 || g.index >= producer.outputs.size() || producer.outputs[g.index].qspec) continue;
      QuantSpec shared;
      shared.sharedWith = SharedRef{SharedRef::Kind::kNodeOutput, g.getitem, 0, 0};
      producer.outputs[g.index].qspec = std::move(shared);
    }
  }

  void addOutput(const Json& graph) {
    Node out;
    out.name = "output";
    out.kind = NodeKind::kOutput;
    Json outputs = graph.at("outputs");
    std::optional<Json> single = graph.find("is_single_tensor_return");
    Argument all;
    all.kind = Argument::Kind::kList;
    for (size_t i = 0; i < outputs.size(); ++i) all.list.push_back(value(outputs[i]));
    if (single && single->boolean() && all.list.size() == 1) out.args.push_back(std::move(all.list[0]));
    else out.args.push_back(std::move(all));
    add(std::move(out), outputs);
  }

  const std::unordered_map<std::string, LiftedInput>& lifted_;
  const ConstantValues& constants_;
  Graph graph_;
  Json tensorValues_{nullptr, ""};
  std::unordered_map<std::string, TensorRef> tensors_;
  struct GetitemOf {
    uint32_t getitem, producer, index;
  };
  std::vector<GetitemOf> getitems_;  // the getitem nodes made for multi-output nodes
};

}  // namespace

std::unordered_map<std::string, LiftedInput> readSignature(const nlohmann::json& program) {
  std::unordered_map<std::string, LiftedInput> out;
  Json specs = Json(program, "").at("graph_module").at("signature").at("input_specs");
  for (size_t i = 0; i < specs.size(); ++i) {
    auto [kind, v] = specs[i].unionMember();
    LiftedInput l;
    std::string name;
    if (kind == "parameter") {
      l.kind = NodeKind::kParameter;
      l.fqn = v.at("parameter_name").string();
      l.store = LiftedInput::Store::kWeights;
    } else if (kind == "buffer") {
      // As the Python adapter classifies them: buffers and lifted tensors are constants.
      l.kind = NodeKind::kConstant;
      l.fqn = v.at("buffer_name").string();
      l.store = LiftedInput::Store::kWeights;
    } else if (kind == "tensor_constant") {
      l.kind = NodeKind::kConstant;
      l.fqn = v.at("tensor_constant_name").string();
      l.store = LiftedInput::Store::kConstants;
    } else {
      continue;  // user inputs, tokens, custom objects, constant inputs: graph inputs
    }
    out[std::string(v.at("arg").at("name").string())] = std::move(l);
  }
  return out;
}

Graph buildGraph(const nlohmann::json& program, const std::unordered_map<std::string, LiftedInput>& lifted,
                 const ConstantValues& constants) {
  return Builder(lifted, constants).build(program);
}

}  // namespace qnnrules::pt2
