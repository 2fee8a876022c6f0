// Writes seed corpora for the fuzz targets into OUT/<target>/: files precis itself writes
// (safetensors, config.json, a trained tokenizer's files, trainer_state.json) and small
// hand-written datasets and requests shaped like the tests' ones. scripts/fuzz.sh adds the
// files Hugging Face writes for the tests' tiny checkpoints when the oracle's Python is set up.
//   usage: make_fuzz_seeds OUT
#include <lz4frame.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "fuzz_support.h"
#include "precis/model/bart/bart_config.h"
#include "precis/io/checkpoint_files.h"
#include "precis/io/safetensors.h"
#include "precis/model/t5/t5_config.h"
#include "precis/tokenize/bpe_trainer.h"
#include "precis/train/trainer_state.h"

namespace fs = std::filesystem;
using precis::fuzz::kFileSeparator;
using precis::fuzz::write_file;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string join(const std::vector<std::string>& files) {
  std::string out;
  for (size_t i = 0; i < files.size(); ++i) out += (i ? std::string(kFileSeparator) : "") + files[i];
  return out;
}

struct Seeds {
  fs::path root;
  void add(const std::string& target, const std::string& name, const std::string& bytes) const {
    fs::create_directories(root / target);
    write_file(root / target / name, bytes);
  }
};

void safetensors_seeds(const Seeds& seeds, const fs::path& scratch) {
  std::vector<char> memory(4096, 0);
  for (size_t i = 0; i < memory.size(); ++i) memory[i] = char(i * 37 + 11);
  auto t = [&](precis::Shape shape, precis::DType dtype) {
    return precis::Tensor{memory.data(), shape, dtype};
  };
  const std::vector<std::vector<precis::NamedTensor>> files = {
      {{"model.shared.weight", t({4, 3}, precis::DType::F32)},
       {"model.encoder.layernorm_embedding.bias", t({3}, precis::DType::F32)}},
      {{"w", t({2, 2}, precis::DType::BF16)},
       {"h", t({3}, precis::DType::F16)},
       {"ids", t({5}, precis::DType::I64)},
       {"mask", t({2, 3}, precis::DType::I32)}},
      {{"scalar", t({}, precis::DType::F32)},
       {"empty", t({0, 4}, precis::DType::F32)},
       {"rank4", t({1, 2, 1, 2}, precis::DType::F32)}},
      {},
  };
  for (size_t i = 0; i < files.size(); ++i) {
    fs::path path = scratch / "seed.safetensors";
    precis::write_safetensors(path, files[i], i == 1 ? std::map<std::string, std::string>{}
                                                     : std::map<std::string, std::string>{{"format", "pt"}});
    seeds.add("safetensors_fuzzer", "precis-" + std::to_string(i) + ".safetensors", read_file(path));
  }

  // The shards the index fuzzer keeps beside its input: "a" ([2]) and "b" ([1, 3]).
  static const float values[3] = {1.0f, -2.0f, 0.5f};
  fs::path dir = scratch / "sharded";
  precis::write_checkpoint(dir,
                           {{"a", {const_cast<float*>(values), precis::Shape{2}}},
                            {"b", {const_cast<float*>(values), precis::Shape{1, 3}}}},
                           /*max_shard_bytes=*/8);
  seeds.add("checkpoint_index_fuzzer", "index.json", read_file(dir / precis::kSafeWeightsIndexName));
}

