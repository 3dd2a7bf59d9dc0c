// rules/quant_configs.yaml -> QuantConfigTable, read with the rule loader's strict helpers.
#include "qnnrules/model/QuantConfig.h"

#include "qnnrules/core/Suggest.h"

#include <algorithm>
#include <array>
#include <limits>

#include "yaml/StrictYaml.h"
#include "qnnrules/graph/PortType.h"

namespace qnnrules {

namespace {
constexpr std::array<std::string_view, 3> kGranularityNames = {"per_tensor", "per_channel", "per_block"};
}  // namespace

std::string_view granularityName(Granularity g) { return kGranularityNames[static_cast<size_t>(g)]; }

std::optional<Granularity> parseGranularity(std::string_view s) {
  for (size_t i = 0; i < kGranularityNames.size(); ++i)
    if (kGranularityNames[i] == s) return static_cast<Granularity>(i);
  return std::nullopt;
}

bool QuantConfig::offers(Granularity g) const {
  return std::find(granularities.begin(), granularities.end(), g) != granularities.end();
}

const QuantConfig* QuantConfigTable::find(std::string_view name) const {
  // Case-insensitive, like SoC names: "16A8W" is 16a8w.
  for (const QuantConfig& c : configs_)
    if (equalsIgnoringCase(c.name, name)) return &c;
  return nullptr;
}

int QuantConfigTable::weightAxis(std::string_view target) const {
  auto it = axes_.find(std::string(target));
  return it == axes_.end() ? 0 : it->second;
}

std::string QuantConfigTable::names() const {
  std::string s;
  for (const QuantConfig& c : configs_) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

std::string ConfigSelection::text() const {
  std::string s = config ? config->name : "none";
  s += ":" + std::string(granularityName(granularity));
  if (actSymmetric) s += ",sym";
  if (qat) s += ",qat";
  return s;
}

Status checkSelection(const ConfigSelection& s) {
  if (!s.config) return Status(StatusCode::kInvalidArgument, "no quantization config selected");
  if (!s.config->offers(s.granularity)) {
    std::string offered;
    for (Granularity g : s.config->granularities)
      offered += (offered.empty() ? "" : ", ") + std::string(granularityName(g));
    return Status(StatusCode::kInvalidArgument,
                  "config " + s.config->name + " has no " + std::string(granularityName(s.granularity)) +
                      " weights; it offers: " + offered,
                  std::string(granularityName(s.granularity)));
  }
  if (s.qat && !s.config->qat)
    return Status(StatusCode::kInvalidArgument, "config " + s.config->name + " has no QAT flavour", "qat");
  return Status::ok();
}

StatusOr<ConfigSelection> parseConfigSelection(const QuantConfigTable& table, std::string_view text) {
  std::string_view name = text.substr(0, text.find(':'));
  ConfigSelection sel;
  sel.config = table.find(name);
  if (!sel.config) {
    std::vector<std::string> names;
    for (const QuantConfig& c : table.all()) names.push_back(c.name);
    const std::string hint = didYouMean(name, names);
    return Status(StatusCode::kInvalidArgument,
                  "unknown quantization config '" + std::string(name) + "'" + (hint.empty() ? "" : "; " + hint) +
                      " (known configs: " + table.names() + ")",
                  std::string(name));
  }
  sel.granularity = sel.config->defaultGranularity;
  if (name.size() < text.size()) {
    std::string_view mods = text.substr(name.size() + 1);
    std::optional<std::string_view> granularityGiven;  // one granularity: a second one would silently win
    while (true) {
      std::string_view m = mods.substr(0, mods.find(','));
      if (auto g = parseGranularity(m)) {
        if (granularityGiven)
          return Status(StatusCode::kInvalidArgument,
                        "'" + std::string(text) + "' gives two weight granularities, '" + std::string(*granularityGiven) +
                            "' and '" + std::string(m) + "'; give at most one of per_tensor, per_channel and per_block",
                        std::string(m));
        granularityGiven = m;
        sel.granularity = *g;
      } else if (m == "sym") sel.actSymmetric = true;
      else if (m == "qat") sel.qat = true;
      else {
        const std::vector<std::string> modifiers{"per_tensor", "per_channel", "per_block", "sym", "qat"};
        const std::string hint = didYouMean(m, modifiers);
        return Status(StatusCode::kInvalidArgument,
                      "unknown config modifier '" + std::string(m) + "'" + (hint.empty() ? "" : "; " + hint) +
                          " (expected per_tensor, per_channel, per_block, sym or qat)",
                      std::string(m));
      }
      if (m.size() == mods.size()) break;
      mods.remove_prefix(m.size() + 1);
    }
  }
  Status st = checkSelection(sel);
  if (!st.isOk()) return st;
  return sel;
}

namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace)

constexpr std::array<std::string_view, 3> kTopKeys = {"version", "configs", "weight_axis"};
constexpr std::array<std::string_view, 12> kConfigKeys = {
    "name", "description", "activation", "weight", "matmul_in1", "norm_weight", "norm_bias",
    "eps", "granularities", "default_granularity", "block_size", "qat"};
constexpr std::array<std::string_view, 3> kTensorKeys = {"dtype", "quant_min", "quant_max"};

const std::vector<std::string_view>& scalarTypeNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (int i = 0; i < static_cast<int>(ScalarType::kCount); ++i) v.push_back(scalarTypeName(static_cast<ScalarType>(i)));
    return v;
  }();
  return names;
}


