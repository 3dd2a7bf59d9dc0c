#include "qnnrules/core/Suggest.h"

#include <algorithm>
#include <limits>

namespace qnnrules {

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
// Longer words are never typos of a name; this bounds the quadratic distance.
constexpr size_t kMaxWord = 200;
}  // namespace

// Optimal string alignment: a swap of two neighbouring letters ("hpt" for "htp") is one edit,
// the most common typo, so it is not outranked by two substitutions.
size_t editDistanceIgnoringCase(std::string_view a, std::string_view b) {
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string_view nearestName(std::string_view word, std::span<const std::string_view> candidates) {
  if (word.size() > kMaxWord) return {};
  size_t best = std::numeric_limits<size_t>::max();
  std::string_view bestName;
  for (std::string_view c : candidates) {
    size_t d = editDistanceIgnoringCase(word, c);
    if (d < best) {
      best = d;
      bestName = c;
    }
  }
  size_t limit = std::max<size_t>(2, std::max(word.size(), bestName.size()) / 3);
  if (bestName.empty() || best > limit) return {};
  return bestName;
}

std::string didYouMean(std::string_view word, std::span<const std::string_view> candidates) {
  std::string_view name = nearestName(word, candidates);
  return name.empty() ? std::string() : "did you mean '" + std::string(name) + "'?";
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::string_view> views(candidates.begin(), candidates.end());
  return didYouMean(word, views);
}

std::optional<std::string> findIgnoringCase(std::string_view word, const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates)
    if (equalsIgnoringCase(word, c)) return c;
  return std::nullopt;
}

}  // namespace qnnrules
