// The ONNX model reader over arbitrary bytes (protobuf, then the graph walk).
#include "FuzzSupport.h"
#include "qnnrules/io/OnnxReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qnnrules::GraphReadResult r = qnnrules::readOnnxModel(qnnrules::fuzz::bytes(data, size), "fuzz.onnx");
  (void)r;
  return 0;
}
