// Where the engine looks for its reader modules: the ONNX and torch.export readers are shared
// modules (libqnnrules_onnx.so, libqnnrules_pt2.so) loaded the first time a file of theirs is
// read (docs/embedding.md, "Reader modules"). In order, the first that loads wins:
//   1. $QNNRULES_ONNX_MODULE / $QNNRULES_PT2_MODULE: an explicit path, tried alone;
//   2. the directories given to addReaderModuleDirectory, in the order given (a program that
//      uses the installed CMake package gets its package's module directory here by itself);
//   3. beside the object the engine runs from (the executable, found through /proc/self/exe,
//      or the shared library / Python extension that links the engine, found with dladdr);
//   4. <that object's directory>/../lib/qnnrules (an installed tool in <prefix>/bin), then, for
//      a wheel's command in <package>/bin, <package>/ (where the Python extension finds them);
//   5. the build tree's modules, for a program of that build tree;
//   6. the install location configured when the engine was built.
#pragma once

#include <filesystem>

namespace qnnrules {

// Adds a directory searched for reader modules before the ones found from the running
// program (2. above). Call it before the first ONNX or .pt2 file is read; a module once
// loaded stays loaded.
void addReaderModuleDirectory(const std::filesystem::path& dir);

namespace detail {
inline bool registerPackageReaderModuleDirectory(const char* dir) {
  addReaderModuleDirectory(dir);
  return true;
}
}  // namespace detail

// The installed CMake package (cmake/qnnrulesConfig.cmake.in) defines QNNRULES_PACKAGE_MODULE_DIR
// for every target that links qnnrules::engine: the module directory of the installation that
// find_package found, wherever it was installed or moved to. Registered at start-up.
#ifdef QNNRULES_PACKAGE_MODULE_DIR
inline const bool qnnrulesPackageReaderModuleDirectory =
    detail::registerPackageReaderModuleDirectory(QNNRULES_PACKAGE_MODULE_DIR);
#endif

}  // namespace qnnrules
