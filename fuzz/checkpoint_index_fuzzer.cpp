// model.safetensors.index.json of a sharded checkpoint on arbitrary bytes: the index names
// shards ({"weight_map": {tensor: file}}) that may be missing, repeated, outside the directory
// or disagree with their files. Two small valid shards sit beside it.
#include <vector>

#include "fuzz_support.h"
#include "precis/io/checkpoint_files.h"
#include "precis/io/safetensors.h"

namespace {

// Shards with tensors "a" ([2] F32) and "b" ([1, 3] F32).
void write_shards(const std::filesystem::path& dir) {
  static const float values[3] = {1.0f, -2.0f, 0.5f};
  precis::Tensor a{const_cast<float*>(values), precis::Shape{2}};
  precis::Tensor b{const_cast<float*>(values), precis::Shape{1, 3}};
  precis::write_safetensors(dir / "model-00001-of-00002.safetensors", {{"a", a}}, {{"format", "pt"}});
  precis::write_safetensors(dir / "model-00002-of-00002.safetensors", {{"b", b}}, {{"format", "pt"}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  const std::filesystem::path dir = fresh_dir("sharded");
  write_shards(dir);
  write_file(dir / "model.safetensors.index.json", as_text(data, size));
  expect_only_precis_errors([&] {
    precis::CheckpointReader checkpoint = precis::CheckpointReader::open(dir);
    std::vector<float> buffer(3);
    for (const std::string& name : checkpoint.names()) {
      precis::Tensor t{buffer.data(), checkpoint.shape(name)};
      if (t.numel() <= 3) checkpoint.read(name, t);
    }
  });
  return 0;
}
