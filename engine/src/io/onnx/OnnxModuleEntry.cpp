// The entry point of the ONNX reader module (OnnxModule.h); compiled into the module only.
#include "OnnxModule.h"

extern "C" __attribute__((visibility("default"))) void qnnrules_onnx_read_model(
    const std::string_view* bytes, const std::string* displayName, qnnrules::GraphReadResult* out) {
  *out = qnnrules::parseOnnxModel(*bytes, *displayName);
}
