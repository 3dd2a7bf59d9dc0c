// Where the engine finds its reader modules, and how it loads them. The ONNX reader (libonnx,
// libprotobuf) and the torch.export reader (libzip, which brings libcrypto, libbz2 and liblzma)
// are modules of their own, loaded with dlopen the first time a run reads such a file
// (OnnxModule.h, Pt2Module.h): a run that reads none never loads those libraries, whose symbol
// relocation and static initialisers were most of every process's start-up (docs/performance.md,
// "Cold start, measured"). Internal to the engine.
#pragma once

#include <filesystem>
#include <string>

namespace qnnrules {


// One module's file name and the places a build and an install put it (set by
// qnnrules_reader_module in engine/CMakeLists.txt).
struct ReaderModuleLocation {
  const char* fileName;       // libqnnrules_onnx.so
  const char* envVariable;    // QNNRULES_ONNX_MODULE: an explicit path, tried alone
  const char* installSubdir;  // lib/qnnrules, relative to the prefix of an installed tool
  const char* buildPath;      // the module in this build tree
  const char* installPath;    // the configured install location
};

// The module's entry symbol `entry`, loading the module on the first call; nullptr with
// *error saying why when no candidate loads or exports it. The module is never closed: the
// graphs it returns hold its code's data (vtables, allocators) for the rest of the process.
void* loadReaderModuleEntry(const ReaderModuleLocation& where, const char* entry, std::string* error);

// A module's entry function of type Fn, loaded once: hold it in a function-local static.
template <class Fn>
struct ReaderModuleEntry {
  std::string error;  // why the module could not be loaded, when call is null (first: call's initialiser writes it)
  Fn call = nullptr;
  ReaderModuleEntry(const ReaderModuleLocation& where, const char* entry)
      : call(reinterpret_cast<Fn>(loadReaderModuleEntry(where, entry, &error))) {}
};

// The location of the module whose loader this source is: qnnrules_reader_module in
// engine/CMakeLists.txt defines the QNNRULES_MODULE_* macros for that one source.
#define QNNRULES_THIS_READER_MODULE(envVariable)                                                     \
  ::qnnrules::ReaderModuleLocation{QNNRULES_MODULE_FILE_NAME, envVariable, QNNRULES_MODULE_INSTALL_SUBDIR, \
                                   QNNRULES_MODULE_BUILD_PATH, QNNRULES_MODULE_INSTALL_PATH}

}  // namespace qnnrules
