#include "qnnrules/report/SupportedOpsDoc.h"

#include <array>
#include <map>
#include <set>

#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

std::string location(const SourceMark& m, const fs::path& base) {
  if (!m.known()) return "";
  std::error_code ec;
  fs::path file = fs::absolute(*m.file, ec).lexically_normal();
  fs::path rel = file.lexically_relative(base);
  std::string s = (rel.empty() || *rel.begin() == "..") ? file.filename().string() : rel.generic_string();
  return s + ":" + std::to_string(m.line);
}

std::string escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// The column the backend's variants are gated on (its manifest's `hardware`), or null when no
// variant carries a gate: then every variant applies wherever the backend runs.
const HardwareColumn* gateColumn(const DocBackend& b, const SocTable& socs) {
  if (!b.manifest || b.manifest->hardware.empty()) return nullptr;
  for (const Rule& r : b.rules->rules())
    for (const Variant& v : r.variants)
      if (v.gate.gated()) return socs.column(b.manifest->hardware);
  return nullptr;
}

std::string gateText(const HardwareGate& g) { return g.gated() ? g.version + "+" : "any"; }

std::string appliesText(const HardwareColumn* column, const Variant& v) {
  return column ? gateText(v.gate) : "all";
}

std::string anchor(const std::string& id) {
  std::string a;
  for (char c : id)
    if (c != '.') a += c;
  return a;
}

std::string targetList(const Rule& r) {
  std::string t;
  for (const std::string& s : r.targets) t += (t.empty() ? "" : ", ") + ("`" + s + "`");
  return t;
}

// "`Conv` (rank 3 or 4)", the rule's ONNX entries; "-" when it names none.
std::string onnxList(const Rule& r) {
  std::string t;
  for (const OnnxMapping& m : r.onnx) {
    std::string d = describeOnnxMapping(m);
    const size_t cond = d.find(" (");
    t += (t.empty() ? "" : ", ") + ("`" + m.opType + "`" + (cond == std::string::npos ? "" : d.substr(cond)));
  }
  return t.empty() ? "-" : t;
}

template <typename Set, typename Name>
std::string setText(Set s, Name name) {
  std::string out;
  s.forEach([&](auto x) { out += (out.empty() ? "" : ", ") + std::string(name(x)); });
  return out;
}

void manifestSection(std::string& md, const DocBackend& b, const SocTable& socs, const HardwareColumn* column,
                     const fs::path& base) {
  const BackendManifest* m = b.manifest;
  if (!m) return;
  md += escape(m->description) + "\n\n";
  md += "- Runs on: " + socScopeText(m, socs) + ".\n";
  if (!m->extends.empty())
    md += "- Extends `" + m->extends + "` (`" + location(m->extendsMark, base) + "`): every " + m->extends +
          " rule is inherited as `" + b.rules->backend() + ".<name>`, narrowed as below; rules written in rules/" +
          b.rules->backend() + "/ replace inherited ones by id.\n";
  if (m->datatypes)
    md += "- Datatypes: " + setText(*m->datatypes, [](QnnDatatype t) { return datatypeName(t); }) + " only.\n";
  if (m->encodings)
    md += "- Encodings: " + setText(*m->encodings, [](Encoding e) { return encodingName(e); }) + " only.\n";
  if (m->symmetric)
    md += "- Every quantized port is symmetric, except ports with fixed or shared quantization parameters.\n";
  if (!column) md += "- No hardware gates: every variant applies on every SoC it runs on.\n";
  if (!m->quantized) md += "- No quantized types: " + escape(m->whyNotQuantized) + "\n";
  if (!m->exclude.empty()) {
    md += "\n### Excluded from " + m->extends + "\n\n| target | why |\n|---|---|\n";
    for (const Exclusion& x : m->exclude)
      for (const std::string& t : x.targets) md += "| `" + t + "` | " + escape(x.why) + " |\n";
  }
  md += "\n";
}

