// The run report's own functions (pipeline/RunReport.h); Engine::run fills it in.
#include "qnnrules/pipeline/RunReport.h"

namespace qnnrules {

std::string_view runStageName(RunStage s) {
  switch (s) {
    case RunStage::kNone: return "";
    case RunStage::kRules: return "rules";
    case RunStage::kBackendOption: return "backend-option";
    case RunStage::kGraph: return "graph";
    case RunStage::kAnnotation: return "annotation";
  }
  return "";
}

std::string RunReport::graphLabel() const {
  if (!graphPath.empty()) return graphPath;
  return graph ? graph->name : std::string();
}

}  // namespace qnnrules
