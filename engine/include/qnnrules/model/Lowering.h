// A lowering path: the road a graph takes from the user's file to the QNN backend (ONNX
// Runtime's QNN execution provider for ONNX models, ExecuTorch's Qualcomm delegate for
// torch.export programs). The backend judges what the path hands it, not the file: the path
// rewrites some encodings first, and decides what a node the backend refuses becomes (CPU
// fallback, or a failed session). A path is data: rules/lowering/<name>.yaml
// (docs/rule-format.md, "Lowering paths"), read by loadLoweringFile (load/RuleLoader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qnnrules/core/QnnTypes.h"
#include "qnnrules/core/SourceMark.h"
#include "qnnrules/graph/GraphSource.h"

namespace qnnrules {


// One encoding the path changes before the backend sees it. It applies to a node of one of
// `rules` whose ports carry the datatypes in `when` (port name -> datatype); it changes port
// `port`: its datatype (keeping the represented range), symmetry, or fixed scale and offset.
struct LoweringRewrite {
  std::string id;
  std::vector<std::string> rules;                               // rule ids
  // ATen targets (of those rules) a node must be reported as; empty: any. A path may rewrite one
  // form of a rule's op and not another (ORT converts uint16 weights of 2-D and 3-D Conv, not
  // of 1-D Conv, which reaches the same QNN Conv2d rule as aten.conv1d).
  std::vector<std::string> targets;
  std::vector<std::pair<std::string, QnnDatatype>> when;        // port name -> datatype it must carry
  // Input port -> whether it must read a static tensor (a parameter or constant): true, or a
  // computed one: false. A path may lower a node differently by that (ORT: a MatMul whose input 1
  // is a constant becomes FullyConnected, whose 16-bit weight is not converted to 8 bits).
  std::vector<std::pair<std::string, bool>> readsStatic;
  // Ports whose encodings must differ in scale (the first's from any other's): ORT's QNN EP
  // groups DQ -> op -> Q into one quantized op only when the scales agree.
  std::vector<std::string> scalesDiffer;
  bool setFloat = false;                                        // the port is handed to QNN as float32
  // The port is judged with another port's encoding (YAML `set: {encoding_of: input}`): the path
  // lowers the op to one that takes the port's own encoding where the rule's QNN op shares it
  // (ORT: Expand becomes an ElementWiseMultiply by ones, not a Tile).
  std::string setEncodingOf;
  std::string port;                                             // the port rewritten
  std::optional<QnnDatatype> setDatatype;
  bool setSymmetric = false;
  std::optional<double> setScale;
  std::string setScaleText;                                     // as written ("1/65536")
  std::optional<int64_t> setOffset;                             // QNN offset (= -zero_point)
  std::string says;                                             // the sentence reports print
  SourceMark mark;
};

// How many ports one rewrite changed in a run (RunReport::rewrites; passes/LoweringRewrites.h
// applies them).
struct AppliedRewrite {
  const LoweringRewrite* rewrite = nullptr;
  size_t ports = 0;
};

// One condition of a CPU form on an ONNX attribute (YAML `when: {axis: {default: -1, last_axis:
// false}}`): the attribute's value (or `fallback` when the node has none; a node without either
// does not meet the condition) must be one of `in`, none of `notIn`, name (or not) the last axis
// of input 0, and pass (or fail) the named form test (`form`, `notForm`; e.g. einsum_matmul).
struct AttributeTest {
  std::string attribute;
  std::optional<double> fallbackNumber;       // `default` when it is a number
  std::optional<std::string> fallbackString;  // `default` when it is a string
  std::vector<double> inNumbers;
  std::vector<std::string> inStrings;
  std::vector<double> notInNumbers;
  std::vector<std::string> notInStrings;
  std::optional<bool> lastAxis;               // the integer is (true) or is not (false) input 0's last axis
  std::string form;                           // a named test of the value (passes/CpuForms.h)
  bool formNegated = false;                   // `not_form`: the value must fail it
};

// A form of an op the path keeps off the backend by its own check or rewrite, before the backend is
// asked (ORT's QNN EP: its op builders' IsOpSupported; ExecuTorch: a decomposition at lowering
// that leaves a quantized op's intermediate tensors without encodings, a builder that raises). A
// node of that op meeting every condition is refused with `message`, the sentence the path logs
// (YAML `cpu_forms`); it runs on CPU, or the whole lowering fails (`outcome: lowering_fails`).
struct CpuForm {
  std::string id;
  // Graph::sourceOp's spelling: "onnx::LayerNormalization", or an ATen target "aten.silu.default".
  std::string op;
  std::vector<int> ranks;            // ranks of input 0 it applies to (YAML `when: {rank: [3, 5]}`); empty: any
  std::vector<AttributeTest> when;
  // YAML `when: {quantized: true}`: only a node with a quantized port (false: only one without).
  std::optional<bool> quantized;
  // YAML `when: {arguments_below: 3}`: only a node with fewer positional arguments (an ATen call
  // that leaves a trailing default out: max_pool2d without its stride).
  int argumentsBelow = 0;
  bool failsLowering = false;        // YAML `outcome: lowering_fails`; default `cpu`
  std::string message;               // what the path says when it refuses the node
  std::string expected;              // the forms it takes, for the diagnostic's `expected`
  std::string hint;                  // how to reach one of them (optional)
  SourceMark mark;
};

struct LoweringPath {
  std::string name;                       // "ort-qnn"
  std::string description;                // one sentence
  std::vector<GraphSource> defaultFor;    // inputs this path is the default for
  // ONNX op types the path lays out for the backend before asking it: a refusal of such a node
  // fails the whole session instead of falling back to CPU.
  std::vector<std::string> sessionFailureOnnxOps;
  // ATen targets likewise (ExecuTorch: the ops its partitioner asks not to decompose; one it then
  // leaves on CPU makes to_edge_transform_and_lower raise "was not decomposed or delegated").
  std::vector<std::string> sessionFailureOps;
  std::string sessionFailureMessage;
  SourceMark sessionFailureMark;
  std::vector<LoweringRewrite> rewrites;
  // The path drops a conversion to the dtype its input has and merges the encodings on either
  // side into one (ORT: CastElimination, then DoubleQDQPairsRemover): the producer's output and
  // the conversion's users then carry the intersection of the two ranges.
  bool mergeEncodingsAcrossNoOps = false;
  // The path hands QNN a node ORT does not group with its Q/DQ nodes (an input read without a
  // DequantizeLinear, an output not only quantized) as a float32 node (passes/QdqGrouping.h);
  // for graphs read from ONNX.
  bool floatUngroupedQdq = false;
  // The path hands the backend only nodes whose tensors all have static shapes: a node with a
  // dimension the path cannot infer runs on CPU (ORT's QNN EP: "Cannot get shape"). The sentence
  // reports print, where it is written; empty: shapes are not asked for.
  std::string dynamicShapesMessage;
  SourceMark dynamicShapesMark;
  // The path lowers a Reshape -> Transpose -> Reshape with rank-6 middle tensors at rank 5 when a
  // unit dimension stays in place (passes/RankFusion.h; YAML `rank6_reshape_transpose: fuse`).
  bool fuseRank6ReshapeTranspose = false;
  // The path computes a node whose inputs are all constants, some quantized, when the graph runs
  // instead of folding it (ORT never folds a DequantizeLinear outside a DQ -> X -> Q unit), so the
  // backend judges it; the reader marks such values (TensorMeta::runtimeValue; YAML
  // `quantized_constants: computed`).
  bool computesQuantizedConstants = false;
  // Forms of ONNX ops the path refuses itself, before the backend is asked (YAML `cpu_forms`).
  std::vector<CpuForm> cpuForms;
  // The path leaves the dequantize of a quantized parameter that a CPU node reads on the backend, as
  // a graph of its own (ExecuTorch: FoldQDQ makes it a bypass node, so no skip set moves it), and
  // that fails the whole lowering (YAML `parameter_dequantize: {outcome: lowering_fails}`).
  bool parameterDequantizeFails = false;
  std::string parameterDequantizeMessage;
  SourceMark parameterDequantizeMark;
  // Rules (ids) whose Python-number operands the path hands QNN as float32 static tensors, with
  // no encoding (ExecuTorch: LiftConstantScalarOperands at lowering), so the validator binds such
  // a number on the rule's input port as an unquantized float32 tensor and the rule's variants
  // judge the mix (YAML `number_operands_float32`).
  std::vector<std::string> numberOperandFloatRules;
  SourceMark mark;
  std::string origin;                     // the rules directory it came from
};

// All paths of the search path (a later directory's path of the same name replaces it).
struct LoweringTable {
  std::vector<std::shared_ptr<const LoweringPath>> paths;
  const LoweringPath* find(std::string_view name) const;
  const LoweringPath* defaultFor(GraphSource source) const;
  std::vector<std::string> names() const;
};

}  // namespace qnnrules
