#include "Pt2Tensor.h"

#include <bit>
#include <cstring>

#include "io/CheckedArith.h"

namespace qnnrules::pt2 {
namespace {

// IEEE half -> float (bit manipulation; no half type in C++20).
float halfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

std::optional<Payload> findPayload(const Json& config, const std::string& fqn) {
  std::optional<Json> entry = config.at("config").find(fqn);
  if (!entry) return std::nullopt;
  Payload p;
  p.file = std::string(entry->at("path_name").string());
  p.pickled = entry->at("use_pickle").boolean();
  std::optional<Json> meta = entry->find("tensor_meta");
  if (!meta || meta->isNull()) return p.pickled ? std::optional<Payload>(p) : std::nullopt;
  p.dtype = meta->at("dtype").integer();
  auto ints = [](const Json& list, std::vector<int64_t>& out) {
    for (size_t i = 0; i < list.size(); ++i) {
      std::optional<Json> v = list[i].find("as_int");
      if (!v) return false;  // symbolic
      out.push_back(v->integer());
    }
    return true;
  };
  if (!ints(meta->at("sizes"), p.sizes) || !ints(meta->at("strides"), p.strides)) return std::nullopt;
  if (p.sizes.size() != p.strides.size()) return std::nullopt;
  std::optional<Json> offset = meta->at("storage_offset").find("as_int");
  if (!offset) return std::nullopt;
  p.storageOffset = offset->integer();
  return p;
}

std::optional<std::vector<double>> decode(const Payload& p, const std::string& storage, bool littleEndian,
                                          uint64_t maxElements, const std::string& pointer) {
  if (littleEndian != (std::endian::native == std::endian::little)) return std::nullopt;
  size_t width = 0;
  switch (p.dtype) {
    case 1: case 2: width = 1; break;            // uint8, int8
    case 3: case 6: case 13: case 28: width = 2; break;  // int16, half, bfloat16, uint16
    case 4: case 7: case 34: width = 4; break;   // int32, float, uint32
    case 5: case 8: width = 8; break;            // int64, double
    default: return std::nullopt;
  }
  auto refuse = [&](const std::string& why) -> std::optional<std::vector<double>> { throw SchemaError(pointer, why); };
  auto list = [](const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return "[" + s + "]";
  };
  for (size_t d = 0; d < p.sizes.size(); ++d) {
    if (p.sizes[d] < 0) return refuse("size " + std::to_string(d) + " is negative: sizes " + list(p.sizes));
    if (p.strides[d] < 0) return refuse("stride " + std::to_string(d) + " is negative: strides " + list(p.strides));
  }
  if (p.storageOffset < 0) return refuse("storage_offset " + std::to_string(p.storageOffset) + " is negative");
  const std::optional<uint64_t> count = checked::elementCount(p.sizes);
  if (!count) return refuse("sizes " + list(p.sizes) + " multiply to more than 2^64 elements");
  const uint64_t numel = *count;
  if (numel == 0) return std::vector<double>{};
  const uint64_t storageElements = storage.size() / width;
  if (numel > maxElements)
    return refuse("sizes " + list(p.sizes) + " say " + std::to_string(numel) + " elements, above the limit of " +
                  std::to_string(maxElements) + " for a scale or zero point");
  if (numel > storageElements + kMaxRepeatedElements)
    return refuse("sizes " + list(p.sizes) + " say " + std::to_string(numel) + " elements, but the storage holds " +
                  std::to_string(storageElements) + ": a tensor repeating its storage (stride 0) is read only up to " +
                  std::to_string(kMaxRepeatedElements) + " elements more than that");
  // The last element's index, offset + sum((size - 1) * stride), in unsigned arithmetic that
  // cannot wrap; every other element's index is below it (no stride is negative), so a last
  // index inside the storage puts every element inside it.
  std::optional<uint64_t> last = static_cast<uint64_t>(p.storageOffset);
  for (size_t d = 0; d < p.sizes.size() && last; ++d) {
    std::optional<uint64_t> step =
        checked::mul<uint64_t>(static_cast<uint64_t>(p.sizes[d] - 1), static_cast<uint64_t>(p.strides[d]));
    last = step ? checked::add<uint64_t>(*last, *step) : std::nullopt;
  }
  if (!last || *last >= storageElements)
    return refuse("storage_offset " + std::to_string(p.storageOffset) + ", sizes " + list(p.sizes) + " and strides " +
                  list(p.strides) + " reach past the end of its storage of " + std::to_string(storageElements) +
                  " element(s) (" + std::to_string(storage.size()) + " bytes)");
  std::vector<double> out(numel);
  // Element n's byte offset: row-major order through sizes and strides; a contiguous tensor (a
  // block-wise weight's scales) in one pass with no index arithmetic.
  bool contiguous = true;
  int64_t expected = 1;
  for (size_t d = p.sizes.size(); d-- > 0;) {
    if (p.sizes[d] != 1 && p.strides[d] != expected) contiguous = false;
    expected *= p.sizes[d];
  }
  auto fill = [&](auto value) {
    const char* base = storage.data();
    if (contiguous) {
      const char* at = base + static_cast<uint64_t>(p.storageOffset) * width;
      for (uint64_t n = 0; n < numel; ++n, at += width) out[n] = value(at);
      return;
    }
    std::vector<int64_t> index(p.sizes.size(), 0);
    for (uint64_t n = 0; n < numel; ++n) {
      uint64_t element = static_cast<uint64_t>(p.storageOffset);  // at most `last`: nothing wraps
      for (size_t d = 0; d < index.size(); ++d) element += static_cast<uint64_t>(index[d]) * static_cast<uint64_t>(p.strides[d]);
      out[n] = value(base + element * width);
      for (size_t d = index.size(); d-- > 0;) {  // next index, row-major
        if (++index[d] < p.sizes[d]) break;
        index[d] = 0;
      }
    }
  };
  switch (p.dtype) {
    case 1: fill([](const char* at) { return static_cast<double>(load<uint8_t>(at)); }); break;
    case 2: fill([](const char* at) { return static_cast<double>(load<int8_t>(at)); }); break;
    case 3: fill([](const char* at) { return static_cast<double>(load<int16_t>(at)); }); break;
    case 28: fill([](const char* at) { return static_cast<double>(load<uint16_t>(at)); }); break;
    case 6: fill([](const char* at) { return static_cast<double>(halfToFloat(load<uint16_t>(at))); }); break;
    case 13:
      fill([](const char* at) { return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(load<uint16_t>(at)) << 16)); });
      break;
    case 4: fill([](const char* at) { return static_cast<double>(load<int32_t>(at)); }); break;
    case 34: fill([](const char* at) { return static_cast<double>(load<uint32_t>(at)); }); break;
    case 7: fill([](const char* at) { return static_cast<double>(load<float>(at)); }); break;
    case 5: fill([](const char* at) { return static_cast<double>(load<int64_t>(at)); }); break;
    case 8: fill([](const char* at) { return load<double>(at); }); break;
    default: return std::nullopt;
  }
  return out;
}

}  // namespace qnnrules::pt2
