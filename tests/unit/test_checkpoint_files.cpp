// Model directories: single file and sharded (index + shards), HF's shard splitting, stale
// weights from an earlier save, and the errors a broken directory gives.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "precis/core/arena.h"
#include "precis/io/checkpoint_files.h"

#include "test_support.h"

using namespace precis;
namespace fs = std::filesystem;
using namespace precis::testing;

namespace {

// Tensors of the given sizes in bytes (F32, so sizes are multiples of 4), named t0, t1, ...
std::vector<NamedTensor> tensors_of_sizes(Arena& arena, const std::vector<int64_t>& bytes) {
  std::vector<NamedTensor> out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    Tensor t = arena.alloc({bytes[i] / 4});
    for (int64_t k = 0; k < t.numel(); ++k) t.f32()[k] = float(i) + 0.001f * float(k);
    std::string name = "t";
    name += std::to_string(i);
    out.push_back({name, t});
  }
  return out;
}

}  // namespace

TEST(ShardPlan, SplitsGreedilyInOrderAsHuggingFace) {
  Arena arena(1 << 12);
  // The example of huggingface_hub's docstring: limit 10, sizes [6, 6, 2, 6, 2, 2].
  auto tensors = tensors_of_sizes(arena, {24, 24, 8, 24, 8, 8});
  ShardPlan plan = plan_shards(tensors, 40);
  EXPECT_EQ(plan.tensors_per_file, (std::vector<std::vector<size_t>>{{0}, {1, 2}, {3, 4, 5}}));
  EXPECT_EQ(plan.files, (std::vector<std::string>{"model-00001-of-00003.safetensors",
                                                  "model-00002-of-00003.safetensors",
                                                  "model-00003-of-00003.safetensors"}));
  EXPECT_EQ(plan.total_size, 96u);

  // A tensor over the limit gets its own shard at once, ahead of the shard being filled.
  tensors = tensors_of_sizes(arena, {8, 80, 12, 40});
  plan = plan_shards(tensors, 40);
  EXPECT_EQ(plan.tensors_per_file, (std::vector<std::vector<size_t>>{{1}, {0, 2}, {3}}));

  // Everything fits: one file, model.safetensors.
  plan = plan_shards(tensors, 1000);
  EXPECT_EQ(plan.files, (std::vector<std::string>{"model.safetensors"}));
  EXPECT_EQ(plan.tensors_per_file, (std::vector<std::vector<size_t>>{{0, 1, 2, 3}}));
}

TEST(Checkpoint, SingleFileRoundTrip) {
  TempDir dir;
  Arena arena(1 << 14);
  auto tensors = tensors_of_sizes(arena, {16, 40, 4});
  write_checkpoint(dir.path(), tensors);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"model.safetensors"});
  CheckpointReader r = CheckpointReader::open(dir.path());
  EXPECT_FALSE(r.sharded());
  EXPECT_EQ(r.names(), (std::vector<std::string>{"t0", "t1", "t2"}));
  SafetensorsReader file = SafetensorsReader::open(dir / "model.safetensors");
  EXPECT_EQ(file.metadata().at("format"), "pt");
  for (const NamedTensor& t : tensors) {
    Tensor back = arena.zeros(r.shape(t.name));
    EXPECT_EQ(r.dtype(t.name), "F32");
    r.read(t.name, back);
    EXPECT_EQ(std::memcmp(back.ptr, t.tensor.ptr, t.tensor.nbytes()), 0);
  }
  // Opening the file itself works too.
  EXPECT_EQ(CheckpointReader::open(dir / "model.safetensors").names(), r.names());
}

