// read -> fold -> annotate -> validate -> encodings -> write -> read back: whatever the tool
// writes must read back (issue 14). A written graph the reader rejects aborts with its errors.
#include <exception>

#include "FuzzSupport.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/passes/QdqFold.h"

namespace {

void readsBack(const qnnrules::Graph& g, const char* stage) {
  std::string text;
  try {
    text = qnnrules::writeGraphText(g);
  } catch (const std::exception&) {
    return;  // not serializable (invalid UTF-8 from a binary reader): writeGraphFile reports it
  }
  qnnrules::GraphReadResult back = qnnrules::readGraphText(text, stage);
  if (back.ok()) return;
  std::string why = back.status.message();
  for (const qnnrules::Diagnostic& d : back.errors) why += "\n" + qnnrules::formatText(d);
  qnnrules::fuzz::violated(stage, why + "\n--- written:\n" + text.substr(0, 4000));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  GraphReadResult r = readGraphText(fuzz::bytes(data, size), "fuzz.json");
  if (!r.ok()) return 0;
  const Engine& engine = fuzz::builtinEngine();
  if (isQdqGraph(r.graph)) {
    QdqFoldResult folded = foldQdq(r.graph);
    if (folded.status.isOk()) readsBack(folded.graph, "the QDQ-folded graph");
  }
  Graph g = r.graph;
  AnnotateOptions ao;
  ao.config = size % 2 ? "16a8w:per_channel" : "8a8w";
  AnnotateResult a = engine.annotate(g, ao);
  GraphAnalysis analysis = engine.analyze(g);
  (void)analysis.delegationJson();
  EncodingsResult enc = computeEncodings(g, engine.rules());
  (void)encodingsToJson(enc, g.name, a.config, a.qat);
  if (a.status.isOk()) readsBack(g, "the annotated graph");
  return 0;
}
