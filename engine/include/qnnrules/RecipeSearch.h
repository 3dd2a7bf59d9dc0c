// Beyond a yes/no (issue 26): recipes the engine writes itself, from what the rules accept.
//
// - suggestRecipe: the graph annotated with `config` fails on some nodes; for each, the nearest
//   config under which the backend takes it (16a16w -> 16a8w for a conv on V68, per-channel
//   instead of block-wise weights), as a recipe of per-node overrides (annotate/Recipe.h) that
//   makes the graph validate clean with `--annotate config --recipe`.
// - planPrecision: per node, the highest-precision config the backend takes on this SoC (the
//   ceiling the hardware allows, the start of a mixed-precision search), as a recipe too.
//
// Both work the same way: the graph is annotated and validated once per candidate config
// (every config of quant_configs.yaml with integer activations, each granularity it offers), a
// node's verdict under each is read off those runs, and the chosen recipe is verified by one
// more run; nodes a neighbour's override breaks (shared encodings) get their next choice, for a
// few rounds. Nodes no candidate makes valid stay on CPU, with the reason under the base config.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/annotate/Recipe.h"

namespace qnnrules {

struct RecipeSearchOptions {
  // Candidate config selections ("16a8w:per_channel"); empty: every config with integer
  // activations in each granularity it offers.
  std::vector<std::string> candidates;
  int maxRounds = 4;  // verification rounds after the first choice
  // Called before each annotate + validate run with (runs so far, 0 = total unknown, the config
  // it tries): a front end shows it (report/ProgressLine.h). Empty: nothing is called.
  std::function<void(size_t, size_t, std::string_view)> progress;
};

struct NodeChoice {
  std::string node;
  std::string op;    // the op type of the user's file (onnx::Conv for an ONNX model; a .pt2's ATen target)
  std::string from;  // the base config (suggest) or "" (plan)
  std::string to;    // the config the recipe gives the node
  std::string why;   // suggest: the diagnostic that made the node fail under the base config
};

struct NodeOnCpu {
  std::string node;
  std::string op;
  std::string why;  // the node's first error under the base config (or the best candidate)
};

struct RecipeSearchResult {
  Status status;                   // not ok: the engine did not open, a bad config, a graph that cannot be read
  std::string base;                // the base selection ("16a16w"; plan: the highest-precision candidate)
  std::vector<NodeChoice> choices;  // one per overridden node, in graph order
  std::vector<NodeOnCpu> onCpu;     // nodes no candidate makes valid, in graph order
  std::map<std::string, size_t> nodesPerConfig;  // plan: call nodes per chosen config (the base included)
  bool validatesClean = false;     // with the recipe, no error on any node but those in onCpu
  size_t runs = 0;                 // annotate + validate runs made
  Recipe recipe;                   // default = base, one override per choice; its configs are those of the
                                   // engine passed in (valid while that engine is)
  std::string note;                // what the recipe is for, written as its first comment

  bool ok() const { return status.isOk(); }
  // The recipe as YAML (the format --recipe reads), with a comment per override.
  std::string yaml() const;
  // A short human summary: counts, the overrides, the nodes that stay on CPU.
  std::string text() const;
};

RecipeSearchResult suggestRecipe(const Engine& engine, const Graph& graph, const std::string& config,
                                 const RecipeSearchOptions& options = {});
RecipeSearchResult planPrecision(const Engine& engine, const Graph& graph, const RecipeSearchOptions& options = {});

}  // namespace qnnrules