void ruleSection(std::string& md, const HardwareColumn* column, const Rule& r, const fs::path& base) {
  md += "\n## " + r.id + "\n\n" + escape(r.description) + "\n\n";
  md += "- Defined at `" + location(r.mark, base) + "`\n";
  if (!r.inheritedFrom.empty())
    md += "- Inherited from `" + r.inheritedFrom + "` via `" + location(r.via, base) + "`\n";
  for (const std::string& n : r.notes) md += "- " + escape(n) + "\n";
  md += "- ATen targets: " + targetList(r) + "\n";
  if (!r.onnx.empty()) md += "- ONNX ops: " + onnxList(r) + "\n";
  if (r.kind == RuleKind::kStructural) {
    md += "- Structural: no QNN op, nothing to check.\n";
    return;
  }
  if (r.kind == RuleKind::kUnsupported) {
    md += "- Not supported: " + escape(r.reason) + "\n";
    return;
  }
  md += "- QNN op: `" + r.qnnOp + "`; annotation pattern `" + std::string(patternName(r.pattern)) + "`\n";
  if (r.maxRank != 0) md += "- Rank limit: " + escape(rankLimitSentence(r)) + "\n";
  if (r.emptyTensors != EmptyTensors::kUnstated) md += "- Empty tensors: " + escape(emptyTensorSentence(r)) + "\n";
  md += "- Ports: ";
  for (size_t p = 0; p < r.ports.size(); ++p) {
    const PortDecl& d = r.ports[p];
    md += (p ? ", " : "") + portLabel(d) + (d.optional ? " (optional)" : "") + (d.variadic ? " (variadic)" : "");
  }
  md += std::string("\n\n| variant | ") + (column ? hardwareLabel(column->name) : "applies") + " |";
  for (const PortDecl& d : r.ports) md += " " + d.name + " |";
  md += "\n|---|---|";
  for (size_t p = 0; p < r.ports.size(); ++p) md += "---|";
  md += "\n";
  for (const Variant& v : r.variants) {
    md += "| " + v.name + " | " + appliesText(column, v) + " |";
    for (const PortConstraint& c : v.ports) md += " " + escape(constraintSummary(r, c)) + " |";
    md += "\n";
  }
  std::set<std::string> seen;
  std::vector<std::string> ordered;
  auto add = [&](std::string s) {
    if (seen.insert(s).second) ordered.push_back(std::move(s));
  };
  for (const Variant& v : r.variants)
    for (std::string& note : constraintNotes(r, v)) add(std::move(note));
  if (!ordered.empty()) {
    md += "\n";
    for (const std::string& s : ordered) md += "- " + escape(s) + "\n";
  }
}

}  // namespace

std::string supportedOpsMarkdown(const DocBackend& b, const SocTable& socs, const fs::path& rulesRoot) {
  std::error_code ec;
  fs::path base = fs::absolute(rulesRoot, ec).lexically_normal().parent_path();
  const RuleSet& rules = *b.rules;
  const std::string& name = rules.backend();
  std::string md;
  md += "# Supported ops: " + name + "\n\n";
  md += "<!-- Generated by `qnn-rules docs` from rules/" + name + "/. Do not edit by hand. -->\n\n";
  const HardwareColumn* column = gateColumn(b, socs);
  manifestSection(md, b, socs, column, base);
  md += "Every sentence below is the text the validator reports when the constraint fails.\n\n";

  size_t ops = 0, targets = 0;
  std::set<std::string> onnxOps;
  for (const Rule& r : rules.rules()) {
    ops += r.kind == RuleKind::kOp;
    targets += r.targets.size();
    for (const OnnxMapping& m : r.onnx) onnxOps.insert(m.opType);
  }
  md += std::to_string(rules.rules().size()) + " rules (" + std::to_string(ops) + " lowering to QNN ops), " +
        std::to_string(targets) + " ATen targets, " + std::to_string(onnxOps.size()) + " ONNX op types.\n\n";
  md += "| rule | QNN op | ATen targets | ONNX ops | variants |\n|---|---|---|---|---|\n";
  for (const Rule& r : rules.rules()) {
    std::string qnn = r.kind == RuleKind::kOp ? r.qnnOp
                      : r.kind == RuleKind::kStructural ? "(structural)" : "(unsupported)";
    std::string v;
    for (const Variant& var : r.variants)
      v += (v.empty() ? "" : ", ") + var.name + (var.gate.gated() ? " (" + gateText(var.gate) + ")" : "");
    md += "| [" + r.id + "](#" + anchor(r.id) + ") | " + qnn + " | " + targetList(r) + " | " + onnxList(r) + " | " +
          (v.empty() ? "-" : v) +
          " |\n";
  }

  if (column) {
    const std::vector<std::string>& versions = column->versions;
    md += "\n## Variants by " + hardwareLabel(column->name) + " version\n\n| rule |";
    for (const std::string& version : versions) md += " " + version + " |";
    md += "\n|---|";
    for (size_t i = 0; i < versions.size(); ++i) md += "---|";
    md += "\n";
    for (const Rule& r : rules.rules()) {
      if (r.kind != RuleKind::kOp) continue;
      md += "| " + r.id + " |";
      for (size_t level = 1; level <= versions.size(); ++level) {
        size_t n = 0;
        for (const Variant& v : r.variants) n += v.gate.level <= level;
        md += " " + std::to_string(n) + "/" + std::to_string(r.variants.size()) + " |";
      }
      md += "\n";
    }
    md += "\nSoCs by version: ";
    std::map<HardwareLevel, std::vector<std::string>> byLevel;
    for (const SocInfo& s : socs.all())
      if (s.hardware.size() > column->index && s.hardware[column->index].level)
        byLevel[s.hardware[column->index].level].push_back(s.name);
    bool first = true;
    for (const auto& [level, names] : byLevel) {
      md += first ? "" : "; ";
      first = false;
      md += versions[level - 1] + ": ";
      for (size_t i = 0; i < names.size(); ++i) md += (i ? ", " : "") + names[i];
    }
    md += ".\n";
  }

  for (const Rule& r : rules.rules()) ruleSection(md, column, r, base);
  return md;
}

