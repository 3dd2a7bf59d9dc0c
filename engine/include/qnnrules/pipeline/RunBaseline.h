// A run compared with a baseline report (report/Baseline.h): its unchanged findings set aside.
#pragma once

#include "qnnrules/pipeline/RunReport.h"
#include "qnnrules/report/Baseline.h"

namespace qnnrules {

// compareWithBaseline on a run's findings (RunReport::baseline); a run that stopped is left as is.
void applyBaseline(RunReport& report, const Baseline& baseline);

}  // namespace qnnrules
