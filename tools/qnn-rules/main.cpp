// qnn-rules: inspect and check the rule tables.
//
//   qnn-rules lint [--rules DIR]...           load every backend, report every error (exit 1 on any)
//   qnn-rules list [--backend B]              one line per rule (default: the manifest saying `default: true`)
//   qnn-rules explain RULE_ID [--backend B]   description, targets, ports, variants, gates, file:line
//   qnn-rules docs [--out DIR] [--check]      write (or check) DIR/<backend>.md for every backend, and DIR/index.md
#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "qnnrules/core/OutputFile.h"
#include "qnnrules/validate/ConstraintText.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/report/SupportedOpsDoc.h"
#include "qnnrules/core/DiagnosticCodes.h"
#include "qnnrules/core/Suggest.h"
#include "qnnrules/core/TerminalText.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using namespace qnnrules;

constexpr int kExitOk = 0;
constexpr int kExitLintErrors = 1;
constexpr int kExitUsage = 2;

RegistryOptions registryOptions(const std::vector<std::string>& dirs) {
  RegistryOptions o;
  for (const std::string& d : dirs) o.overlayDirs.emplace_back(d);
  return o;
}

int lint(RuleRegistry& reg) {
  size_t errors = 0;
  // A backend that extends another repeats its parent's errors; print each diagnostic once.
  std::set<std::string> printed;
  auto print = [&](const Diagnostic& d) {
    std::string text = formatText(d);
    if (printed.insert(text).second) std::cout << text;
  };
  const auto& socs = reg.socs();
  for (const Diagnostic& d : socs.errors) print(d);
  if (!socs.status.isOk()) {
    std::cout << "socs: " << escapeControls(socs.status.message()) << "\n";
    errors += std::max<size_t>(1, socs.errors.size());
  } else {
    std::cout << "socs: " << socs.table->all().size() << " SoCs OK\n";
  }
  // The other data files qnn-validate reads, through the same registry (RuleRegistry.h).
  const auto& configs = reg.quantConfigs();
  for (const Diagnostic& d : configs.errors) print(d);
  if (configs.status.isOk()) {
    std::cout << "quant_configs: " << configs.table->all().size() << " configs OK\n";
  } else {
    std::cout << "quant_configs: " << escapeControls(configs.status.message()) << "\n";
    errors += std::max<size_t>(1, configs.errors.size());
  }
  const auto& options = reg.backendOptions();
  for (const Diagnostic& d : options.errors) print(d);
  if (options.status.isOk()) {
    size_t n = 0;
    for (const auto& [backend, specs] : options.table->all()) n += specs.size();
    std::cout << "backend_options: " << n << " options OK\n";
  } else {
    std::cout << "backend_options: " << escapeControls(options.status.message()) << "\n";
    errors += std::max<size_t>(1, options.errors.size());
  }
  const auto& lowerings = reg.lowerings();
  for (const Diagnostic& d : lowerings.errors) print(d);
  if (lowerings.status.isOk()) {
    std::cout << "lowering: " << lowerings.table->paths.size() << " paths OK\n";
  } else {
    std::cout << "lowering: " << escapeControls(lowerings.status.message()) << "\n";
    errors += std::max<size_t>(1, lowerings.errors.size());
  }
  // At most one manifest may say `default: true`; none is allowed (then a backend must be named).
  const RuleRegistry::DefaultBackendLoad& chosen = reg.defaultBackend();
  for (const Diagnostic& d : chosen.errors) print(d);
  if (chosen.status.isOk()) {
    std::cout << "default backend: " << chosen.name << "\n";
  } else if (chosen.status.code() == StatusCode::kInvalidArgument) {
    std::cout << "default backend: none (no manifest says `default: true`)\n";
  } else {
    std::cout << "default backend: " << escapeControls(chosen.status.message()) << "\n";
    errors += std::max<size_t>(1, chosen.errors.size());
  }
  std::vector<std::string> backends = reg.availableBackends();
  if (backends.empty()) {
    std::cout << "no backends found in the rules search path\n";
    ++errors;
  }
  for (const std::string& b : backends) {
    const BackendLoad& load = reg.backend(b);
    for (const Diagnostic& d : load.errors) print(d);
    if (load.status.isOk()) {
      size_t inherited = 0;
      for (const Rule& r : load.rules->rules()) inherited += !r.inheritedFrom.empty();
      std::cout << b << ": " << load.rules->rules().size() << " rules OK";
      if (load.manifest && !load.manifest->extends.empty())
        std::cout << " (" << inherited << " inherited from " << load.manifest->extends << ")";
      std::cout << "\n";
    } else {
      std::cout << b << ": " << escapeControls(load.status.message()) << "\n";
      errors += std::max<size_t>(1, load.errors.size());
    }
  }
  return errors == 0 ? kExitOk : kExitLintErrors;
}

