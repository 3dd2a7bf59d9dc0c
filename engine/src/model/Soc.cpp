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

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const SocInfo* SocTable::find(std::string_view name) const {
  auto it = byUpperName_.find(upper(name));
  return it == byUpperName_.end() ? nullptr : &socs_[it->second];
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
  // The same name replaces the SoC (an overlay's); one that differs in case only is another.
  auto [same, fresh] = byName_.try_emplace(soc.name, socs_.size());
  if (!fresh) {
    socs_[same->second] = std::move(soc);
    return;
  }
  byUpperName_.try_emplace(upper(soc.name), socs_.size());
  socs_.push_back(std::move(soc));
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
