#include "qnnrules/graph/QuantSpec.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

namespace qnnrules {
namespace {

constexpr std::array<std::string_view, static_cast<size_t>(ScalarType::kCount)> kScalarNames = {
    "float32", "float16", "bfloat16", "float64", "int8", "int16",
    "int32",   "int64",   "uint8",    "uint16",  "uint32", "bool",
};

constexpr std::array<std::string_view, 4> kQSchemeNames = {
    "per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric"};
static_assert([] {
  for (size_t i = 0; i < kQSchemeNames.size(); ++i)
    for (size_t j = i + 1; j < kQSchemeNames.size(); ++j)
      if (kQSchemeNames[i].size() == kQSchemeNames[j].size()) return false;
  return true;
}(), "parseQScheme tells the names apart by their lengths");

std::string_view stripTorchPrefix(std::string_view s) {
  constexpr std::string_view kPrefix = "torch.";
  return s.starts_with(kPrefix) ? s.substr(kPrefix.size()) : s;
}

ZeroPointRange scanZeroPoints(const InlineVector<int64_t>& zps) {
  ZeroPointRange r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  for (int64_t z : zps) {
    r.min = std::min(r.min, z);
    r.max = std::max(r.max, z);
  }
  return r;
}

}  // namespace

std::string_view scalarTypeName(ScalarType t) {
  auto i = static_cast<size_t>(t);
  return i < kScalarNames.size() ? kScalarNames[i] : "undefined";
}

std::optional<ScalarType> parseScalarType(std::string_view s) {
  s = stripTorchPrefix(s);
  // Called for every output and quant spec of a graph (two to three times per node): the
  // names differ in length or first letter, so one comparison decides instead of a scan.
  const auto is = [&](ScalarType t) { return s == kScalarNames[static_cast<size_t>(t)]; };
  switch (s.size()) {
    case 4:
      if (is(ScalarType::kInt8)) return ScalarType::kInt8;
      if (is(ScalarType::kBool)) return ScalarType::kBool;
      break;
    case 5:
      if (is(ScalarType::kUInt8)) return ScalarType::kUInt8;
      if (is(ScalarType::kInt16)) return ScalarType::kInt16;
      if (is(ScalarType::kInt32)) return ScalarType::kInt32;
      if (is(ScalarType::kInt64)) return ScalarType::kInt64;
      break;
    case 6:
      if (is(ScalarType::kUInt16)) return ScalarType::kUInt16;
      if (is(ScalarType::kUInt32)) return ScalarType::kUInt32;
      break;
    case 7:
      if (is(ScalarType::kFloat32)) return ScalarType::kFloat32;
      if (is(ScalarType::kFloat16)) return ScalarType::kFloat16;
      if (is(ScalarType::kFloat64)) return ScalarType::kFloat64;
      break;
    case 8:
      if (is(ScalarType::kBFloat16)) return ScalarType::kBFloat16;
      break;
    default: break;
  }
  // PyTorch's aliases for the same storage types.
  if (s == "float" || s == "float32") return ScalarType::kFloat32;
  if (s == "half") return ScalarType::kFloat16;
  if (s == "double") return ScalarType::kFloat64;
  if (s == "short") return ScalarType::kInt16;
  if (s == "int") return ScalarType::kInt32;
  if (s == "long") return ScalarType::kInt64;
  return std::nullopt;
}

bool isFloatType(ScalarType t) {
  return t == ScalarType::kFloat32 || t == ScalarType::kFloat16 || t == ScalarType::kBFloat16 ||
         t == ScalarType::kFloat64;
}

std::string_view qschemeName(QScheme q) {
  auto i = static_cast<size_t>(q);
  return i < kQSchemeNames.size() ? kQSchemeNames[i] : "undefined";
}

void recordZeroPointRange(QuantSpec& s) {
  // A single zero point is as cheap to read as the record, and is what code most often
  // rewrites in place (narrowing, tests): it is never recorded.
  if (s.zeroPoints.size() < 2 || s.zeroPoints.size() >= QuantSpec::kNotRecorded) {
    s.recordedZeroPointCount = QuantSpec::kNotRecorded;
    return;
  }
  const ZeroPointRange r = scanZeroPoints(s.zeroPoints);
  s.recordedZeroPointMin = r.min;
  s.recordedZeroPointMax = r.max;
  s.recordedZeroPointCount = static_cast<uint32_t>(s.zeroPoints.size());
}

ZeroPointRange zeroPointRange(const QuantSpec& s) {
  if (s.recordedZeroPointCount == s.zeroPoints.size()) return {s.recordedZeroPointMin, s.recordedZeroPointMax};
  return scanZeroPoints(s.zeroPoints);
}

std::optional<QScheme> parseQScheme(std::string_view s) {
  s = stripTorchPrefix(s);
  // The four names differ in length: one comparison decides (read for every quant spec).
  for (size_t i = 0; i < kQSchemeNames.size(); ++i)
    if (kQSchemeNames[i].size() == s.size()) return kQSchemeNames[i] == s ? std::optional(static_cast<QScheme>(i)) : std::nullopt;
  return std::nullopt;
}

float toFloat32(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  if (v > kMax) return std::numeric_limits<float>::infinity();
  if (v < -kMax) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);  // in range, or NaN
}

std::string describeQuantSpec(const QuantSpec& s, bool withScale) {
  if (withScale && s.sharedWith)
    return s.sharedWith->kind == SharedRef::Kind::kEdge ? "shared with an input edge" : "shared with a node output";
  std::string out(scalarTypeName(s.dtype));
  if (withScale && isFloatType(s.dtype)) return out;
  if (s.quantMin && s.quantMax) out += " " + std::to_string(*s.quantMin) + ".." + std::to_string(*s.quantMax);
  out += " " + std::string(qschemeName(s.qscheme));
  if (isPerChannel(s.qscheme)) out += " axis " + std::to_string(s.chAxis.value_or(0));
  if (!s.blockSize.empty()) {
    out += " block_size [";
    for (size_t i = 0; i < s.blockSize.size(); ++i) out += (i ? ", " : "") + std::to_string(s.blockSize[i]);
    out += "]";
  }
  if (withScale && s.scales.size() == 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " scale %.9g zero_point %lld", s.scales[0],
                  static_cast<long long>(s.zeroPoints.empty() ? 0 : s.zeroPoints[0]));
    out += buf;
  }
  return out;
}

}  // namespace qnnrules
