// backend.yaml -> BackendManifest: a backend's description, the backend it extends and the
// targets it excludes, and the backend-wide facts that narrow every variant. Strict as the
// rule files (StrictYaml.h).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "model/EnumNames.h"
#include "RuleFileParts.h"
#include "yaml/StrictYaml.h"
#include "qnnrules/load/RuleLoader.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 16> kManifestKeys = {
    "version",   "backend",      "description", "default",  "extends",   "exclude",           "datatypes",
    "encodings", "symmetric",    "max_rank",    "empty_tensors", "non_finite_scales", "hardware", "quantized",
    "why_not_quantized", "delegation"};
constexpr std::array<std::string_view, 2> kNonFiniteScalesNames = {"accepted", "finalize_fails"};
constexpr std::array<std::string_view, 3> kDelegationKeys = {"require_full_delegation", "input_quantize_on_cpu",
                                                             "output_dequantize_on_cpu"};
constexpr std::array<std::string_view, 2> kExcludeKeys = {"targets", "why"};

class ManifestLoader : public StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void loadManifest(const YAML::Node& root, BackendManifest& out) {
    out.mark = fileMark(1, 1);
    Map m = readMap(root, "the manifest", kManifestKeys, "a mapping with keys " + join(kManifestKeys));
    if (!m.valid) return;
    version(root, m);
    parseBackendKeys(root, m, out);
    parseTypeKeys(m, out);
    parseQuantized(m, out);
    if (const Entry* e = m.get("exclude")) {
      if (out.extends.empty() && !m.get("extends")) {
        error(DiagCode::kInvalidValue, mark(e->keyNode),
              "'exclude' removes targets of the parent backend, but the manifest has no 'extends'",
              "'extends' naming the parent backend", "'exclude' without 'extends'");
      }
      parseExclusions(e->value, out);
    }
  }

  static std::string in(std::string_view key) { return "'" + std::string(key) + "' in the manifest"; }

  // backend, description, default, max_rank, empty_tensors, non_finite_scales, extends.
  void parseBackendKeys(const YAML::Node& root, const Map& m, BackendManifest& out) {
    auto requiredString = [&](std::string_view key, std::string& field) {
      if (const Entry* e = m.get(key)) {
        if (auto s = str(e->value, in(key))) field = *s;
      } else {
        missing(root, m, "the manifest", key);
      }
    };
    requiredString("backend", out.backend);
    requiredString("description", out.description);
    if (const Entry* e = m.get("default")) {
      if (auto b = boolean(e->value, in("default"))) out.isDefault = *b;
      out.defaultMark = mark(e->value);
    }
    if (const Entry* e = m.get("max_rank")) {
      if (auto r = integer(e->value, in("max_rank"), 1, 64, "a rank from 1 to 64")) {
        out.maxRank = static_cast<int>(*r);
        out.maxRankMark = mark(e->keyNode);
      }
    }
    if (const Entry* e = m.get("empty_tensors")) {
      if (auto v = enumValue<EmptyTensors>(e->value, in("empty_tensors"), "empty-tensor behaviour", kEmptyTensorsNames,
                                           parseEmptyTensors)) {
        out.emptyTensors = *v;
        out.emptyTensorsMark = mark(e->keyNode);
      }
    }
    if (const Entry* e = m.get("non_finite_scales")) {
      if (auto v = enumValue<EmptyTensors>(e->value, in("non_finite_scales"), "non-finite-scale behaviour",
                                           kNonFiniteScalesNames, [](std::string_view s) -> std::optional<EmptyTensors> {
                                             if (s == "refused") return std::nullopt;  // not a behaviour seen
                                             return parseEmptyTensors(s);
                                           })) {
        out.nonFiniteScales = *v;
        out.nonFiniteScalesMark = mark(e->keyNode);
      }
    }
    if (const Entry* e = m.get("extends")) {
      if (auto s = str(e->value, in("extends"))) out.extends = *s;
      out.extendsMark = mark(e->value);
    }
  }

  // datatypes, encodings, symmetric, hardware, delegation.
  void parseTypeKeys(const Map& m, BackendManifest& out) {
    if (const Entry* e = m.get("datatypes")) {
      DatatypeSet set;
      if (enumList<QnnDatatype>(e->value, in("datatypes"), "datatype", datatypeNames(),
                                [](std::string_view s) { return parseDatatype(s); },
                                [&](QnnDatatype t) { set.insert(t); }))
        out.datatypes = set;
    }
    if (const Entry* e = m.get("encodings")) {
      EncodingSet set;
      if (enumList<Encoding>(e->value, in("encodings"), "encoding", encodingNames(),
                             [](std::string_view s) { return parseEncoding(s); },
                             [&](Encoding x) { set.insert(x); }))
        out.encodings = set;
    }
    if (const Entry* e = m.get("symmetric")) {
      if (auto b = boolean(e->value, in("symmetric"))) out.symmetric = *b;
    }
    // A column of socs.yaml; the registry checks that the table declares it (it reads both).
    if (const Entry* e = m.get("hardware")) {
      if (auto s = str(e->value, in("hardware"))) out.hardware = *s;
      out.hardwareMark = mark(e->value);
    }
    if (const Entry* e = m.get("delegation")) parseDelegation(e->value, out.delegation);
  }

  // quantized and why_not_quantized, and quantized datatypes a float backend must not list.
  void parseQuantized(const Map& m, BackendManifest& out) {
    const Entry* quantized = m.get("quantized");
    const Entry* why = m.get("why_not_quantized");
    if (quantized) {
      if (auto b = boolean(quantized->value, in("quantized"))) out.quantized = *b;
    }
    if (why) {
      if (auto s = str(why->value, in("why_not_quantized"))) out.whyNotQuantized = *s;
    }
    if (!out.quantized && !why)
      error(DiagCode::kMissingKey, mark(quantized->keyNode),
            "the manifest sets quantized: false but gives no 'why_not_quantized', the sentence diagnostics report",
            "why_not_quantized", m.keyList());
    if (out.quantized && why)
      error(DiagCode::kInvalidValue, mark(why->keyNode),
            "'why_not_quantized' is only allowed with quantized: false", "quantized: false", "quantized: true");
    if (!out.quantized && out.datatypes) {
      std::string fixed;
      out.datatypes->forEach([&](QnnDatatype t) {
        if (isFixedPoint(t)) fixed += (fixed.empty() ? "" : ", ") + std::string(datatypeName(t));
      });
      if (!fixed.empty())
        error(DiagCode::kInvalidValue, mark(m.get("datatypes")->value),
              "'datatypes' in the manifest lists quantized types (" + fixed + ") but the backend sets quantized: false",
              "float, integer and bool datatypes only", fixed);
    }
  }

  void parseDelegation(const YAML::Node& v, DelegationFacts& out) {
    Map m = readMap(v, "'delegation' in the manifest", kDelegationKeys);
    if (!m.valid) return;
    auto in = [](std::string_view key) { return "'" + std::string(key) + "' of 'delegation' in the manifest"; };
    if (const Entry* e = m.get("require_full_delegation")) {
      if (auto b = boolean(e->value, in(e->key))) out.requireFullDelegation = *b;
    }
    if (const Entry* e = m.get("input_quantize_on_cpu")) {
      if (auto s = str(e->value, in(e->key))) out.inputQuantizeOnCpu = *s;
    }
    if (const Entry* e = m.get("output_dequantize_on_cpu")) {
      if (auto s = str(e->value, in(e->key))) out.outputDequantizeOnCpu = *s;
    }
  }

  void parseExclusions(const YAML::Node& v, BackendManifest& out) {
    if (!v.IsSequence()) {
      error(DiagCode::kWrongType, mark(v), "'exclude' in the manifest must be a list of {targets, why}",
            "a list of mappings with keys targets and why", describe(v));
      return;
    }
    size_t index = 0;
    for (const YAML::Node& node : v) {
      ++index;
      const std::string scope = "exclude entry #" + std::to_string(index);
      Map m = readMap(node, scope, kExcludeKeys);
      if (!m.valid) continue;
      Exclusion x;
      x.mark = mark(node);
      if (const Entry* e = m.get("targets")) {
        Rule scratch;  // parseTargetList checks list shape, strings and repeats
        parseTargetList(*this, e->value, "'targets' of " + scope, scratch.targets);
        size_t i = 0;
        for (const YAML::Node& t : e->value) {
          if (i >= scratch.targets.size()) break;
          if (t.IsScalar() && t.Scalar() == scratch.targets[i]) {
            x.targets.push_back(scratch.targets[i]);
            x.targetMarks.push_back(mark(t));
            ++i;
          }
        }
      } else {
        missing(node, m, scope, "targets");
      }
      if (const Entry* e = m.get("why")) {
        if (auto s = str(e->value, "'why' of " + scope)) x.why = *s;
      } else {
        missing(node, m, scope, "why");
      }
      for (const Exclusion& earlier : out.exclude) {
        for (size_t i = 0; i < x.targets.size(); ++i) {
          for (const std::string& t : earlier.targets)
            if (t == x.targets[i])
              error(DiagCode::kInvalidValue, x.targetMarks[i],
                    "target '" + t + "' is excluded twice; it is first excluded at " + earlier.mark.toString(),
                    "each target excluded once", t);
        }
      }
      out.exclude.push_back(std::move(x));
    }
  }

};

}  // namespace

void loadManifestText(const std::string& text, const std::string& displayPath, BackendManifest& out,
                      DiagnosticList& errors, const LoadLimits& limits) {
  ManifestLoader l(displayPath, errors);
  l.setListKey("backend");
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the backend manifest")) l.loadManifest(*root, out);
  });
}

void loadManifestFile(const std::filesystem::path& file, const std::string& displayPath, BackendManifest& out,
                      DiagnosticList& errors, const LoadLimits& limits) {
  loadFileWith(file, displayPath, limits, errors, "backend manifest",
               [&](const std::string& text) { loadManifestText(text, displayPath, out, errors, limits); });
}

}  // namespace qnnrules
