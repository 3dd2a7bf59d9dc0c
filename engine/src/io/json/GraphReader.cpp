// Graph files -> Graph: picks the front end by content (JSON graph, .pt2 archive, ONNX),
// enforces the size and nesting limits, parses, and runs the schema walk
// (GraphSchemaReader.h) over the parsed document.
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/OnnxReader.h"

#include <algorithm>
#include <functional>
#include <fstream>
#include <memory>

#include "GraphParseError.h"
#include "GraphSchemaReader.h"
#include "GraphStreamedRead.h"
#include "PaddedText.h"
#include "io/JsonText.h"
#include "JsonValue.h"
#include "qnnrules/io/Pt2Reader.h"

namespace qnnrules {
namespace {

using graphschema::Reader;
using jsontext::findExcessiveNesting;
using jsontext::lineColumnOf;
using jsontext::malformedJson;

// Walks a parsed document into `r`; the document must outlive the call.
template <typename V>
void readDocument(const V& root, const std::string& displayName, GraphReadResult& r) {
  Reader<V> reader(displayName, r);
  reader.read(root);
  if (!r.errors.empty()) {
    const Diagnostic& first = r.errors.front();
    r.status = Status(StatusCode::kSchemaError,
                      displayName + ": " + std::to_string(r.errors.size()) + " schema error(s); first: " +
                          first.message + " (expected " + first.expected + ", got " + first.actual + ")",
                      first.port);
    r.graph = Graph();
    return;
  }
  if (Status st = r.graph.verify(); !st.isOk()) {
    r.status = Status(st.code(), displayName + ": " + st.message(), st.fragment());
    r.graph = Graph();
  }
}

// Reads the file `path` into `text` (PaddedText.h): one read of the size stat reported (a
// file that shrank meanwhile reads shorter), or the whole stream when the size is unknown
// (kUnknownSize).
constexpr uintmax_t kUnknownSize = UINTMAX_MAX;
Status readFileInto(const std::filesystem::path& path, uintmax_t size, PaddedText& text,
                    uintmax_t limit = kUnknownSize) {
  const std::string name = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kIoError, name + ": cannot be read", name);
  auto noMemory = [&](size_t n) {
    return Status(StatusCode::kLimitExceeded, name + ": no memory for its " + std::to_string(n) + " bytes", name);
  };
  if (size != kUnknownSize) {
    if (!text.allocate(static_cast<size_t>(size))) return noMemory(static_cast<size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.setLength(static_cast<size_t>(in.gcount()));
    if (in.eof()) in.clear(in.rdstate() & ~(std::ios::eofbit | std::ios::failbit));
  } else {
    // No size to trust (procfs and sysfs files say 0): read what is there, at most one byte
    // past the limit, so a file that never ends is refused rather than read whole.
    std::string all;
    char chunk[1 << 16];
    while (in && all.size() <= limit) {
      in.read(chunk, sizeof chunk);
      all.append(chunk, static_cast<size_t>(in.gcount()));
    }
    if (in.eof()) in.clear(in.rdstate() & ~(std::ios::eofbit | std::ios::failbit));
    if (all.size() > limit)
      return Status(StatusCode::kLimitExceeded,
                    name + ": the graph is more than " + std::to_string(limit) + " bytes, the limit", name);
    if (!text.allocate(all.size())) return noMemory(all.size());
    std::copy(all.begin(), all.end(), text.data());
  }
  if (in.bad()) return Status(StatusCode::kIoError, name + ": read error", name);
  return Status::ok();
}

// Files from this size on give back the pages of text the node-by-node reading has read.
constexpr size_t kReleaseTextFrom = size_t{16} << 20;

// A document nested deeper than the limit is refused before it is parsed (a parser recursing
// over it could exhaust the stack), with the line and column where it goes too deep.
bool refuseExcessiveNesting(std::string_view text, const std::string& displayName, const GraphReadOptions& options,
                            GraphReadResult& r) {
  const size_t at = findExcessiveNesting(text, options.maxDepth);
  if (at == std::string_view::npos) return false;
  uint32_t line, column;
  lineColumnOf(text, at, line, column);
  r.status = Status(StatusCode::kLimitExceeded,
                    displayName + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": JSON nested deeper than " + std::to_string(options.maxDepth) + " levels",
                    displayName);
  return true;
}

// `text` must have simdjson::SIMDJSON_PADDING readable bytes after its end when `padded`.
// When `owner` holds the text, it is released as soon as the DOM is built: the schema walk
// reads the DOM only, so the file's bytes need not stay resident next to the Graph.
GraphReadResult readText(std::string_view text, bool padded, const std::string& displayName,
                         const GraphReadOptions& options, PaddedText* owner = nullptr,
                         const std::function<Status(PaddedText&)>& reload = {}) {
  GraphReadResult r;
  if (text.size() > options.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      displayName + ": the graph is " + std::to_string(text.size()) + " bytes, above the limit of " +
                          std::to_string(options.maxFileBytes),
                      displayName);
    return r;
  }
  if (options.parser == JsonParser::kNlohmann) {
    if (refuseExcessiveNesting(text, displayName, options, r)) return r;
    nlohmann::json root;
    try {
      root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {  // parse errors, and numbers beyond double
      r.status = malformedJson(text, displayName, "");
      return r;
    }
    readDocument(jsonview::Nlohmann(root), displayName, r);
    return r;
  }
  // Node by node when the file is well formed and within the nesting limit
  // (GraphStreamedRead.h, whose scan checks the depth); any error, and the whole document is
  // read below, whose errors are the ones reported. A large file's text is
  // given back as it is read, and read again from the file if the whole document is needed.
  simdjson::padded_string copy;
  if (options.nodeByNode) {
    // A buffer of its own, which node-by-node reading writes to while it reads (and restores).
    char* buffer = owner ? owner->data() : nullptr;
    if (!buffer) {
      copy = simdjson::padded_string(text);
      text = copy;
      buffer = copy.data();
      padded = true;
    }
    std::function<void(size_t)> consumed;
    if (owner && reload && text.size() >= kReleaseTextFrom)
      consumed = [owner](size_t offset) { owner->releaseBefore(offset); };
    if (readGraphStreamed(buffer, text.size(), options.maxDepth, displayName, r, consumed)) {
      if (owner) owner->reset();
      return r;
    }
    if (owner && owner->released() > 0) {
      if (Status st = reload(*owner); !st.isOk()) {
        r.status = st;
        return r;
      }
      text = owner->view();
    }
  }
  if (refuseExcessiveNesting(text, displayName, options, r)) return r;
  // The document lives apart from the parser so that the parser's structural index (4 bytes
  // per JSON token) is freed with it before the walk, as is the text itself.
  simdjson::dom::document document;
  simdjson::dom::element root;
  simdjson::error_code err;
  {
    simdjson::dom::parser parser;
    err = parser.parse_into_document(document, text.data(), text.size(), /*realloc_if_needed=*/!padded).get(root);
  }
  if (err != simdjson::SUCCESS) {
    if (err == simdjson::MEMALLOC || err == simdjson::CAPACITY)
      r.status = Status(StatusCode::kLimitExceeded, displayName + ": " + simdjson::error_message(err), displayName);
    else
      r.status = malformedJson(text, displayName, simdjson::error_message(err));
    return r;
  }
  if (owner) owner->reset();
  readDocument(jsonview::Simdjson(root), displayName, r);
  return r;
}

}  // namespace

GraphReadResult readGraphText(std::string_view text, const std::string& displayName, const GraphReadOptions& options) {
  return readText(text, /*padded=*/false, displayName, options);
}

// In the engine, not the PT2 module: deciding that a file is an archive must not load the module.
bool isZipFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}