class ConfigLoader : public StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void load(const YAML::Node& root, QuantConfigTable& out) {
    Map top = readMap(root, "the top level", kTopKeys, "a mapping with keys version, configs and weight_axis");
    if (!top.valid) return;
    bool fileOk = version(root, top);
    if (const Entry* e = top.get("weight_axis")) loadAxes(e->value, out);
    const Entry* configs = top.get("configs");
    if (!configs) {
      missing(root, top, "the top level", "configs");
      return;
    }
    if (!configs->value.IsSequence()) {
      error(DiagCode::kWrongType, mark(configs->value), "'configs' must be a list of configs", "a list of configs",
            describe(configs->value));
      return;
    }
    size_t index = 0;
    for (const YAML::Node& node : configs->value) {
      ++index;
      const size_t before = errorCount();
      std::optional<QuantConfig> c = parseConfig(node, index);
      if (c && fileOk && errorCount() == before) out.add(std::move(*c));
    }
  }

 private:
  void loadAxes(const YAML::Node& v, QuantConfigTable& out) {
    Map m = readMap(v, "'weight_axis'", {}, "a mapping from ATen target to per-channel axis");
    for (const Entry& e : m.entries)
      if (auto x = integer(e.value, "the weight axis of '" + clip(e.key) + "'", 0, 8)) out.setWeightAxis(e.key, static_cast<int>(*x));
  }

  std::optional<QuantConfig> parseConfig(const YAML::Node& node, size_t index) {
    const std::string name = peek(node, "name");
    const std::string scope = name.empty() ? "config #" + std::to_string(index) : "config '" + name + "'";
    Map m = readMap(node, scope, kConfigKeys);
    if (!m.valid) return std::nullopt;
    auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
    QuantConfig c;
    c.mark = mark(node);
    auto required = [&](std::string_view key) {
      const Entry* e = m.get(key);
      if (!e) missing(node, m, scope, key);
      return e;
    };
    if (const Entry* e = required("name")) {
      if (auto s = str(e->value, in("name"))) {
        // Names of configs with errors count too, so a repeat is reported either way.
        auto dup = std::find_if(seen_.begin(), seen_.end(), [&](const auto& x) { return x.first == *s; });
        if (dup != seen_.end())
          error(DiagCode::kInvalidValue, mark(e->value),
                "config '" + *s + "' is defined twice; it is first defined at " + dup->second.toString(),
                "each config name once", *s);
        else
          seen_.emplace_back(*s, c.mark);
        c.name = *s;
      }
    }
    if (const Entry* e = required("description"))
      if (auto s = str(e->value, in("description"))) c.description = *s;
    if (const Entry* e = required("activation")) c.activation = tensor(e->value, in("activation"));
    if (const Entry* e = required("weight")) c.weight = tensor(e->value, in("weight"));
    c.matmulIn1 = c.activation;
    c.normWeight = c.activation;
    const QuantRange i32 = fullQuantRange(ScalarType::kInt32);
    c.normBias = {ScalarType::kInt32, i32.min, i32.max};
    if (const Entry* e = m.get("matmul_in1")) c.matmulIn1 = tensor(e->value, in("matmul_in1"));
    if (const Entry* e = m.get("norm_weight")) c.normWeight = tensor(e->value, in("norm_weight"));
    if (const Entry* e = m.get("norm_bias")) c.normBias = tensor(e->value, in("norm_bias"));
    if (const Entry* e = required("eps")) positive(e->value, in("eps"), c.eps);
    if (const Entry* e = required("granularities")) {
      enumList<Granularity>(e->value, in("granularities"), "granularity", kGranularityNames, parseGranularity,
                            [&](Granularity g) {
                              if (!c.offers(g)) c.granularities.push_back(g);
                            });
    }
    if (const Entry* e = m.get("default_granularity")) {
      if (auto g = enumValue<Granularity>(e->value, in("default_granularity"), "granularity", kGranularityNames,
                                          parseGranularity)) {
        c.defaultGranularity = *g;
        if (!c.granularities.empty() && !c.offers(*g))
          error(DiagCode::kInvalidValue, mark(e->value),
                in("default_granularity") + " is not one of its granularities", "one of its granularities",
                std::string(granularityName(*g)));
      }
    } else if (!c.granularities.empty()) {
      c.defaultGranularity = c.granularities.front();
    }
    if (const Entry* e = m.get("block_size")) {
      if (auto x = integer(e->value, in("block_size"), 1, 1 << 20)) c.blockSize = *x;
    } else if (c.offers(Granularity::kPerBlock)) {
      missing(node, m, scope, "block_size");
    }
    if (const Entry* e = m.get("qat"))
      if (auto b = boolean(e->value, in("qat"))) c.qat = *b;
    if (c.weight.isFloat())
      error(DiagCode::kInvalidValue, mark(node), in("weight") + " must be an integer dtype", "int8, int16, ...",
            std::string(scalarTypeName(c.weight.dtype)));
    return c;
  }

  TensorQuant tensor(const YAML::Node& v, const std::string& scope) {
    TensorQuant t;
    Map m = readMap(v, scope, kTensorKeys);
    if (!m.valid) return t;
    auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
    if (const Entry* e = m.get("dtype")) {
      if (auto d = enumValue<ScalarType>(e->value, in("dtype"), "dtype", scalarTypeNames(), parseScalarType))
        t.dtype = *d;
    } else {
      missing(v, m, scope, "dtype");
    }
    auto [lo, hi] = fullQuantRange(t.dtype);
    t.quantMin = lo;
    t.quantMax = hi;
    if (t.isFloat()) {
      for (std::string_view k : {"quant_min", "quant_max"})
        if (const Entry* e = m.get(k))
          error(DiagCode::kInvalidValue, mark(e->keyNode), in(k) + " makes no sense for a float dtype",
                "no quant range for " + std::string(scalarTypeName(t.dtype)), "'" + std::string(k) + "' given");
      return t;
    }
    if (const Entry* e = m.get("quant_min"))
      if (auto x = integer(e->value, in("quant_min"), lo, hi)) t.quantMin = *x;
    if (const Entry* e = m.get("quant_max"))
      if (auto x = integer(e->value, in("quant_max"), lo, hi)) t.quantMax = *x;
    if (t.quantMin >= t.quantMax)
      error(DiagCode::kInvalidValue, mark(v), scope + " has quant_min >= quant_max", "quant_min < quant_max",
            std::to_string(t.quantMin) + ".." + std::to_string(t.quantMax));
    return t;
  }

  std::vector<std::pair<std::string, SourceMark>> seen_;  // config names read so far

  // A positive number, or a fraction string "a/b" such as "0.0001/255".
  void positive(const YAML::Node& v, const std::string& what, double& out) {
    std::optional<double> x;
    if (v.IsScalar() && !(isPlain(v) && looksBool(v.Scalar())))
      x = isPlain(v) && looksFloat(v.Scalar()) ? parseNumber(v.Scalar()) : parseFraction(v.Scalar());
    if (!x || *x <= 0) {
      error(DiagCode::kInvalidValue, mark(v), what + " must be a positive number or a fraction \"a/b\"",
            "a positive number or a fraction \"a/b\"", describe(v));
      return;
    }
    out = *x;
  }
};

}  // namespace

void loadQuantConfigText(const std::string& text, const std::string& displayPath, QuantConfigTable& out,
                         DiagnosticList& errors, const LoadLimits& limits) {
  ConfigLoader l(displayPath, errors);
  l.setListKey("configs");
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the quantization config file")) l.load(*root, out);
  });
}

void loadQuantConfigFile(const std::filesystem::path& file, const std::string& displayPath, QuantConfigTable& out,
                         DiagnosticList& errors, const LoadLimits& limits) {
  loadFileWith(file, displayPath, limits, errors, "quantization config file", [&](const std::string& t) { loadQuantConfigText(t, displayPath, out, errors, limits); });
}

}  // namespace qnnrules
