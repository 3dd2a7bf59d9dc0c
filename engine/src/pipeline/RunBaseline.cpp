#include "qnnrules/pipeline/RunBaseline.h"

#include <memory>

namespace qnnrules {

void applyBaseline(RunReport& report, const Baseline& baseline) {
  if (!report.ok()) return;
  report.baseline = std::make_shared<BaselineComparison>(compareWithBaseline(report.validation.diagnostics, baseline));
}

}  // namespace qnnrules
