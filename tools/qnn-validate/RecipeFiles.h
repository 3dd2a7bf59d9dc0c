// --suggest-recipe, --suggest-overrides and --plan (qnnrules/RecipeSearch.h, OrtTensorOverrides.h):
// the search on the graph file, its summary after the report, and the recipe (or ONNX Runtime
// tensor overrides) written like every other output file.
#pragma once

#include "CliOptions.h"
#include "qnnrules/Engine.h"

namespace qnnvalidate {

// Whether o asks for a search (--suggest-recipe, --suggest-overrides or --plan).
bool wantsRecipeSearch(const CliOptions& o);

// kExitValid when nothing was asked or the recipe was written; kExitBadInput otherwise. `graph` is
// the graph as read, which the run's report was made from (the file is read once).
int writeRecipeFiles(const CliOptions& o, const qnnrules::Engine& engine, const qnnrules::Graph& graph);

}  // namespace qnnvalidate
