#include "qnnrules/SourceMark.h"

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

}  // namespace qnnrules
