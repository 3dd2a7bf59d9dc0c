// Calibrated encodings for lowering: from the min/max statistics stored in an annotated graph,
// compute scales and zero points the way the quantizer's observers do (affine / symmetric,
// per-channel, eps floor, LPBQ block scales), honouring fixed qparams, shared groups (a concat
// group takes the union range) and derived conv biases, and write them in QNN convention
// (offset = -zero_point). Each encoding is computed once per shared group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/QnnTypes.h"

namespace qnnrules {

// Named by reference only: the result is what a run report carries (pipeline/RunReport.h).
class Graph;
class GraphFacts;
class RuleSet;

struct TensorEncoding {
  std::string tensor;            // "conv" (output 0), "split:1", a weight "w", or "x->conv" for an edge
  QnnDatatype datatype = QnnDatatype::kUFixed8;
  int bitwidth = 8;
  Encoding encoding = Encoding::kScaleOffset;
  int axis = -1;                 // per-channel axis
  std::vector<double> scales;    // one, or one per channel
  std::vector<int64_t> offsets;  // QNN offsets (= -zero_point), parallel to scales
  std::string source;            // "observed", "fixed", "derived bias", "shared group of 3"
  // BLOCKWISE_EXPANSION (LPBQ)
  std::vector<int64_t> blockSize;
  int blockScaleBitwidth = 0;             // 4
  std::vector<std::vector<uint8_t>> blockScales;  // per channel, per block: 1..16
};

struct EncodeOptions {
  double eps8 = 0.0001 / 255;    // scale floor for <= 8-bit encodings (DEFAULT_EPS_8BIT)
  double eps16 = 0.0001 / 65535; // and for wider ones (DEFAULT_EPS_16BIT)
  double blockEps = 1.1920928955078125e-07;  // LPBQ block scales: float32 eps, as torchao
  int blockSteps = 16;           // LPBQ: channel scale = largest block scale / 16
};

struct EncodingsResult {
  std::vector<TensorEncoding> tensors;
  DiagnosticList diagnostics;    // tensors without statistics (kNoStatistics)
  size_t computed = 0;           // distinct encodings computed (shared groups count once)
};

EncodingsResult computeEncodings(const Graph& graph, const RuleSet& rules, const EncodeOptions& options = {});
// The same over the run's facts (rules per target, shared roots), built once by the engine.
EncodingsResult computeEncodings(const GraphFacts& facts, const EncodeOptions& options = {});

// {"version": 1, "graph": ..., "tensors": {name: {dtype, bitwidth, encoding, scale, offset, ...}}}
std::string encodingsToJson(const EncodingsResult& result, const std::string& graphName,
                            const std::string& config = {}, bool qat = false);

}  // namespace qnnrules
