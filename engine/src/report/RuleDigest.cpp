#include "qnnrules/report/RuleDigest.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <set>

#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t mix(uint64_t h, const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= kFnvPrime;
  }
  return h;
}

}  // namespace

RuleDigest digestRuleFiles(const RuleSet& rules) {
  std::set<std::string> files;
  for (const Rule& r : rules.rules())
    if (r.mark.known()) files.insert(*r.mark.file);
  uint64_t h = kFnvOffset;
  std::array<char, 1 << 16> buf;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    uint64_t size = 0;
    while (in) {
      in.read(buf.data(), buf.size());
      const auto n = static_cast<size_t>(in.gcount());
      h = mix(h, buf.data(), n);
      size += n;
    }
    h = mix(h, reinterpret_cast<const char*>(&size), sizeof size);
  }
  return RuleDigest{fmt::format("fnv1a64:{:016x}", h), files.size()};
}

}  // namespace qnnrules