void config_seeds(const Seeds& seeds) {
  precis::BartConfig bart;
  bart.vocab_size = 96;
  bart.d_model = 16;
  bart.encoder_layers = 2;
  bart.decoder_layers = 1;
  bart.encoder_attention_heads = 4;
  bart.decoder_attention_heads = 2;
  bart.encoder_ffn_dim = bart.decoder_ffn_dim = 24;
  bart.max_position_embeddings = 64;
  seeds.add("model_config_fuzzer", "bart.json", bart.to_json().dump(2));
  precis::T5Config t5;
  t5.vocab_size = 120;
  t5.d_model = 24;
  t5.d_kv = 10;
  t5.num_heads = 2;
  t5.feed_forward_proj = "gated-gelu";
  seeds.add("model_config_fuzzer", "t5.json", t5.to_json().dump(2));
  seeds.add("model_config_fuzzer", "legacy-bart.json",
            R"({"model_type": "bart", "d_model": 16, "encoder_attention_heads": 2,
 "decoder_attention_heads": 2, "vocab_size": 50, "normalize_before": false,
 "force_bos_token_to_be_generated": true, "activation_function": "gelu_new",
 "forced_eos_token_id": null, "num_decoder_layers": null})");

  const std::string config = bart.to_json().dump();
  seeds.add("generation_config_fuzzer", "bart-large-cnn",
            join({config, R"({"bos_token_id": 0, "decoder_start_token_id": 2, "early_stopping": true,
 "eos_token_id": 2, "forced_bos_token_id": 0, "forced_eos_token_id": 2, "length_penalty": 2.0,
 "max_length": 142, "min_length": 56, "no_repeat_ngram_size": 3, "num_beams": 4,
 "pad_token_id": 1, "_from_model_config": false})"}));
  seeds.add("generation_config_fuzzer", "from-model-config",
            join({R"({"model_type": "bart", "d_model": 16, "encoder_attention_heads": 2,
 "decoder_attention_heads": 2, "vocab_size": 50, "num_beams": 3, "max_length": 30,
 "early_stopping": "never", "bad_words_ids": [[5], [6, 7]], "eos_token_id": [2, 3]})",
                  R"({"_from_model_config": true, "max_new_tokens": 9, "min_new_tokens": 2,
 "do_sample": true, "top_k": 5, "top_p": 0.9, "temperature": 0.7, "seed": 3,
 "repetition_penalty": 1.2, "num_return_sequences": 2})"}));
  seeds.add("generation_config_fuzzer", "config-only", config);
}

void tokenizer_seeds(const Seeds& seeds, const fs::path& scratch) {
  namespace tok = precis::tokenize;
  tok::WordCounts words;
  words.add_texts(std::vector<std::string>{
      "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
      "Olivia: Who are you voting for in this election?\nOliver: Liberals as always.",
      "caf\xc3\xa9 na\xc3\xafve \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 1234 5678"});
  tok::BpeTrainerOptions options;
  options.vocab_size = 330;
  options.min_frequency = 1;
  const fs::path dir = scratch / "bpe";
  tok::train_tokenizer(words, options).save(dir);
  const std::string tokenizer_json = read_file(dir / "tokenizer.json");
  const std::string config = read_file(dir / "tokenizer_config.json");
  const std::string map = read_file(dir / "special_tokens_map.json");
  seeds.add("tokenizer_json_fuzzer", "precis-bpe", join({tokenizer_json, config, map}));
  seeds.add("tokenizer_json_fuzzer", "precis-bpe-alone", tokenizer_json);
  seeds.add("bpe_files_fuzzer", "precis-bpe",
            join({read_file(dir / "vocab.json"), read_file(dir / "merges.txt"), config}));
  seeds.add("bpe_files_fuzzer", "precis-bpe-no-config",
            join({read_file(dir / "vocab.json"), read_file(dir / "merges.txt")}));

  // tokenizer_encode_fuzzer: byte 0 = tokenizer and options, byte 1 = max_length, then text.
  const std::vector<std::string> texts = {
      "Amanda: I baked cookies. Do you want some?\nJerry: Sure!",
      "<s>Hello <mask> world</s>  <pad>",
      "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80  \t tabs\r\n",
      "summarize: The tower is 324 metres (1,063 ft) tall. <extra_id_0> </s>"};
  for (size_t i = 0; i < texts.size(); ++i)
    for (uint8_t mode : {0x00, 0x11, 0x32, 0x43})
      seeds.add("tokenizer_encode_fuzzer", "text-" + std::to_string(i) + "-" + std::to_string(mode),
                std::string{char(mode), char(7)} + texts[i]);
}

std::string lz4_frame(const std::string& bytes) {
  std::string out(LZ4F_compressFrameBound(bytes.size(), nullptr), '\0');
  size_t n = LZ4F_compressFrame(out.data(), out.size(), bytes.data(), bytes.size(), nullptr);
  out.resize(LZ4F_isError(n) ? 0 : n);
  return out;
}

