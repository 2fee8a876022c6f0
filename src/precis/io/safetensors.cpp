#include "precis/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <utility>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/json_input.h"
#include "precis/kernels/copy.h"

namespace precis {
namespace fs = std::filesystem;
using nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

namespace {

enum class Kind : uint8_t { Float, Signed, Unsigned, Bool, Other };

struct FileDType {
  const char* name;
  uint32_t size;
  Kind kind;
};

// In the order of the reference implementation's Dtype enum, which is by alignment: the
// writer sorts by position here (descending). Sub-byte types (F4, F6_*) are not supported.
constexpr FileDType kFileDTypes[] = {
    {"BOOL", 1, Kind::Bool},     {"U8", 1, Kind::Unsigned},   {"I8", 1, Kind::Signed},
    {"F8_E5M2", 1, Kind::Other}, {"F8_E4M3", 1, Kind::Other}, {"F8_E8M0", 1, Kind::Other},
    {"I16", 2, Kind::Signed},    {"U16", 2, Kind::Unsigned},  {"F16", 2, Kind::Float},
    {"BF16", 2, Kind::Float},    {"I32", 4, Kind::Signed},    {"U32", 4, Kind::Unsigned},
    {"F32", 4, Kind::Float},     {"C64", 8, Kind::Other},     {"F64", 8, Kind::Float},
    {"I64", 8, Kind::Signed},    {"U64", 8, Kind::Unsigned},
};

const FileDType* find_file_dtype(const std::string& name) {
  for (const FileDType& d : kFileDTypes)
    if (name == d.name) return &d;
  return nullptr;
}

int alignment_rank(DType t) {
  std::string name = dtype_name(t);
  for (size_t i = 0; i < std::size(kFileDTypes); ++i)
    if (name == kFileDTypes[i].name) return int(i);
  return -1;
}

std::string os_error(int err) { return std::error_code(err, std::generic_category()).message(); }

std::string shape_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

bool same_shape(const std::vector<int64_t>& dims, const Shape& shape) {
  if (int(dims.size()) != shape.rank) return false;
  for (int i = 0; i < shape.rank; ++i)
    if (dims[i] != shape.dims[i]) return false;
  return true;
}

bool as_u64(const json& v, uint64_t* out) {
  if (!v.is_number_unsigned()) return false;  // negative numbers and floats are not
  *out = v.get<uint64_t>();
  return true;
}

// A T from a file buffer's bytes, which need not be aligned for T.
template <class T>
T read_unaligned(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
void write_unaligned(T v, char* p) {
  std::memcpy(p, &v, sizeof(T));
}

// Reads element i of a file buffer as a double (float kinds).
double load_float(const char* p, const FileDType& d) {
  switch (d.size) {
    case 2: {
      const auto bits = read_unaligned<uint16_t>(p);
      return std::strcmp(d.name, "BF16") == 0 ? bf16_to_float(bits) : f16_to_float(bits);
    }
    case 4:
      return read_unaligned<float>(p);
    default:
      return read_unaligned<double>(p);
  }
}

// Stores `v` (already rounded to float where the source was F64, as torch does) into an
// F32/BF16/F16 destination.
void store_float(float v, char* p, DType t) {
  switch (t) {
    case DType::F32:
      return write_unaligned(v, p);
    case DType::BF16:
      return write_unaligned(float_to_bf16(v), p);
    case DType::F16:
      return write_unaligned(float_to_f16(v), p);
    default:
      break;
  }
}

// Integer kinds: the value, and whether it is representable at all (U64 above INT64_MAX).
bool load_int(const char* p, const FileDType& d, int64_t* out) {
  const bool is_signed = d.kind == Kind::Signed;
  switch (d.size) {
    case 1:
      *out = is_signed ? int64_t(int8_t(*p)) : int64_t(uint8_t(*p));
      return true;
    case 2: {
      const auto u = read_unaligned<uint16_t>(p);
      *out = is_signed ? int64_t(int16_t(u)) : int64_t(u);
      return true;
    }
    case 4: {
      const auto u = read_unaligned<uint32_t>(p);
      *out = is_signed ? int64_t(int32_t(u)) : int64_t(u);
      return true;
    }
    default: {
      const auto u = read_unaligned<uint64_t>(p);
      if (d.kind == Kind::Unsigned && u > uint64_t(std::numeric_limits<int64_t>::max()))
        return false;
      *out = int64_t(u);
      return true;
    }
  }
}

// Parses the header, rejecting duplicate keys at any depth (nlohmann would keep the last).
json parse_header(const std::string& text, const std::string& where) {
  if (json_nesting_depth(text) > kMaxJsonNesting) {
    throw Error(where + ": header is not valid JSON: nested deeper than " +
                std::to_string(kMaxJsonNesting) + " levels");
  }
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  bool duplicate_is_tensor = false;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(key).second) {
        duplicate = key;
        duplicate_is_tensor = keys.size() == 1;
      }
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text, callback);
  } catch (const json::exception& e) {
    throw Error(where + ": header is not valid JSON: " + e.what());
  }
  if (!duplicate.empty()) {
    throw Error(where + (duplicate_is_tensor ? ": duplicate tensor name " : ": duplicate key ") +
                json_quoted(duplicate) + " in the header");
  }
  return header;
}