// torch.export archives (.pt2) are zip files: "PK\3\4" at the start, whatever the name.
static std::optional<GraphReadResult> readIfPt2Archive(const std::filesystem::path& path, const GraphReadOptions& options) {
  if (!isZipFile(path)) return std::nullopt;
  return readPt2File(path, options);
}

// ONNX models (io/OnnxReader.h), chosen by content: a JSON graph starts with '{' after
// whitespace and a BOM, a torch .pt2 archive with the ZIP magic; anything else is tried as an
// ONNX protobuf. Text that does not parse as one goes to the JSON reader, whose error names a
// line and column.
static std::optional<GraphReadResult> readIfOnnx(std::string_view bytes, const std::string& name) {
  std::string_view head = bytes;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  while (!head.empty() && (head[0] == ' ' || head[0] == '\t' || head[0] == '\n' || head[0] == '\r')) head.remove_prefix(1);
  if (head.empty() || head[0] == '{' || bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4)) return std::nullopt;
  GraphReadResult r = readOnnxModel(bytes, name);
  const bool printable = static_cast<unsigned char>(head[0]) >= 0x20 && static_cast<unsigned char>(head[0]) < 0x7f;
  if (!r.ok() && r.status.code() == StatusCode::kParseError && printable) return std::nullopt;
  return r;
}

GraphReadResult readGraphFile(const std::filesystem::path& path, const GraphReadOptions& options) {
  GraphReadResult r;
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    r.status = Status(StatusCode::kNotFound, name + ": no such file", name);
    return r;
  }
  if (std::filesystem::is_directory(path, ec)) {
    r.status = Status(StatusCode::kIoError, name + ": is a directory, not a graph file", name);
    return r;
  }
  // A device has no size to check against the limit (/dev/zero never ends) and a FIFO with no
  // writer blocks the read forever: only regular files (or symlinks to them) are graphs.
  if (!std::filesystem::is_regular_file(path, ec)) {
    r.status = Status(StatusCode::kIoError,
                      name + ": is not a regular file (a device, FIFO or socket); give the path of a graph file", name);
    return r;
  }
  if (std::optional<GraphReadResult> pt2 = readIfPt2Archive(path, options)) return std::move(*pt2);
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > options.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      name + ": the graph is " + std::to_string(size) + " bytes, above the limit of " +
                          std::to_string(options.maxFileBytes),
                      name);
    return r;
  }
  // One read into a buffer with simdjson's padding after the text, so the parser needs no copy.
  PaddedText text;
  // A regular file whose size says 0 may still hold text (/proc/self/maps): read it to its end.
  if (Status st = readFileInto(path, ec || size == 0 ? kUnknownSize : size, text, options.maxFileBytes); !st.isOk()) {
    r.status = st;
    return r;
  }
  if (text.size() == 0) {
    r.status = Status(StatusCode::kParseError, name + ": the file is empty (expected a JSON graph)", name);
    return r;
  }
  if (std::optional<GraphReadResult> onnx = readIfOnnx(text.view(), name)) return std::move(*onnx);
  // The whole document is needed after node-by-node reading gave back part of the text: the
  // same file read again, which must still have the same size.
  const size_t length = text.size();
  auto reload = [&path, &name, length](PaddedText& t) {
    if (Status st = readFileInto(path, length, t); !st.isOk()) return st;
    if (t.size() != length)
      return Status(StatusCode::kIoError, name + ": the file changed while it was being read", name);
    return Status::ok();
  };
  return readText(text.view(), /*padded=*/true, name, options, &text, reload);
}

}  // namespace qnnrules
