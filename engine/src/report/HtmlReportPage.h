// The HTML report's page (report/HtmlReport.h): markup and style before the embedded JSON
// report, the script that draws it after. Kept apart from the C++ that assembles it so the
// page reads as one document. Everything is drawn with textContent (never innerHTML), so
// names from a graph cannot inject markup.
#pragma once

#include <string_view>

namespace qnnrules::html_page {

inline constexpr std::string_view kBeforeData = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>qnn-validate report</title>
<style>
  :root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #57606a; --line: #d0d7de; --bg2: #f6f8fa; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px; color: #1f2328; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
  .verdict { display: inline-block; font-weight: 700; font-size: 22px; padding: 6px 14px; border-radius: 6px; color: #fff; margin: 8px 0; }
  .verdict.valid { background: var(--ok); } .verdict.valid-with-cpu-fallback { background: var(--warn); } .verdict.invalid { background: var(--bad); }
  .facts { color: var(--muted); } .facts b { color: #1f2328; font-weight: 600; }
  .stats { display: flex; gap: 12px; flex-wrap: wrap; margin: 8px 0; }
  .stat { background: var(--bg2); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 96px; }
  .stat .n { font-size: 20px; font-weight: 700; } .stat .l { color: var(--muted); font-size: 12px; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { background: var(--bg2); cursor: pointer; user-select: none; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  tr.has-cpu td:first-child { border-left: 3px solid var(--bad); }
  input[type=search] { width: 100%; max-width: 420px; padding: 5px 8px; margin: 4px 0 8px; border: 1px solid var(--line); border-radius: 6px; }
  details { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
  details details { border-style: dashed; } summary { cursor: pointer; font-weight: 600; }
  .code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
  .sev-error { color: var(--bad); } .sev-warning { color: var(--warn); } .sev-note { color: var(--muted); }
  .diag { border-top: 1px solid var(--bg2); padding: 4px 0; } .diag .kv { color: var(--muted); margin-left: 16px; }
  .hint { color: var(--ok); } .more { margin: 6px 0; }
  #picture svg { width: 100%; height: 56px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg2); }
  .legend span { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin: 0 4px 0 12px; vertical-align: middle; }
  .muted { color: var(--muted); }
</style>
</head>
<body>
<header id="summary"><h1>qnn-validate report</h1></header>
<section><h2>Partitions</h2><div id="picture"></div><div id="legend" class="legend"></div></section>
<section><h2>Ops</h2><input type="search" id="op-filter" placeholder="filter ops"><table id="ops"></table></section>
<section><h2>Diagnostics</h2><input type="search" id="diag-filter" placeholder="filter by node, op, code, rule or text"><div id="diagnostics"></div></section>
<section><h2>On CPU</h2><div id="fallbacks"></div></section>
<section><h2>Delegated with violations</h2><div id="delegated-violations"></div></section>
<script type="application/json" id="report-data">
)html";

inline constexpr std::string_view kAfterData = R"html(
</script>
<script>
"use strict";
(function () {
  const report = JSON.parse(document.getElementById("report-data").textContent);
  const PAGE = 100;  // items drawn per list before "show more"

  // An ONNX node's own op type first: "onnx::Gemm as aten.linear.default".
  function opText(x) { return x.source_op && x.source_op !== x.op ? x.source_op + " as " + x.op : x.op; }
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  function location(loc) { return loc ? loc.file + ":" + loc.line + (loc.column ? ":" + loc.column : "") : ""; }

  // --- summary ---------------------------------------------------------------------------
  function drawSummary() {
    const h = document.getElementById("summary");
    const verdict = report.verdict || { kind: report.valid ? "valid" : "invalid", text: report.valid ? "VALID" : "INVALID" };
    h.append(el("div", { class: "verdict " + verdict.kind, id: "verdict", text: verdict.text }));
    const arch = report.hardware ? " (" + report.hardware + ")" : "";
    h.append(el("div", { class: "facts" }, el("b", { text: report.graph }), " on ", el("b", { text: report.backend }),
      " for ", el("b", { text: report.soc + arch }), report.soc_defaulted ? " (default SoC)" : "", ", " + report.mode + " mode"));
    const s = report.summary || {}, d = report.delegation || {};
    const stats = el("div", { class: "stats" });
    const stat = (n, l) => stats.append(el("div", { class: "stat" }, el("div", { class: "n", text: n }), el("div", { class: "l", text: l })));
    stat(s.nodes_checked, "op nodes checked");
    stat(d.delegated_compute_nodes, "delegated");
    stat(d.cpu_compute_nodes, "on CPU");
    stat(d.partition_count, "partitions");
    stat(s.errors, "errors");
    stat(s.warnings, "warnings");
    h.append(stats);
    const rules = report.rules || {};
    h.append(el("div", { class: "facts" }, (report.tool || "qnn-validate") + " " + (report.version || ""),
      rules.digest ? " · rules " + rules.digest + " (" + rules.files + " files)" : ""));
  }

  // --- partition picture: one bar, a block per run of compute nodes -----------------------
  function drawPicture() {
    const runs = report.placement_runs || [];
    const box = document.getElementById("picture");
    const total = runs.reduce((a, r) => a + r.compute_nodes, 0);
    if (!total) { box.append(el("p", { class: "muted", text: "no compute nodes" })); return; }
    const W = 1000, H = 40;
    const pic = svg("svg", { viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", role: "img" });
    let x = 0;
    for (const r of runs) {
      // A single CPU node of 30,000 must still show: CPU blocks are at least 2 units wide.
      const w = Math.max(r.compute_nodes / total * W, r.on === "cpu" ? 2 : 0.6);
      const fill = r.on === "cpu" ? "#cf222e" : (r.partition % 2 ? "#2da44e" : "#116329");
      const rect = svg("rect", { x: x.toFixed(2), y: 4, width: w.toFixed(2), height: H - 8, fill: fill });
      const what = r.on === "cpu" ? "on CPU" : "partition " + r.partition;
      rect.append(svg("title"));
      rect.firstChild.textContent = what + ": " + r.compute_nodes + " compute node(s), " + r.first + " .. " + r.last;
      pic.append(rect);
      x += r.compute_nodes / total * W;
    }
    box.append(pic);
    const lg = document.getElementById("legend");
    lg.append(el("span", { style: "background:#116329" }), "delegated (partitions alternate shades)",
      el("span", { style: "background:#cf222e" }), "on CPU",
      el("span", { style: "background:transparent" }), runs.length + " run(s) in graph order; hover a block for its nodes");
  }

  // --- ops table: sortable, filterable ---------------------------------------------------
  function drawOps() {
    const table = document.getElementById("ops");
    const cols = [["op", "op", false], ["nodes", "nodes", true], ["delegated", "delegated", true],
                  ["on_cpu", "on CPU", true], ["diagnostics", "diagnostics", true]];
    let sortKey = "nodes", desc = true, filter = "";
    function render() {
      table.textContent = "";
      const head = el("tr");
      for (const [key, label, num] of cols) {
        const th = el("th", { class: num ? "num" : "", text: label + (key === sortKey ? (desc ? " ▾" : " ▴") : "") });
        th.addEventListener("click", () => { desc = key === sortKey ? !desc : num; sortKey = key; render(); });
        head.append(th);
      }
      table.append(el("thead", {}, head));
      const body = el("tbody");
      const rows = (report.ops || []).filter(r => (r.op + " " + (r.rule_targets || "")).toLowerCase().includes(filter));
      rows.sort((a, b) => (a[sortKey] < b[sortKey] ? -1 : a[sortKey] > b[sortKey] ? 1 : 0) * (desc ? -1 : 1));
      for (const r of rows)
        body.append(el("tr", { class: r.on_cpu ? "has-cpu" : "" }, el("td", { class: "code", text: r.op + (r.rule_targets ? " as " + r.rule_targets : "") }),
          el("td", { class: "num", text: r.nodes }), el("td", { class: "num", text: r.delegated }),
          el("td", { class: "num", text: r.on_cpu }), el("td", { class: "num", text: r.diagnostics })));
      table.append(body);
    }
    document.getElementById("op-filter").addEventListener("input", e => { filter = e.target.value.toLowerCase(); render(); });
    render();
  }

  // A list drawn PAGE items at a time.
  function paged(items, draw) {
    const box = el("div");
    let shown = 0;
    const more = el("button", { class: "more" });
    function step() {
      for (const it of items.slice(shown, shown + PAGE)) box.insertBefore(draw(it), more);
      shown = Math.min(items.length, shown + PAGE);
      more.textContent = "show " + Math.min(PAGE, items.length - shown) + " more of " + (items.length - shown);
      more.hidden = shown >= items.length;
    }
    more.addEventListener("click", step);
    box.append(more);
    step();
    return box;
  }

  // --- diagnostics: by code, then by op, with the distinct hints of each group -------------
  function drawDiagnostic(d) {
    const head = el("div", {}, el("span", { class: "sev-" + d.severity, text: d.severity }), " ",
      d.node ? el("span", { class: "code", text: d.node }) : null, d.port ? " port " + d.port : "", d.node ? ": " : "", d.message);
    const box = el("div", { class: "diag" }, head);
    const kv = (k, v, cls) => { if (v) box.append(el("div", { class: "kv " + (cls || "") }, k + ": ", el("span", { class: "code", text: v }))); };
    kv("rule", [d.rule, d.variant].filter(Boolean).join(", variant ") + (d.location ? "  (" + location(d.location) + ")" : ""));
    kv("expected", d.expected); kv("actual", d.actual); kv("hint", d.hint, "hint");
    return box;
  }
  function drawDiagnostics() {
    const box = document.getElementById("diagnostics");
    const all = report.diagnostics || [];
    let filter = "", timer = 0;
    function render() {
      box.textContent = "";
      const items = filter ? all.filter(d => [d.node, d.op, d.source_op, d.code, d.rule, d.message, d.port].join(" ").toLowerCase().includes(filter)) : all;
      if (!items.length) { box.append(el("p", { class: "muted", text: all.length ? "no diagnostic matches" : "no diagnostics" })); return; }
      const byCode = new Map();
      for (const d of items) {
        if (!byCode.has(d.code)) byCode.set(d.code, new Map());
        const byOp = byCode.get(d.code), op = opText(d) || "(no op)";
        if (!byOp.has(op)) byOp.set(op, []);
        byOp.get(op).push(d);
      }
      for (const [code, byOp] of byCode) {
        const n = [...byOp.values()].reduce((a, l) => a + l.length, 0);
        const sev = [...byOp.values()][0][0].severity;
        const group = el("details", { "data-code": code }, el("summary", {}, el("span", { class: "code sev-" + sev, text: code }),
          " — " + n + " diagnostic(s) in " + byOp.size + " op(s)"));
        group.open = !!filter || byCode.size <= 3;
        for (const [op, list] of byOp) {
          const hints = [...new Set(list.map(d => d.hint).filter(Boolean))];
          const sub = el("details", {}, el("summary", {}, el("span", { class: "code", text: op }), " — " + list.length));
          sub.open = !!filter || list.length <= 5;
          for (const h of hints.slice(0, 5)) sub.append(el("div", { class: "hint" }, "hint: " + h));
          sub.append(paged(list, drawDiagnostic));
          group.append(sub);
        }
        box.append(group);
      }
    }
    document.getElementById("diag-filter").addEventListener("input", e => {
      clearTimeout(timer);
      timer = setTimeout(() => { filter = e.target.value.trim().toLowerCase(); render(); }, 150);
    });
    render();
  }

  // --- compute nodes on CPU ----------------------------------------------------------------
  function drawFallbacks() {
    const box = document.getElementById("fallbacks");
    const list = (report.delegation || {}).fallbacks || [];
    if (!list.length) { box.append(el("p", { class: "muted", text: "no compute node falls back to CPU" })); return; }
    const table = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "node" }), el("th", { text: "op" }),
      el("th", { text: "reason" }), el("th", { text: "why" }))));
    const body = el("tbody");
    for (const f of list.slice(0, 1000))
      body.append(el("tr", {}, el("td", { class: "code", text: f.node }), el("td", { class: "code", text: opText(f) }),
        el("td", { text: f.reason }), el("td", { text: f.message + (f.hint ? " — hint: " + f.hint : "") })));
    table.append(body);
    box.append(table);
    if (list.length > 1000) box.append(el("p", { class: "muted", text: (list.length - 1000) + " more in the JSON report" }));
  }

  // --- warn mode: delegated compute nodes that violate their rules ---------------------------
  function drawDelegatedViolations() {
    const box = document.getElementById("delegated-violations");
    const list = report.delegated_with_violations || [];
    if (!list.length) { box.append(el("p", { class: "muted", text: "no delegated node violates its rule" })); return; }
    box.append(el("p", { text: list.length + " delegated node(s) violate their rules (warn mode): the backend may reject them when the graph is lowered" }));
    const table = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "node" }), el("th", { text: "op" }),
      el("th", { text: "partition" }), el("th", { text: "codes" }))));
    const body = el("tbody");
    for (const d of list.slice(0, 1000))
      body.append(el("tr", {}, el("td", { class: "code", text: d.node }), el("td", { class: "code", text: opText(d) }),
        el("td", { text: String(d.partition) }), el("td", { class: "code", text: d.codes.join(", ") })));
    table.append(body);
    box.append(table);
    if (list.length > 1000) box.append(el("p", { class: "muted", text: (list.length - 1000) + " more in the JSON report" }));
  }

  drawSummary();
  drawPicture();
  drawOps();
  drawDiagnostics();
  drawFallbacks();
  drawDelegatedViolations();
  document.body.dataset.rendered = "ok";
})();
</script>
</body>
</html>
)html";

}  // namespace qnnrules::html_page