// One tensor's header entry, checked: dtype known, shape of non-negative dimensions whose
// size fits, data_offsets spanning exactly that size inside the data section.
SafetensorsEntry parse_entry(const std::string& what, const std::string& name, const json& value,
                             uint64_t data_size) {
  if (!value.is_object()) throw Error(what + " is not described by a JSON object");
  SafetensorsEntry e;
  e.name = name;

  auto dtype = value.find("dtype");
  if (dtype == value.end() || !dtype->is_string()) throw Error(what + " has no \"dtype\" string");
  e.dtype = dtype->get<std::string>();
  const FileDType* fd = find_file_dtype(e.dtype);
  if (!fd) throw Error(what + " has unknown dtype " + json_quoted(e.dtype));

  auto shape = value.find("shape");
  if (shape == value.end() || !shape->is_array()) throw Error(what + " has no \"shape\" array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const json& d : *shape) {
    uint64_t n;
    if (!as_u64(d, &n) || n > uint64_t(std::numeric_limits<int64_t>::max())) {
      throw Error(what + " has an invalid shape " + shape->dump() +
                  " (dimensions must be non-negative integers)");
    }
    e.shape.push_back(int64_t(n));
    overflow |= __builtin_mul_overflow(numel, n, &numel);
  }
  uint64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(numel, uint64_t(fd->size), &nbytes);
  // An overflowing size can only be valid if some dimension is 0; keep it strict.
  if (overflow) throw Error(what + " has shape " + shape->dump() + " whose size overflows");

  auto offsets = value.find("data_offsets");
  if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
      !as_u64((*offsets)[0], &e.begin) || !as_u64((*offsets)[1], &e.end)) {
    throw Error(what + " has no \"data_offsets\" pair of non-negative integers");
  }
  if (e.end < e.begin) {
    throw Error(what + " has data_offsets [" + std::to_string(e.begin) + ", " +
                std::to_string(e.end) + "] that end before they begin");
  }
  if (e.end - e.begin != nbytes) {
    throw Error(what + " has data_offsets [" + std::to_string(e.begin) + ", " +
                std::to_string(e.end) + "] spanning " + std::to_string(e.end - e.begin) +
                " bytes, but shape " + shape_str(e.shape) + " of " + e.dtype + " needs " +
                std::to_string(nbytes));
  }
  if (e.end > data_size) {
    throw Error(what + " has data_offsets [" + std::to_string(e.begin) + ", " +
                std::to_string(e.end) + "] out of range: the data section has " +
                std::to_string(data_size) + " bytes (truncated file?)");
  }
  return e;
}

// The tensors must tile the data section: sorted by offset, each starts where the last ended,
// and the last ends where the file does.
void check_tiling(std::vector<SafetensorsEntry>& entries, const std::string& where,
                  uint64_t data_size, uint64_t file_size, uint64_t data_start) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& e : entries) {
    if (e.begin < expected) {
      throw Error(where + ": tensors " + json_quoted(previous->name) + " and " +
                  json_quoted(e.name) + " overlap (data_offsets [" +
                  std::to_string(previous->begin) + ", " + std::to_string(previous->end) +
                  "] and [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "])");
    }
    if (e.begin > expected) {
      throw Error(where + ": gap of " + std::to_string(e.begin - expected) +
                  " bytes in the data section before tensor " + json_quoted(e.name) + " (offset " +
                  std::to_string(e.begin) + ", expected " + std::to_string(expected) + ")");
    }
    expected = e.end;
    previous = &e;
  }
  if (expected != data_size) {
    throw Error(where + ": " + std::to_string(data_size - expected) +
                " bytes after the last tensor: the file has " + std::to_string(file_size) +
                " bytes, the header accounts for " + std::to_string(data_start + expected));
  }
}

}  // namespace

SafetensorsReader::SafetensorsReader(SafetensorsReader&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      data_start_(other.data_start_),
      entries_(std::move(other.entries_)),
      index_(std::move(other.index_)),
      metadata_(std::move(other.metadata_)) {}

SafetensorsReader& SafetensorsReader::operator=(SafetensorsReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    data_start_ = other.data_start_;
    entries_ = std::move(other.entries_);
    index_ = std::move(other.index_);
    metadata_ = std::move(other.metadata_);
  }
  return *this;
}

