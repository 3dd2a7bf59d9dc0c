// A compatibility matrix (issue 26): one graph judged on many SoCs x many quantization configs in
// one run. The graph is read once, annotated once per config, and validated and partitioned
// once per config and distinct hardware: SoCs whose backend-gating hardware is the same (the
// manifest's column: HTP V75, an LPAI version, none for GPU) get the same verdict from the
// same rules, so they share one validation.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {

struct MatrixOptions {
  std::vector<std::string> socs;     // SoC names; empty or {"all"}: every SoC of the table
  std::vector<std::string> configs;  // config selections; empty or {"all"}: every config's default selection
  // Called after each validation with (done, total, "SM8650 x 16a8w"): a front end shows it
  // (qnn-validate on a terminal's stderr, report/ProgressLine.h). Empty: nothing is called.
  std::function<void(size_t, size_t, std::string_view)> progress;
};

struct MatrixCell {
  std::string soc;
  std::string config;
  std::string hardware;      // "HTP V75"
  Verdict verdict;
  size_t errors = 0, warnings = 0;
  size_t computeNodes = 0, cpuNodes = 0;
  DiagnosticList diagnostics;  // the cell's diagnostics, mode applied
  // Why a backend that needs the whole graph in one partition (LPAI) does not get it; such a
  // cell is INVALID even with no error diagnostic.
  std::vector<std::string> fullDelegationProblems;
  bool shared = false;       // judged by another SoC's validation with the same hardware
  std::string judgedOn;      // the SoC whose validation this cell shares (itself when not shared)
};

struct CompatibilityMatrix {
  Status status;                      // not ok: an engine did not open, a bad config, an unreadable graph
  DiagnosticList errors;              // the file:line:column errors behind `status`
  std::string graph;                  // the graph's label
  std::string backend;
  Mode mode = Mode::kStrict;          // the run's mode: a strict cell with errors is INVALID
  std::vector<std::string> socs, configs;
  std::vector<MatrixCell> cells;      // row-major: socs x configs
  size_t validations = 0;             // validate + partition runs made (cells share by hardware)

  bool ok() const { return status.isOk(); }
  const MatrixCell& at(size_t soc, size_t config) const { return cells[soc * configs.size() + config]; }
  std::string text() const;  // one row per SoC, one column per config
  // {"tool", "version", "kind": "compatibility-matrix", "graph", "backend", "mode", "socs",
  // "configs", "validations", "cells": [...]} (docs/schemas/matrix.schema.json); a shared cell
  // has "diagnostics_of": the SoC whose cell holds its diagnostics.
  std::string json() const;
  // The matrix as one self-contained HTML page (report/MatrixHtml.h): the table, each cell
  // linking to its diagnostics.
  std::string html() const;
};

// `base` says the backend, mode, rule directories and options; its SoC is ignored.
CompatibilityMatrix compatibilityMatrix(const EngineOptions& base, const Graph& graph, const MatrixOptions& options);

}  // namespace qnnrules
