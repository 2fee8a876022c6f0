#include "precis/io/checkpoint_files.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/json_input.h"

namespace precis {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

fs::path directory_of(const fs::path& path) {
  fs::path dir = path.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// A shard name from an index must be a plain file name in the same directory.
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

json read_index(const fs::path& index_path) {
  return parse_json(read_existing_file(index_path, "cannot open " + index_path.string()),
                    index_path.string());
}

// Shard files an earlier save may have left: model-NNNNN-of-NNNNN.safetensors.
bool is_shard_file_name(const std::string& name) {
  static const std::regex pattern(R"(model-\d{5}-of-\d{5}\.safetensors)");
  return std::regex_match(name, pattern);
}

}  // namespace

CheckpointReader CheckpointReader::open(const fs::path& path) {
  // The index file itself stands for its directory.
  const fs::path dir = path.filename() == kSafeWeightsIndexName ? directory_of(path) : path;
  CheckpointReader r;
  r.dir_ = dir;
  std::error_code ec;
  if (path != dir) {
    if (!is_file(path)) throw Error("cannot open " + path.string() + ": no such file");
    r.sharded_ = true;
  } else if (is_file(dir)) {
    r.files_.push_back(SafetensorsReader::open(dir));
  } else if (!fs::is_directory(dir, ec)) {
    throw Error("model directory " + dir.string() + " does not exist");
  } else if (is_file(dir / kSafeWeightsName)) {
    r.files_.push_back(SafetensorsReader::open(dir / kSafeWeightsName));
  } else if (is_file(dir / kSafeWeightsIndexName)) {
    r.sharded_ = true;
  } else if (is_file(dir / "pytorch_model.bin") || is_file(dir / "pytorch_model.bin.index.json")) {
    throw Error(dir.string() +
                " holds only PyTorch pickle weights (pytorch_model.bin); precis reads "
                "safetensors only. Convert them with: python -c \"from transformers import "
                "AutoModelForSeq2SeqLM as M; M.from_pretrained('" +
                dir.string() + "').save_pretrained('" + dir.string() +
                "', safe_serialization=True)\"");
  } else {
    throw Error("no model weights in " + dir.string() + ": expected " + kSafeWeightsName + " or " +
                kSafeWeightsIndexName);
  }

  if (!r.sharded_) {
    for (const std::string& name : r.files_[0].names()) r.file_of_[name] = 0;
    return r;
  }

  const fs::path index_path = dir / kSafeWeightsIndexName;
  const std::string where = index_path.string();
  json index = read_index(index_path);
  if (!index.is_object()) throw Error(where + ": not a JSON object");
  auto weight_map = index.find("weight_map");
  if (weight_map == index.end() || !weight_map->is_object()) {
    throw Error(where + ": no \"weight_map\" object");
  }
  std::map<std::string, size_t> shard_index;  // shard file name -> index in files_
  for (auto& [tensor, shard] : weight_map->items()) {
    if (!shard.is_string() || !plain_file_name(shard.get<std::string>())) {
      throw Error(where + ": weight_map entry for " + json_quoted(tensor) +
                  " is not a shard file name: " + shard.dump());
    }
    const std::string shard_name = shard.get<std::string>();
    auto [it, inserted] = shard_index.try_emplace(shard_name, r.files_.size());
    if (inserted) {
      const fs::path shard_path = dir / shard_name;
      if (!is_file(shard_path)) {
        throw Error(where + ": shard " + json_quoted(shard_name) + " (holding " +
                    json_quoted(tensor) + ") is missing from " + dir.string());
      }
      r.files_.push_back(SafetensorsReader::open(shard_path));
    }
    if (!r.files_[it->second].contains(tensor)) {
      throw Error(where + " maps tensor " + json_quoted(tensor) + " to shard " +
                  json_quoted(shard_name) + ", but " + (dir / shard_name).string() +
                  " has no tensor of that name");
    }
    r.file_of_[tensor] = it->second;
  }
  return r;
}

std::vector<std::string> CheckpointReader::names() const {
  std::vector<std::string> out;
  out.reserve(file_of_.size());
  for (const auto& [name, file] : file_of_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

const SafetensorsReader& CheckpointReader::file(const std::string& name) const {
  auto it = file_of_.find(name);
  if (it == file_of_.end()) {
    throw Error(dir_.string() + ": checkpoint has no tensor named " + json_quoted(name));
  }
  return files_[it->second];
}

ShardPlan plan_shards(const std::vector<NamedTensor>& tensors, uint64_t max_shard_bytes) {
  ShardPlan plan;
  std::vector<size_t> current;
  uint64_t current_size = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t size = safetensors_data_bytes(tensors[i].tensor);
    plan.total_size += size;
    if (size > max_shard_bytes) {
      plan.tensors_per_file.push_back({i});
      continue;
    }
    if (current_size + size > max_shard_bytes) {
      plan.tensors_per_file.push_back(std::move(current));
      current.clear();
      current_size = 0;
    }
    current.push_back(i);
    current_size += size;
  }
  if (!current.empty() || plan.tensors_per_file.empty()) plan.tensors_per_file.push_back(current);

  const size_t k = plan.tensors_per_file.size();
  if (k == 1) {
    plan.files.push_back(kSafeWeightsName);
  } else {
    for (size_t i = 0; i < k; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, k);
      plan.files.push_back(name);
    }
  }
  return plan;
}

void write_checkpoint(const fs::path& dir, const std::vector<NamedTensor>& tensors,
                      uint64_t max_shard_bytes,
                      const std::map<std::string, std::string>& metadata) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create model directory " + dir.string() + ": " + ec.message());

  const ShardPlan plan = plan_shards(tensors, max_shard_bytes);
  json weight_map = json::object();
  for (size_t f = 0; f < plan.files.size(); ++f) {
    std::vector<NamedTensor> shard;
    for (size_t i : plan.tensors_per_file[f]) {
      shard.push_back(tensors[i]);
      weight_map[tensors[i].name] = plan.files[f];
    }
    write_safetensors(dir / plan.files[f], shard, metadata);
  }
  const bool sharded = plan.files.size() > 1;
  if (sharded) {
    json index = {{"metadata", {{"total_size", plan.total_size}}}, {"weight_map", weight_map}};
    // As json.dumps(index, indent=2, sort_keys=True) + "\n" (ASCII-escaped like Python's).
    write_file_atomic(dir / kSafeWeightsIndexName, index.dump(2, ' ', true) + "\n");
  }

  // Only now drop weights of an earlier save that would shadow or confuse the new ones.
  const std::set<std::string> written(plan.files.begin(), plan.files.end());
  std::vector<fs::path> stale;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    if (written.count(name)) continue;
    if (is_shard_file_name(name) || (sharded && name == kSafeWeightsName) ||
        (!sharded && name == kSafeWeightsIndexName)) {
      stale.push_back(item.path());
    }
  }
  if (ec) throw Error("cannot list " + dir.string() + ": " + ec.message());
  for (const fs::path& p : stale) {
    fs::remove(p, ec);
    if (ec) throw Error("cannot remove stale weights " + p.string() + ": " + ec.message());
  }
  if (!stale.empty()) fsync_path(dir);
}

}  // namespace precis