SafetensorsReader::~SafetensorsReader() {
  if (fd_ >= 0) ::close(fd_);
}

void SafetensorsReader::read_bytes(void* dst, uint64_t size, uint64_t file_offset) const {
  char* p = static_cast<char*>(dst);
  while (size > 0) {
    ssize_t n = ::pread(fd_, p, size, off_t(file_offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path_.string() + ": read failed: " + os_error(errno));
    if (n == 0) throw Error(path_.string() + ": file shrank while being read");
    p += n;
    size -= uint64_t(n);
    file_offset += uint64_t(n);
  }
}

SafetensorsReader SafetensorsReader::open(const fs::path& path) {
  SafetensorsReader r;
  r.path_ = path;
  const std::string where = path.string();
  r.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r.fd_ < 0) throw Error("cannot open " + where + ": " + os_error(errno));
  struct stat st {};
  if (::fstat(r.fd_, &st) != 0) throw Error("cannot stat " + where + ": " + os_error(errno));
  if (!S_ISREG(st.st_mode)) throw Error(where + ": not a regular file");
  const uint64_t file_size = uint64_t(st.st_size);
  if (file_size < 8) {
    throw Error(where + ": truncated: " + std::to_string(file_size) +
                " bytes, too short for the 8-byte header length of a safetensors file");
  }

  unsigned char length_bytes[8];
  r.read_bytes(length_bytes, 8, 0);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | length_bytes[i];
  if (header_len > kMaxHeaderBytes) {
    throw Error(where + ": header length " + std::to_string(header_len) + " exceeds the limit of " +
                std::to_string(kMaxHeaderBytes) + " bytes (not a safetensors file?)");
  }
  if (header_len > file_size - 8) {
    throw Error(where + ": header length " + std::to_string(header_len) +
                " runs past the end of the file (" + std::to_string(file_size) +
                " bytes; truncated?)");
  }
  std::string text(header_len, '\0');
  r.read_bytes(text.data(), header_len, 8);
  if (text.empty() || text[0] != '{') {
    throw Error(where + ": header is not a JSON object (it must start with '{')");
  }
  // nlohmann stops at a NUL byte as if the input ended there; JSON never holds a raw one.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    throw Error(where + ": header is not valid JSON: NUL byte at offset " + std::to_string(nul));
  }
  json header = parse_header(text, where);
  if (!header.is_object()) throw Error(where + ": header is not a JSON object");

  r.data_start_ = 8 + header_len;
  const uint64_t data_size = file_size - r.data_start_;
  for (auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) throw Error(where + ": __metadata__ is not a JSON object");
      for (auto& [mkey, mvalue] : value.items()) {
        if (!mvalue.is_string()) {
          throw Error(where + ": __metadata__ value for " + json_quoted(mkey) + " is not a string");
        }
        r.metadata_[mkey] = mvalue.get<std::string>();
      }
      continue;
    }
    r.entries_.push_back(
        parse_entry(where + ": tensor " + json_quoted(key), key, value, data_size));
  }

  check_tiling(r.entries_, where, data_size, file_size, r.data_start_);
  for (size_t i = 0; i < r.entries_.size(); ++i) r.index_[r.entries_[i].name] = i;
  return r;
}

std::vector<std::string> SafetensorsReader::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

const SafetensorsEntry& SafetensorsReader::entry(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(path_.string() + ": no tensor named " + json_quoted(name));
  return entries_[it->second];
}

Shape SafetensorsReader::shape(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  if (e.shape.size() > size_t(Shape::kMaxRank)) {
    throw Error(path_.string() + ": tensor " + json_quoted(name) + " has rank " +
                std::to_string(e.shape.size()) + ", more than the 4 precis supports");
  }
  Shape s;
  for (int64_t d : e.shape) s.dims[s.rank++] = d;
  return s;
}

