// Internal to the .pt2 reader: the values of a lifted tensor stored in the archive.
//
// torch.export.save writes each tensor's untyped storage as raw bytes in the archive's byte
// order (torch/export/pt2_archive/_package.py, _save_raw_tensors), and its dtype, sizes,
// strides and storage offset in a payload config (data/weights/<model>_weights_config.json,
// data/constants/<model>_constants_config.json; schema.py PayloadConfig). Tensors of subclasses
// are pickled instead; those are not read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Pt2Json.h"

namespace qnnrules::pt2 {

// Scales and zero points are tiny; storages above this are weights, which are never needed.
inline constexpr uint64_t kMaxPayloadBytes = 64ull << 20;

struct Payload {
  std::string file;      // path_name, relative to the payload's folder
  bool pickled = false;  // use_pickle: not raw bytes
  int64_t dtype = 0;     // schema.py ScalarType
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storageOffset = 0;
};

// The config entry of `fqn` ("_scale_0", "conv.weight"), or nullopt when the config has none
// or the tensor has symbolic sizes. Throws SchemaError on a config that breaks the schema.
std::optional<Payload> findPayload(const Json& config, const std::string& fqn);

// A tensor that repeats its storage (stride 0, an expand) is read up to this many elements
// more than its storage holds: a scalar scale expanded over the channels, not a 38 KB archive
// that asks for 67 million elements.
inline constexpr uint64_t kMaxRepeatedElements = 1ull << 16;

// The tensor's elements in row-major order, as doubles; nullopt when the dtype is not one a
// scale or zero point uses or the byte order is not the machine's. Throws SchemaError at
// `pointer` when its sizes, strides or storage offset are negative, overflow 64 bits, reach
// past the storage, or ask for more than `maxElements` elements (or more than the storage
// holds + kMaxRepeatedElements).
std::optional<std::vector<double>> decode(const Payload& p, const std::string& storage, bool littleEndian,
                                          uint64_t maxElements, const std::string& pointer);

}  // namespace qnnrules::pt2
