#include "YamlDocuments.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace qnnrules::yamldocs {
namespace {

// Notes where documents begin; ignores their content.
class DocumentStarts final : public YAML::EventHandler {
 public:
  int count = 0;
  YAML::Mark second;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++count == 2) second = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

DocumentCount countDocuments(const std::string& text, int limit) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (starts.count < limit && parser.HandleNextDocument(starts)) {
  }
  return {starts.count, starts.second};
}

}  // namespace qnnrules::yamldocs
