// rules/socs.yaml -> SocTable: each SoC's name, chipset id, HTP architecture, VTCM size and
// LPAI version. Strict as the rule files (StrictYaml.h).
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>

#include "../yaml/StrictYaml.h"
#include "../validate/constraints/ArchGate.h"
#include "qnnrules/load/RuleLoader.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 2> kSocTopKeys = {"version", "socs"};
constexpr std::array<std::string_view, 6> kSocKeys = {"name", "id", "htp_arch", "vtcm_mb", "lpai", "marketing_name"};

class SocLoader : public StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void loadSocs(const YAML::Node& root, SocTable& out) {
    Map top = readMap(root, "the top level", kSocTopKeys, "a mapping with keys version and socs");
    if (!top.valid) return;
    bool fileOk = version(root, top);
    const Entry* socs = top.get("socs");
    if (!socs) {
      missing(root, top, "the top level", "socs");
      return;
    }
    if (!socs->value.IsSequence()) {
      error(DiagCode::kWrongType, mark(socs->value), "'socs' must be a list of SoCs", "a list of SoCs",
            describe(socs->value));
      return;
    }
    std::vector<SocInfo> parsed;  // this file's SoCs so far (also the ones with errors, for duplicates)
    size_t index = 0;
    for (const YAML::Node& node : socs->value) {
      ++index;
      const size_t before = errorCount();
      const std::string name = peek(node, "name");
      const std::string scope = name.empty() ? "SoC #" + std::to_string(index) : "SoC '" + name + "'";
      Map m = readMap(node, scope, kSocKeys);
      if (!m.valid) continue;
      auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
      SocInfo soc;
      soc.mark = mark(node);
      bool idOk = false;
      if (const Entry* e = m.get("name")) {
        if (auto s = str(e->value, in("name"))) {
          auto dup = std::find_if(parsed.begin(), parsed.end(), [&](const SocInfo& x) { return x.name == *s; });
          if (dup != parsed.end())
            error(DiagCode::kInvalidValue, mark(e->value),
                  "SoC '" + *s + "' is listed twice; it is first listed at " + dup->mark.toString(),
                  "each SoC once", *s);
          soc.name = *s;
        }
      } else {
        missing(node, m, scope, "name");
      }
      if (const Entry* e = m.get("id")) {
        if (auto x = integer(e->value, in("id"), 0, std::numeric_limits<int>::max(), "0 or greater")) {
          soc.chipsetId = static_cast<int>(*x);
          idOk = true;
          auto dup = std::find_if(parsed.begin(), parsed.end(),
                                  [&](const SocInfo& s) { return s.chipsetId == soc.chipsetId; });
          if (dup != parsed.end())
            error(DiagCode::kInvalidValue, mark(e->value),
                  "SoC id " + std::to_string(*x) + " of " + scope + " is already the id of SoC '" + dup->name + "'",
                  "ids unique among the SoCs", std::to_string(*x));
        }
      } else {
        missing(node, m, scope, "id");
      }
      if (const Entry* e = m.get("htp_arch")) {
        if (auto a = readHtpArch(*this, e->value, in("htp_arch"))) soc.htpArch = *a;
      } else {
        missing(node, m, scope, "htp_arch");
      }
      if (const Entry* e = m.get("vtcm_mb")) {
        if (auto x = integer(e->value, in("vtcm_mb"), 0, std::numeric_limits<int>::max(), "0 or greater"))
          soc.vtcmMb = static_cast<int>(*x);
      } else {
        missing(node, m, scope, "vtcm_mb");
      }
      if (const Entry* e = m.get("lpai")) {
        if (auto s = str(e->value, in("lpai"))) soc.lpaiVersion = *s;
      }
      if (const Entry* e = m.get("marketing_name")) {
        if (auto s = str(e->value, in("marketing_name"))) soc.marketingName = *s;
      }
      const bool ok = errorCount() == before;
      parsed.push_back(soc);
      if (!idOk) parsed.back().chipsetId = -1;
      if (ok && fileOk) out.add(std::move(soc));
    }
  }
};

}  // namespace

void loadSocText(const std::string& text, const std::string& displayPath, SocTable& out, DiagnosticList& errors,
                 const LoadLimits& limits) {
  SocLoader l(displayPath, errors);
  l.setListKey("socs");
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the SoC file")) l.loadSocs(*root, out);
  });
}

void loadSocFile(const std::filesystem::path& file, const std::string& displayPath, SocTable& out,
                 DiagnosticList& errors, const LoadLimits& limits) {
  loadFileWith(file, displayPath, limits, errors, "SoC file",
               [&](const std::string& text) { loadSocText(text, displayPath, out, errors, limits); });
}

}  // namespace qnnrules
