// Name -> index lookup for names the caller already stores (node names, interned targets).
// An open-addressing table of (hash, index) pairs: no copy of the name per entry and no heap
// node per entry, so indexing a million node names costs one flat array rather than a
// million hash-map nodes holding a second copy of every name. The caller passes how to get
// the name of an index, which is compared on a hash match.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace qnnrules {

class NameIndex {
 public:
  // Room for `count` names without growing.
  void reserve(size_t count);

  template <typename NameOf>
  std::optional<uint32_t> find(std::string_view name, NameOf&& nameOf) const {
    if (slots_.empty()) return std::nullopt;
    const uint32_t hash = hashOf(name);
    for (size_t at = hash & mask(); slots_[at].used(); at = (at + 1) & mask())
      if (slots_[at].hash == hash && nameOf(slots_[at].index()) == name) return slots_[at].index();
    return std::nullopt;
  }

  // Adds `name` -> `index` unless the name is there already; returns the index it maps to.
  template <typename NameOf>
  uint32_t insert(std::string_view name, uint32_t index, NameOf&& nameOf) {
    if ((count_ + 1) * 2 > slots_.size()) grow(slots_.empty() ? 16 : slots_.size() * 2);
    const uint32_t hash = hashOf(name);
    size_t at = hash & mask();
    for (; slots_[at].used(); at = (at + 1) & mask())
      if (slots_[at].hash == hash && nameOf(slots_[at].index()) == name) return slots_[at].index();
    slots_[at] = {hash, index + 1};
    ++count_;
    return index;
  }

  size_t size() const { return count_; }

  // Starts loading the slot where `name` would be found, so that an insert or find of it a
  // little later does not wait for memory: the table of a million names is tens of MB, and
  // each new name lands on a slot no recent access has brought into cache.
  void prefetch(std::string_view name) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hashOf(name) & mask()], /*rw=*/1);
  }
  // The second step of a lookup started with prefetch() a little earlier, once its slot is in
  // cache: starts loading what the matching entry's name is compared in (`addressOf(index)`),
  // the other memory a find() of a name in a large table waits for.
  template <typename AddressOf>
  void prefetchEntry(std::string_view name, AddressOf&& addressOf) const {
    if (slots_.empty()) return;
    const uint32_t hash = hashOf(name);
    const Slot& slot = slots_[hash & mask()];
    if (slot.used() && slot.hash == hash) __builtin_prefetch(addressOf(slot.index()), /*rw=*/0);
  }

 private:
  // 8 bytes: the index is stored plus one, so that 0 marks an empty slot (a graph has fewer
  // than 2^32 - 1 names: indexes are uint32_t and a file is at most 1 GiB).
  struct Slot {
    uint32_t hash = 0;
    uint32_t indexPlusOne = 0;
    bool used() const { return indexPlusOne != 0; }
    uint32_t index() const { return indexPlusOne - 1; }
  };
  static uint32_t hashOf(std::string_view name) {
    const size_t h = std::hash<std::string_view>{}(name);
    return static_cast<uint32_t>(h ^ (h >> 32));
  }
  size_t mask() const { return slots_.size() - 1; }
  void grow(size_t capacity);  // a power of two

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace qnnrules
