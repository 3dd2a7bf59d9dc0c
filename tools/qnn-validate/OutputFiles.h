// The files qnn-validate writes besides its report, each rendered from the run report:
// the --dot picture, the --html page, the --output annotated graph and the --encodings JSON.
#pragma once

#include "CliOptions.h"
#include "qnnrules/pipeline/RunReport.h"

namespace qnnvalidate {

// Prints a failed Status to stderr ("qnn-validate: error: ...") after its diagnostics, and what
// to do next when the stage says it (a graph path that is not found, rule files that do not
// load); exit 2.
int reportError(const qnnrules::Status& status, const qnnrules::DiagnosticList& errors,
                qnnrules::RunStage stage = qnnrules::RunStage::kNone);

// Out of memory, whichever allocator is linked (glibc's, or mimalloc, which calls abort()
// when no new-handler is set): "qnn-validate: error: out of memory ..." on stderr and exit 2
// instead of std::bad_alloc escaping or an abort (exit 134) with no message. Installed first
// thing in main.
void installOutOfMemoryHandler();

// Writes the files asked for; kExitValid, or the exit code when one could not be written or
// the run failed (then nothing is written).
int writeOutputFiles(const CliOptions& o, const qnnrules::RunReport& report);

}  // namespace qnnvalidate