const RuleSet* open(RuleRegistry& reg, const std::string& named) {
  std::string backend = named;
  if (backend.empty()) {  // none named: the one whose manifest says `default: true`
    const RuleRegistry::DefaultBackendLoad& chosen = reg.defaultBackend();
    for (const Diagnostic& d : chosen.errors) std::cerr << formatText(d);
    if (!chosen.status.isOk()) {
      std::cerr << "qnn-rules: error: " << escapeControls(chosen.status.message()) << "\n";
      return nullptr;
    }
    backend = chosen.name;
  }
  const BackendLoad& load = reg.backend(backend);
  if (load.status.isOk()) return load.rules.get();
  for (const Diagnostic& d : load.errors) std::cerr << formatText(d);
  std::cerr << "qnn-rules: error: " << escapeControls(load.status.message()) << "\n";
  return nullptr;
}

int list(RuleRegistry& reg, const std::string& backend) {
  const RuleSet* rules = open(reg, backend);
  if (!rules) return kExitUsage;
  for (const Rule& r : rules->rules()) {
    std::cout << r.id << "\t" << (r.qnnOp.empty() ? "-" : r.qnnOp) << "\t";
    for (size_t i = 0; i < r.targets.size(); ++i) std::cout << (i ? "," : "") << r.targets[i];
    std::cout << "\t" << r.mark.toString(false);
    if (!r.inheritedFrom.empty()) std::cout << "\tfrom " << r.inheritedFrom;
    std::cout << "\n";
  }
  return kExitOk;
}

int explain(RuleRegistry& reg, const std::string& backend, const std::string& id) {
  const RuleSet* rules = open(reg, backend);
  if (!rules) return kExitUsage;
  const Rule* r = rules->findById(id);
  if (!r) r = rules->findByTarget(id);  // accept an ATen target too
  if (!r) {
    std::vector<std::string> names;  // rule ids and ATen targets: both are accepted
    for (const Rule& rule : rules->rules()) {
      names.push_back(rule.id);
      names.insert(names.end(), rule.targets.begin(), rule.targets.end());
    }
    const std::string hint = didYouMean(id, names);
    std::cerr << "qnn-rules: error: no rule '" << id << "' in backend " << backend
              << (hint.empty() ? "" : "; " + hint) << " (see `qnn-rules list --backend " << backend << "`)\n";
    return kExitUsage;
  }
  std::cout << r->id << "  (" << r->mark.toString() << ", " << r->origin << ")\n";
  if (!r->inheritedFrom.empty())
    std::cout << "  inherited from " << r->inheritedFrom << " via " << r->via.toString() << "\n";
  for (const std::string& n : r->notes) std::cout << "  note: " << n << "\n";
  std::cout << "  " << r->description << "\n";
  if (r->kind == RuleKind::kUnsupported) std::cout << "  unsupported: " << r->reason << "\n";
  if (r->kind == RuleKind::kStructural) std::cout << "  structural: no QNN op, nothing to check\n";
  if (!r->qnnOp.empty()) std::cout << "  QNN op:  " << r->qnnOp << "\n";
  std::cout << "  pattern: " << patternName(r->pattern) << "\n  targets: ";
  for (size_t i = 0; i < r->targets.size(); ++i) std::cout << (i ? ", " : "") << r->targets[i];
  std::cout << "\n";
  if (!r->ports.empty()) {
    std::cout << "  ports:\n";
    for (const PortDecl& p : r->ports)
      std::cout << "    " << portLabel(p) << (p.optional ? " (optional)" : "") << (p.variadic ? " (variadic)" : "")
                << "\n";
  }
  for (const Variant& v : r->variants) {
    std::cout << "  variant " << v.name << "  (" << v.mark.toString() << ")";
    if (v.gate.gated()) std::cout << "  needs " << hardwareLabel(v.gate.columnName) << " " << v.gate.version << "+";
    else std::cout << "  no gate";
    std::cout << "\n";
    if (!v.description.empty()) std::cout << "    " << v.description << "\n";
    for (size_t p = 0; p < r->ports.size(); ++p)
      std::cout << "    " << r->ports[p].name << ": " << constraintSummary(*r, v.ports[p]) << "\n";
  }
  return kExitOk;
}

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees a
// half-written document.

