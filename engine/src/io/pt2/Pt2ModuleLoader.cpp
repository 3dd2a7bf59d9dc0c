// readPt2File in the engine: loads the torch.export reader module on first use (Pt2Module.h).
#include "Pt2Module.h"
#include "io/ReaderModule.h"
#include "qnnrules/io/Pt2Reader.h"

namespace qnnrules {

GraphReadResult readPt2File(const std::filesystem::path& path, const GraphReadOptions& options) {
  static const ReaderModuleEntry<QnnrulesPt2ReadFile> module(QNNRULES_THIS_READER_MODULE("QNNRULES_PT2_MODULE"),
                                                             QNNRULES_PT2_MODULE_ENTRY);
  GraphReadResult out;
  if (!module.call) {
    out.status = Status(StatusCode::kIoError, "cannot read torch.export archives: " + module.error, path.string());
    return out;
  }
  module.call(&path, &options, &out);
  return out;
}

}  // namespace qnnrules
