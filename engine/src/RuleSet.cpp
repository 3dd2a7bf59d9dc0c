#include "qnnrules/RuleSet.h"

namespace qnnrules {

RuleSet::RuleSet(std::string backend, std::vector<Rule> rules)
    : backend_(std::move(backend)), rules_(std::move(rules)) {
  byTarget_.reserve(rules_.size() * 2);
  for (uint32_t i = 0; i < rules_.size(); ++i) {
    byId_.emplace(rules_[i].id, i);
    for (const std::string& t : rules_[i].targets) byTarget_.emplace(t, i);
  }
}

const Rule* RuleSet::findByTarget(std::string_view target) const {
  auto it = byTarget_.find(target);
  return it == byTarget_.end() ? nullptr : &rules_[it->second];
}

const Rule* RuleSet::findById(std::string_view id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &rules_[it->second];
}

}  // namespace qnnrules
