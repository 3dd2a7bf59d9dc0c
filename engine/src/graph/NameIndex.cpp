#include "qnnrules/graph/NameIndex.h"

#include <bit>

namespace qnnrules {

void NameIndex::reserve(size_t count) {
  const size_t wanted = std::bit_ceil(count * 2 + 2);
  if (wanted > slots_.size()) grow(wanted);
}

// Rehashes from the stored hashes: the names themselves are not needed.
void NameIndex::grow(size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot& s : old) {
    if (!s.used()) continue;
    size_t at = s.hash & mask();
    while (slots_[at].used()) at = (at + 1) & mask();
    slots_[at] = s;
  }
}

}  // namespace qnnrules
