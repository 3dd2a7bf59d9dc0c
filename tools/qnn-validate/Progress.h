// Progress of a long run on this terminal (report/ProgressLine.h): drawn on stderr when stderr is
// a terminal, never in a pipe or a file, so reports and machine-readable output never see it.
#pragma once

#include <string>

#include "qnnrules/report/ProgressLine.h"

namespace qnnvalidate {

// Options of a meter on stderr: drawn only when stderr is a terminal that is not "dumb".
qnnrules::ProgressLine::Options stderrProgress();

// "reading model.onnx (412 MiB)" at once when the file is large enough to take a while to read.
void showReading(qnnrules::ProgressLine& meter, const std::string& path);

}  // namespace qnnvalidate
