// The safetensors reader on arbitrary bytes: header length, JSON header, dtypes, shapes and
// data_offsets are all checked at open(); then every tensor is read back (converted to F32,
// BF16 or I64), which must stay inside the file whatever the header claimed. The same bytes
// are also opened as the model.safetensors of a checkpoint directory.
#include <algorithm>
#include <vector>

#include "fuzz_support.h"
#include "precis/io/checkpoint_files.h"
#include "precis/io/safetensors.h"

namespace {

using precis::DType;

bool is_float(const std::string& dtype) {
  return dtype == "F32" || dtype == "F16" || dtype == "BF16" || dtype == "F64";
}

void read_every_tensor(const precis::SafetensorsReader& reader) {
  std::vector<char> buffer;
  for (const precis::SafetensorsEntry& e : reader.entries()) {
    precis::Tensor t;
    try {
      t.shape = reader.shape(e.name);
    } catch (const precis::Error&) {
      continue;  // rank above 4: refused by shape(), nothing to read
    }
    // The reader has checked the bytes against the file, so numel is bounded by its size.
    t.dtype = is_float(e.dtype) ? (e.end % 4 ? DType::BF16 : DType::F32) : DType::I64;
    buffer.assign(std::max<size_t>(t.nbytes(), 1), 0);
    t.ptr = buffer.data();
    precis::fuzz::expect_only_precis_errors([&] { reader.read(e.name, t); });
    // A dtype the file cannot convert to must be refused with an Error, not misread.
    t.dtype = is_float(e.dtype) ? DType::I32 : DType::F32;
    buffer.assign(std::max<size_t>(t.nbytes(), 1), 0);
    t.ptr = buffer.data();
    precis::fuzz::expect_only_precis_errors([&] { reader.read(e.name, t); });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  const std::filesystem::path dir = fresh_dir("checkpoint");
  write_file(dir / "model.safetensors", as_text(data, size));
  expect_only_precis_errors([&] {
    precis::SafetensorsReader reader = precis::SafetensorsReader::open(dir / "model.safetensors");
    read_every_tensor(reader);
    for (const std::string& name : reader.names()) reader.entry(name);
  });
  expect_only_precis_errors([&] {
    precis::CheckpointReader checkpoint = precis::CheckpointReader::open(dir);
    for (const std::string& name : checkpoint.names()) checkpoint.shape(name);
  });
  return 0;
}
