#include "precis/data/text_reader.h"

#include <cstring>

namespace precis::data {

TextReader::TextReader(std::unique_ptr<ByteStream> stream)
    : stream_(std::move(stream)), buffer_(1 << 20) {}

bool TextReader::fill() {
  pos_ = 0;
  size_ = stream_->read(buffer_.data(), buffer_.size());
  return size_ > 0;
}

void TextReader::skip_bom() {
  static constexpr char kBom[] = "\xEF\xBB\xBF";
  // The stream has not been read yet, so the first fill holds at least the first chunk; a
  // stream shorter than a BOM simply does not start with one.
  if (pos_ == size_ && !fill()) return;
  if (size_ - pos_ >= 3 && std::memcmp(buffer_.data() + pos_, kBom, 3) == 0) pos_ += 3;
}

bool TextReader::read_line(std::string& out, size_t max_bytes, bool& too_long) {
  out.clear();
  too_long = false;
  bool any = false;
  while (true) {
    if (pos_ == size_ && !fill()) return any;
    any = true;
    const char* begin = buffer_.data() + pos_;
    const char* newline = static_cast<const char*>(std::memchr(begin, '\n', size_ - pos_));
    size_t n = newline ? static_cast<size_t>(newline - begin) : size_ - pos_;
    if (!too_long) {
      if (out.size() + n > max_bytes) {
        too_long = true;
        out.clear();
      } else {
        out.append(begin, n);
      }
    }
    for (size_t k = 0; k < n; ++k) count_line(static_cast<unsigned char>(begin[k]));
    pos_ += n;
    if (newline) {
      count_line('\n');
      ++pos_;
      return true;
    }
  }
}

}  // namespace precis::data
