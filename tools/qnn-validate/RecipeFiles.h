// --suggest-recipe, --suggest-overrides and --plan (qnnrules/RecipeSearch.h, OrtTensorOverrides.h):
// the search on the graph file, its summary after the report, and the recipe (or ONNX Runtime
// tensor overrides) written like every other output file.
#pragma once

#include "CliOptions.h"
#include "qnnrules/Engine.h"

namespace qnnvalidate {

// kExitValid when nothing was asked or the recipe was written; kExitBadInput otherwise.
int writeRecipeFiles(const CliOptions& o, const qnnrules::Engine& engine);

}  // namespace qnnvalidate
