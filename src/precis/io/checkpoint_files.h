// The weights of a Hugging Face model directory (transformers 4.44 modeling_utils.py,
// PreTrainedModel.save_pretrained and from_pretrained): one `model.safetensors`, or shards
// `model-0000i-of-0000K.safetensors` listed by
// `model.safetensors.index.json` ({"metadata": {"total_size": N}, "weight_map": {name: shard}}).
// Reading prefers `model.safetensors` when both exist, as `from_pretrained` does.
// Tensor names are the HF state-dict names; mapping them onto a model is the loader's job.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "precis/io/safetensors.h"

namespace precis {

inline constexpr const char* kSafeWeightsName = "model.safetensors";
inline constexpr const char* kSafeWeightsIndexName = "model.safetensors.index.json";

class CheckpointReader {
 public:
  // Opens the weights of a model directory (or a single .safetensors file, or an index file)
  // and validates every file: all shards exist, parse, and hold the tensors the index says.
  static CheckpointReader open(const std::filesystem::path& path);

  const std::filesystem::path& directory() const { return dir_; }
  bool sharded() const { return sharded_; }
  bool contains(const std::string& name) const { return file_of_.count(name) != 0; }
  // Every tensor name, sorted.
  std::vector<std::string> names() const;
  Shape shape(const std::string& name) const { return file(name).shape(name); }
  std::string dtype(const std::string& name) const { return file(name).dtype(name); }
  const SafetensorsEntry& entry(const std::string& name) const { return file(name).entry(name); }
  // As SafetensorsReader::read (shape must match; converts dtypes).
  void read(const std::string& name, Tensor dst) const { file(name).read(name, dst); }
  // The file holding `name`; throws Error naming the directory when there is none.
  const SafetensorsReader& file(const std::string& name) const;

 private:
  std::filesystem::path dir_;
  bool sharded_ = false;
  std::vector<SafetensorsReader> files_;
  std::unordered_map<std::string, size_t> file_of_;  // tensor name -> index in files_
};

// How write_checkpoint splits tensors into files, exactly as huggingface_hub's
// split_torch_state_dict_into_shards (transformers 4.44 save_pretrained): walk the tensors in
// order; one bigger than the limit gets a shard of its own (appended at once); otherwise start
// a new shard when adding it would pass the limit. One shard means `model.safetensors`.
struct ShardPlan {
  std::vector<std::string> files;                     // in order
  std::vector<std::vector<size_t>> tensors_per_file;  // indices into the input
  uint64_t total_size = 0;                            // bytes of tensor data
};
ShardPlan plan_shards(const std::vector<NamedTensor>& tensors, uint64_t max_shard_bytes);

// Writes the weights into directory `dir` (created if missing) as save_pretrained does:
// `model.safetensors`, or shards + index (indent 2, sorted keys, trailing newline) when the
// data exceeds `max_shard_bytes` (HF's default "5GB" = 5e9). Each file is written atomically;
// shards before the index, and weight files left from an earlier save are removed last. A
// reader racing a re-save of the same directory may still see old and new shards mixed; where
// that matters (checkpoint-N/), write into an AtomicDirectory's staging() and commit it.
void write_checkpoint(const std::filesystem::path& dir, const std::vector<NamedTensor>& tensors,
                      uint64_t max_shard_bytes = 5'000'000'000,
                      const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace precis
