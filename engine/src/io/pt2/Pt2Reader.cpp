// A torch.export archive -> Graph: check the container and versions, parse the program JSON,
// build the graph (Pt2Program.cpp), and read the few lifted tensors whose values a converted
// graph's quantize/dequantize nodes need (Pt2Tensor.cpp).
#include "qnnrules/io/Pt2Reader.h"

#include <fstream>
#include <map>

#include "io/CheckedArith.h"
#include "io/JsonText.h"
#include "Pt2Archive.h"
#include "Pt2Module.h"
#include "Pt2Json.h"
#include "Pt2Program.h"
#include "Pt2Tensor.h"

namespace qnnrules {
namespace {

using pt2::Archive;
using pt2::Json;

// Thrown inside the reader when an entry cannot be read; caught in parsePt2File.
struct EntryError {
  Status status;
};

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string lineColumn(std::string_view text, size_t offset) {
  uint32_t line = 1, column = 1;
  jsontext::lineColumnOf(text, offset, line, column);
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

class Reader {
 public:
  Reader(Archive archive, const GraphReadOptions& options) : a_(std::move(archive)), options_(options) {}

  nlohmann::json parseEntry(const std::string& entry) {
    StatusOr<std::string> text = a_.read(entry, options_.maxFileBytes);
    if (!text.isOk()) throw EntryError{text.status()};
    const std::string where = a_.displayName() + ": entry '" + a_.root() + entry + "'";
    // Values bounded by the archive's size: a DOM takes 16 to 100 bytes a value, so "[0,0,…"
    // inflated from a small archive would take many times its text.
    const uint64_t maxValues =
        checked::add(options_.jsonValueFloor, checked::mul(options_.jsonValuesPerByte, a_.fileBytes()).value_or(UINT64_MAX))
            .value_or(UINT64_MAX);
    if (jsontext::JsonExcess x = jsontext::findExcessiveDepthOrValues(*text, options_.maxDepth, maxValues);
        x.at != std::string_view::npos)
      throw EntryError{Status(StatusCode::kLimitExceeded,
                              where + (x.tooDeep ? ": JSON nested deeper than " + std::to_string(options_.maxDepth) + " levels"
                                                 : ": JSON with more than " + std::to_string(maxValues) +
                                                       " values, the limit for a " + std::to_string(a_.fileBytes()) +
                                                       "-byte archive (docs/inputs.md, \"Reader limits\")") +
                                  " at " + lineColumn(*text, x.at),
                              a_.root() + entry)};
    try {
      return nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error& e) {
      std::string what = e.what();
      // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." ->
      // what follows the position says what was expected.
      if (size_t colon = what.find(": ", what.find("parse error")); colon != std::string::npos)
        what = what.substr(colon + 2);
      throw EntryError{Status(StatusCode::kParseError,
                              where + ": malformed JSON at " + lineColumn(*text, e.byte > 0 ? e.byte - 1 : 0) +
                                  ": " + what,
                              a_.root() + entry)};
    } catch (const nlohmann::json::out_of_range& e) {
      // 406: a number beyond double ("1e400"). The library names the number but not where: the
      // first such literal in the text is found for line:column.
      std::string what = e.what();
      std::string number;
      if (size_t q = what.find('\''); q != std::string::npos) number = what.substr(q + 1, what.rfind('\'') - q - 1);
      const size_t at = number.empty() ? std::string_view::npos : std::string_view(*text).find(number);
      throw EntryError{Status(StatusCode::kParseError,
                              where + ": the number " + (number.empty() ? std::string("") : number + " ") +
                                  "is beyond double's range" +
                                  (at == std::string_view::npos ? std::string() : " at " + lineColumn(*text, at)),
                              a_.root() + entry)};
    }
  }

  void checkContainer() {
    StatusOr<std::string> format = a_.read("archive_format", 64);
    if (!format.isOk()) throw EntryError{format.status()};
    if (trim(*format) != "pt2")
      throw EntryError{Status(StatusCode::kSchemaError,
                              a_.displayName() + ": entry '" + a_.root() + "archive_format' says '" + trim(*format) +
                                  "', expected 'pt2'",
                              a_.root() + "archive_format")};
    if (a_.has("archive_version")) {
      StatusOr<std::string> version = a_.read("archive_version", 64);
      if (!version.isOk()) throw EntryError{version.status()};
      const std::string v = trim(*version);
      if (v != "0")
        throw EntryError{Status(StatusCode::kSchemaError,
                                a_.displayName() + ": archive version " + v +
                                    " is not one this reader knows (it reads archive version 0, torch 2.14)",
                                a_.root() + "archive_version")};
    }
  }

  // models/model.json, or the only models/*.json there is.
  std::string modelEntry() {
    if (a_.has("models/model.json")) return "models/model.json";
    std::vector<std::string> models;
    for (std::string& e : a_.list("models/"))
      if (e.size() > 5 && e.substr(e.size() - 5) == ".json" && e.find('/', 7) == std::string::npos) models.push_back(e);
    if (models.size() == 1) return models[0];
    std::string names;
    for (const std::string& m : models) names += (names.empty() ? "" : ", ") + a_.root() + m;
    throw EntryError{Status(StatusCode::kSchemaError,
                            a_.displayName() + ": " +
                                (models.empty() ? "the archive has no exported program (no entry '" + a_.root() +
                                                      "models/<name>.json'); an AOTInductor package?"
                                                : "the archive holds several programs (" + names +
                                                      "); qnn-validate reads one"),
                            a_.root() + "models/")};
  }

  void checkSchemaVersion(const nlohmann::json& program, const std::string& entry) {
    Json root(program, "");
    Json v = root.at("schema_version");
    const int64_t major = v.at("major").integer(), minor = v.at("minor").integer();
    if (major < 0 || minor < 0)
      throw EntryError{Status(StatusCode::kSchemaError,
                              a_.displayName() + ": entry '" + a_.root() + entry + "' has ExportedProgram schema version " +
                                  std::to_string(major) + "." + std::to_string(minor) + ": a version is >= 0",
                              a_.root() + entry)};
    if (major > kPt2SchemaMajor) {
      std::string torch;
      if (auto t = root.find("torch_version"); t && t->isString()) torch = " by torch " + std::string(t->string());
      throw EntryError{Status(
          StatusCode::kSchemaError,
          a_.displayName() + ": entry '" + a_.root() + entry + "' was written" + torch +
              " with ExportedProgram schema version " + std::to_string(major) + "." + std::to_string(minor) +
              ", newer than this reader knows (" + std::to_string(kPt2SchemaMajor) + "." +
              std::to_string(kPt2SchemaMinor) + ", torch 2.14); save it with torch 2.14 or update qnnrules",
          a_.root() + entry)};
    }
  }

  // The values of a lifted tensor, read from its payload (Pt2Tensor.h); cached per name.
  std::optional<std::vector<double>> values(const std::string& placeholder) {
    if (auto it = cache_.find(placeholder); it != cache_.end()) return it->second;
    std::optional<std::vector<double>>& out = cache_[placeholder];
    auto it = lifted_->find(placeholder);
    if (it == lifted_->end() || it->second.store == pt2::LiftedInput::Store::kNone) return out;
    const bool weights = it->second.store == pt2::LiftedInput::Store::kWeights;
    const std::string config = weights ? "data/weights/" + model_ + "_weights_config.json"
                                       : "data/constants/" + model_ + "_constants_config.json";
    auto cfg = configs_.find(config);
    if (cfg == configs_.end()) cfg = configs_.emplace(config, parseEntry(config)).first;
    try {
      std::optional<pt2::Payload> payload = pt2::findPayload(Json(cfg->second, ""), it->second.fqn);
      if (!payload || payload->pickled) return out;
      // Scales would otherwise be dropped without a word (decode reads the machine's order).
      if (!littleEndian())
        throw EntryError{Status(StatusCode::kSchemaError,
                                a_.displayName() + ": entry '" + a_.root() +
                                    "byteorder' says the tensors are big-endian; qnnrules reads little-endian archives "
                                    "(torch.export.save on x86 and ARM writes those)",
                                a_.root() + "byteorder")};
      const std::string file = (weights ? "data/weights/" : "data/constants/") + payload->file;
      // Scales and zero points are small; a large storage is weights and is never needed.
      if (a_.size(file) > pt2::kMaxPayloadBytes) return out;
      StatusOr<std::string> bytes = a_.read(file, pt2::kMaxPayloadBytes);
      if (!bytes.isOk()) throw EntryError{bytes.status()};
      out = pt2::decode(*payload, *bytes, littleEndian(), options_.maxQParamElements,
                        "/config/" + it->second.fqn + "/tensor_meta");
    } catch (const pt2::SchemaError& e) {
      throw EntryError{Status(StatusCode::kSchemaError,
                              a_.displayName() + ": entry '" + a_.root() + config + "' at " + e.pointer + ": " + e.what(),
                              a_.root() + config)};
    }
    return out;
  }

  GraphReadResult run() {
    GraphReadResult r;
    checkContainer();
    const std::string entry = modelEntry();
    model_ = entry.substr(7, entry.size() - 7 - 5);  // models/<name>.json
    nlohmann::json program = parseEntry(entry);
    try {
      checkSchemaVersion(program, entry);
      std::unordered_map<std::string, pt2::LiftedInput> lifted = pt2::readSignature(program);
      lifted_ = &lifted;
      r.graph = pt2::buildGraph(program, lifted, [this](const std::string& p) { return values(p); });
    } catch (const pt2::SchemaError& e) {
      throw EntryError{Status(StatusCode::kSchemaError,
                              a_.displayName() + ": entry '" + a_.root() + entry + "' at " + e.pointer + ": " +
                                  e.what(),
                              e.pointer)};
    }
    std::string root = a_.root();
    if (!root.empty()) root.pop_back();
    r.graph.name = root.empty() ? model_ : root;
    r.graph.source = GraphSource::kPt2;
    if (Status st = r.graph.verify(); !st.isOk()) {
      r.status = Status(st.code(), a_.displayName() + ": " + st.message(), st.fragment());
      r.graph = Graph();
    }
    return r;
  }

 private:
  bool littleEndian() {
    if (!byteorder_) {
      StatusOr<std::string> b = a_.has("byteorder") ? a_.read("byteorder", 64) : StatusOr<std::string>("little");
      byteorder_ = b.isOk() ? trim(*b) : "little";
    }
    return *byteorder_ == "little";
  }

  Archive a_;
  const GraphReadOptions& options_;
  std::string model_;
  const std::unordered_map<std::string, pt2::LiftedInput>* lifted_ = nullptr;
  std::map<std::string, nlohmann::json> configs_;
  std::unordered_map<std::string, std::optional<std::vector<double>>> cache_;
  std::optional<std::string> byteorder_;
};

}  // namespace

GraphReadResult parsePt2File(const std::filesystem::path& path, const GraphReadOptions& options) {
  GraphReadResult r;
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    r.status = Status(std::filesystem::exists(path, ec) ? StatusCode::kIoError : StatusCode::kNotFound,
                      name + (std::filesystem::exists(path, ec) ? ": not a regular file" : ": no such file"), name);
    return r;
  }
  StatusOr<Archive> archive = Archive::open(path);
  if (!archive.isOk()) {
    r.status = archive.status();
    return r;
  }
  archive->limitInflatedBytes(
      checked::add(options.inflateFloorBytes, checked::mul(options.inflateRatio, archive->fileBytes()).value_or(UINT64_MAX))
          .value_or(UINT64_MAX));
  try {
    return Reader(std::move(*archive), options).run();
  } catch (const EntryError& e) {
    r.status = e.status;
  } catch (const pt2::SchemaError& e) {  // a payload config that breaks the schema
    r.status = Status(StatusCode::kSchemaError, name + ": at " + e.pointer + ": " + e.what(), e.pointer);
  } catch (const nlohmann::json::exception& e) {
    r.status = Status(StatusCode::kSchemaError, name + ": " + e.what(), name);
  }
  r.graph = Graph();
  return r;
}

}  // namespace qnnrules
