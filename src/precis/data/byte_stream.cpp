#include "precis/data/byte_stream.h"

#include <lz4frame.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "precis/core/error.h"

namespace precis::data {
namespace {

constexpr unsigned char kLz4FrameMagic[4] = {0x04, 0x22, 0x4D, 0x18};
constexpr size_t kChunkBytes = 1 << 20;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads raw bytes; `prefix` holds bytes already read to sniff the format.
class PlainStream : public ByteStream {
 public:
  PlainStream(File file, std::filesystem::path path, std::vector<char> prefix)
      : file_(std::move(file)), path_(std::move(path)), prefix_(std::move(prefix)) {}

  size_t read(char* out, size_t size) override {
    if (prefix_pos_ < prefix_.size()) {
      size_t n = std::min(size, prefix_.size() - prefix_pos_);
      std::memcpy(out, prefix_.data() + prefix_pos_, n);
      prefix_pos_ += n;
      return n;
    }
    size_t n = std::fread(out, 1, size, file_.get());
    if (n == 0 && std::ferror(file_.get()))
      throw Error(path_.string() + ": read failed: " + std::strerror(errno));
    return n;
  }

 private:
  File file_;
  std::filesystem::path path_;
  std::vector<char> prefix_;
  size_t prefix_pos_ = 0;
};

// Decompresses an lz4 frame (or several concatenated frames) with liblz4's frame API.
class Lz4Stream : public ByteStream {
 public:
  Lz4Stream(std::unique_ptr<ByteStream> raw, std::filesystem::path path)
      : raw_(std::move(raw)), path_(std::move(path)), in_(kChunkBytes) {
    LZ4F_errorCode_t rc = LZ4F_createDecompressionContext(&context_, LZ4F_VERSION);
    if (LZ4F_isError(rc)) throw Error(path_.string() + ": lz4: " + LZ4F_getErrorName(rc));
  }
  ~Lz4Stream() override { LZ4F_freeDecompressionContext(context_); }

  size_t read(char* out, size_t size) override {
    while (true) {
      if (in_pos_ == in_size_) {
        in_size_ = raw_->read(in_.data(), in_.size());
        in_pos_ = 0;
        if (in_size_ == 0) {
          // A frame cut short: the decoder still expects bytes.
          if (expecting_ != 0)
            throw Error(path_.string() + ": truncated lz4 data (the file ends inside a frame)");
          return 0;
        }
      }
      size_t out_size = size;
      size_t in_size = in_size_ - in_pos_;
      size_t hint =
          LZ4F_decompress(context_, out, &out_size, in_.data() + in_pos_, &in_size, nullptr);
      if (LZ4F_isError(hint))
        throw Error(path_.string() + ": corrupt lz4 data: " + LZ4F_getErrorName(hint));
      in_pos_ += in_size;
      expecting_ = hint;
      if (out_size > 0) return out_size;
    }
  }

 private:
  std::unique_ptr<ByteStream> raw_;
  std::filesystem::path path_;
  LZ4F_dctx* context_ = nullptr;
  std::vector<char> in_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  size_t expecting_ = 0;
};

}  // namespace

std::unique_ptr<ByteStream> open_byte_stream(const std::filesystem::path& path) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error(path.string() + ": cannot open: " + std::strerror(errno));
  std::vector<char> prefix(sizeof(kLz4FrameMagic));
  size_t n = std::fread(prefix.data(), 1, prefix.size(), file.get());
  if (n == 0 && std::ferror(file.get()))
    throw Error(path.string() + ": read failed: " + std::strerror(errno));
  prefix.resize(n);
  bool lz4 = n == sizeof(kLz4FrameMagic) &&
             std::memcmp(prefix.data(), kLz4FrameMagic, sizeof(kLz4FrameMagic)) == 0;
  auto plain = std::make_unique<PlainStream>(std::move(file), path, std::move(prefix));
  if (!lz4) return plain;
  return std::make_unique<Lz4Stream>(std::move(plain), path);
}

}  // namespace precis::data
