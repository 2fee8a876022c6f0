// Drives the safetensors and checkpoint code from the oracle tests
// (tests/oracle/test_safetensors.py).
//
//   safetensors_tool dump PATH
//       PATH is a .safetensors file or a model directory. Prints one JSON object:
//       {"metadata": {...}, "tensors": {name: {"dtype", "shape", "bits"}}} where "bits" are the
//       values read as F32 (float dtypes; the uint32 bit patterns, so NaN and -0 compare exactly)
//       or as I64 (integer dtypes).
//   safetensors_tool copy IN OUT
//       Reads every tensor of IN in its own dtype and writes OUT with our writer and IN's metadata.
//   safetensors_tool write-checkpoint IN OUT_DIR MAX_SHARD_BYTES ORDER_FILE
//       Reads the tensors named in ORDER_FILE (one per line, in state-dict order) from the file or
//       model directory IN and writes them as a checkpoint into OUT_DIR.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/io/checkpoint_files.h"

using namespace precis;
using nlohmann::ordered_json;

namespace {

bool is_float_dtype(const std::string& d) {
  return d == "F32" || d == "F16" || d == "BF16" || d == "F64";
}

// The dtype a tensor keeps when copied (F64 has no precis DType: it becomes F32).
DType copy_dtype(const std::string& d) {
  if (d == "BF16") return DType::BF16;
  if (d == "F16") return DType::F16;
  if (d == "I32") return DType::I32;
  if (d == "I64") return DType::I64;
  if (is_float_dtype(d)) return DType::F32;
  return DType::I64;
}

// Tensors read into memory the tool owns.
struct LoadedTensors {
  std::vector<std::vector<char>> buffers;
  std::vector<NamedTensor> tensors;

  void add(const CheckpointReader& reader, const std::string& name) {
    Tensor t;
    t.shape = reader.shape(name);
    t.dtype = copy_dtype(reader.dtype(name));
    buffers.emplace_back(t.nbytes() + 1);
    t.ptr = buffers.back().data();
    reader.read(name, t);
    tensors.push_back({name, t});
  }
};

int dump(const std::string& path) {
  CheckpointReader reader = CheckpointReader::open(path);
  ordered_json out;
  out["metadata"] = ordered_json::object();
  if (!reader.sharded()) {
    std::filesystem::path file = path;
    if (std::filesystem::is_directory(file)) file /= kSafeWeightsName;
    SafetensorsReader single = SafetensorsReader::open(file);
    for (const auto& [k, v] : single.metadata()) out["metadata"][k] = v;
  }
  out["tensors"] = ordered_json::object();
  for (const std::string& name : reader.names()) {
    const SafetensorsEntry& e = reader.entry(name);
    ordered_json t;
    t["dtype"] = e.dtype;
    t["shape"] = e.shape;
    const bool is_float = is_float_dtype(e.dtype);
    Tensor dst;
    dst.shape = reader.shape(name);
    dst.dtype = is_float ? DType::F32 : DType::I64;
    std::vector<char> buffer(dst.nbytes() + 1);
    dst.ptr = buffer.data();
    reader.read(name, dst);
    ordered_json bits = ordered_json::array();
    for (int64_t i = 0; i < dst.numel(); ++i) {
      if (is_float) {
        uint32_t b;
        std::memcpy(&b, buffer.data() + 4 * i, 4);
        bits.push_back(b);
      } else {
        int64_t v;
        std::memcpy(&v, buffer.data() + 8 * i, 8);
        bits.push_back(v);
      }
    }
    t["bits"] = std::move(bits);
    out["tensors"][name] = std::move(t);
  }
  std::cout << out.dump() << "\n";
  return 0;
}

int copy(const std::string& in, const std::string& out) {
  SafetensorsReader file = SafetensorsReader::open(in);
  CheckpointReader reader = CheckpointReader::open(in);
  LoadedTensors loaded;
  for (const std::string& name : reader.names()) loaded.add(reader, name);
  write_safetensors(out, loaded.tensors, file.metadata());
  return 0;
}

int write_checkpoint_from(const std::string& in, const std::string& out_dir,
                          const std::string& max_bytes, const std::string& order_file) {
  CheckpointReader reader = CheckpointReader::open(in);
  std::ifstream order(order_file);
  if (!order) throw Error("cannot open " + order_file);
  LoadedTensors loaded;
  for (std::string name; std::getline(order, name);)
    if (!name.empty()) loaded.add(reader, name);
  write_checkpoint(out_dir, loaded.tensors, std::stoull(max_bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 2 && args[0] == "dump") return dump(args[1]);
    if (args.size() == 3 && args[0] == "copy") return copy(args[1], args[2]);
    if (args.size() == 5 && args[0] == "write-checkpoint")
      return write_checkpoint_from(args[1], args[2], args[3], args[4]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: safetensors_tool dump PATH | copy IN OUT | "
               "write-checkpoint IN OUT_DIR MAX_SHARD_BYTES ORDER_FILE\n");
  return 2;
}
