#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

std::string SourceMark::toString(bool withColumn) const {
  if (!file) return "<unknown>";
  std::string s = *file;
  if (line > 0) {
    s += ':';
    s += std::to_string(line);
    if (withColumn && column > 0) {
      s += ':';
      s += std::to_string(column);
    }
  }
  return s;
}

std::string displayPath(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (!ec) {
    fs::path rel = fs::relative(file, cwd, ec);
    if (!ec && !rel.empty() && *rel.begin() != "..") return rel.generic_string();
  }
  return fs::absolute(file, ec).lexically_normal().generic_string();
}

}  // namespace qnnrules
