// Hints by input kind, the no-rule overlay snippet and module paths (Remedies.h).
#include "Remedies.h"

#include <fmt/format.h>

#include <regex>

namespace qnnrules {

namespace {

// "in[1] weight" -> "weight".
std::string_view portName(std::string_view label) {
  const size_t space = label.rfind(' ');
  return space == std::string_view::npos ? label : label.substr(space + 1);
}

bool isParameter(std::string_view label) {
  const std::string_view name = portName(label);
  return name == "weight" || name == "bias";
}

// The constraint a diagnostic was checked against: its rule's variant's port.
const PortConstraint* constraintOf(const Diagnostic& d, const RuleSet& rules) {
  const Rule* rule = d.ruleId.empty() ? nullptr : rules.findById(d.ruleId);
  if (!rule) return nullptr;
  const std::string_view name = portName(d.port);
  for (const Variant& v : rule->variants) {
    if (v.name != d.variant) continue;
    for (size_t p = 0; p < rule->ports.size() && p < v.ports.size(); ++p)
      if (rule->ports[p].name == name) return &v.ports[p];
  }
  return nullptr;
}

// ONNX Runtime's QuantType for a quantized QNN datatype: QUInt16 for UFIXED_POINT_16 (a
// narrower bit width, e.g. 4, names the 4-bit type).
std::string ortQuantType(const PortConstraint& c) {
  static constexpr std::pair<QnnDatatype, const char*> kTypes[] = {
      {QnnDatatype::kUFixed8, "QUInt8"},  {QnnDatatype::kSFixed8, "QInt8"},  {QnnDatatype::kUFixed16, "QUInt16"},
      {QnnDatatype::kSFixed16, "QInt16"}, {QnnDatatype::kUFixed32, ""},     {QnnDatatype::kSFixed32, ""}};
  for (const auto& [t, name] : kTypes) {
    if (!c.datatypes.contains(t) || !*name) continue;
    std::string type = name;
    if (c.bitwidths & (uint64_t{1} << 4)) type = type.starts_with("QU") ? "QUInt4" : "QInt4";
    return "QuantType." + type;
  }
  return {};
}

// The config of QnnQuantizer's QuantDtype a variant stands for: "a16w8" -> "use_16a8w".
std::string quantDtypeOf(const std::string& variant) {
  static const std::regex kName(R"(a(\d+)w(\d+)(_block)?)");
  std::smatch m;
  if (!std::regex_match(variant, m, kName)) return {};
  return "use_" + m[1].str() + "a" + m[2].str() + "w" + m[3].str();
}

constexpr const char* kOrt = "onnxruntime's get_qnn_qdq_config";

// The ONNX Runtime remedy for a diagnostic, or "" to keep the check's own hint.
std::string onnxHint(const Diagnostic& d, const RuleSet& rules) {
  const PortConstraint* c = constraintOf(d, rules);
  const bool param = isParameter(d.port);
  const std::string tensor = fmt::format("the {} tensor of node '{}'", portName(d.port), d.node);
  switch (d.code) {
    case DiagCode::kFixedScale:
    case DiagCode::kFixedOffset: {
      if (!c || (!c->scale && !c->offset)) return {};
      std::string values;
      if (c->scale) values += fmt::format("'scale': {}", *c->scale);
      if (c->offset) values += fmt::format("{}'zero_point': {}", values.empty() ? "" : ", ", -*c->offset);
      return fmt::format("give {} fixed quantization parameters in {}: init_overrides={{TENSOR: [{{{}}}]}} "
                         "(it sets them by itself only for 16-bit Sigmoid and Tanh)",
                         tensor, kOrt, values);
    }
    case DiagCode::kSymmetric:
      return fmt::format("quantize {} symmetrically: {}=True in {} (or 'symmetric': True in its init_overrides entry)",
                         tensor, param ? "weight_symmetric" : "activation_symmetric", kOrt);
    case DiagCode::kBitwidth:
    case DiagCode::kNoMatchingVariant: {
      const std::string type = c ? ortQuantType(*c) : "";
      if (type.empty()) return {};
      std::string s = fmt::format("quantize {} as {}: {}={} in {} (or 'quant_type': {} in its init_overrides entry)",
                                  tensor, type, param ? "weight_type" : "activation_type", type, kOrt, type);
      if (c->symmetric && *c->symmetric) s += fmt::format(", with {}=True", param ? "weight_symmetric" : "activation_symmetric");
      return s;
    }
    case DiagCode::kAxis:
      if (!c || !c->axis) return {};
      return fmt::format("quantize {} per channel on axis {}: per_channel=True in {}, and 'axis': {} in its "
                         "init_overrides entry",
                         tensor, *c->axis, kOrt, *c->axis);
    case DiagCode::kEncoding:
      if (!c) return {};
      if (c->encodings.contains(Encoding::kAxisScaleOffset) && !c->encodings.contains(Encoding::kScaleOffset))
        return fmt::format("quantize {} per channel: per_channel=True in {}", tensor, kOrt);
      if (c->encodings.contains(Encoding::kScaleOffset) && !c->encodings.contains(Encoding::kAxisScaleOffset))
        return fmt::format("quantize {} per tensor: per_channel=False in {} (or leave 'axis' out of its "
                           "init_overrides entry)",
                           tensor, kOrt);
      return {};
    case DiagCode::kShared:
      return fmt::format("give {} the scale and zero point of the tensor it must share them with (an "
                         "init_overrides entry in {})",
                         tensor, kOrt);
    default:
      return {};
  }
}

// The pt2e remedy's addition for a torch graph: QnnQuantizer's configuration of the variant.
std::string torchHint(const Diagnostic& d) {
  if (d.code != DiagCode::kNoMatchingVariant) return {};
  const std::string dtype = quantDtypeOf(d.variant);
  if (dtype.empty()) return {};
  return fmt::format("{}; with ExecuTorch's QnnQuantizer, quant_dtype=QuantDtype.{} for this node "
                     "(set_default_quant_config, or a submodule_qconfig_list entry)",
                     d.hint, dtype);
}

// An overlay rule to start from, for an op no rule covers (docs/rule-format.md); its lines
// indented under the text report's "hint:" column.
std::string overlaySnippet(const Diagnostic& d, const std::string& backend, InputKind kind) {
  std::string op = d.op;
  std::string onnxType;
  (void)kind;
  if (op.starts_with("onnx::")) onnxType = op.substr(6);  // an ONNX op no rule binds
  std::string base = onnxType.empty() ? op : onnxType;
  if (base.starts_with("aten.")) base = base.substr(5);
  if (const size_t dot = base.find('.'); dot != std::string::npos) base = base.substr(0, dot);
  std::string id;
  for (char ch : base) id += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const char* ind = "\n            ";
  std::string s = fmt::format("; to start from, DIR/{}/{}.yaml:", backend, id);
  s += fmt::format("{}version: 1{}rules:{}  - id: {}.{}", ind, ind, ind, backend, id);
  if (onnxType.empty()) s += fmt::format("{}    targets: [{}]", ind, op);
  else s += fmt::format("{}    targets: [aten.{}.default]{}    onnx: [{}]", ind, id, ind, onnxType);
  s += fmt::format("{}    qnn_op: QNN_OP_TYPE{}    pattern: siso", ind, ind);
  s += fmt::format("{}    description: {} lowers to QNN QNN_OP_TYPE.", ind, onnxType.empty() ? op : onnxType);
  s += fmt::format("{}    inputs: [{{name: input}}]{}    outputs: [{{name: output}}]", ind, ind);
  s += fmt::format("{}    variants:{}      - name: a8{}        ports:", ind, ind, ind);
  s += fmt::format("{}          input: {{dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}}", ind);
  s += fmt::format("{}          output: {{dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}}", ind);
  return s;
}

// An ONNX node name's namespace: "/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0/conv1".
std::string_view onnxNamespace(std::string_view name) {
  const size_t slash = name.rfind('/');
  return slash == std::string_view::npos || slash == 0 ? std::string_view() : name.substr(0, slash);
}

}  // namespace

void adaptDiagnostics(DiagnosticList& diagnostics, const Graph& graph, const RuleSet& rules, const std::string& backend,
                      InputKind kind) {
  const bool modules = !graph.modules().empty();
  for (Diagnostic& d : diagnostics) {
    if (d.node.empty()) continue;
    if (d.sourceOp.empty()) {
      // The op type the user's file names: the judged graph's node, else the op the check named.
      if (d.nodeIndex < graph.nodes().size()) d.sourceOp = std::string(graph.sourceOp(graph.node(d.nodeIndex)));
      else if (std::optional<uint32_t> i = graph.findNode(d.node)) d.sourceOp = std::string(graph.sourceOp(graph.node(*i)));
      else d.sourceOp = d.op;
    }
    if (d.module.empty()) {
      if (modules) {
        if (std::optional<uint32_t> i = graph.findNode(d.node)) d.module = std::string(graph.modulePath(graph.node(*i)));
      }
      if (d.module.empty() && kind == InputKind::kOnnx) d.module = std::string(onnxNamespace(d.node));
    }
    if (d.code == DiagCode::kNoRule) {
      if (d.hint.find("did you mean") == std::string::npos) d.hint += overlaySnippet(d, backend, kind);
      continue;
    }
    std::string hint = kind == InputKind::kOnnx ? onnxHint(d, rules) : torchHint(d);
    if (!hint.empty()) d.hint = std::move(hint);
  }
}

}  // namespace qnnrules
