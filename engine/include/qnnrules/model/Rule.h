// Rules as loaded from YAML: which ATen targets lower to which QNN op, how they are
// annotated, and the per-port constraint variants. Every part keeps its SourceMark.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/model/AnnotationPattern.h"
#include "qnnrules/model/Hardware.h"
#include "qnnrules/core/QnnTypes.h"
#include "qnnrules/core/SourceMark.h"
#include "qnnrules/model/OnnxMapping.h"

namespace qnnrules {

enum class RuleKind : uint8_t {
  kOp,           // lowers to a QNN op; validated against its variants
  kStructural,   // graph plumbing (getitem, identity at inference): no QNN op, nothing to check
  kUnsupported,  // declared unsupported on this backend, with a reason
};

// A port of the op: an input bound to a positional argument, or an output by index.
struct PortDecl {
  std::string name;
  bool isInput = true;
  int index = 0;          // argument position (inputs) or output index (outputs)
  bool optional = false;  // may be absent (e.g. bias)
  bool variadic = false;  // this and every following tensor (list elements included)
  SourceMark mark;
};

// The value a constraint kind without a field of its own reads from YAML (a kind added by an
// embedder or a test, validate/constraints/ConstraintKind.h): keyed by the kind's index in
// constraintKinds(), stored and cached without the rest of the engine knowing the kind.
struct KindValue {
  uint16_t kind = 0;    // index into constraintKinds()
  int64_t integer = 0;  // what the kind makes of these is its own business
  double real = 0;
  std::string text;
};

// What one variant allows on one port.
struct PortConstraint {
  DatatypeSet datatypes;                // required, non-empty
  EncodingSet encodings;                // empty = no encoding (float/integer ports)
  uint64_t bitwidths = 0;               // bit n set = n-bit allowed; 0 = any
  std::optional<bool> symmetric;
  std::optional<int> axis;              // required per-channel axis
  std::optional<double> scale;          // fixed scale
  std::optional<int64_t> offset;        // fixed QNN offset (= -zero_point)
  std::string scaleText;                // as written ("1/256"), for messages and docs
  int sharedWith = -1;                  // index into Rule::ports; -1 = none
  // Kinds (bits over constraintKinds(), validate/constraints/) that the reference quantizer
  // recommends but the backend does not require (YAML `recommended: [scale, offset]`): a
  // violation is a warning and never keeps the node off the backend; the annotator still
  // writes the recommended value.
  uint16_t recommended = 0;
  // The values of kinds that keep no field here (see KindValue); the built-in kinds above keep
  // typed fields because the annotator, the docs and the remedies read them by name.
  std::vector<KindValue> kindValues;
  SourceMark mark;

  const KindValue* valueOf(uint16_t kind) const {
    for (const KindValue& v : kindValues)
      if (v.kind == kind) return &v;
    return nullptr;
  }
};

// What the backend's op does with a tensor that has a dimension of 0 (YAML `empty_tensors` on a
// rule, or the manifest's default for every op rule): QNN has no empty tensors, and its ops differ
// in where they say so (oracle: tests/conformance/explore/empty.json).
enum class EmptyTensors : uint8_t {
  kUnstated,       // nothing known: not checked
  kAccepted,       // the op takes them (HTP Concat with an empty input)
  kRefused,        // op validation refuses the node (HTP StridedSlice with an empty output): CPU
  kFinalizeFails,  // op validation accepts it and graph composition fails: the whole graph fails
};
inline constexpr std::array<std::string_view, 3> kEmptyTensorsNames = {"accepted", "refused", "finalize_fails"};
inline std::optional<EmptyTensors> parseEmptyTensors(std::string_view s) {
  for (size_t i = 0; i < kEmptyTensorsNames.size(); ++i)
    if (kEmptyTensorsNames[i] == s) return static_cast<EmptyTensors>(i + 1);
  return std::nullopt;
}

struct Variant {
  std::string name;
  std::string description;               // optional; the sentence used for gate messages
  std::vector<PortConstraint> ports;     // parallel to Rule::ports
  HardwareGate gate;                     // min_arch: needs this version of the backend's hardware or newer
  // Below the gate QNN's op validation still accepts the node and graph finalize then fails:
  // the whole graph does not compile, whatever the lowering path (YAML gate_fails_at: finalize).
  bool gateAtFinalize = false;
  std::string hint;                      // how to fix a gate failure ("use 16a8w")
  // The variant's own rank limit (YAML `max_rank`), for an op whose kernels for one datatype take
  // fewer dimensions than for another; 0: the rule's (Rule::maxRank).
  int maxRank = 0;
  SourceMark maxRankMark;
  SourceMark mark;
};

struct Rule {
  std::string id;                        // stable, e.g. "htp.conv2d"
  RuleKind kind = RuleKind::kOp;
  std::vector<std::string> targets;      // ATen targets, e.g. "aten.conv2d.default"
  std::string qnnOp;                     // QNN op type ("Conv2d"); empty unless kind == kOp
  AnnotationPattern pattern = AnnotationPattern::kNone;
  std::string description;               // one sentence: docs and diagnostics use it verbatim
  std::string reason;                    // kUnsupported: why
  std::vector<PortDecl> ports;           // inputs first (argument order), then outputs
  std::vector<Variant> variants;
  std::vector<OnnxMapping> onnx;         // ONNX op types that reach this rule (io/OnnxMapping.h)
  // The highest tensor rank the backend's op takes on any of its ports (YAML `max_rank`); 0: no
  // limit. A node with a higher-rank tensor is refused whatever its encodings: QNN's op
  // validation checks the rank before the datatypes ("has incorrect Rank 6").
  int maxRank = 0;
  SourceMark maxRankMark;                // where `max_rank` is written
  EmptyTensors emptyTensors = EmptyTensors::kUnstated;  // YAML `empty_tensors`, else the manifest's
  SourceMark emptyTensorsMark;
  SourceMark mark;                       // where it is written (for an inherited rule: the parent's file)
  std::string origin;                    // the rules directory it came from ("builtin" or a path)

  // Set when the rule comes from the backend this one extends (rules/<backend>/backend.yaml):
  // the parent rule's id ("htp.conv2d") and where the inheritance was declared (the manifest's
  // `extends`, or the overriding rule's own `extends`).
  std::string inheritedFrom;
  SourceMark via;
  std::vector<std::string> notes;        // what inheriting changed ("variant a16w4 dropped: ...")
  // Non-empty on a backend that takes no quantized types (GPU): the sentence to report when a
  // port carries a quantized annotation, instead of "no matching variant".
  std::string noQuantizedTypes;

  // The rank limit of variant `v`: its own, else the rule's; 0 = none.
  int maxRankOf(const Variant& v) const { return v.maxRank != 0 ? v.maxRank : maxRank; }
  bool hasRankLimit() const {
    for (const Variant& v : variants)
      if (v.maxRank != 0) return true;
    return maxRank != 0;
  }

  int findPort(std::string_view name) const;
  const Variant* findVariant(std::string_view name) const;  // nullptr when none has that name
};

}  // namespace qnnrules
