// What an opened Engine holds (Engine.h keeps it behind a pointer, so that the public face names
// no loader, rule table or pass). Engine.cpp builds it once; EnginePipeline.cpp runs on it.
#pragma once

#include <memory>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/graph/GraphSource.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/model/BackendOptions.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"
#include "qnnrules/passes/LoweringRewrites.h"
#include "qnnrules/pipeline/PhaseTimes.h"

namespace qnnrules {

struct Engine::Impl {
  EngineOptions options;
  Status status;
  DiagnosticList loadErrors;
  std::shared_ptr<RuleRegistry> registry;  // shared by withSoc's engines
  std::shared_ptr<const RuleSet> rules;
  SocInfo soc;
  std::shared_ptr<const LoweringTable> lowerings;
  std::vector<BoundLowering> boundLowerings;  // one per path of lowerings
  std::shared_ptr<const BackendOptionTable> optionTable;  // backendOptions point into it
  std::vector<ResolvedOption> backendOptions;
  PhaseTime loadTime;  // opening the engine, reported as the run's "rule load" phase

  void open();  // the constructor's work: registry, SoC, backend rules, backend options
  Status resolveBackendOptions();
  Status openLowerings();
  // The path a graph from `source` takes (the chosen one, else the source's default); null
  // when the search path has none.
  const BoundLowering* loweringFor(GraphSource source) const;
};

}  // namespace qnnrules
