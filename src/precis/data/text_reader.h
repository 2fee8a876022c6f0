// A buffered reader over a ByteStream that knows which line it is on, for readers that
// report errors by line. Lines end at "\n", "\r\n" or a lone "\r" (CSV allows all three).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "precis/data/byte_stream.h"

namespace precis::data {

class TextReader {
 public:
  explicit TextReader(std::unique_ptr<ByteStream> stream);

  // The next byte (0..255), or -1 at the end of the stream.
  int get() {
    if (pos_ == size_ && !fill()) return -1;
    unsigned char c = static_cast<unsigned char>(buffer_[pos_++]);
    count_line(c);
    return c;
  }
  int peek() {
    if (pos_ == size_ && !fill()) return -1;
    return static_cast<unsigned char>(buffer_[pos_]);
  }
  // 1-based line of the next byte.
  size_t line() const { return line_; }

  // Skips a UTF-8 byte order mark if the stream starts with one (call before any get()).
  void skip_bom();

  // Reads up to and including the next "\n" (which is not stored) into `out`, replacing its
  // contents. Returns false at the end of the stream. A line longer than `max_bytes` is not
  // stored: the rest of it is skipped and `too_long` is set, so that no absurd line is ever
  // held in memory.
  bool read_line(std::string& out, size_t max_bytes, bool& too_long);

 private:
  bool fill();
  void count_line(unsigned char c) {
    if (c == '\n') {
      if (!after_cr_) ++line_;
      after_cr_ = false;
    } else if (c == '\r') {
      ++line_;
      after_cr_ = true;
    } else {
      after_cr_ = false;
    }
  }

  std::unique_ptr<ByteStream> stream_;
  std::vector<char> buffer_;
  size_t pos_ = 0;
  size_t size_ = 0;
  size_t line_ = 1;
  bool after_cr_ = false;
};

}  // namespace precis::data
