// For the rule mutation suite: the annotation of one node that satisfies one variant of a
// rule, built from the variant's own constraints, and the in-memory graph that carries it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/Rule.h"

namespace qnnrules::testing {

// How one port of the rule is annotated.
struct PortAnnotation {
  enum class Kind { kTensor, kQuantized, kShared };
  Kind kind = Kind::kTensor;
  ScalarType tensorDtype = ScalarType::kFloat32;  // kTensor: an unannotated tensor of this dtype
  QuantSpec spec;                                  // kQuantized
  int sharedWith = -1;                             // kShared: the rule port whose encoding it uses
};
using Annotation = std::vector<PortAnnotation>;  // parallel to Rule::ports

// The constraints of a group of ports that share one encoding (a port and everything whose
// shared_with chain ends at it), merged: the root's spec must satisfy all of them.
struct GroupConstraint {
  int root = -1;
  std::vector<int> members;  // root included
  DatatypeSet datatypes;
  EncodingSet encodings;     // empty: any
  uint64_t bitwidths = 0;    // 0: any
  bool symmetric = false;
  std::optional<int> axis;
  std::optional<double> scale;
  std::optional<int64_t> offset;
};

// Groups the variant's ports by shared_with root. Returns an error text when the variant
// cannot be satisfied (a shared_with cycle, shared ports without a common datatype, ...).
std::optional<std::string> groupPorts(const Rule& rule, const Variant& v, std::vector<GroupConstraint>& out);

// The datatypes an annotation or an unannotated tensor can produce (every fixed-point type,
// and the float/integer/bool types a tensor dtype maps to).
bool realizable(QnnDatatype t);

// Annotates the group's ports with datatype `dt` satisfying the group's constraints, or
// returns why it cannot. `variant` picks scale values so that different calls differ.
std::optional<std::string> annotateGroup(const Rule& rule, const Variant& v, const GroupConstraint& g, QnnDatatype dt,
                                         Annotation& a);

// A satisfying annotation of every port, or the reason there is none.
std::optional<std::string> satisfy(const Rule& rule, const Variant& v, Annotation& out);

// The datatype QNN sees on each port under `a` (shared ports resolve to their root).
std::vector<QnnDatatype> datatypesOf(const Rule& rule, const Annotation& a);

// A graph with one call node of `target`, one producer per input tensor (two for variadic
// ports, passed as a list) and the node's outputs, annotated as `a` says.
Graph buildGraph(const Rule& rule, const std::string& target, const Annotation& a);

}  // namespace qnnrules::testing
