// readOnnxModel in the engine: loads the ONNX reader module on first use (OnnxModule.h).
#include "OnnxModule.h"
#include "io/ReaderModule.h"
#include "qnnrules/io/OnnxReader.h"

namespace qnnrules {

GraphReadResult readOnnxModel(std::string_view bytes, const std::string& displayName) {
  static const ReaderModuleEntry<QnnrulesOnnxReadModel> module(QNNRULES_THIS_READER_MODULE("QNNRULES_ONNX_MODULE"),
                                                               QNNRULES_ONNX_MODULE_ENTRY);
  GraphReadResult out;
  if (!module.call) {
    out.status = Status(StatusCode::kIoError, "cannot read ONNX models: " + module.error, displayName);
    return out;
  }
  module.call(&bytes, &displayName, &out);
  return out;
}

}  // namespace qnnrules
