// The compatibility matrix (qnnrules/Matrix.h, issue 26) as one self-contained HTML page: a
// table of SoC rows x config columns, each cell coloured by its verdict and showing its CPU
// share and node counts, linking to that cell's diagnostics further down (a cell that shares
// another SoC's validation links to the section of the cell that holds them). The page is
// plain HTML and CSS (no script, nothing fetched); everything that comes from the input is
// escaped.
#pragma once

#include <string>
#include <string_view>

#include "qnnrules/core/Status.h"

namespace qnnrules {

// `matrixJson` is the document `qnn-validate --soc all --configs all --format json` prints
// (docs/schemas/matrix.schema.json). `page` is left empty when the document is not one. A
// cell's optional "diagnostic_counts" ({code: count}) gives the count of each code where its
// "diagnostics" hold only the first ones (CompatibilityMatrix::html).
Status formatMatrixHtml(std::string_view matrixJson, std::string& page);

// The id of a cell's diagnostics section: "d-" SOC "-" CONFIG, where every character but
// [A-Za-z0-9_] is written ".XX" (its byte in hex), so distinct cells never share an id
// ("d-SM8650-16a4w_block", "d-SM8650-8a8w.3aper_tensor").
std::string matrixCellAnchor(std::string_view soc, std::string_view config);

}  // namespace qnnrules
