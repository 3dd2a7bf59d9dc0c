// The entry point of the torch.export reader module (Pt2Module.h); compiled into the module only.
#include "Pt2Module.h"

extern "C" __attribute__((visibility("default"))) void qnnrules_pt2_read_file(
    const std::filesystem::path* path, const qnnrules::GraphReadOptions* options, qnnrules::GraphReadResult* out) {
  *out = qnnrules::parsePt2File(*path, *options);
}