void dataset_seeds(const Seeds& seeds) {
  // Byte 0: format (0 .json, 1 .jsonl, 2 .csv, 3 .tsv) and options (see dataset_fuzzer.cpp).
  const std::string array = R"([{"id": "13818513", "dialogue": "Amanda: I baked cookies. Do you want some?\r\nJerry: Sure!", "summary": "Amanda baked cookies."},
 {"id": "2", "dialogue": "", "summary": null}, {"dialogue": "caf\u00e9 \ud83d\ude00", "summary": "x"}])";
  const std::string columns = R"({"dialogue": ["a b", "c", null], "summary": ["s1", "", "s3"], "id": [1, 2, 3]})";
  const std::string lines = "{\"dialogue\": \"one\", \"summary\": \"1\"}\n\n{\"dialogue\": \"two\", \"summary\": \"2\"}\r\n{\"text\": 3}\n";
  const std::string csv = "id,dialogue,summary\n1,\"Amanda: hi,\n\"\"Jerry\"\": hello\",greeting\n2,NA,x\n3,text,\n\n4,short\r\n5,\"a\"b,c\n";
  const std::string tsv = "dialogue\tsummary\textra\nhello there\tgreeting\t1\n\"quoted\ttab\"\tok\t2\n";
  seeds.add("dataset_fuzzer", "array.json", std::string(1, char(0x00)) + array);
  seeds.add("dataset_fuzzer", "columns.json", std::string(1, char(0x00)) + columns);
  seeds.add("dataset_fuzzer", "field.json", std::string(1, char(0x10)) + "{\"version\": 1, \"data\": " + array + "}");
  seeds.add("dataset_fuzzer", "lines.json", std::string(1, char(0x04)) + lines);
  seeds.add("dataset_fuzzer", "lines.jsonl", std::string(1, char(0x01)) + lines);
  seeds.add("dataset_fuzzer", "small.jsonl", std::string(1, char(0x2d)) + lines);
  seeds.add("dataset_fuzzer", "samsum.csv", std::string(1, char(0x02)) + csv);
  seeds.add("dataset_fuzzer", "skip.csv", std::string(1, char(0x4e)) + csv);
  seeds.add("dataset_fuzzer", "samsum.tsv", std::string(1, char(0x03)) + tsv);
  seeds.add("dataset_fuzzer", "text.tsv", std::string(1, char(0x83)) + "text\n\"a\"\nb\n");
  seeds.add("dataset_fuzzer", "array.json.lz4", std::string(1, char(0x00)) + lz4_frame(array));
  seeds.add("dataset_fuzzer", "samsum.csv.lz4", std::string(1, char(0x02)) + lz4_frame(csv));
}

void request_seeds(const Seeds& seeds) {
  const std::vector<std::string> bodies = {
      R"({"inputs": "Amanda: I baked cookies. Do you want some?\nJerry: Sure!"})",
      R"({"inputs": ["one", "two \u00e9"], "parameters": {"num_beams": 4, "max_length": 60,
 "min_length": 10, "length_penalty": 2.0, "no_repeat_ngram_size": 3, "early_stopping": true},
 "options": {"use_cache": false, "wait_for_model": true}})",
      R"({"inputs": "x", "parameters": {"do_sample": true, "top_k": 5, "top_p": 0.9,
 "temperature": 0.7, "repetition_penalty": 1.3, "max_new_tokens": 12, "min_new_tokens": 2,
 "truncation": "only_first", "early_stopping": "never"}})",
      R"({"inputs": "x", "parameters": {"truncation": false, "num_beams": null}, "options": null})",
      R"({"inputs": [], "parameters": {"max_length": -1}})",
  };
  for (size_t i = 0; i < bodies.size(); ++i)
    seeds.add("inference_request_fuzzer", "body-" + std::to_string(i) + ".json", bodies[i]);
}

void trainer_state_seeds(const Seeds& seeds) {
  precis::train::TrainerState s;
  s.global_step = 693;
  s.epoch = 3.0;
  s.max_steps = 693;
  s.num_train_epochs = 3;
  s.best_metric = 33.03;
  s.best_model_checkpoint = "out/checkpoint-600";
  s.log_history = nlohmann::json::parse(R"([{"epoch": 0.72, "grad_norm": 1.5, "learning_rate": 4e-05,
 "loss": 1.83, "step": 500}, {"epoch": 3.0, "eval_loss": 1.41, "eval_rouge1": 42.62, "step": 693},
 {"epoch": 3.0, "step": 693, "total_flos": 0, "train_loss": 1.7, "train_runtime": 363.7}])");
  seeds.add("trainer_state_fuzzer", "trainer_state.json", s.to_json().dump(2));
  seeds.add("trainer_state_fuzzer", "minimal.json", R"({"global_step": 0})");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds OUT\n");
    return 2;
  }
  try {
    const Seeds seeds{argv[1]};
    const fs::path scratch = precis::fuzz::fresh_dir("seeds");
    safetensors_seeds(seeds, scratch);
    config_seeds(seeds);
    tokenizer_seeds(seeds, scratch);
    dataset_seeds(seeds);
    request_seeds(seeds);
    trainer_state_seeds(seeds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
