// The engine's compiled table of ONNX op types (engine/src/model/OnnxOpTypes.h) against the
// schema registry of the ONNX library this build links: the rule loader must know exactly the
// op types it knew when it asked the registry itself.
#include <gtest/gtest.h>

#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>
#include <string>

#include "model/OnnxOpTypes.h"

namespace qnnrules {
namespace {

TEST(OnnxOpTypes, TheTableIsTheLinkedSchemasPlusTheNewerOps) {
  std::set<std::string> expected;
  for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas())
    if (s.domain().empty() || s.domain() == "ai.onnx") expected.insert(s.Name());
  ASSERT_GT(expected.size(), 150u);
  for (std::string_view newer : onnxOpTypesNewerThanLinked()) {
    EXPECT_FALSE(expected.contains(std::string(newer))) << newer << " is in the linked library now";
    expected.insert(std::string(newer));
  }
  const auto table = onnxDefaultDomainOpTypes();
  EXPECT_TRUE(std::is_sorted(table.begin(), table.end()));
  EXPECT_EQ(std::set<std::string>(table.begin(), table.end()), expected);
}

}  // namespace
}  // namespace qnnrules