TEST(Checkpoint, ShardedRoundTripAndIndexFormat) {
  TempDir dir;
  Arena arena(1 << 14);
  auto tensors = tensors_of_sizes(arena, {24, 24, 8, 24});
  write_checkpoint(dir.path(), tensors, 40);
  EXPECT_EQ(files_in(dir.path()),
            (std::vector<std::string>{
                "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                "model-00003-of-00003.safetensors", "model.safetensors.index.json"}));
  // json.dumps(index, indent=2, sort_keys=True) + "\n"
  EXPECT_EQ(read_all(dir / "model.safetensors.index.json"),
            "{\n"
            "  \"metadata\": {\n"
            "    \"total_size\": 80\n"
            "  },\n"
            "  \"weight_map\": {\n"
            "    \"t0\": \"model-00001-of-00003.safetensors\",\n"
            "    \"t1\": \"model-00002-of-00003.safetensors\",\n"
            "    \"t2\": \"model-00002-of-00003.safetensors\",\n"
            "    \"t3\": \"model-00003-of-00003.safetensors\"\n"
            "  }\n"
            "}\n");
  CheckpointReader r = CheckpointReader::open(dir.path());
  EXPECT_TRUE(r.sharded());
  EXPECT_EQ(r.names(), (std::vector<std::string>{"t0", "t1", "t2", "t3"}));
  for (const NamedTensor& t : tensors) {
    Tensor back = arena.zeros(t.tensor.shape);
    r.read(t.name, back);
    EXPECT_EQ(std::memcmp(back.ptr, t.tensor.ptr, t.tensor.nbytes()), 0);
  }
  EXPECT_EQ(r.file("t2").path().filename(), "model-00002-of-00003.safetensors");
  EXPECT_EQ(CheckpointReader::open(dir / "model.safetensors.index.json").names(), r.names());
  std::string m = error_of([&] { r.read("t9", arena.alloc({1})); });
  EXPECT_CONTAINS(m, dir.path().string());
  EXPECT_CONTAINS(m, "no tensor named \"t9\"");
}

TEST(Checkpoint, ResavingRemovesStaleWeights) {
  TempDir dir;
  Arena arena(1 << 14);
  auto tensors = tensors_of_sizes(arena, {24, 24, 8, 24});
  write_checkpoint(dir.path(), tensors, 40);
  write_all(dir / "config.json", "{}");
  // Now everything in one file: the shards and index go, other files stay.
  write_checkpoint(dir.path(), tensors);
  EXPECT_EQ(files_in(dir.path()), (std::vector<std::string>{"config.json", "model.safetensors"}));
  // And back to shards (a different count): the single file would shadow the index.
  write_checkpoint(dir.path(), tensors, 50);
  EXPECT_EQ(files_in(dir.path()),
            (std::vector<std::string>{"config.json", "model-00001-of-00002.safetensors",
                                      "model-00002-of-00002.safetensors",
                                      "model.safetensors.index.json"}));
  EXPECT_EQ(CheckpointReader::open(dir.path()).names().size(), 4u);
}

TEST(CheckpointErrors, BrokenDirectories) {
  TempDir dir;
  Arena arena(1 << 14);
  auto tensors = tensors_of_sizes(arena, {24, 24, 8, 24});

  std::string m = error_of([&] { CheckpointReader::open(dir / "nowhere"); });
  EXPECT_CONTAINS(m, "nowhere");
  EXPECT_CONTAINS(m, "does not exist");

  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "no model weights in " + dir.path().string());
  EXPECT_CONTAINS(m, "model.safetensors");

  write_all(dir / "pytorch_model.bin", "PK");
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "pytorch_model.bin");
  EXPECT_CONTAINS(m, "safetensors only");
  EXPECT_CONTAINS(m, "save_pretrained('" + dir.path().string() + "', safe_serialization=True)");
  fs::remove(dir / "pytorch_model.bin");

  // Shard missing.
  write_checkpoint(dir.path(), tensors, 40);
  fs::rename(dir / "model-00002-of-00003.safetensors", dir / "moved.safetensors");
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "model.safetensors.index.json");
  EXPECT_CONTAINS(m, "shard \"model-00002-of-00003.safetensors\"");
  EXPECT_CONTAINS(m, "is missing");
  fs::rename(dir / "moved.safetensors", dir / "model-00002-of-00003.safetensors");

  // Index naming a tensor its shard does not hold.
  std::string index = read_all(dir / "model.safetensors.index.json");
  std::string edited = index;
  edited.replace(edited.find("\"t3\": \"model-00003"), 18, "\"t3\": \"model-00001");
  write_all(dir / "model.safetensors.index.json", edited);
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m,
                  "model.safetensors.index.json maps tensor \"t3\" to shard "
                  "\"model-00001-of-00003.safetensors\"");
  EXPECT_CONTAINS(m, "has no tensor of that name");

  // A shard name that leaves the directory; an index that is not JSON; no weight_map.
  write_all(dir / "model.safetensors.index.json",
            R"({"weight_map": {"t0": "../model-00001-of-00003.safetensors"}})");
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "not a shard file name");
  write_all(dir / "model.safetensors.index.json", "{not json");
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "model.safetensors.index.json: not valid JSON");
  write_all(dir / "model.safetensors.index.json", R"({"metadata": {}})");
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "model.safetensors.index.json: no \"weight_map\" object");

  // A corrupt shard names the shard.
  write_all(dir / "model.safetensors.index.json", index);
  fs::resize_file(dir / "model-00003-of-00003.safetensors", 4);
  m = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_CONTAINS(m, "model-00003-of-00003.safetensors: truncated");
}
