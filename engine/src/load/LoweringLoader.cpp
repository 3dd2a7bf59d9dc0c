// rules/lowering/<name>.yaml -> LoweringPath. Strict as the rule files (StrictYaml.h): unknown
// keys, wrong types and unknown names are errors with file:line:column.
#include <algorithm>
#include <array>
#include <limits>

#include "yaml/StrictYaml.h"
#include "CpuFormsLoader.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/Lowering.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 14> kTopKeys = {"version",          "lowering",         "description",
                                                      "default_for",      "session_failure",  "noop_conversions",
                                                      "ungrouped_qdq_nodes", "dynamic_shapes",
                                                      "rank6_reshape_transpose", "quantized_constants", "cpu_forms",
                                                      "rewrites", "number_operands_float32",
                                                      "parameter_dequantize"};
constexpr std::array<std::string_view, 3> kSessionKeys = {"onnx_ops", "ops", "message"};
constexpr std::array<std::string_view, 2> kDynamicShapeKeys = {"nodes", "message"};
constexpr std::array<std::string_view, 2> kDequantizeKeys = {"outcome", "message"};
constexpr std::array<std::string_view, 9> kRewriteKeys = {"id",  "rules", "targets", "when", "static",
                                                          "scales_differ", "port", "set", "says"};
constexpr std::array<std::string_view, 6> kSetKeys = {"dtype", "symmetric", "scale", "offset", "float", "encoding_of"};