void SafetensorsReader::read(const std::string& name, Tensor dst) const {
  const SafetensorsEntry& e = entry(name);
  const std::string what = path_.string() + ": tensor " + json_quoted(name);
  if (!dst.device.is_cpu()) {
    // A device tensor (a model or optimizer state loaded for a GPU): read on the host, then
    // one copy to the device.
    std::vector<char> host(dst.nbytes());
    const Tensor staged{host.data(), dst.shape, dst.dtype, Device::cpu()};
    read(name, staged);
    copy(staged, dst);
    return;
  }
  if (!same_shape(e.shape, dst.shape)) {
    throw Error(what + " has shape " + shape_str(e.shape) + ", expected " + dst.shape.str());
  }
  const FileDType& fd = *find_file_dtype(e.dtype);
  const bool to_float =
      dst.dtype == DType::F32 || dst.dtype == DType::BF16 || dst.dtype == DType::F16;
  const bool from_int =
      fd.kind == Kind::Signed || fd.kind == Kind::Unsigned || fd.kind == Kind::Bool;
  if ((to_float && fd.kind != Kind::Float) || (!to_float && !from_int)) {
    throw Error(what + " is " + e.dtype + " and cannot be read as " + dtype_name(dst.dtype));
  }
  const uint64_t numel = e.end - e.begin == 0 ? 0 : (e.end - e.begin) / fd.size;
  if (numel == 0) return;
  if (dst.ptr == nullptr) throw Error(what + ": destination tensor has no memory");
  const uint64_t offset = data_start_ + e.begin;
  if (e.dtype == dtype_name(dst.dtype)) {
    read_bytes(dst.ptr, e.end - e.begin, offset);
    return;
  }

  // Convert in chunks, so a large tensor needs no second full-size buffer.
  constexpr uint64_t kChunkElements = 1 << 17;
  std::vector<char> buffer(std::min(numel, kChunkElements) * fd.size);
  char* out = static_cast<char*>(dst.ptr);
  const size_t out_size = dtype_size(dst.dtype);
  for (uint64_t first = 0; first < numel; first += kChunkElements) {
    const uint64_t count = std::min(kChunkElements, numel - first);
    read_bytes(buffer.data(), count * fd.size, offset + first * fd.size);
    for (uint64_t i = 0; i < count; ++i) {
      const char* in = buffer.data() + i * fd.size;
      char* o = out + (first + i) * out_size;
      if (to_float) {
        // float(double) rounds to nearest even, as torch's F64 -> F32/BF16/F16 does.
        store_float(float(load_float(in, fd)), o, dst.dtype);
        continue;
      }
      int64_t v;
      bool ok = load_int(in, fd, &v);
      if (ok && dst.dtype == DType::I32) {
        ok = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
        write_unaligned(int32_t(v), o);
      } else if (ok) {
        write_unaligned(v, o);
      }
      if (!ok) {
        throw Error(what + ": element " + std::to_string(first + i) + " of " + e.dtype +
                    " does not fit in " + dtype_name(dst.dtype));
      }
    }
  }
}

uint64_t safetensors_data_bytes(const Tensor& t) {
  return uint64_t(t.numel()) * dtype_size(t.dtype);
}

void write_safetensors(const fs::path& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string where = path.string();
  std::set<std::string> seen;
  for (const NamedTensor& t : tensors) {
    const std::string what = "cannot write " + where + ": tensor " + json_quoted(t.name);
    if (t.name == "__metadata__") throw Error(what + " has a reserved name");
    if (!seen.insert(t.name).second) throw Error(what + " is given twice");
    for (int i = 0; i < t.tensor.rank(); ++i)
      if (t.tensor.shape.dims[i] < 0) throw Error(what + " has shape " + t.tensor.shape.str());
    if (t.tensor.numel() > 0 && t.tensor.ptr == nullptr) throw Error(what + " has no memory");
  }

  std::vector<const NamedTensor*> order;
  for (const NamedTensor& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const NamedTensor* a, const NamedTensor* b) {
    int ra = alignment_rank(a->tensor.dtype), rb = alignment_rank(b->tensor.dtype);
    return ra != rb ? ra > rb : a->name < b->name;
  });

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) m[key] = value;
    header["__metadata__"] = std::move(m);
  }
  uint64_t offset = 0;
  for (const NamedTensor* t : order) {
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    info["dtype"] = dtype_name(t->tensor.dtype);
    info["shape"] = nlohmann::ordered_json::array();
    for (int i = 0; i < t->tensor.rank(); ++i) info["shape"].push_back(t->tensor.shape.dims[i]);
    const uint64_t nbytes = safetensors_data_bytes(t->tensor);
    info["data_offsets"] = {offset, offset + nbytes};
    offset += nbytes;
    header[t->name] = std::move(info);
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error("cannot write " + where + ": a tensor name or metadata is not valid UTF-8 (" +
                e.what() + ")");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  if (text.size() > SafetensorsReader::kMaxHeaderBytes) {
    throw Error("cannot write " + where + ": header of " + std::to_string(text.size()) +
                " bytes exceeds the safetensors limit");
  }

  AtomicFileWriter out(path);
  unsigned char length_bytes[8];
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) length_bytes[i] = uint8_t(n >> (8 * i));
  out.write(length_bytes, 8);
  out.write(text);
  std::vector<char> staged;  // a device tensor's bytes, copied to the host one at a time
  for (const NamedTensor* t : order) {
    const void* bytes = t->tensor.ptr;
    if (!t->tensor.device.is_cpu()) {
      staged.resize(t->tensor.nbytes());
      copy(t->tensor, Tensor{staged.data(), t->tensor.shape, t->tensor.dtype, Device::cpu()});
      bytes = staged.data();
    }
    out.write(bytes, safetensors_data_bytes(t->tensor));
  }
  out.commit();
}

}  // namespace precis
