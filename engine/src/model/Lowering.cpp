// The lowering paths of a search path, looked up by name and by the graph's source.
#include "qnnrules/model/Lowering.h"

#include <algorithm>

namespace qnnrules {

const LoweringPath* LoweringTable::find(std::string_view name) const {
  for (const auto& p : paths)
    if (p->name == name) return p.get();
  return nullptr;
}

const LoweringPath* LoweringTable::defaultFor(GraphSource source) const {
  for (const auto& p : paths)
    if (std::find(p->defaultFor.begin(), p->defaultFor.end(), source) != p->defaultFor.end()) return p.get();
  return nullptr;
}

std::vector<std::string> LoweringTable::names() const {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p->name);
  return out;
}

}  // namespace qnnrules
