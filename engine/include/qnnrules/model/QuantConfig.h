// Quantization configurations as data (rules/quant_configs.yaml): what the annotator writes
// on activations, weights, biases and the few op-specific roles, per named config
// (8a8w, 16a4w, ...), and how a user picks one ("16a4w:per_channel,qat").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/graph/QuantSpec.h"
#include "qnnrules/core/LoadLimits.h"
#include "qnnrules/core/SourceMark.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

enum class Granularity : uint8_t { kPerTensor, kPerChannel, kPerBlock };
std::string_view granularityName(Granularity g);  // "per_tensor"
std::optional<Granularity> parseGranularity(std::string_view s);

// One tensor role of a config before calibration: storage dtype and range. A float dtype
// (float16) means the role stays floating point (fp16a8w activations).
struct TensorQuant {
  ScalarType dtype = ScalarType::kUInt8;
  int64_t quantMin = 0;
  int64_t quantMax = 255;
  bool isFloat() const { return isFloatType(dtype); }
};

struct QuantConfig {
  std::string name;          // "16a4w"
  std::string description;
  TensorQuant activation;    // inputs and outputs of activations (affine unless symmetric is asked)
  TensorQuant weight;        // conv/linear/embedding weights (always symmetric)
  TensorQuant matmulIn1;     // MatMul's second operand (defaults to the activation)
  TensorQuant normWeight;    // norm weights (defaults to the activation)
  TensorQuant normBias;      // norm biases (defaults to int32, symmetric)
  double eps = 0.0;          // smallest scale the observers produce
  std::vector<Granularity> granularities;  // the weight granularities it offers
  Granularity defaultGranularity = Granularity::kPerTensor;
  int64_t blockSize = 0;     // per_block: default block length along the weight's input channels
  bool qat = false;          // a QAT flavour exists
  SourceMark mark;

  bool offers(Granularity g) const;
};

// The config file: configs by name plus the per-op weight axis table.
class QuantConfigTable {
 public:
  const QuantConfig* find(std::string_view name) const;
  const std::vector<QuantConfig>& all() const { return configs_; }
  void add(QuantConfig c) { configs_.push_back(std::move(c)); }
  // Per-channel weight axis of an ATen target when its rule does not say (default 0).
  int weightAxis(std::string_view target) const;
  void setWeightAxis(std::string target, int axis) { axes_[std::move(target)] = axis; }
  const std::unordered_map<std::string, int>& weightAxes() const { return axes_; }  // (the rule cache)
  std::string names() const;  // "8a8w, 8a4w, ..." for messages

 private:
  std::vector<QuantConfig> configs_;
  std::unordered_map<std::string, int> axes_;
};

// What a node is annotated with: a config and how to apply it.
struct ConfigSelection {
  const QuantConfig* config = nullptr;
  Granularity granularity = Granularity::kPerTensor;
  bool actSymmetric = false;
  bool qat = false;
  std::string text() const;  // "16a4w:per_channel,qat"
};

// Parses "NAME[:MODIFIER,...]" with modifiers per_tensor, per_channel, per_block, sym, qat.
// Without a granularity modifier the config's default granularity is used.
StatusOr<ConfigSelection> parseConfigSelection(const QuantConfigTable& table, std::string_view text);
// Checks that a config offers the granularity and QAT flavour asked for.
Status checkSelection(const ConfigSelection& s);

// Strict loading, like the rule loader: unknown or duplicate keys, wrong types and unknown
// names are errors with file:line:column; all errors are reported.
void loadQuantConfigText(const std::string& text, const std::string& displayPath, QuantConfigTable& out,
                         DiagnosticList& errors, const LoadLimits& limits = {});
void loadQuantConfigFile(const std::filesystem::path& file, const std::string& displayPath,
                         QuantConfigTable& out, DiagnosticList& errors, const LoadLimits& limits = {});

}  // namespace qnnrules
