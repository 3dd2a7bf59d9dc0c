// The field list of every type the rule cache stores, one function per type, shared by the
// writer and the reader (CacheArchive.h). A field added to one of these types must be added
// here, and RuleCache's kFormatVersion bumped, or the cache would drop it: the size checks at
// the end of this file fail until it is.
#pragma once

#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/model/BackendOptions.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/Rule.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules::rulecache {

// `R` is `const T` when writing and `T` when reading.
template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, PortDecl>
void fields(A& a, R& p) {
  a(p.name), a(p.isInput), a(p.index), a(p.optional), a(p.variadic), a(p.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, KindValue>
void fields(A& a, R& v) {
  a(v.kind), a(v.integer), a(v.real), a(v.text);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, PortConstraint>
void fields(A& a, R& c) {
  a(c.datatypes), a(c.encodings), a(c.bitwidths), a(c.symmetric), a(c.axis), a(c.scale), a(c.offset);
  a(c.scaleText), a(c.sharedWith), a(c.recommended), a(c.kindValues), a(c.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, Variant>
void fields(A& a, R& v) {
  a(v.name), a(v.description), a(v.ports), a(v.gate), a(v.gateAtFinalize), a(v.hint), a(v.maxRank), a(v.maxRankMark);
  a(v.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, OnnxMapping>
void fields(A& a, R& m) {
  a(m.opType), a(m.inputs), a(m.restAsList), a(m.aten), a(m.ranks), a(m.constantInputs), a(m.activationInputs);
  a(m.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, Rule>
void fields(A& a, R& r) {
  a(r.id), a(r.kind), a(r.targets), a(r.qnnOp), a(r.pattern), a(r.description), a(r.reason), a(r.ports);
  a(r.variants), a(r.onnx), a(r.mark), a(r.origin), a(r.inheritedFrom), a(r.via), a(r.notes);
  a(r.noQuantizedTypes), a(r.maxRank), a(r.maxRankMark), a(r.emptyTensors), a(r.emptyTensorsMark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, Exclusion>
void fields(A& a, R& x) {
  a(x.targets), a(x.targetMarks), a(x.why), a(x.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, BackendManifest>
void fields(A& a, R& m) {
  a(m.backend), a(m.description), a(m.extends), a(m.extendsMark), a(m.exclude), a(m.datatypes), a(m.encodings);
  a(m.symmetric), a(m.maxRank), a(m.maxRankMark), a(m.emptyTensors), a(m.emptyTensorsMark), a(m.nonFiniteScales), a(m.nonFiniteScalesMark), a(m.hardware), a(m.hardwareMark), a(m.quantized);
  a(m.whyNotQuantized);
  a(m.delegation.requireFullDelegation), a(m.delegation.inputQuantizeOnCpu), a(m.delegation.outputDequantizeOnCpu);
  a(m.isDefault), a(m.defaultMark), a(m.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, HardwareGate>
void fields(A& a, R& g) {
  a(g.column), a(g.level), a(g.columnName), a(g.version);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, HardwareColumn>
void fields(A& a, R& c) {
  a(c.name), a(c.versions), a(c.index), a(c.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, SocHardware>
void fields(A& a, R& h) {
  a(h.column), a(h.version), a(h.level);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, SocInfo>
void fields(A& a, R& s) {
  a(s.name), a(s.chipsetId), a(s.vtcmMb), a(s.marketingName), a(s.hardware), a(s.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, TensorQuant>
void fields(A& a, R& t) {
  a(t.dtype), a(t.quantMin), a(t.quantMax);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, QuantConfig>
void fields(A& a, R& c) {
  a(c.name), a(c.description), a(c.activation), a(c.weight), a(c.matmulIn1), a(c.normWeight), a(c.normBias);
  a(c.eps), a(c.granularities), a(c.defaultGranularity), a(c.blockSize), a(c.qat), a(c.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, EnumChoice>
void fields(A& a, R& c) {
  a(c.name), a(c.code);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, OptionSpec>
void fields(A& a, R& o) {
  a(o.name), a(o.type), a(o.min), a(o.max), a(o.choices), a(o.defaultValue), a(o.description), a(o.mark);
}

// A pair (a lowering rewrite's port -> datatype or -> static): first, then second.
template <typename T>
struct IsPair : std::false_type {};
template <typename K, typename V>
struct IsPair<std::pair<K, V>> : std::true_type {};
template <typename A, typename R>
  requires IsPair<std::remove_const_t<R>>::value
void fields(A& a, R& p) {
  a(p.first), a(p.second);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, LoweringRewrite>
void fields(A& a, R& w) {
  a(w.id), a(w.rules), a(w.targets), a(w.when), a(w.readsStatic), a(w.scalesDiffer), a(w.setFloat), a(w.port), a(w.setDatatype),
      a(w.setSymmetric), a(w.setScale), a(w.setScaleText), a(w.setOffset), a(w.setEncodingOf), a(w.says), a(w.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, AttributeTest>
void fields(A& a, R& t) {
  a(t.attribute), a(t.fallbackNumber), a(t.fallbackString), a(t.inNumbers), a(t.inStrings), a(t.notInNumbers),
      a(t.notInStrings), a(t.lastAxis), a(t.form), a(t.formNegated);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, CpuForm>
void fields(A& a, R& f) {
  a(f.id), a(f.op), a(f.ranks), a(f.when), a(f.quantized), a(f.argumentsBelow), a(f.failsLowering), a(f.message), a(f.expected),
      a(f.hint), a(f.mark);
}

template <typename A, typename R>
  requires std::is_same_v<std::remove_const_t<R>, LoweringPath>
void fields(A& a, R& p) {
  a(p.name), a(p.description), a(p.defaultFor), a(p.sessionFailureOnnxOps), a(p.sessionFailureOps), a(p.sessionFailureMessage),
      a(p.sessionFailureMark), a(p.rewrites), a(p.mergeEncodingsAcrossNoOps), a(p.floatUngroupedQdq),
      a(p.dynamicShapesMessage), a(p.dynamicShapesMark), a(p.fuseRank6ReshapeTranspose), a(p.computesQuantizedConstants), a(p.cpuForms),
      a(p.numberOperandFloatRules), a(p.parameterDequantizeFails), a(p.parameterDequantizeMessage), a(p.parameterDequantizeMark), a(p.mark),
      a(p.origin);
}

// A field added to one of these types and forgotten above would be dropped by every cached load
// without any test noticing (a test can only compare the fields it knows). Its size changes,
// though: these fail, and whoever adds the field lists it above, bumps kFormatVersion and then
// updates the size here. Checked where the sizes were taken (libstdc++ on x86-64); other
// standard libraries lay strings out differently.
#if defined(__GLIBCXX__) && defined(__x86_64__) && !defined(_GLIBCXX_DEBUG)
static_assert(sizeof(PortDecl) == 72, "a field of PortDecl changed: list it in fields() above");
static_assert(sizeof(KindValue) == 56, "a field of KindValue changed: list it in fields() above");
static_assert(sizeof(PortConstraint) == 152, "a field of PortConstraint changed: list it in fields() above");
static_assert(sizeof(Variant) == 256, "a field of Variant changed: list it in fields() above");
static_assert(sizeof(OnnxMapping) == 192, "a field of OnnxMapping changed: list it in fields() above");
static_assert(sizeof(Rule) == 472, "a field of Rule changed: list it in fields() above");
static_assert(sizeof(Exclusion) == 104, "a field of Exclusion changed: list it in fields() above");
static_assert(sizeof(BackendManifest) == 480, "a field of BackendManifest changed: list it in fields() above");
static_assert(sizeof(HardwareGate) == 72, "a field of HardwareGate changed: list it in fields() above");
static_assert(sizeof(HardwareColumn) == 88, "a field of HardwareColumn changed: list it in fields() above");
static_assert(sizeof(SocHardware) == 72, "a field of SocHardware changed: list it in fields() above");
static_assert(sizeof(SocInfo) == 120, "a field of SocInfo changed: list it in fields() above");
static_assert(sizeof(TensorQuant) == 24, "a field of TensorQuant changed: list it in fields() above");
static_assert(sizeof(QuantConfig) == 264, "a field of QuantConfig changed: list it in fields() above");
static_assert(sizeof(EnumChoice) == 40, "a field of EnumChoice changed: list it in fields() above");
static_assert(sizeof(OptionSpec) == 144, "a field of OptionSpec changed: list it in fields() above");
static_assert(sizeof(LoweringRewrite) == 352, "a field of LoweringRewrite changed: list it in fields() above");
static_assert(sizeof(AttributeTest) == 232, "a field of AttributeTest changed: list it in fields() above");
static_assert(sizeof(CpuForm) == 248, "a field of CpuForm changed: list it in fields() above");
static_assert(sizeof(LoweringPath) == 456, "a field of LoweringPath changed: list it in fields() above");
#endif

}  // namespace qnnrules::rulecache
