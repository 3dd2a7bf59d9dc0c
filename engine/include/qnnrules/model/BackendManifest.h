// What a backend's rule table is built from (rules/<backend>/backend.yaml): its description,
// the backend it extends and the targets it excludes from it, and the backend-wide facts that
// narrow every variant (datatypes and encodings the backend has at all, symmetric-only
// quantization, the hardware column it runs on, whether it takes quantized types), and whether
// it is the backend used when none is named.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/Rule.h"
#include "qnnrules/core/SourceMark.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {

// Targets of the parent backend that this backend lacks, and why.
struct Exclusion {
  std::vector<std::string> targets;
  std::vector<SourceMark> targetMarks;  // parallel to targets
  std::string why;
  SourceMark mark;
};

// What a backend decides about delegation beyond its rules (ExecuTorch's LPAI partitioner
// keeps boundary conversions on CPU and needs the whole graph in one partition).
struct DelegationFacts {
  bool requireFullDelegation = false;   // lowering fails unless the graph is one partition
  std::string inputQuantizeOnCpu;       // non-empty: the quantize of a graph input stays on CPU, because ...
  std::string outputDequantizeOnCpu;    // non-empty: the dequantize of a graph output stays on CPU, because ...
  bool any() const { return requireFullDelegation || !inputQuantizeOnCpu.empty() || !outputDequantizeOnCpu.empty(); }
};

struct BackendManifest {
  std::string backend;           // equals the folder name
  std::string description;       // one sentence, for docs and listings
  std::string extends;           // parent backend; empty = none
  SourceMark extendsMark;
  std::vector<Exclusion> exclude;
  // Backend-wide facts. Unset sets mean "no restriction" (HTP, and backends without a manifest).
  std::optional<DatatypeSet> datatypes;  // every datatype a port may have on this backend
  std::optional<EncodingSet> encodings;  // every encoding a quantized port may use
  bool symmetric = false;                // every quantized port is symmetric (unless its qparams are fixed or shared)
  // The rank limit of every op rule that states none of its own (YAML `max_rank`); 0: none.
  int maxRank = 0;
  SourceMark maxRankMark;
  // What every op rule that states none does with a tensor that has a dimension of 0 (YAML
  // `empty_tensors`; Rule::emptyTensors).
  EmptyTensors emptyTensors = EmptyTensors::kUnstated;
  SourceMark emptyTensorsMark;
  // What the backend does with a tensor it computes whose scale is not a finite number (YAML
  // `non_finite_scales`, `accepted` or `finalize_fails`, the names of EmptyTensors): a calibration
  // that met inf (T5's Log of 0, GPT-Neo's mask sums) writes such a scale.
  EmptyTensors nonFiniteScales = EmptyTensors::kUnstated;
  SourceMark nonFiniteScalesMark;
  bool quantized = true;                 // false: the backend takes no quantized types at all
  std::string whyNotQuantized;           // the sentence diagnostics give when quantized is false
  // The hardware column of the SoC table this backend runs on (Hardware.h): a SoC without a
  // version on it cannot run the backend, reports name the SoC's version on it, and `min_arch`
  // gates name its versions (inherited gates of another column are dropped). Empty: any SoC,
  // no gates, no hardware named (GPU).
  std::string hardware;
  SourceMark hardwareMark;
  DelegationFacts delegation;
  // `default: true`: the backend an engine opens when none is named (exactly one manifest of the
  // search path may say it; RuleRegistry::defaultBackend). The mark is the value's position.
  bool isDefault = false;
  SourceMark defaultMark;
  SourceMark mark;                       // the manifest file
};

// Rewrites a rule of the parent backend into this backend: its id takes this backend's prefix
// ("htp.conv2d" -> "lpai.conv2d"), it remembers where it came from, and its variants are
// narrowed by the manifest's facts (see narrowVariant). A variant that loses every datatype or
// encoding of a port is dropped and named in Rule::notes. `via` is where the inheritance was
// declared (the manifest's `extends`, or a rule's own `extends`).
Rule inheritRule(const Rule& parent, const BackendManifest& manifest, const SourceMark& via);

// The id a parent rule has in this backend.
std::string inheritedId(const std::string& parentId, const std::string& parentBackend, const std::string& backend);

// Applies the manifest's facts to one variant. Returns the reason the variant cannot exist on
// this backend ("port input allows only FLOAT_16, which lpai does not have"), or nullopt when
// it survives (possibly narrowed). Inherited variants are narrowed; written ones are checked
// by the loader instead, so that a typo in a rule is an error rather than a silent drop.
std::optional<std::string> narrowVariant(const Rule& rule, Variant& v, const BackendManifest& manifest);

// Whether `soc` can run `manifest`'s backend (it has a version on the manifest's hardware
// column); the error names the SoCs that can. A null manifest takes any SoC.
Status checkSocRequirement(const BackendManifest* manifest, const std::string& backend, const SocInfo& soc,
                           const SocTable& socs);

// The SoCs of the table that can run the backend, by version ("LPAI V6: SM8850"), for docs;
// "any SoC" when the backend names no hardware column.
std::string socScopeText(const BackendManifest* manifest, const SocTable& socs);

// The hardware a backend runs on for `soc`, as reports name it: the SoC's version on the
// manifest's column ("HTP V75", "LPAI V6"), or "" when the backend names none (a GPU run).
std::string hardwareText(const BackendManifest* manifest, const SocInfo& soc);

// Marks every quantized port without fixed or shared qparams symmetric (manifest.symmetric).
void applySymmetric(Variant& v, const BackendManifest& manifest);

}  // namespace qnnrules