class LoweringLoader : public StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  std::optional<LoweringPath> load(const YAML::Node& root) {
    const size_t before = errorCount();
    Map top = readMap(root, "the top level", kTopKeys, "a mapping with keys version, lowering, description, ...");
    if (!top.valid) return std::nullopt;
    version(root, top);
    LoweringPath p;
    p.mark = mark(root);
    if (const Entry* e = top.get("lowering")) {
      if (auto s = str(e->value, "'lowering'")) p.name = *s;
    } else {
      missing(root, top, "the top level", "lowering");
    }
    if (const Entry* e = top.get("description")) {
      if (auto s = str(e->value, "'description'")) p.description = *s;
    } else {
      missing(root, top, "the top level", "description");
    }
    if (const Entry* e = top.get("default_for")) readSources(e->value, p);
    if (const Entry* e = top.get("session_failure")) readSessionFailure(*e, p);
    readChoice(top, "noop_conversions", "merge_encodings", "keep_encodings", p.mergeEncodingsAcrossNoOps);
    readChoice(top, "ungrouped_qdq_nodes", "float", "as_read", p.floatUngroupedQdq);
    if (const Entry* e = top.get("dynamic_shapes")) readDynamicShapes(*e, p);
    if (const Entry* e = top.get("parameter_dequantize")) readParameterDequantize(*e, p);
    readChoice(top, "rank6_reshape_transpose", "fuse", "as_read", p.fuseRank6ReshapeTranspose);
    readChoice(top, "quantized_constants", "computed", "folded", p.computesQuantizedConstants);
    if (const Entry* e = top.get("cpu_forms")) readCpuForms(*this, e->value, p.cpuForms);
    if (const Entry* e = top.get("number_operands_float32"))
      p.numberOperandFloatRules = strings(e->value, "'number_operands_float32'");
    if (const Entry* e = top.get("rewrites")) {
      if (!e->value.IsSequence()) {
        error(DiagCode::kWrongType, mark(e->value), "'rewrites' must be a list of rewrites", "a list",
              describe(e->value));
      } else {
        for (const YAML::Node& n : e->value) readRewrite(n, p);
      }
    }
    if (errorCount() != before) return std::nullopt;
    return p;
  }

 private:
  std::vector<std::string> strings(const YAML::Node& v, const std::string& what) {
    std::vector<std::string> out;
    if (!v.IsSequence()) {
      error(DiagCode::kWrongType, mark(v), what + " must be a list of strings", "a list of strings", describe(v));
      return out;
    }
    for (const YAML::Node& item : v)
      if (auto s = str(item, what)) out.push_back(*s);
    return out;
  }

  void readSources(const YAML::Node& v, LoweringPath& p) {
    for (const std::string& s : strings(v, "'default_for'")) {
      auto it = std::find(kGraphSourceNames.begin(), kGraphSourceNames.end(), s);
      if (it == kGraphSourceNames.end()) {
        error(DiagCode::kUnknownEnumValue, mark(v), "unknown graph source '" + clip(s) + "' in 'default_for'",
              oneOf(kGraphSourceNames), clip(s), suggest(s, kGraphSourceNames));
        continue;
      }
      p.defaultFor.push_back(static_cast<GraphSource>(it - kGraphSourceNames.begin()));
    }
  }

  void readSessionFailure(const Entry& e, LoweringPath& p) {
    Map m = readMap(e.value, "'session_failure'", kSessionKeys);
    if (!m.valid) return;
    p.sessionFailureMark = mark(e.keyNode);
    if (const Entry* x = m.get("onnx_ops")) p.sessionFailureOnnxOps = strings(x->value, "'onnx_ops'");
    if (const Entry* x = m.get("ops")) p.sessionFailureOps = strings(x->value, "'ops'");
    if (!m.get("onnx_ops") && !m.get("ops")) missing(e.value, m, "'session_failure'", "onnx_ops");
    if (const Entry* x = m.get("message")) {
      if (auto s = str(x->value, "'message' of 'session_failure'")) p.sessionFailureMessage = *s;
    } else {
      missing(e.value, m, "'session_failure'", "message");
    }
  }

  // A key with two values: `out` is whether it says `yes`; any other value is an error.
  void readChoice(const Map& top, std::string_view key, std::string_view yes, std::string_view no, bool& out) {
    const Entry* e = top.get(key);
    if (!e) return;
    const std::string quoted = "'" + std::string(key) + "'";
    if (auto s = str(e->value, quoted)) {
      if (*s == yes || *s == no) {
        out = *s == yes;
      } else {
        const std::string both = std::string(yes) + " or " + std::string(no);
        error(DiagCode::kInvalidValue, mark(e->value), quoted + " must be " + both, both, clip(*s));
      }
    }
  }

  // dynamic_shapes: {nodes: cpu, message: ...}: a node with a dimension the path cannot infer runs
  // on CPU. `nodes` names what becomes of such a node (cpu: the only value a path has shown).
  void readDynamicShapes(const Entry& e, LoweringPath& p) {
    Map m = readMap(e.value, "'dynamic_shapes'", kDynamicShapeKeys);
    if (!m.valid) return;
    if (const Entry* x = m.get("nodes")) {
      if (auto s = str(x->value, "'nodes' of 'dynamic_shapes'"); s && *s != "cpu")
        error(DiagCode::kInvalidValue, mark(x->value), "'nodes' of 'dynamic_shapes' must be cpu", "cpu", clip(*s));
    } else {
      missing(e.value, m, "'dynamic_shapes'", "nodes");
    }
    if (const Entry* x = m.get("message")) {
      if (auto s = str(x->value, "'message' of 'dynamic_shapes'")) {
        p.dynamicShapesMessage = *s;
        p.dynamicShapesMark = mark(e.keyNode);
      }
    } else {
      missing(e.value, m, "'dynamic_shapes'", "message");
    }
  }

  // parameter_dequantize: {outcome: lowering_fails, message: ...}
  void readParameterDequantize(const Entry& e, LoweringPath& p) {
    Map m = readMap(e.value, "'parameter_dequantize'", kDequantizeKeys);
    if (!m.valid) return;
    p.parameterDequantizeMark = mark(e.keyNode);
    if (const Entry* x = m.get("outcome")) {
      if (auto s = str(x->value, "'outcome' of 'parameter_dequantize'")) {
        if (*s == "lowering_fails") p.parameterDequantizeFails = true;
        else if (*s != "delegated")
          error(DiagCode::kInvalidValue, mark(x->value), "'outcome' of 'parameter_dequantize' must be lowering_fails or delegated",
                "lowering_fails or delegated", clip(*s));
      }
    } else {
      missing(e.value, m, "'parameter_dequantize'", "outcome");
    }
    if (const Entry* x = m.get("message")) {
      if (auto s = str(x->value, "'message' of 'parameter_dequantize'")) p.parameterDequantizeMessage = *s;
    } else {
      missing(e.value, m, "'parameter_dequantize'", "message");
    }
  }

  std::optional<QnnDatatype> datatype(const YAML::Node& v, const std::string& what) {
    return enumValue<QnnDatatype>(v, what, "QNN datatype", datatypeNames(), parseDatatype);
  }

  static Names datatypeNames() {
    static const std::vector<std::string_view> names = [] {
      std::vector<std::string_view> n;
      for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i) n.push_back(datatypeName(static_cast<QnnDatatype>(i)));
      return n;
    }();
    return names;
  }

  void readRewrite(const YAML::Node& n, LoweringPath& p) {
    const std::string id = peek(n, "id");
    const std::string scope = id.empty() ? "a rewrite" : "rewrite '" + id + "'";
    Map m = readMap(n, scope, kRewriteKeys);
    if (!m.valid) return;
    auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
    LoweringRewrite r;
    r.mark = mark(n);
    for (std::string_view key : {"id", "rules", "port", "set", "says"})
      if (!m.get(key)) missing(n, m, scope, key);
    if (const Entry* e = m.get("id"))
      if (auto s = str(e->value, in("id"))) r.id = *s;
    if (const Entry* e = m.get("rules")) r.rules = strings(e->value, in("rules"));
    if (const Entry* e = m.get("targets")) r.targets = strings(e->value, in("targets"));
    if (const Entry* e = m.get("port"))
      if (auto s = str(e->value, in("port"))) r.port = *s;
    if (const Entry* e = m.get("says"))
      if (auto s = str(e->value, in("says"))) r.says = *s;
    if (const Entry* e = m.get("when")) {
      Map w = readMap(e->value, in("when"), {});
      for (const Entry& x : w.entries)
        if (auto t = datatype(x.value, "port '" + clip(x.key) + "' in " + in("when"))) r.when.emplace_back(x.key, *t);
    }
    if (const Entry* e = m.get("static")) {
      Map w = readMap(e->value, in("static"), {});
      for (const Entry& x : w.entries)
        if (auto b = boolean(x.value, "port '" + clip(x.key) + "' in " + in("static"))) r.readsStatic.emplace_back(x.key, *b);
    }
    if (const Entry* e = m.get("scales_differ")) {
      r.scalesDiffer = strings(e->value, in("scales_differ"));
      if (r.scalesDiffer.size() < 2)
        error(DiagCode::kInvalidValue, mark(e->value), in("scales_differ") + " names at least two ports",
              "two or more port names", describe(e->value));
    }
    if (const Entry* e = m.get("set")) readSet(e->value, in("set"), r);
    p.rewrites.push_back(std::move(r));
  }

  void readSet(const YAML::Node& v, const std::string& what, LoweringRewrite& r) {
    Map s = readMap(v, what, kSetKeys);
    if (!s.valid) return;
    if (s.entries.empty())
      error(DiagCode::kInvalidValue, mark(v), what + " changes nothing", "one of: " + join(kSetKeys), "{}");
    if (const Entry* e = s.get("dtype")) r.setDatatype = datatype(e->value, "'dtype' of " + what);
    if (const Entry* e = s.get("float")) {
      if (auto b = boolean(e->value, "'float' of " + what)) {
        r.setFloat = *b;
        if (!*b)
          error(DiagCode::kInvalidValue, mark(e->value), "'float' of " + what + " can only be true", "true", "false");
        else if (s.entries.size() > 1)
          error(DiagCode::kInvalidValue, mark(e->value), "'float' of " + what + " takes no other change",
                "float: true alone", "float with other keys");
      }
    }
    if (const Entry* e = s.get("encoding_of")) {
      if (auto p = str(e->value, "'encoding_of' of " + what)) r.setEncodingOf = *p;
      if (s.entries.size() > 1)
        error(DiagCode::kInvalidValue, mark(e->value), "'encoding_of' of " + what + " takes no other change",
              "encoding_of alone", "encoding_of with other keys");
    }
    if (const Entry* e = s.get("symmetric"))
      if (auto b = boolean(e->value, "'symmetric' of " + what)) r.setSymmetric = *b;
    if (const Entry* e = s.get("offset"))
      if (auto x = integer(e->value, "'offset' of " + what, std::numeric_limits<int32_t>::min(),
                           std::numeric_limits<int32_t>::max()))
        r.setOffset = *x;
    if (const Entry* e = s.get("scale")) {
      const std::string& text = e->value.IsScalar() ? e->value.Scalar() : std::string();
      std::optional<double> x = looksFloat(text) || looksInt(text) ? parseNumber(text) : parseFraction(text);
      if (!e->value.IsScalar() || !x || *x <= 0) {
        error(DiagCode::kInvalidValue, mark(e->value), "'scale' of " + what + " must be a positive number or a fraction",
              "a positive number or a fraction \"a/b\" such as \"1/65536\"", describe(e->value));
      } else {
        r.setScale = *x;
        r.setScaleText = text;
      }
    }
  }
};

}  // namespace

std::optional<LoweringPath> loadLoweringText(const std::string& text, const std::string& displayPath,
                                             DiagnosticList& errors, const LoadLimits& limits) {
  LoweringLoader l(displayPath, errors);
  std::optional<LoweringPath> out;
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the lowering file")) out = l.load(*root);
  });
  return out;
}

std::optional<LoweringPath> loadLoweringFile(const std::filesystem::path& file, const std::string& displayPath,
                                             DiagnosticList& errors, const LoadLimits& limits) {
  std::optional<LoweringPath> out;
  loadFileWith(file, displayPath, limits, errors, "lowering file",
               [&](const std::string& text) { out = loadLoweringText(text, displayPath, errors, limits); });
  return out;
}

}  // namespace qnnrules
