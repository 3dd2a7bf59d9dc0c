// Gives every node's ports a quantization spec from a config, following the annotation
// pattern its rule names (siso, binary, conv, shared, fixed_qparams, concat, ...), with recipe
// overrides. Fixed qparams and per-channel axes are read from the rule, so what the annotator
// writes is what the validator accepts. Nodes that already carry an annotation keep it; only
// float tensors get specs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

// Named by reference only: the options and the result are all an embedder sees (Engine.h).
class Graph;
class QuantConfigTable;
class RuleSet;
struct ConfigSelection;
struct Recipe;  // annotate/Recipe.h
struct Rule;

struct AnnotateOptions {
  std::string config = "8a8w";   // "NAME[:per_tensor|per_channel|per_block][,sym][,qat]"
  std::string recipeFile;        // optional recipe YAML (Engine::annotate loads it)
  const Recipe* recipe = nullptr;  // or an in-memory recipe (API overrides); used when recipeFile is empty
  std::string configFile;        // optional; default: quant_configs.yaml of the built-in rules
  bool strict = false;           // an override or discard entry that matches nothing is an error
  std::string explainNode;       // fill AnnotateResult::explanation for this node
  // ATen targets left float, each with why: the lowering path refuses them quantized (its
  // cpu_forms with only `quantized: true`). Engine::annotate adds the graph's path's own.
  std::vector<std::pair<std::string, std::string>> floatOps;
};

// Why one port got its spec.
struct PortDecision {
  std::string port;    // "in[1]", "out[0]"
  std::string spec;    // "int8 -127..127 per_channel_symmetric axis 0"
  std::string source;  // "weight role of 16a4w:per_channel (pattern conv of rule htp.conv2d)"
};

struct NodeExplanation {
  std::string node;
  std::string op;
  std::string sourceOp;    // the op type the user's file names (Graph::sourceOp)
  std::string rule;        // "htp.conv2d (rules/htp/ops/conv.yaml:3:5)", or why none
  std::string pattern;
  std::string config;      // the selection that applied
  std::string decidedBy;   // "the --annotate default" or the winning override
  std::vector<PortDecision> ports;
};

struct AnnotateResult {
  Status status;                 // not ok: bad config/recipe; the graph is untouched
  DiagnosticList diagnostics;    // overrides, discards, ports that could not be annotated as asked
  DiagnosticList loadErrors;     // config/recipe file errors (with status not ok)
  size_t nodesAnnotated = 0;
  size_t nodesKept = 0;          // already annotated before
  size_t nodesDiscarded = 0;
  bool qat = false;              // the default selection asked for QAT
  std::string config;            // the default selection, as text
  std::optional<NodeExplanation> explanation;
  bool ok() const { return status.isOk() && countSeverity(diagnostics, Severity::kError) == 0; }
};

// Annotates `graph` in place with already-loaded pieces (Engine::annotate loads them), after giving
// it the forms ExecuTorch's QnnQuantizer annotates (nodes added: docs/annotation.md).
// `recipe` may be null. Only options.strict and options.explainNode are read here.
AnnotateResult annotateGraph(Graph& graph, const RuleSet& rules, const QuantConfigTable& configs,
                             const ConfigSelection& selection, const Recipe* recipe,
                             const AnnotateOptions& options);

// Argument position of the input port a rule names `name` ("weight", "bias"), or -1.
int namedInputArg(const Rule& rule, std::string_view name);
// A conv-like rule's weight and bias positions: its "weight"/"bias" ports, else 1 and 2
// (ATen's conv/linear signatures).
int convWeightArg(const Rule& rule);
int convBiasArg(const Rule& rule);


}  // namespace qnnrules
