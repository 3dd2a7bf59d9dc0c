#include "qnnrules/Matrix.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "qnnrules/core/JsonWriter.h"
#include "qnnrules/core/TerminalText.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/report/MatrixHtml.h"

namespace qnnrules {

// Every validation's diagnostics as the JSON array the matrix document holds, written to an
// unnamed temporary file as each validation ends and read back one cell at a time by
// writeJson: a matrix of 48 validations of a 10k-node graph holds 1 GB of diagnostics.
class MatrixSpool {
 public:
  MatrixSpool() : file_(std::tmpfile()) {}
  ~MatrixSpool() {
    if (file_) std::fclose(file_);
  }
  MatrixSpool(const MatrixSpool&) = delete;
  MatrixSpool& operator=(const MatrixSpool&) = delete;

  bool ok() const { return file_ != nullptr; }

  // Appends `text`; false (errno set) when the file cannot take it.
  bool append(std::string_view text, uint64_t& offset) {
    offset = size_;
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::pwrite(::fileno(file_), text.data() + done, text.size() - done,
                                 static_cast<off_t>(size_ + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    size_ += text.size();
    return true;
  }

  bool read(uint64_t offset, uint64_t bytes, std::string& out) const {
    out.resize(bytes);
    for (size_t done = 0; done < bytes;) {
      const ssize_t n = ::pread(::fileno(file_), out.data() + done, bytes - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

 private:
  std::FILE* file_;
  uint64_t size_ = 0;
};

namespace {

// A cell's diagnostics as the document holds them: at the depth of a cell's fields.
constexpr int kCellDiagnosticsLevel = 3;

// Keeps the first kMatrixKeptPerCode of each code of `all` in the cell and counts every code.
void keepDiagnostics(MatrixCell& cell, const DiagnosticList& all) {
  cell.diagnosticCount += all.size();
  for (const Diagnostic& d : all) {
    const std::string_view code = diagCodeName(d.code);
    auto it = std::find_if(cell.codeCounts.begin(), cell.codeCounts.end(),
                           [&](const DiagnosticCodeCount& c) { return c.code == code; });
    if (it == cell.codeCounts.end()) it = cell.codeCounts.insert(it, DiagnosticCodeCount{std::string(code), 0});
    if (++it->count <= kMatrixKeptPerCode) cell.diagnostics.push_back(d);
  }
}

bool isAll(const std::vector<std::string>& v) { return v.empty() || (v.size() == 1 && v[0] == "all"); }

// The matrix stops with `st` and the errors that say why. False, for the steps of
// compatibilityMatrix to return.
bool stop(CompatibilityMatrix& m, const Status& st, const DiagnosticList& errors = {}) {
  m.status = st;
  m.errors = errors;
  return false;
}

std::string verdictText(const MatrixCell& c) {
  switch (c.verdict.kind) {
    case VerdictKind::kValid: return "valid";
    case VerdictKind::kValidWithCpuFallback: return fmt::format("cpu {}%", c.verdict.cpuPercent);
    case VerdictKind::kInvalid:
      return fmt::format("INVALID {}{}", c.errors, c.fullDelegationProblems.empty() ? "" : " + whole");
    case VerdictKind::kSessionFailure: return "SESSION FAILS";
  }
  return "";
}

// The verdict and the cell's compute nodes on CPU of all, for every verdict (as the HTML page
// shows them): an INVALID cell names no share, yet the nodes its errors concern would not run.
std::string cellText(const MatrixCell& c) { return fmt::format("{} ({}/{})", verdictText(c), c.cpuNodes, c.computeNodes); }

}  // namespace

namespace {

// The SoCs: named, or every one of the table the backend runs on (its manifest's hardware
// column: all of them for HTP, those with an LPAI for lpai), read through a first engine.
bool selectSocs(const EngineOptions& base, const std::vector<std::string>& named, CompatibilityMatrix& m) {
  if (!isAll(named)) {
    m.socs = named;
    return true;
  }
  // The probe opens on the default SoC, which the backend need not run on: only its rules
  // and the SoC table are read from it.
  EngineOptions first = base;
  first.soc.clear();
  Engine probe(first);
  const RuleRegistry::SocLoad& socs = probe.registry().socs();
  if (!socs.status.isOk()) return stop(m, socs.status, socs.errors);
  const std::string& backend = probe.options().backend;
  // No backend (the default could not be chosen) or its rules do not load: the probe says why.
  const BackendLoad* load = backend.empty() ? nullptr : &probe.registry().backend(backend);
  if (!load || !load->status.isOk()) {
    if (load && probe.ok()) return stop(m, load->status, load->errors);
    return stop(m, probe.status(), probe.loadErrors());
  }
  for (const SocInfo& s : socs.table->all())
    if (checkSocRequirement(load->manifest.get(), backend, s, *socs.table).isOk()) m.socs.push_back(s.name);
  return true;
}

// One engine per SoC, all sharing one registry: the rules are loaded once (Engine::withSoc).
bool openEngines(const EngineOptions& base, CompatibilityMatrix& m, std::vector<std::unique_ptr<Engine>>& engines) {
  std::optional<Engine> opened;
  for (const std::string& soc : m.socs) {
    if (!opened) {
      EngineOptions o = base;
      o.soc = soc;
      opened.emplace(std::move(o));
      if (m.backend.empty()) m.backend = opened->options().backend;  // none named: the rules' default
    }
    engines.push_back(std::make_unique<Engine>(opened->withSoc(soc)));
    if (!engines.back()->ok()) return stop(m, engines.back()->status(), engines.back()->loadErrors());
  }
  if (engines.empty()) return stop(m, Status(StatusCode::kInvalidArgument, "no SoC to judge on"));
  return true;
}

// The configs: named, or each config's default selection.
bool selectConfigs(const Engine& engine, const std::vector<std::string>& named, CompatibilityMatrix& m) {
  if (!isAll(named)) {
    m.configs = named;
    return true;
  }
  const QuantConfigTable* table = engine.quantConfigs();
  if (!table) return stop(m, Status(StatusCode::kRuleError, "the quantization configs could not be loaded"));
  for (const QuantConfig& c : table->all()) m.configs.push_back(c.name);
  return true;
}

// Engines by hardware: the first SoC of each hardware judges for the others.
struct HardwareJudges {
  std::vector<size_t> judgeOf;        // by SoC: the SoC whose validation it shares (itself for a judge)
  std::vector<std::string> hardware;  // by SoC
  size_t judges = 0;                  // validations per config
};

HardwareJudges groupByHardware(const std::vector<std::unique_ptr<Engine>>& engines) {
  HardwareJudges g;
  g.judgeOf.resize(engines.size());
  g.hardware.resize(engines.size());
  std::map<std::string, size_t> firstWith;
  for (size_t s = 0; s < engines.size(); ++s) {
    const Engine& e = *engines[s];
    g.hardware[s] = hardwareText(e.rules().manifest(), e.soc());
    g.judgeOf[s] = firstWith.try_emplace(g.hardware[s], s).first->second;
  }
  g.judges = firstWith.size();
  return g;
}

// With every diagnostic kept: the temporary file that holds them (m.spool), or false.
bool openSpool(CompatibilityMatrix& m, std::shared_ptr<MatrixSpool>& spool) {
  spool = std::make_shared<MatrixSpool>();
  if (!spool->ok())
    return stop(m, Status(StatusCode::kIoError,
                          fmt::format("cannot create a temporary file for the matrix's diagnostics "
                                      "({}); set TMPDIR to a writable directory",
                                      std::strerror(errno))));
  m.spool = spool;
  return true;
}

// A judge's cell from its annotation and validation. Only what the cell prints stays (counts,
// the first few of each code); the rest goes to the spool, when kept at all (non-null).
Status fillJudgedCell(MatrixCell& cell, const AnnotateResult& a, RunReport& r, MatrixSpool* spool) {
  keepDiagnostics(cell, a.diagnostics);
  keepDiagnostics(cell, r.validation.diagnostics);
  cell.errors = countSeverity(a.diagnostics, Severity::kError) + countSeverity(r.validation.diagnostics, Severity::kError);
  cell.warnings =
      countSeverity(a.diagnostics, Severity::kWarning) + countSeverity(r.validation.diagnostics, Severity::kWarning);
  if (spool) {
    DiagnosticList all = a.diagnostics;
    all.insert(all.end(), std::make_move_iterator(r.validation.diagnostics.begin()),
               std::make_move_iterator(r.validation.diagnostics.end()));
    const std::string text = formatJsonArray(all, kCellDiagnosticsLevel);
    if (!spool->append(text, cell.spoolOffset))
      return Status(StatusCode::kIoError, fmt::format("cannot keep the matrix's diagnostics in a temporary file "
                                                      "({}); set TMPDIR to a directory with room",
                                                      std::strerror(errno)));
    cell.spoolBytes = text.size();
  }
  cell.verdict = judge(r.failed(), r.delegation);
  cell.computeNodes = r.delegation.computeNodes;
  cell.cpuNodes = r.delegation.computeNodes - r.delegation.delegatedComputeNodes;
  cell.fullDelegationProblems = r.delegation.fullDelegationProblems;  // empty unless required and not met
  return Status();
}

// Config c's cells of the SoCs that share a judge's validation: a copy of the judge's cell.
void shareJudgedCells(CompatibilityMatrix& m, size_t c, const std::vector<size_t>& judgeOf) {
  for (size_t s = 0; s < m.socs.size(); ++s) {
    if (judgeOf[s] == s) continue;
    MatrixCell& cell = m.cells[s * m.configs.size() + c];
    const MatrixCell& judged = m.cells[judgeOf[s] * m.configs.size() + c];
    MatrixCell copy;
    copy.config = judged.config;
    copy.hardware = judged.hardware;
    copy.verdict = judged.verdict;
    copy.errors = judged.errors;
    copy.warnings = judged.warnings;
    copy.computeNodes = judged.computeNodes;
    copy.cpuNodes = judged.cpuNodes;
    copy.fullDelegationProblems = judged.fullDelegationProblems;
    copy.soc = cell.soc;
    copy.shared = true;
    copy.judgedOn = cell.judgedOn;
    cell = std::move(copy);
  }
}

// Config c's column: the graph annotated once (annotation follows the backend's rules, not
// the SoC), then validated by each hardware's judge; the other SoCs share their judge's cell.
bool judgeConfig(const Graph& graph, size_t c, const std::vector<std::unique_ptr<Engine>>& engines,
                 const HardwareJudges& g, const MatrixOptions& options, MatrixSpool* spool, CompatibilityMatrix& m) {
  Graph annotated = graph;
  AnnotateOptions ao;
  ao.config = m.configs[c];
  AnnotateResult a = engines.front()->annotate(annotated, ao);
  if (!a.status.isOk()) return stop(m, a.status, a.loadErrors);
  RunOptions ro;
  for (size_t s = 0; s < m.socs.size(); ++s) {
    MatrixCell& cell = m.cells[s * m.configs.size() + c];
    cell.soc = m.socs[s];
    cell.config = m.configs[c];
    cell.hardware = g.hardware[s];
    cell.judgedOn = m.socs[g.judgeOf[s]];
    if (g.judgeOf[s] != s) continue;  // filled from its judge below
    RunReport r = engines[s]->run(annotated, ro);
    ++m.validations;
    if (options.progress) options.progress(m.validations, g.judges * m.configs.size(), m.socs[s] + " x " + m.configs[c]);
    if (!r.ok()) return stop(m, r.status, r.stageErrors);
    if (Status st = fillJudgedCell(cell, a, r, spool); !st.isOk()) return stop(m, st);
  }
  shareJudgedCells(m, c, g.judgeOf);
  return true;
}

}  // namespace

CompatibilityMatrix compatibilityMatrix(const EngineOptions& base, const Graph& graph, const MatrixOptions& options) {
  CompatibilityMatrix m;
  m.graph = graph.name;
  m.backend = base.backend;
  m.mode = base.mode;
  std::vector<std::unique_ptr<Engine>> engines;
  if (!selectSocs(base, options.socs, m) || !openEngines(base, m, engines) ||
      !selectConfigs(*engines.front(), options.configs, m))
    return m;
  const HardwareJudges judges = groupByHardware(engines);
  m.cells.resize(m.socs.size() * m.configs.size());
  std::shared_ptr<MatrixSpool> spool;
  if (options.allDiagnostics && !openSpool(m, spool)) return m;
  for (size_t c = 0; c < m.configs.size(); ++c)
    if (!judgeConfig(graph, c, engines, judges, options, spool.get(), m)) return m;
  return m;
}

std::string CompatibilityMatrix::text() const {
  if (!ok()) return "error: " + escapeControls(status.message()) + "\n";
  // Names come from the input (the graph's name, SoC and config names): shown escaped.
  std::vector<std::string> socNames, configNames, hardwareNames;
  for (const std::string& s : socs) socNames.push_back(escapeControls(s));
  for (const std::string& c : configs) configNames.push_back(escapeControls(c));
  size_t socWidth = 3, hwWidth = 8;
  for (size_t s = 0; s < socs.size(); ++s) {
    hardwareNames.push_back(escapeControls(at(s, 0).hardware));
    socWidth = std::max(socWidth, socNames[s].size());
    hwWidth = std::max(hwWidth, hardwareNames[s].size());
  }
  std::vector<size_t> width(configs.size());
  for (size_t k = 0; k < configs.size(); ++k) {
    width[k] = configNames[k].size();
    for (size_t s = 0; s < socs.size(); ++s) width[k] = std::max(width[k], cellText(at(s, k)).size());
  }
  std::string out = fmt::format("compatibility matrix of {} on {}: {} SoC(s) x {} config(s), {} validation(s)\n",
                                escapeControls(graph), escapeControls(backend), socs.size(), configs.size(), validations);
  out += fmt::format("{:<{}}  {:<{}}", "SoC", socWidth, "hardware", hwWidth);
  for (size_t k = 0; k < configs.size(); ++k) out += fmt::format("  {:<{}}", configNames[k], width[k]);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
  for (size_t s = 0; s < socs.size(); ++s) {
    out += fmt::format("{:<{}}  {:<{}}", socNames[s], socWidth, hardwareNames[s], hwWidth);
    for (size_t k = 0; k < configs.size(); ++k) out += fmt::format("  {:<{}}", cellText(at(s, k)), width[k]);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  const bool whole = std::any_of(cells.begin(), cells.end(), [](const MatrixCell& c) { return !c.fullDelegationProblems.empty(); });
  out += std::string("cells: valid, cpu N% (valid with N% of compute nodes on CPU), INVALID N (errors") +
         (whole ? "; + whole: the backend needs the whole graph in one partition and does not get it" : "") +
         "), SESSION FAILS; (C/T): C of the T compute nodes on CPU\n";
  return out;
}

namespace {

// The matrix document (docs/schemas/matrix.schema.json) into `sink`. `forPage`: the document
// formatMatrixHtml draws, with the kept diagnostics and each cell's "diagnostic_counts".
void writeMatrixJson(const CompatibilityMatrix& m, const std::function<void(std::string_view)>& sink, bool forPage) {
  std::string out;
  JsonWriter w(out, 2);
  w.drainInto(&sink, 1 << 20);
  w.beginObject();
  // tool and version as the run report has them (docs/schemas/report.schema.json); kind tells
  // a matrix from a report to a reader that takes both.
  w.field("tool", "qnn-validate");
  w.field("version", QNNRULES_VERSION);
  w.field("kind", "compatibility-matrix");
  w.field("graph", m.graph);
  w.field("backend", m.backend);
  w.field("mode", m.mode == Mode::kWarn ? "warn" : "strict");
  w.key("socs");
  w.beginArray();
  for (const std::string& s : m.socs) w.value(s);
  w.endArray();
  w.key("configs");
  w.beginArray();
  for (const std::string& c : m.configs) w.value(c);
  w.endArray();
  w.field("validations", static_cast<uint64_t>(m.validations));
  w.key("cells");
  w.beginArray();
  std::string spooled;
  for (const MatrixCell& c : m.cells) {
    w.beginObject();
    w.field("soc", c.soc);
    w.field("config", c.config);
    w.field("hardware", c.hardware);
    w.field("verdict", verdictKindName(c.verdict.kind));
    w.field("cpu_percent", static_cast<uint64_t>(c.verdict.cpuPercent));
    w.field("errors", static_cast<uint64_t>(c.errors));
    w.field("warnings", static_cast<uint64_t>(c.warnings));
    w.field("compute_nodes", static_cast<uint64_t>(c.computeNodes));
    w.field("cpu_nodes", static_cast<uint64_t>(c.cpuNodes));
    if (!c.fullDelegationProblems.empty()) {
      w.key("full_delegation_problems");
      w.beginArray();
      for (const std::string& p : c.fullDelegationProblems) w.value(p);
      w.endArray();
    }
    // A cell that shares another SoC's validation points at its diagnostics instead of
    // repeating them (a zoo of 20 SoCs has 6 distinct HTP versions).
    if (c.shared) {
      w.field("diagnostics_of", c.judgedOn);
    } else if (!forPage && m.spool && m.spool->read(c.spoolOffset, c.spoolBytes, spooled)) {
      w.key("diagnostics");
      w.rawValue(spooled);
    } else {
      if (forPage) {
        w.key("diagnostic_counts");
        w.beginObject();
        for (const DiagnosticCodeCount& k : c.codeCounts) w.field(k.code, static_cast<uint64_t>(k.count));
        w.endObject();
      }
      w.key("diagnostics");
      writeJsonArray(w, c.diagnostics);
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  out += "\n";
  sink(out);
}

}  // namespace

void CompatibilityMatrix::writeJson(const std::function<void(std::string_view)>& sink) const {
  writeMatrixJson(*this, sink, false);
}

std::string CompatibilityMatrix::json() const {
  std::string out;
  writeJson([&](std::string_view piece) { out += piece; });
  return out;
}

std::string CompatibilityMatrix::html() const {
  std::string page, doc;
  // The kept diagnostics and the counts of each code: the page shows no more of them.
  writeMatrixJson(*this, [&](std::string_view piece) { doc += piece; }, true);
  // The document is one formatMatrixHtml reads; a failure here is a bug of one of them.
  Status st = formatMatrixHtml(doc, page);
  return st.isOk() ? page : "<!DOCTYPE html>\n<title>error</title>\n<p>the matrix could not be drawn</p>\n";
}

}  // namespace qnnrules