std::string supportedOpsIndexMarkdown(const std::vector<DocBackend>& backends, const SocTable& socs) {
  std::string md = "# Supported ops: all backends\n\n"
                   "<!-- Generated by `qnn-rules docs` from rules/. Do not edit by hand. -->\n\n"
                   "How many variants of each op apply on each hardware version of a backend with gates and on "
                   "each other backend "
                   "(\"n/m\": n of the rule's m variants; \"unsupported\": declared unsupported with a reason; "
                   "\"structural\": graph plumbing; empty: no rule, the node falls back to CPU). Per-backend "
                   "details: ";
  for (size_t i = 0; i < backends.size(); ++i) {
    const std::string& n = backends[i].rules->backend();
    md += (i ? ", " : "") + ("[" + n + "](" + n + ".md)");
  }
  md += ".\n\n| op |";
  struct Column {
    const DocBackend* b;
    HardwareLevel level;  // 0: the backend has no gates, every variant counts
  };
  std::vector<Column> cols;
  for (const DocBackend& b : backends) {
    if (const HardwareColumn* column = gateColumn(b, socs)) {
      for (size_t i = 0; i < column->versions.size(); ++i) {
        cols.push_back({&b, static_cast<HardwareLevel>(i + 1)});
        md += " " + b.rules->backend() + " " + column->versions[i] + " |";
      }
    } else {
      cols.push_back({&b, 0});
      md += " " + b.rules->backend() + " |";
    }
  }
  md += "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) md += "---|";
  md += "\n";
  // Rows by op name: the rule id without its backend prefix.
  std::map<std::string, std::vector<const Rule*>> rows;
  for (size_t c = 0; c < backends.size(); ++c) {
    const std::string prefix = backends[c].rules->backend() + ".";
    for (const Rule& r : backends[c].rules->rules()) {
      std::string op = r.id.compare(0, prefix.size(), prefix) == 0 ? r.id.substr(prefix.size()) : r.id;
      auto& row = rows[op];
      row.resize(backends.size(), nullptr);
      row[c] = &r;
    }
  }
  for (const auto& [op, rulesOf] : rows) {
    md += "| " + op + " |";
    for (const Column& col : cols) {
      const Rule* r = rulesOf[static_cast<size_t>(col.b - backends.data())];
      std::string cell;
      if (r && r->kind == RuleKind::kUnsupported) cell = "unsupported";
      else if (r && r->kind == RuleKind::kStructural) cell = "structural";
      else if (r) {
        size_t n = 0;
        for (const Variant& v : r->variants) n += col.level == 0 || v.gate.level <= col.level;
        cell = std::to_string(n) + "/" + std::to_string(r->variants.size());
      }
      md += " " + cell + " |";
    }
    md += "\n";
  }
  return md;
}

}  // namespace qnnrules
