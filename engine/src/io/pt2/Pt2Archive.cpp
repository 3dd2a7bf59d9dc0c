#include "Pt2Archive.h"

#include <zip.h>

namespace qnnrules::pt2 {

struct Archive::Zip {
  zip_t* z = nullptr;
  ~Zip() {
    if (z) zip_discard(z);  // read-only: nothing to write back
  }
};

namespace {

constexpr const char* kFormatEntry = "archive_format";

std::string zipErrorText(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string text = zip_error_strerror(&e);
  zip_error_fini(&e);
  return text;
}

}  // namespace

Archive::Archive(std::string name, std::unique_ptr<Zip> zip, std::string root, uint64_t fileBytes)
    : name_(std::move(name)), zip_(std::move(zip)), root_(std::move(root)), fileBytes_(fileBytes) {}
Archive::Archive(Archive&&) noexcept = default;
Archive& Archive::operator=(Archive&&) noexcept = default;
Archive::~Archive() = default;

StatusOr<Archive> Archive::open(const std::filesystem::path& path) {
  const std::string name = path.string();
  int err = 0;
  // ZIP_CHECKCONS: a truncated archive whose central directory disagrees with its local
  // headers is refused here instead of yielding garbage later.
  zip_t* z = zip_open(name.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!z)
    return Status(StatusCode::kParseError,
                  name + ": not a readable .pt2 archive (zip: " + zipErrorText(err) + ")", name);
  auto zip = std::make_unique<Zip>();
  zip->z = z;
  // The root is the folder holding `archive_format` (torch names it after the file, and a
  // renamed file keeps its old root), so it is found rather than guessed from the path.
  const zip_int64_t count = zip_get_num_entries(z, 0);
  std::optional<std::string> root;
  const std::string suffix = std::string("/") + kFormatEntry;
  for (zip_int64_t i = 0; i < count && !root; ++i) {
    const char* entry = zip_get_name(z, static_cast<zip_uint64_t>(i), 0);
    if (!entry) continue;
    std::string_view e(entry);
    if (e == kFormatEntry) root = "";
    else if (e.size() > suffix.size() && e.substr(e.size() - suffix.size()) == suffix &&
             e.substr(0, e.size() - suffix.size()).find('/') == std::string_view::npos)
      root = std::string(e.substr(0, e.size() - suffix.size() + 1));
  }
  if (!root)
    return Status(StatusCode::kSchemaError,
                  name + ": a zip file, but not a torch.export archive: it has no entry '<root>/" +
                      kFormatEntry + "'",
                  kFormatEntry);
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);
  return Archive(name, std::move(zip), std::move(*root), ec ? 0 : static_cast<uint64_t>(bytes));
}

std::optional<int64_t> Archive::indexOf(const std::string& entry) const {
  const std::string full = root_ + entry;
  zip_int64_t i = zip_name_locate(zip_->z, full.c_str(), 0);
  if (i < 0) return std::nullopt;
  return static_cast<int64_t>(i);
}

bool Archive::has(const std::string& entry) const { return indexOf(entry).has_value(); }

std::vector<std::string> Archive::list(const std::string& prefix) const {
  std::vector<std::string> out;
  const std::string full = root_ + prefix;
  const zip_int64_t count = zip_get_num_entries(zip_->z, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* entry = zip_get_name(zip_->z, static_cast<zip_uint64_t>(i), 0);
    if (entry && std::string_view(entry).substr(0, full.size()) == full) out.emplace_back(entry + root_.size());
  }
  return out;
}

uint64_t Archive::size(const std::string& entry) const {
  auto i = indexOf(entry);
  zip_stat_t st;
  zip_stat_init(&st);
  if (!i || zip_stat_index(zip_->z, static_cast<zip_uint64_t>(*i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return 0;
  return st.size;
}

StatusOr<std::string> Archive::read(const std::string& entry, uint64_t maxBytes) const {
  const std::string full = root_ + entry;
  auto i = indexOf(entry);
  if (!i)
    return Status(StatusCode::kSchemaError, name_ + ": the archive has no entry '" + full + "'", full);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_->z, static_cast<zip_uint64_t>(*i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return Status(StatusCode::kIoError, name_ + ": entry '" + full + "': cannot stat (zip: " +
                                            zip_strerror(zip_->z) + ")", full);
  if (st.size > maxBytes)
    return Status(StatusCode::kLimitExceeded,
                  name_ + ": entry '" + full + "' is " + std::to_string(st.size) + " bytes, above the limit of " +
                      std::to_string(maxBytes),
                  full);
  // libzip checks that the entry inflates to exactly st.size bytes (the read below), so the
  // declared size bounds the memory it takes.
  if (st.size > inflateBudget_ - inflated_)
    return Status(StatusCode::kLimitExceeded,
                  name_ + ": entry '" + full + "' inflates to " + std::to_string(st.size) + " bytes, which with the " +
                      std::to_string(inflated_) + " already read passes the limit of " + std::to_string(inflateBudget_) +
                      " bytes decompressed from this " + std::to_string(fileBytes_) +
                      "-byte archive (a zip bomb? docs/inputs.md, \"Reader limits\")",
                  full);
  inflated_ += st.size;
  zip_file_t* f = zip_fopen_index(zip_->z, static_cast<zip_uint64_t>(*i), 0);
  if (!f)
    return Status(StatusCode::kParseError,
                  name_ + ": entry '" + full + "' cannot be opened (zip: " + zip_strerror(zip_->z) + ")", full);
  std::string data(st.size, '\0');
  zip_int64_t got = data.empty() ? 0 : zip_fread(f, data.data(), data.size());
  // Reading past the end makes libzip verify the CRC of the whole entry.
  char probe = 0;
  zip_int64_t more = got == static_cast<zip_int64_t>(data.size()) ? zip_fread(f, &probe, 1) : 0;
  std::string why = got < 0 || more < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (got < 0 || more < 0 || static_cast<uint64_t>(got) != data.size() || more != 0)
    return Status(StatusCode::kParseError,
                  name_ + ": entry '" + full + "' is corrupt or truncated (zip: " +
                      (why.empty() ? std::string("short read") : why) + ")",
                  full);
  return data;
}

}  // namespace qnnrules::pt2
