// Internal to the .pt2 reader: the zip container of a torch.export archive, read with libzip.
//
// torch.export.save writes every entry under one root folder named after the file
// (model.pt2 -> "model/archive_format", "model/models/model.json", ...; the names are in
// torch/export/pt2_archive/constants.py). The archive finds that root from the
// `archive_format` entry, so callers name entries relative to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/core/Status.h"

namespace qnnrules::pt2 {

class Archive {
 public:
  // Opens the zip and finds its root. A file that is not a zip, a truncated or corrupt zip,
  // or a zip without an `archive_format` entry is an error naming the file.
  static StatusOr<Archive> open(const std::filesystem::path& path);

  Archive(Archive&&) noexcept;
  Archive& operator=(Archive&&) noexcept;
  ~Archive();

  const std::string& displayName() const { return name_; }
  // The root folder with its trailing slash ("model/"), or "" when entries sit at the top.
  const std::string& root() const { return root_; }
  bool has(const std::string& entry) const;
  // Entry names below the root that start with `prefix`, relative to the root.
  std::vector<std::string> list(const std::string& prefix) const;
  // The bytes of an entry (relative to the root). Missing entries, entries larger than
  // `maxBytes`, and entries whose data does not decompress are errors naming the entry.
  StatusOr<std::string> read(const std::string& entry, uint64_t maxBytes) const;
  uint64_t size(const std::string& entry) const;  // 0 when missing
  // The archive file's own size in bytes.
  uint64_t fileBytes() const { return fileBytes_; }
  // At most `bytes` are decompressed by all reads together (a zip bomb guard): a read that
  // would pass it is refused before anything is allocated. Unlimited until set.
  void limitInflatedBytes(uint64_t bytes) { inflateBudget_ = bytes; }

 private:
  struct Zip;
  Archive(std::string name, std::unique_ptr<Zip> zip, std::string root, uint64_t fileBytes);
  std::optional<int64_t> indexOf(const std::string& entry) const;

  std::string name_;
  std::unique_ptr<Zip> zip_;
  std::string root_;
  uint64_t fileBytes_ = 0;
  uint64_t inflateBudget_ = UINT64_MAX;
  mutable uint64_t inflated_ = 0;
};

}  // namespace qnnrules::pt2
