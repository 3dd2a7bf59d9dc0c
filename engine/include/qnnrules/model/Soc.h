// SoCs and what the rules need to know about them (from rules/socs.yaml): their identity and,
// per hardware column the table declares (Hardware.h), their version on it.
#pragma once

#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "qnnrules/core/SourceMark.h"
#include "qnnrules/model/Hardware.h"

namespace qnnrules {

struct SocInfo {
  std::string name;        // "SM8650"
  int chipsetId = 0;       // QNN SoC id (QcomChipset value)
  int vtcmMb = 0;
  std::string marketingName;
  // One entry per column of the table, in its order (HardwareColumn::index); a column the SoC
  // does not have has an empty version and level 0.
  std::vector<SocHardware> hardware;
  SourceMark mark;

  // Whether a variant gated by `g` is available here: one integer comparison, no string work.
  bool meets(const HardwareGate& g) const {
    return g.column < hardware.size() ? hardware[g.column].level >= g.level : g.level == 0;
  }
  // The SoC's version on the column named `column` ("" when it has none).
  const std::string& versionOn(std::string_view column) const;
};

class SocTable {
 public:
  const SocInfo* find(std::string_view name) const;  // case-insensitive
  const std::vector<SocInfo>& all() const { return socs_; }
  // Adds a SoC, or replaces the one of the same name (an overlay's). Its hardware is laid out
  // to the table's columns.
  void add(SocInfo soc);

  const std::vector<HardwareColumn>& columns() const { return columns_; }
  const HardwareColumn* column(std::string_view name) const;
  // Declares a column, or redeclares one: an overlay may add versions, and the SoCs already
  // listed keep their versions (their levels follow the new order). Returns the column.
  const HardwareColumn& declare(HardwareColumn column);

 private:
  void layOut(SocInfo& soc) const;
  std::vector<HardwareColumn> columns_;
  std::vector<SocInfo> socs_;
  // Each SoC's position by its name in upper case: find and add are constant time (an overlay
  // of 40k SoCs loads in linear time). Two names that differ only in case share a key, the
  // first one listed keeps it (find returns the first, as a scan did).
  std::unordered_map<std::string, size_t> byUpperName_, byName_;
};

}  // namespace qnnrules
