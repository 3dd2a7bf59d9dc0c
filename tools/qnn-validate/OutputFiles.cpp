#include "OutputFiles.h"

#include <iostream>

#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/DotWriter.h"

namespace qnnvalidate {

int reportError(const qnnrules::Status& status, const qnnrules::DiagnosticList& errors, qnnrules::RunStage stage) {
  for (const qnnrules::Diagnostic& d : errors) std::cerr << qnnrules::formatText(d);
  std::cerr << "qnn-validate: error: " << status.message();
  if (!status.fragment().empty() && status.message().find(status.fragment()) == std::string::npos)
    std::cerr << " (" << status.fragment() << ")";
  // What to do next, where the message cannot know it (it does not know the command line).
  if (stage == qnnrules::RunStage::kGraph && status.code() == qnnrules::StatusCode::kNotFound)
    std::cerr << "; check the path: GRAPH is a .pt2 archive, an ONNX model or a JSON graph";
  else if (stage == qnnrules::RunStage::kRules && !errors.empty())
    std::cerr << "; fix the rule files above (`qnn-rules lint` checks them all)";
  std::cerr << "\n";
  return kExitBadInput;
}

namespace {

// The annotated graph (--output) and the encodings (--encodings), only after a run that did
// not fail.
int writeGraphAndEncodings(const CliOptions& o, const qnnrules::RunReport& r) {
  if (o.output.empty() && o.encodings.empty()) return kExitValid;
  if (r.failed()) {
    std::cerr << "qnn-validate: violations found; nothing written\n";
    return kExitViolations;
  }
  const std::string config = r.annotation ? r.annotation->config : "";
  const bool qat = r.annotation && r.annotation->qat;
  if (!o.output.empty()) {
    qnnrules::GraphWriteOptions wo;
    wo.annotatedWith = config;
    wo.qat = qat;
    qnnrules::Status st = qnnrules::writeGraphFile(*r.graph, o.output, wo);
    if (!st.isOk()) return reportError(st, {});
  }
  if (!o.encodings.empty() && r.encodings) {
    for (const qnnrules::Diagnostic& d : r.encodings->diagnostics) std::cerr << qnnrules::formatText(d);
    qnnrules::Status st = qnnrules::writeFileAtomically(o.encodings, qnnrules::formatRunEncodings(r));
    if (!st.isOk()) return reportError(st, {});
  }
  return kExitValid;
}

}  // namespace

int writeOutputFiles(const CliOptions& o, const qnnrules::RunReport& r) {
  if (!o.dot.empty()) {
    qnnrules::Status st = qnnrules::writeFileAtomically(o.dot, qnnrules::formatRunDot(r));
    if (!st.isOk()) return reportError(st, {});
  }
  if (!o.html.empty()) {
    qnnrules::Status st = qnnrules::writeFileAtomically(o.html, qnnrules::formatRunHtml(r));
    if (!st.isOk()) return reportError(st, {});
  }
  return writeGraphAndEncodings(o, r);
}

}  // namespace qnnvalidate
