#include "qnnrules/model/Soc.h"

#include <algorithm>
#include <cctype>

namespace qnnrules {

const std::string& SocInfo::versionOn(std::string_view column) const {
  static const std::string none;
  for (const SocHardware& h : hardware)
    if (h.column == column) return h.version;
  return none;
}

const SocInfo* SocTable::find(std::string_view name) const {
  auto eq = [&](const std::string& s) {
    return s.size() == name.size() &&
           std::equal(s.begin(), s.end(), name.begin(), [](char a, char b) {
             return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
           });
  };
  for (const SocInfo& soc : socs_)
    if (eq(soc.name)) return &soc;
  return nullptr;
}

const HardwareColumn* SocTable::column(std::string_view name) const {
  for (const HardwareColumn& c : columns_)
    if (c.name == name) return &c;
  return nullptr;
}

// Entries are matched by column name, so a SoC built before a column was declared or
// redeclared (an overlay's) gets the right slots and levels.
void SocTable::layOut(SocInfo& soc) const {
  std::vector<SocHardware> laid;
  laid.reserve(columns_.size());
  for (const HardwareColumn& c : columns_) {
    SocHardware h{c.name, soc.versionOn(c.name), 0};
    h.level = c.levelOf(h.version);
    if (h.level == 0) h.version.clear();
    laid.push_back(std::move(h));
  }
  soc.hardware = std::move(laid);
}

void SocTable::add(SocInfo soc) {
  layOut(soc);
  auto same = std::find_if(socs_.begin(), socs_.end(), [&](const SocInfo& s) { return s.name == soc.name; });
  if (same != socs_.end()) *same = std::move(soc);
  else socs_.push_back(std::move(soc));
}

const HardwareColumn& SocTable::declare(HardwareColumn column) {
  HardwareColumn* slot = nullptr;
  for (HardwareColumn& c : columns_)
    if (c.name == column.name) slot = &c;
  if (slot) {
    column.index = slot->index;
    *slot = std::move(column);
  } else {
    column.index = static_cast<uint8_t>(columns_.size());
    columns_.push_back(std::move(column));
    slot = &columns_.back();
  }
  for (SocInfo& s : socs_) layOut(s);
  return *slot;
}

}  // namespace qnnrules
