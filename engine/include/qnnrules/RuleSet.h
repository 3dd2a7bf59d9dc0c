// A backend's compiled rule table: immutable after loading, shared across threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qnnrules/Rule.h"

namespace qnnrules {

class RuleSet {
 public:
  RuleSet(std::string backend, std::vector<Rule> rules);

  const std::string& backend() const { return backend_; }
  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* findByTarget(std::string_view target) const;
  const Rule* findById(std::string_view id) const;

 private:
  std::string backend_;
  std::vector<Rule> rules_;
  std::unordered_map<std::string, uint32_t> byTarget_;
  std::unordered_map<std::string, uint32_t> byId_;
};

}  // namespace qnnrules
