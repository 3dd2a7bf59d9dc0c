#include "RunningObject.h"

#include <dlfcn.h>
#include <link.h>

namespace qnnrules {
namespace fs = std::filesystem;
namespace {

const char kAnchor = 0;  // an object of this library, whose address dladdr resolves

}  // namespace

fs::path runningObjectPath() {
  Dl_info info{};
  link_map* map = nullptr;
  if (!dladdr1(&kAnchor, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP)) return {};
  std::error_code ec;
  // The main program's link map has no name, and dladdr then reports argv[0]: a bare name
  // when the program was found through PATH, a wrong one after exec -a. The kernel knows.
  const bool mainProgram = map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0';
  fs::path p = mainProgram ? fs::read_symlink("/proc/self/exe", ec)
                           : fs::canonical(info.dli_fname ? info.dli_fname : "", ec);
  if (ec || p.empty()) return {};
  if (mainProgram) p = fs::canonical(p, ec);  // the link names the file; canonical resolves its directories
  return ec ? fs::path() : p;
}

}  // namespace qnnrules
