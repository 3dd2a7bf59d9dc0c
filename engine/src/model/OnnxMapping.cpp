#include "qnnrules/model/OnnxMapping.h"

#include <algorithm>

namespace qnnrules {
namespace {

bool intersects(const std::vector<int>& a, const std::vector<int>& b) {
  return std::any_of(a.begin(), a.end(), [&](int x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

std::string joinInts(const std::vector<int>& v, const char* last) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : i + 1 == v.size() ? last : ", ") + std::to_string(v[i]);
  return s;
}

}  // namespace

bool onnxConditionsOverlap(const OnnxMapping& a, const OnnxMapping& b) {
  if (a.opType != b.opType) return false;
  if (!a.ranks.empty() && !b.ranks.empty() && !intersects(a.ranks, b.ranks)) return false;
  // An input that one entry wants constant and the other wants computed separates them.
  if (intersects(a.constantInputs, b.activationInputs) || intersects(a.activationInputs, b.constantInputs))
    return false;
  return true;
}

std::string describeOnnxMapping(const OnnxMapping& m) {
  std::vector<std::string> parts;
  if (!m.ranks.empty()) parts.push_back("rank " + joinInts(m.ranks, " or "));
  for (int i : m.constantInputs) parts.push_back("input " + std::to_string(i) + " constant");
  for (int i : m.activationInputs) parts.push_back("input " + std::to_string(i) + " not constant");
  std::string s = m.opType;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : " (") + parts[i];
  return parts.empty() ? s : s + ")";
}

}  // namespace qnnrules
