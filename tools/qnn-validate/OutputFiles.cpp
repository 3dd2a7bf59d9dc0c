#include "OutputFiles.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <cstdio>
#include <iostream>
#include <new>

#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/core/TerminalText.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/core/OutputFile.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/DotWriter.h"

namespace qnnvalidate {

int reportError(const qnnrules::Status& status, const qnnrules::DiagnosticList& errors, qnnrules::RunStage stage) {
  for (const qnnrules::Diagnostic& d : errors) std::cerr << qnnrules::formatText(d);
  // The message names the input (paths, node names): escaped like every diagnostic.
  std::cerr << "qnn-validate: error: " << qnnrules::escapeControls(status.message());
  if (!status.fragment().empty() && status.message().find(status.fragment()) == std::string::npos)
    std::cerr << " (" << qnnrules::escapeControls(status.fragment()) << ")";
  // What to do next, where the message cannot know it (it does not know the command line).
  if (stage == qnnrules::RunStage::kGraph && status.code() == qnnrules::StatusCode::kNotFound)
    std::cerr << "; check the path: GRAPH is a .pt2 archive, an ONNX model or a JSON graph";
  else if (stage == qnnrules::RunStage::kRules && !errors.empty())
    std::cerr << "; fix the rule files above (`qnn-rules lint` checks them all)";
  std::cerr << "\n";
  return kExitBadInput;
}

namespace {

// Only async-signal-safe calls: the heap is exhausted, so nothing here may allocate.
[[noreturn]] void onOutOfMemory() {
  static constexpr char kMessage[] =
      "\nqnn-validate: error: out of memory: the input needs more memory than this process may use (see the "
      "reader limits in docs/inputs.md)\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(kExitBadInput);
}

// mimalloc's error callback (mi_register_error). Its operator new never reaches the C++
// new-handler from a shared libmimalloc (it finds its own weak get_new_handler, which says
// none, and aborts), but it reports every failed allocation here first, as ENOMEM.
void onAllocatorError(int err, void* /*arg*/) {
  if (err == ENOMEM || err == EOVERFLOW) onOutOfMemory();
  if (err == EFAULT) std::abort();  // a corrupted heap: mimalloc's own default in secure builds
}

}  // namespace

void installOutOfMemoryHandler() {
  std::set_new_handler(&onOutOfMemory);
  // Looked up, not linked: qnn-validate runs with or without mimalloc (QNNRULES_MIMALLOC).
  using RegisterError = void (*)(void (*)(int, void*), void*);
  if (void* f = ::dlsym(RTLD_DEFAULT, "mi_register_error"))
    reinterpret_cast<RegisterError>(f)(&onAllocatorError, nullptr);
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
    qnnrules::Status st = qnnrules::saveOutputFile(o.encodings, qnnrules::formatRunEncodings(r));
    if (!st.isOk()) return reportError(st, {});
  }
  return kExitValid;
}

}  // namespace

int writeOutputFiles(const CliOptions& o, const qnnrules::RunReport& r) {
  // An output may be this process's own stdout (--output /dev/stdout): the report goes first.
  std::cout.flush();
  std::fflush(stdout);
  if (!o.dot.empty()) {
    qnnrules::Status st = qnnrules::saveOutputFile(o.dot, qnnrules::formatRunDot(r));
    if (!st.isOk()) return reportError(st, {});
  }
  if (!o.html.empty()) {
    qnnrules::Status st = qnnrules::saveOutputFile(o.html, qnnrules::formatRunHtml(r));
    if (!st.isOk()) return reportError(st, {});
  }
  return writeGraphAndEncodings(o, r);
}

}  // namespace qnnvalidate
