#include "RecipeFiles.h"

#include <cstdio>
#include <iostream>

#include "qnnrules/RecipeSearch.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/SafeOutputFile.h"

namespace qnnvalidate {

int writeRecipeFiles(const CliOptions& o, const qnnrules::Engine& engine) {
  const bool suggest = !o.suggestRecipe.empty();
  if (!suggest && o.plan.empty()) return kExitValid;
  // The search annotates the graph as read, not the report's already-annotated copy.
  qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath);
  if (!read.ok()) {
    std::cerr << "qnn-validate: error: " << read.status.message() << "\n";
    return kExitBadInput;
  }
  qnnrules::RecipeSearchResult r = suggest ? qnnrules::suggestRecipe(engine, read.graph, o.annotate)
                                           : qnnrules::planPrecision(engine, read.graph);
  const std::string& path = suggest ? o.suggestRecipe : o.plan;
  if (!r.ok()) {
    std::cerr << "qnn-validate: error: " << (suggest ? "--suggest-recipe" : "--plan") << ": " << r.status.message()
              << "\n";
    return kExitBadInput;
  }
  // The summary follows a text report; with JSON or SARIF on stdout it goes to stderr.
  std::ostream& out = o.format == "text" ? std::cout : std::cerr;
  out << "\n" << (suggest ? "suggested recipe for " + r.base : std::string("precision plan")) << " on "
      << engine.soc().name << ":\n"
      << r.text();
  if (qnnrules::Status st = qnnrules::writeOutputFile(path, r.yaml()); !st.isOk()) {
    std::cerr << "qnn-validate: error: " << st.message() << "\n";
    return kExitBadInput;
  }
  return kExitValid;
}

}  // namespace qnnvalidate
