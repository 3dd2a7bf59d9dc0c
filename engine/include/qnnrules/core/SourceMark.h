// Where a rule (or one of its parts) was written: file, line, column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace qnnrules {

struct SourceMark {
  // Shared so that every mark of one file points at one string.
  std::shared_ptr<const std::string> file;
  uint32_t line = 0;    // 1-based; 0 = unknown
  uint32_t column = 0;  // 1-based; 0 = unknown

  bool known() const { return file != nullptr; }
  // "rules/htp/ops/conv.yaml:42:5" (or "rules/htp/ops/conv.yaml:42" when withColumn is false).
  std::string toString(bool withColumn = true) const;
};

// How marks and messages name a file: relative to the working directory when the file is
// below it ("rules/htp/ops/conv.yaml"), else absolute.
std::string displayPath(const std::filesystem::path& file);

}  // namespace qnnrules
