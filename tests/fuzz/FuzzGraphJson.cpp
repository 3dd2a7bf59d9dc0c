// The JSON graph reader: never a crash, and a differential check of its two ways of reading
// with simdjson (node by node, GraphStreamedRead.h, and the whole document): the same status,
// the same errors and, when the graph is read, the same graph written back. The nlohmann
// reference parser runs too (crashes only: it drops duplicate keys, so it may accept more).
#include "FuzzSupport.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"

namespace {

std::string describe(const qnnrules::GraphReadResult& r) {
  std::string s = std::to_string(static_cast<int>(r.status.code())) + " " + r.status.message() + "\n";
  for (const qnnrules::Diagnostic& d : r.errors) s += d.port + ": " + d.message + " / " + d.expected + " / " + d.actual + "\n";
  if (r.ok()) s += qnnrules::writeGraphText(r.graph);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  const std::string_view text = fuzz::bytes(data, size);
  GraphReadOptions byNode;
  GraphReadOptions whole;
  whole.nodeByNode = false;
  GraphReadOptions reference;
  reference.parser = JsonParser::kNlohmann;
  const std::string a = describe(readGraphText(text, "fuzz.json", byNode));
  const std::string b = describe(readGraphText(text, "fuzz.json", whole));
  if (a != b) fuzz::violated("node-by-node and whole-document reading differ", "node by node:\n" + a + "\nwhole:\n" + b);
  (void)readGraphText(text, "fuzz.json", reference);
  return 0;
}
