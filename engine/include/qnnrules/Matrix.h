// A compatibility matrix (issue 26): one graph judged on many SoCs x many quantization configs in
// one run. The graph is read once, annotated once per config, and validated and partitioned
// once per config and distinct hardware: SoCs whose backend-gating hardware is the same (the
// manifest's column: HTP V75, an LPAI version, none for GPU) get the same verdict from the
// same rules, so they share one validation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
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
  // Keep every diagnostic of each validation for json(): they are written to an unnamed
  // temporary file as each validation ends, not held in memory. Off (qnn-validate's text and
  // html formats): json() writes the kept ones, the first kMatrixKeptPerCode of each code.
  bool allDiagnostics = true;
};

// What a matrix holds in memory per validation: this many diagnostics of each code (the HTML
// page shows as many), and how many there are of each code.
constexpr size_t kMatrixKeptPerCode = 50;

struct DiagnosticCodeCount {
  std::string code;  // diagCodeName
  size_t count = 0;
};

class MatrixSpool;  // the diagnostics written aside (Matrix.cpp)

struct MatrixCell {
  std::string soc;
  std::string config;
  std::string hardware;      // "HTP V75"
  Verdict verdict;
  size_t errors = 0, warnings = 0;
  size_t computeNodes = 0, cpuNodes = 0;
  // The cell's first kMatrixKeptPerCode diagnostics of each code, mode applied (all of them
  // when it has fewer); empty in a shared cell, whose diagnostics are its judge's (judgedOn).
  DiagnosticList diagnostics;
  std::vector<DiagnosticCodeCount> codeCounts;  // every code of them, in the order first seen
  size_t diagnosticCount = 0;                   // all of them, kept or not
  uint64_t spoolOffset = 0, spoolBytes = 0;     // where the spool holds all of them (JSON)
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
  std::shared_ptr<const MatrixSpool> spool;  // every diagnostic, with MatrixOptions::allDiagnostics

  bool ok() const { return status.isOk(); }
  const MatrixCell& at(size_t soc, size_t config) const { return cells[soc * configs.size() + config]; }
  std::string text() const;  // one row per SoC, one column per config
  // {"tool", "version", "kind": "compatibility-matrix", "graph", "backend", "mode", "socs",
  // "configs", "validations", "cells": [...]} (docs/schemas/matrix.schema.json); a shared cell
  // has "diagnostics_of": the SoC whose cell holds its diagnostics.
  std::string json() const;
  // The same document handed to `sink` piece by piece (a cell's diagnostics at a time), so
  // that a matrix of a million diagnostics is never held whole.
  void writeJson(const std::function<void(std::string_view)>& sink) const;
  // The matrix as one self-contained HTML page (report/MatrixHtml.h): the table, each cell
  // linking to its diagnostics.
  std::string html() const;
};

// `base` says the backend, mode, rule directories and options; its SoC is ignored.
CompatibilityMatrix compatibilityMatrix(const EngineOptions& base, const Graph& graph, const MatrixOptions& options);

}  // namespace qnnrules
