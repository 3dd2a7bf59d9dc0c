// One constraint kind (dtype, encoding, bit width, symmetric, axis, fixed scale/offset,
// shared) is one unit: its YAML key and parser, its check, its sentence and diagnostic, its
// column in the supported-ops docs, what the annotator may write under it, and how the
// mutation suite meets and breaks it live together in constraints/<Kind>.cpp, which fills one
// ConstraintKind. The loader, the validator, the annotator, the rule cache and the docs walk
// the table (constraintKinds()) instead of naming kinds, so adding a kind is one file, a line
// in the table (ConstraintKinds.cpp) and its tests; its value goes in
// PortConstraint::kindValues. See docs/adding-a-constraint-kind.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>
#include <string>
#include <string_view>

#include "validate/BoundTensor.h"
#include "yaml/StrictYaml.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/Rule.h"

namespace qnnrules {

// What a kind's parser reads against: the strict reader (errors with file:line:column), the
// rule whose ports may be named, the backend manifest (may be null) and the port's own key.
struct ConstraintParse {
  strictyaml::StrictYamlReader& reader;
  const Rule& rule;
  const BackendManifest* manifest;
  std::string_view portKey;
};

// What a kind's check sees besides its own tensor: every tensor bound to the node (for
// constraints between ports) and the tolerances of the run.
struct ConstraintCheck {
  std::span<const BoundTensor> bound;
  double scaleRelTolerance = 1e-5;
};

struct ConstraintKind {
  std::string_view key;  // the YAML key in a variant's port constraint ("bitwidth")
  DiagCode code;         // what a violation reports (unused for dtype: datatypes select variants)

  // Reads the key's value into `c`; errors go to the reader. `what` is "'key' of port ...".
  void (*parse)(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c);

  // True when `c` uses the kind at all; `violated` is called only then. Null for kinds that
  // select variants instead of failing them (dtype).
  bool (*active)(const PortConstraint& c);

  // True when `t` breaks the constraint of `c`. Null for kinds that select variants
  // instead of failing them (dtype). Runs per node and variant: facts that cost more than a
  // comparison are computed once per tensor in BoundTensor, not here.
  bool (*violated)(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck& env);

  // Fills message, expected, actual and hint of a violation diagnostic.
  void (*explain)(const Rule& rule, const Variant& v, const PortConstraint& c, const BoundTensor& t, Diagnostic& d);

  // The kind's part of the docs' one-line port summary ("symmetric", "axis 0"), or "" when
  // the constraint does not use the kind.
  std::string (*summary)(const Rule& rule, const PortConstraint& c);

  // The sentence the docs list under a rule's table (the text a violation reports), or "".
  // Null for kinds the table's cells say all there is about (dtype, encoding, bit width).
  std::string (*docNote)(const Rule& rule, const Variant& v, int port, const PortConstraint& c);

  // Optional: whether a constraint of a passing variant could not be evaluated (a fixed scale
  // and no calibrated scale yet), and the warning's message, expected, actual and hint. The
  // check is cheap and runs for every passing node; the text only when it holds.
  bool (*unverifiable)(const PortConstraint& c, const BoundTensor& t) = nullptr;
  void (*explainUnverifiable)(const Rule& rule, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) = nullptr;

  bool required = false;  // the key must be given on every port constraint

  // Annotation: whether a tensor of type `t` can meet `c` at all, judged before calibration
  // (datatype, encoding, bit width; a fixed scale is written, not judged). The annotator narrows
  // a weight to a width every kind of some variant admits. Null: admits everything.
  bool (*admits)(const PortConstraint& c, const PortType& t) = nullptr;

  // The mutation suite (tests/unit/RuleMutator.h): `satisfy` turns a spec the suite built for a
  // variant into one that meets `c` (null: the suite's group solver already meets it, as for the
  // built-in kinds, whose values shared ports intersect); `mutate` turns a spec meeting `c`
  // into one that breaks it, false when it cannot (null: the kind selects variants or relates
  // ports, and the suite mutates it on its own: dtype, shared).
  void (*satisfy)(const PortConstraint& c, QuantSpec& s) = nullptr;
  bool (*mutate)(const PortConstraint& c, QuantSpec& s) = nullptr;
};

// Reports the values of `used` that the backend's manifest does not list in `backend`.
void reportOutsideBackend(const ConstraintParse& p, const YAML::Node& at, const std::string& what,
                          std::string_view kindName, const std::string& bad, const std::string& allowed);

template <typename E, typename Name>
void checkInsideBackend(const ConstraintParse& p, EnumSet<E> used, EnumSet<E> backend, const YAML::Node& at,
                        const std::string& what, std::string_view kindName, Name name) {
  std::string bad, allowed;
  used.forEach([&](E x) {
    if (!backend.contains(x)) bad += (bad.empty() ? "" : ", ") + std::string(name(x));
  });
  if (bad.empty()) return;
  backend.forEach([&](E x) { allowed += (allowed.empty() ? "" : ", ") + std::string(name(x)); });
  reportOutsideBackend(p, at, what, kindName, bad, allowed);
}

// Every kind, in the order the validator checks them and the docs summarize them: the built-in
// table (ConstraintKinds.cpp), then kinds registered by an embedder.
std::span<const ConstraintKind* const> constraintKinds();

// Adds a kind after the built-in ones; for an embedder's (or a test's) own constraint, before
// any rule is loaded: call it during static initialization or first thing in main. False (and
// nothing added) once constraintKinds() has been read, when its key is taken, or when the
// table is full (one bit per kind in KindMask).
bool registerConstraintKind(const ConstraintKind& kind);

// The index of the kind with YAML key `key` in constraintKinds() (a KindValue's `kind`), or -1.
int kindIndex(std::string_view key);

// Whether every kind admits a tensor of type `t` on `c` (see ConstraintKind::admits).
bool admitsType(const PortConstraint& c, const PortType& t);

// For each variant of `rule` and each of its ports (index variant * ports + port), the kinds
// the port constraint uses, as bits over constraintKinds(): computed once per rule and graph,
// so a node's check calls only the kinds a port has.
using KindMask = uint16_t;
std::vector<KindMask> activeKinds(const Rule& rule);

// Helpers the kinds share.
std::string portName(const Rule& rule, const BoundTensor& t);
std::string actualOf(const BoundTensor& t);    // "SFIXED_POINT_8 AXIS_SCALE_OFFSET (int8 ...)"
std::string formatDouble(double v);            // %.9g

}  // namespace qnnrules
