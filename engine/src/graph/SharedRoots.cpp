#include "qnnrules/graph/SharedRoots.h"

namespace qnnrules {

const QuantSpec* SharedRoots::edgeSpec(const SharedRef& ref) const {
  const Argument* found = edgeArgument(g_, ref);  // O(1) when the reader recorded the slot
  if (found && found->qspec) return &*found->qspec;
  // No annotation on the edge: the producer's output encoding flows through.
  const Node& producer = g_.node(ref.node);
  uint32_t out = found ? found->tensor.output : ref.output;
  if (out < producer.outputs.size() && producer.outputs[out].qspec) return &*producer.outputs[out].qspec;
  return nullptr;
}

Resolved SharedRoots::resolve(const QuantSpec* spec) const {
  if (!spec) return {Resolution::kUnannotated, nullptr};
  // Most specs are concrete: no memo lookup for them (only shared ones are ever memoized).
  if (!spec->isShared()) return {Resolution::kConcrete, spec};
  // Room for every port at the first shared one: a graph without shared specs (a fan-in of
  // a million annotated inputs) allocates no table.
  if (memo_.empty()) memo_.reserve(g_.nodes().size() * 2);
  path_.clear();
  Resolved result;
  const QuantSpec* cur = spec;
  while (true) {
    if (auto it = memo_.find(cur); it != memo_.end()) {
      if (it->second.how == Resolution::kUnannotated && it->second.root == cur) {
        result = {Resolution::kCycle, nullptr};  // in-progress marker reached again
      } else {
        result = it->second;
      }
      break;
    }
    if (!cur->isShared()) {
      result = {Resolution::kConcrete, cur};
      break;
    }
    memo_[cur] = {Resolution::kUnannotated, cur};  // mark in progress
    path_.push_back(cur);
    const SharedRef& ref = *cur->sharedWith;
    const QuantSpec* next = nullptr;
    if (ref.kind == SharedRef::Kind::kNodeOutput) {
      const Node& n = g_.node(ref.node);
      if (ref.output < n.outputs.size() && n.outputs[ref.output].qspec) next = &*n.outputs[ref.output].qspec;
    } else {
      next = edgeSpec(ref);
    }
    if (!next) {
      result = {Resolution::kUnresolved, nullptr};
      break;
    }
    cur = next;
  }
  for (const QuantSpec* p : path_) memo_[p] = result;
  return result;
}

const QuantSpec* SharedRoots::concreteSpecOf(const Argument& a) const {
  if (a.kind != Argument::Kind::kTensor) return nullptr;
  const QuantSpec* own = a.qspec ? &*a.qspec : nullptr;
  if (!own) {
    const Node& p = g_.node(a.tensor.node);
    if (a.tensor.output < p.outputs.size() && p.outputs[a.tensor.output].qspec) own = &*p.outputs[a.tensor.output].qspec;
  }
  const Resolved r = resolve(own);
  return r.how == Resolution::kConcrete ? r.root : nullptr;
}

}  // namespace qnnrules
