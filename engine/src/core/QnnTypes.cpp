#include "qnnrules/core/QnnTypes.h"

#include <array>

namespace qnnrules {
namespace {

constexpr std::array<std::string_view, static_cast<size_t>(QnnDatatype::kCount)> kDatatypeNames = {
    "UFIXED_POINT_8", "UFIXED_POINT_16", "UFIXED_POINT_32",
    "SFIXED_POINT_8", "SFIXED_POINT_16", "SFIXED_POINT_32",
    "FLOAT_16", "FLOAT_32", "BFLOAT_16",
    "INT_8", "INT_16", "INT_32", "INT_64",
    "UINT_8", "UINT_16", "UINT_32", "UINT_64",
    "BOOL_8",
};

constexpr std::array<std::string_view, static_cast<size_t>(Encoding::kCount)> kEncodingNames = {
    "SCALE_OFFSET", "AXIS_SCALE_OFFSET", "BW_SCALE_OFFSET", "BW_AXIS_SCALE_OFFSET",
    "BLOCKWISE_EXPANSION",
};

}  // namespace

std::string_view datatypeName(QnnDatatype t) {
  auto i = static_cast<size_t>(t);
  return i < kDatatypeNames.size() ? kDatatypeNames[i] : "UNDEFINED";
}

std::optional<QnnDatatype> parseDatatype(std::string_view name) {
  for (size_t i = 0; i < kDatatypeNames.size(); ++i)
    if (kDatatypeNames[i] == name) return static_cast<QnnDatatype>(i);
  return std::nullopt;
}

std::string_view encodingName(Encoding e) {
  auto i = static_cast<size_t>(e);
  return i < kEncodingNames.size() ? kEncodingNames[i] : "UNDEFINED";
}

std::optional<Encoding> parseEncoding(std::string_view name) {
  for (size_t i = 0; i < kEncodingNames.size(); ++i)
    if (kEncodingNames[i] == name) return static_cast<Encoding>(i);
  return std::nullopt;
}

bool isFixedPoint(QnnDatatype t) {
  return t <= QnnDatatype::kSFixed32;
}

bool isSignedFixedPoint(QnnDatatype t) {
  return t == QnnDatatype::kSFixed8 || t == QnnDatatype::kSFixed16 || t == QnnDatatype::kSFixed32;
}

int containerBits(QnnDatatype t) {
  switch (t) {
    case QnnDatatype::kUFixed8: case QnnDatatype::kSFixed8: case QnnDatatype::kInt8:
    case QnnDatatype::kUInt8: case QnnDatatype::kBool8:
      return 8;
    case QnnDatatype::kUFixed16: case QnnDatatype::kSFixed16: case QnnDatatype::kInt16:
    case QnnDatatype::kUInt16: case QnnDatatype::kFloat16: case QnnDatatype::kBFloat16:
      return 16;
    case QnnDatatype::kUFixed32: case QnnDatatype::kSFixed32: case QnnDatatype::kInt32:
    case QnnDatatype::kUInt32: case QnnDatatype::kFloat32:
      return 32;
    case QnnDatatype::kInt64: case QnnDatatype::kUInt64:
      return 64;
    case QnnDatatype::kCount:
      break;
  }
  return 0;
}

namespace {

template <typename Set, typename NameFn>
std::string joinSet(Set s, NameFn name) {
  std::string out;
  int n = 0, total = 0;
  s.forEach([&](auto) { ++total; });
  s.forEach([&](auto e) {
    if (n > 0) out += (n == total - 1) ? " or " : ", ";
    out += name(e);
    ++n;
  });
  return out;
}

}  // namespace

std::string datatypeSetText(DatatypeSet s) {
  return joinSet(s, [](QnnDatatype t) { return std::string(datatypeName(t)); });
}

std::string encodingSetText(EncodingSet s) {
  return joinSet(s, [](Encoding e) { return std::string(encodingName(e)); });
}

}  // namespace qnnrules
