// Reading a JSON graph node by node. The whole-document reading builds simdjson's DOM of the
// file and then the Graph from it, so its peak memory is both (a 450 MB file: a 1 GB DOM next to
// a 1.1 GB Graph), and the schema walk reads a DOM written long before, out of cache. Here a
// first pass (a scan of the text's brackets and quotes) only finds where each node's text is;
// nodes are then parsed a batch at a time into a small DOM that the walk reads while it is hot. Internal to
// the graph reader (GraphReader.cpp).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "qnnrules/io/GraphReader.h"

namespace qnnrules {

// Reads the `size` bytes at `buffer` (with simdjson::SIMDJSON_PADDING readable bytes after
// them), nested at most `maxDepth` levels, into r.graph node by node, with the schema walk of
// GraphSchemaReader.h. The buffer is written to while it is read (a byte on each side of a
// batch of nodes, put back after its parse) and is as it was when this returns. True when the
// graph was read and verified without any error. False, with `r` as it was, when anything is
// unusual or wrong: the caller then reads the whole document, and only that reading's errors
// are ever reported, so their messages, JSON pointers and order are the same whichever way a
// file is read. `consumed`, when set, is told after each batch of nodes the offset in the
// buffer before which it will not be read again (the caller may give those pages back).
bool readGraphStreamed(char* buffer, size_t size, int maxDepth, const std::string& displayName, GraphReadResult& r,
                       const std::function<void(size_t)>& consumed = {});

}  // namespace qnnrules
