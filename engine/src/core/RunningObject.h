// The file the engine's code runs from. Internal to the engine.
#pragma once

#include <filesystem>

namespace qnnrules {

// The file the engine runs from, canonical: the executable (/proc/self/exe) when the engine is
// linked into it, else the shared object that links it (a Python extension, an embedder's
// library), found with dladdr. Empty when neither can be found.
std::filesystem::path runningObjectPath();

}  // namespace qnnrules
