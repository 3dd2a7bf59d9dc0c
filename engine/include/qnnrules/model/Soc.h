// SoCs and what the rules need to know about them (from rules/socs.yaml).
#pragma once

#include <string>
#include <vector>

#include "qnnrules/core/QnnTypes.h"
#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

struct SocInfo {
  std::string name;        // "SM8650"
  int chipsetId = 0;       // QNN SoC id (QcomChipset value)
  HtpArch htpArch = HtpArch::kNone;
  int vtcmMb = 0;
  std::string lpaiVersion; // "V6", or empty when the SoC has no LPAI
  std::string marketingName;
  SourceMark mark;
};

class SocTable {
 public:
  const SocInfo* find(std::string_view name) const;  // case-insensitive
  const std::vector<SocInfo>& all() const { return socs_; }
  void add(SocInfo soc) { socs_.push_back(std::move(soc)); }

 private:
  std::vector<SocInfo> socs_;
};

}  // namespace qnnrules
