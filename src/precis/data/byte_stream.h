// Byte streams for the dataset readers: a plain file or an lz4 frame (apt stores its lists
// as `*.lz4`), read in chunks so that a reader never holds a whole large file in memory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>

namespace precis::data {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Fills up to `size` bytes; returns 0 only at the end of the stream. Throws precis::Error
  // (naming the file) on an I/O error or corrupt compressed data.
  virtual size_t read(char* out, size_t size) = 0;
};

// Opens `path` for reading. Files that start with the lz4 frame magic number are
// decompressed on the fly, whatever their name; everything else is read as it is.
std::unique_ptr<ByteStream> open_byte_stream(const std::filesystem::path& path);

}  // namespace precis::data