// Writes `text` to `path`, or in check mode compares; returns false when stale or unwritable.
bool emit(const std::filesystem::path& path, const std::string& text, bool check) {
  if (check) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream current;
    current << in.rdbuf();
    if (in && current.str() == text) return true;
    std::cout << path.string() << " is stale: run `qnn-rules docs` and commit the result\n";
    return false;
  }
  if (Status st = saveOutputFile(path, text); !st.isOk()) {
    std::cerr << "qnn-rules: error: " << st.message() << "\n";
    return false;
  }
  std::cout << "wrote " << path.string() << "\n";
  return true;
}

// Also writes the diagnostic-code reference (core/DiagnosticCodes.h) to `codesFile`.
int docs(RuleRegistry& reg, const std::string& outDir, const std::filesystem::path& codesFile, bool check) {
  const auto& socs = reg.socs();
  if (!socs.status.isOk()) {
    for (const Diagnostic& d : socs.errors) std::cerr << formatText(d);
    std::cerr << "qnn-rules: error: " << escapeControls(socs.status.message()) << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  if (!check) std::filesystem::create_directories(outDir, ec);
  std::vector<DocBackend> backends;
  for (const std::string& b : reg.availableBackends()) {
    const RuleSet* rules = open(reg, b);
    if (!rules) return kExitUsage;
    backends.push_back({rules, reg.backend(b).manifest.get()});
  }
  bool ok = true;
  for (const DocBackend& b : backends) {
    std::string md = supportedOpsMarkdown(b, *socs.table, reg.searchPath().front());
    ok &= emit(std::filesystem::path(outDir) / (b.rules->backend() + ".md"), md, check);
  }
  ok &= emit(std::filesystem::path(outDir) / "index.md", supportedOpsIndexMarkdown(backends, *socs.table), check);
  ok &= emit(codesFile, diagnosticCodesMarkdown(), check);
  if (ok) return kExitOk;
  return check ? kExitLintErrors : kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Inspect and check qnnrules rule tables."};
  app.set_version_flag("--version", "qnn-rules " QNNRULES_VERSION);
  app.require_subcommand(1);
  std::vector<std::string> dirs;
  std::string backend;  // empty: the backend whose manifest says `default: true`
  std::string ruleId;
  app.footer(
      "Exit codes:\n"
      "  0  success\n"
      "  1  lint found rule errors, or docs --check found a stale file\n"
      "  2  usage error: unknown subcommand, flag, backend or rule id; unreadable rules\n"
      "Environment: QNNRULES_PATH (rule overlays), SPDLOG_LEVEL (log level)");
  app.add_option("--rules", dirs, "overlay rules directory (repeatable, one per --rules)")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  app.fallthrough();  // `qnn-rules lint --rules DIR` as well as `qnn-rules --rules DIR lint`
  CLI::App* lintCmd = app.add_subcommand("lint", "load every backend and report every error");
  CLI::App* listCmd = app.add_subcommand("list", "list a backend's rules");
  listCmd->add_option("--backend", backend,
                      "backend (default: the backend whose manifest says `default: true`, htp in the bundled rules)");
  CLI::App* explainCmd = app.add_subcommand("explain", "show one rule in full");
  explainCmd->add_option("rule", ruleId, "rule id (or ATen target)")->required();
  CLI::Option* explainBackend =
      explainCmd->add_option("--backend", backend, "backend (default: the rule id's prefix, else the rules' default backend)");
  std::string outDir = "docs/supported-ops";
  bool check = false;
  CLI::App* docsCmd = app.add_subcommand("docs", "generate the supported-ops reference from the rules");
  docsCmd->add_option("--out", outDir, "output directory")->capture_default_str();
  docsCmd->add_flag("--check", check, "compare instead of writing; exit 1 when stale");
  std::string codesFile;
  docsCmd->add_option("--codes", codesFile,
                      "where the diagnostic-code reference goes (default: docs/diagnostics.md, or OUT/diagnostics.md with --out)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  spdlog::set_level(spdlog::level::warn);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows what the registry reads
  RuleRegistry reg(registryOptions(dirs));
  if (lintCmd->parsed()) return lint(reg);
  if (listCmd->parsed()) return list(reg, backend);
  if (explainCmd->parsed()) {
    // "lpai.conv2d" names its backend; --backend only decides for bare ATen targets.
    if (explainBackend->count() == 0) {
      const std::string prefix = ruleId.substr(0, ruleId.find('.'));
      for (const std::string& b : reg.availableBackends())
        if (b == prefix) backend = b;
    }
    return explain(reg, backend, ruleId);
  }
  if (docsCmd->parsed()) {
    const bool outGiven = docsCmd->get_option("--out")->count() > 0;
    if (codesFile.empty()) codesFile = outGiven ? (std::filesystem::path(outDir) / "diagnostics.md").string() : "docs/diagnostics.md";
    return docs(reg, outDir, codesFile, check);
  }
  return kExitUsage;
}
