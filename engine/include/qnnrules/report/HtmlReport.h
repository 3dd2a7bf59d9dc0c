// The report as one self-contained HTML page (no network, no graphviz): the JSON report is
// embedded in the page and drawn by inline script — the verdict, the per-op table, the
// diagnostics grouped by code and op with their hints, and the partition picture. Groups are
// collapsed and long lists paged, so a 30,000-node decoder stays readable.
#pragma once

#include <string>
#include <string_view>

namespace qnnrules {

// `reportJson` is the document `qnn-validate --format json` prints (docs/schemas/report.schema.json).
std::string formatHtmlReport(std::string_view reportJson);

}  // namespace qnnrules
