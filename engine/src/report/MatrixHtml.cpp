#include "qnnrules/report/MatrixHtml.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "qnnrules/core/TerminalText.h"

namespace qnnrules {
namespace {

using json = nlohmann::json;

// A code group shows this many diagnostics; the rest are counted and left to the JSON output
// (a 28-layer decoder's cell has thousands, and 48 such cells would make a page no one opens).
constexpr size_t kShownPerCode = 50;

constexpr std::string_view kHead = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
)html";

// The report page's palette and type (report/HtmlReportPage.h), so the two pages read alike.
constexpr std::string_view kStyle = R"html(<style>
  :root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --fail: #6e2b8f; --muted: #57606a; --line: #d0d7de; --bg2: #f6f8fa; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 16px 24px; color: #1f2328; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
  h3 { font-size: 14px; margin: 16px 0 4px; }
  .facts, .muted { color: var(--muted); } .facts b { color: #1f2328; font-weight: 600; }
  .code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
  table#matrix { border-collapse: separate; border-spacing: 3px; }
  #matrix th { background: var(--bg2); padding: 4px 8px; text-align: left; font-weight: 600; }
  #matrix td.hw { color: var(--muted); padding: 4px 8px; white-space: nowrap; }
  td.cell { padding: 0; border-radius: 4px; }
  td.cell a { display: block; padding: 3px 6px; color: #fff; text-decoration: none; }
  td.cell a:hover, td.cell a:focus { outline: 2px solid #1f2328; }
  td.cell b, td.cell span { display: block; white-space: nowrap; } td.cell span { font-size: 12px; opacity: .92; }
  td.cell.shared a { background-image: linear-gradient(135deg, rgba(255,255,255,.18) 25%, transparent 25%); }
  .valid { background: var(--ok); } .valid-with-cpu-fallback { background: var(--warn); }
  .invalid { background: var(--bad); } .session-failure { background: var(--fail); }
  .badge { color: #fff; border-radius: 4px; padding: 1px 6px; font-size: 12px; }
  .legend .badge { margin-right: 4px; } .legend { margin: 8px 0; }
  section.cell-diags { border-top: 1px solid var(--line); padding: 4px 0 8px; }
  section.cell-diags:target { background: #fff8c5; }
  details { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; } summary { cursor: pointer; font-weight: 600; }
  .sev-error { color: var(--bad); } .sev-warning { color: var(--warn); } .sev-note { color: var(--muted); }
  .diag { border-top: 1px solid var(--bg2); padding: 4px 0; } .diag .kv { color: var(--muted); margin-left: 16px; } .hint { color: var(--ok); }
  .diag .kv .code { white-space: pre-wrap; }
</style>
</head>
<body>
)html";

// HTML-escaped, and control characters from the input (ESC, NUL) shown as escapes ("\x1b"):
// a page holds no raw control character.
void escapeInto(std::string& out, std::string_view text) {
  const std::string s = escapeControlsKeepingLines(text);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

std::string esc(std::string_view s) {
  std::string out;
  escapeInto(out, s);
  return out;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

size_t num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<size_t>() : 0;
}

// The cell's short verdict ("CPU 12%": valid with 12% of compute nodes on CPU); the class
// names are the JSON's verdict names.
std::string label(const json& cell) {
  const std::string verdict = str(cell, "verdict");
  if (verdict == "valid") return "VALID";
  if (verdict == "valid-with-cpu-fallback") return fmt::format("CPU {}%", num(cell, "cpu_percent"));
  if (verdict == "session-failure") return "SESSION FAILS";
  return cell.contains("full_delegation_problems") ? "INVALID + WHOLE" : "INVALID";
}

std::string_view verdictClass(std::string_view verdict) {
  return verdict == "valid" || verdict == "valid-with-cpu-fallback" || verdict == "session-failure" ? verdict
                                                                                                   : "invalid";
}

std::string plural(size_t n, std::string_view one) { return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s"); }

std::string cellSummary(const json& cell) {
  return fmt::format("{}, {}; {} of {} compute nodes on CPU", plural(num(cell, "errors"), "error"),
                     plural(num(cell, "warnings"), "warning"), num(cell, "cpu_nodes"), num(cell, "compute_nodes"));
}

void writeTable(std::string& out, const json& doc, const std::vector<const json*>& cells, size_t configs) {
  out += "<section><h2>Matrix</h2>\n<table id=\"matrix\">\n<thead><tr><th>SoC</th><th>hardware</th>";
  for (const json& c : doc["configs"]) out += "<th class=\"code\">" + esc(c.get<std::string>()) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (size_t s = 0; s * configs < cells.size(); ++s) {
    const json& first = *cells[s * configs];
    out += "<tr><th scope=\"row\">" + esc(str(first, "soc")) + "</th><td class=\"hw\">" + esc(str(first, "hardware")) +
           "</td>";
    for (size_t k = 0; k < configs; ++k) {
      const json& cell = *cells[s * configs + k];
      const std::string verdict = str(cell, "verdict");
      const bool shared = cell.contains("diagnostics_of");
      const std::string holder = shared ? str(cell, "diagnostics_of") : str(cell, "soc");
      std::string title = fmt::format("{} / {}: {}", str(cell, "soc"), str(cell, "config"), cellSummary(cell));
      if (shared) title += "; judged with " + holder + " (same hardware)";
      out += fmt::format(
          "<td class=\"cell {}{}\"><a href=\"#{}\" title=\"{}\"><b>{}</b><span>{}/{} on CPU</span>"
          "<span>{} err &middot; {} warn</span></a></td>",
          verdictClass(verdict), shared ? " shared" : "", matrixCellAnchor(holder, str(cell, "config")), esc(title),
          label(cell), num(cell, "cpu_nodes"), num(cell, "compute_nodes"), num(cell, "errors"), num(cell, "warnings"));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  out += "<p class=\"legend\"><span class=\"badge valid\">VALID</span>every compute node on the backend "
         "<span class=\"badge valid-with-cpu-fallback\">CPU N%</span>valid, N% of the compute nodes on CPU "
         "<span class=\"badge invalid\">INVALID</span>errors "
         "<span class=\"badge session-failure\">SESSION FAILS</span>no session for the graph</p>\n"
         "<p class=\"muted\">Each cell: its verdict, its compute nodes on CPU of all (also where the verdict is "
         "INVALID and names no share), its errors and warnings; it links to its diagnostics. A striped cell shares "
         "the validation of an earlier SoC of the same hardware and links to that SoC's section.</p>\n</section>\n";
}

void writeDiagnostic(std::string& out, const json& d) {
  const std::string severity = str(d, "severity");
  out += "<div class=\"diag\"><span class=\"sev-" + esc(severity) + "\">" + esc(severity) + "</span> ";
  if (const std::string node = str(d, "node"); !node.empty()) {
    out += "<span class=\"code\">" + esc(node) + "</span>";
    if (const std::string op = str(d, "op"); !op.empty()) out += " (<span class=\"code\">" + esc(op) + "</span>)";
    if (const std::string port = str(d, "port"); !port.empty()) out += " port " + esc(port);
    out += ": ";
  }
  escapeInto(out, str(d, "message"));
  auto kv = [&](std::string_view k, const std::string& v, std::string_view cls = "") {
    if (!v.empty()) out += fmt::format("<div class=\"kv{}\">{}: <span class=\"code\">{}</span></div>", cls, k, esc(v));
  };
  std::string rule = str(d, "rule");
  if (const std::string variant = str(d, "variant"); !variant.empty()) rule += ", variant " + variant;
  if (auto loc = d.find("location"); loc != d.end() && loc->is_object())
    rule += fmt::format("  ({}:{}:{})", str(*loc, "file"), num(*loc, "line"), num(*loc, "column"));
  kv("rule", rule);
  kv("expected", str(d, "expected"));
  kv("actual", str(d, "actual"));
  kv("hint", str(d, "hint"), " hint");
  out += "</div>\n";
}

// One section per validation run: the cell that holds the diagnostics, the SoCs sharing it.
void writeCellDiagnostics(std::string& out, const json& cell, const std::vector<std::string>& sharedBy) {
  const std::string verdict = str(cell, "verdict");
  out += fmt::format(
      "<section class=\"cell-diags\" id=\"{}\">\n<h3><span class=\"badge {}\">{}</span> {} &middot; <span "
      "class=\"code\">{}</span> <span class=\"muted\">{}</span></h3>\n<p class=\"facts\">{}",
      matrixCellAnchor(str(cell, "soc"), str(cell, "config")), verdictClass(verdict), label(cell),
      esc(str(cell, "soc")), esc(str(cell, "config")), esc(str(cell, "hardware")), esc(cellSummary(cell)));
  if (!sharedBy.empty()) {
    out += ". The same for ";
    for (size_t i = 0; i < sharedBy.size(); ++i) out += (i ? ", " : "") + esc(sharedBy[i]);
    out += " (same hardware)";
  }
  out += ".</p>\n";
  if (const auto p = cell.find("full_delegation_problems"); p != cell.end() && p->is_array())
    for (const json& problem : *p)
      if (problem.is_string())
        out += "<div class=\"diag\"><span class=\"sev-error\">error</span> <span class=\"code\">full-delegation</span> " +
               esc(problem.get<std::string>()) + "</div>\n";
  const json& diags = cell["diagnostics"];
  if (diags.empty()) out += "<p class=\"muted\">no diagnostics</p>\n";
  // By code, in the order the codes first occur.
  std::vector<std::string> codes;
  std::map<std::string, std::vector<const json*>> byCode;
  for (const json& d : diags) {
    auto& list = byCode[str(d, "code")];
    if (list.empty()) codes.push_back(str(d, "code"));
    list.push_back(&d);
  }
  // A cell's "diagnostic_counts" (the matrix's own page) says how many of each code there are
  // where it holds only the first few.
  const auto counts = cell.find("diagnostic_counts");
  for (const std::string& code : codes) {
    const auto& list = byCode[code];
    size_t total = list.size();
    if (counts != cell.end() && counts->is_object()) total = std::max(total, num(*counts, code.c_str()));
    const std::string severity = str(*list.front(), "severity");
    out += fmt::format("<details data-code=\"{}\"{}><summary><span class=\"code sev-{}\">{}</span> &mdash; {}</summary>\n",
                       esc(code), codes.size() <= 3 ? " open" : "", esc(severity), esc(code),
                       plural(total, "diagnostic"));
    const size_t shown = std::min(list.size(), kShownPerCode);
    for (size_t i = 0; i < shown; ++i) writeDiagnostic(out, *list[i]);
    if (total > shown)
      out += fmt::format("<p class=\"muted\">{} more: see the JSON output (--format json)</p>\n", total - shown);
    out += "</details>\n";
  }
  out += "</section>\n";
}

Status malformed(std::string_view why) {
  return Status(StatusCode::kSchemaError, fmt::format("not a compatibility matrix document: {}", why));
}

}  // namespace

std::string matrixCellAnchor(std::string_view soc, std::string_view config) {
  std::string id = "d-";
  auto put = [&](std::string_view s) {
    for (unsigned char c : s) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
        id += static_cast<char>(c);
      else
        id += fmt::format(".{:02x}", c);
    }
  };
  put(soc);
  id += '-';
  put(config);
  return id;
}

Status formatMatrixHtml(std::string_view matrixJson, std::string& page) {
  page.clear();
  const json doc = json::parse(matrixJson, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array() || !doc.contains("configs") ||
      !doc["configs"].is_array() || !doc.contains("socs") || !doc["socs"].is_array())
    return malformed("no socs, configs and cells");
  const size_t configs = doc["configs"].size(), socs = doc["socs"].size();
  const json& cellList = doc["cells"];
  if (cellList.size() != socs * configs) return malformed("the cells are not socs x configs");
  for (const json& c : doc["configs"])
    if (!c.is_string()) return malformed("a config is not a string");
  std::vector<const json*> cells;
  // (soc, config) of every cell that holds its diagnostics, and who shares each.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> sharers;
  for (const json& cell : cellList) {
    if (!cell.is_object()) return malformed("a cell is not an object");
    cells.push_back(&cell);
    if (cell.contains("diagnostics")) {
      if (!cell["diagnostics"].is_array()) return malformed("a cell's diagnostics are not an array");
      sharers[{str(cell, "soc"), str(cell, "config")}];
    }
  }
  for (const json& cell : cellList) {
    if (cell.contains("diagnostics")) continue;
    auto holder = sharers.find({str(cell, "diagnostics_of"), str(cell, "config")});
    if (holder == sharers.end())
      return malformed(fmt::format("cell {} / {} has no diagnostics and names no cell that holds them",
                                   str(cell, "soc"), str(cell, "config")));
    holder->second.push_back(str(cell, "soc"));
  }
  const std::string graph = str(doc, "graph"), backend = str(doc, "backend");
  page = kHead;
  page += "<title>compatibility matrix of " + esc(graph) + " on " + esc(backend) + "</title>\n";
  page += kStyle;
  page += fmt::format(
      "<header id=\"summary\"><h1>Compatibility matrix</h1>\n<div class=\"facts\"><b>{}</b> on <b>{}</b>, {} mode: {} "
      "x {}, {} (SoCs of the same hardware share one)</div>\n<div class=\"facts\">{} {}</div></header>\n",
      esc(graph), esc(backend), esc(str(doc, "mode")), plural(socs, "SoC"), plural(configs, "config"),
      plural(num(doc, "validations"), "validation"), esc(str(doc, "tool")), esc(str(doc, "version")));
  writeTable(page, doc, cells, configs);
  page += "<section><h2>Diagnostics</h2>\n<p class=\"muted\">One section per validation run, SoC by SoC, config by "
          "config.</p>\n";
  for (const json* cell : cells)
    if (cell->contains("diagnostics")) writeCellDiagnostics(page, *cell, sharers[{str(*cell, "soc"), str(*cell, "config")}]);
  page += "</section>\n</body>\n</html>\n";
  return Status();
}

}  // namespace qnnrules
