// safetensors files (https://github.com/huggingface/safetensors: the format in its README,
// read as safetensors/src/tensor.rs reads it): u64 header length N, N bytes of JSON
// {"name": {"dtype", "shape", "data_offsets"}, ..., "__metadata__": {string: string}}, then
// the raw little-endian tensor data.
//
// The reader checks the whole header when the file is opened (lengths, dtypes, shapes,
// offsets tiling the data section, file size), so a later read() can only fail on a request
// that does not fit the file (unknown name, wrong shape, impossible conversion). Every
// error is a precis::Error whose one-line message names the file and the problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "precis/core/tensor.h"

namespace precis {

// One tensor as the header describes it. `dtype` is the file's name for it ("F32", "BF16",
// "I64", ...); shape may have any rank (Shape holds at most 4).
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets in the data section
  uint64_t end = 0;
};

class SafetensorsReader {
 public:
  static constexpr uint64_t kMaxHeaderBytes = 100'000'000;

  // Opens and validates `path`; throws Error on any malformation.
  static SafetensorsReader open(const std::filesystem::path& path);

  SafetensorsReader(SafetensorsReader&& other) noexcept;
  SafetensorsReader& operator=(SafetensorsReader&& other) noexcept;
  SafetensorsReader(const SafetensorsReader&) = delete;
  SafetensorsReader& operator=(const SafetensorsReader&) = delete;
  ~SafetensorsReader();

  const std::filesystem::path& path() const { return path_; }
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // Tensor names in data order (offset in the file).
  std::vector<std::string> names() const;
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  // Throws Error naming the file when `name` is absent.
  const SafetensorsEntry& entry(const std::string& name) const;
  // The shape as a Shape (throws for rank > 4).
  Shape shape(const std::string& name) const;
  std::string dtype(const std::string& name) const { return entry(name).dtype; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // Reads tensor `name` into `dst` (on any device: a GPU's through one host copy; dst.shape
  // must equal the file's shape),
  // converting: floats (F32/F16/BF16/F64 in the file) into an F32/BF16/F16 dst (rounding to
  // nearest even), integers (I64/I32/I16/I8/U8/U16/U32/U64/BOOL) into an I32/I64 dst, with
  // a range check. Float <-> integer conversions are refused.
  void read(const std::string& name, Tensor dst) const;

 private:
  SafetensorsReader() = default;
  void read_bytes(void* dst, uint64_t size, uint64_t file_offset) const;

  std::filesystem::path path_;
  int fd_ = -1;
  uint64_t data_start_ = 0;  // 8 + N
  std::vector<SafetensorsEntry> entries_;
  std::unordered_map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

struct NamedTensor {
  std::string name;
  Tensor tensor;  // contiguous, on any device (a GPU's is copied to the host to be written)
};

// Writes `tensors` to `path` atomically, laid out as the reference implementation
// (safetensors 0.4.x `serialize`) does: tensors sorted by dtype alignment (descending), then
// by name; compact JSON header with `__metadata__` first (omitted when `metadata` is empty);
// header padded with spaces to a multiple of 8 bytes. With one metadata key the file is
// byte-identical to `safetensors.torch.save_file` of the same tensors.
void write_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// The bytes of one tensor's data when written (numel x element size).
uint64_t safetensors_data_bytes(const Tensor& t);

}  // namespace precis
