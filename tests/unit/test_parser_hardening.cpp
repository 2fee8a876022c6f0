// Inputs the fuzz targets (fuzz/, scripts/fuzz.sh) found to crash a parser, each refused now
// with a precis::Error that names the file. Kept as unit tests so that the normal build
// checks them without clang or libFuzzer.
#include <string>

#include "precis/core/json_input.h"
#include "precis/generate/generation_config.h"
#include "precis/model/bart/bart_config.h"
#include "precis/io/checkpoint_files.h"
#include "precis/io/safetensors.h"
#include "precis/model/t5/t5_config.h"
#include "precis/serve/inference_request.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unigram_tokenizer.h"
#include "precis/train/trainer_state.h"
#include "precis/train/training_arguments.h"
#include "test_support.h"

namespace precis {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_all;

// `depth` nested arrays around nothing: "[[[...]]]".
std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A value nested 100,000 deep used to overflow the stack when an error message printed it
// (nlohmann's dump() recurses once per level); under ASan 30,000 was enough.
constexpr size_t kHostileDepth = 100'000;

TEST(ParserHardening, JsonNestingDepthSkipsStrings) {
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": "[[[{{{\"[["}], "c": []})"), 3u);
  EXPECT_EQ(json_nesting_depth("]]]["), 1u);
  EXPECT_EQ(json_nesting_depth(nested(300)), 300u);
  EXPECT_NO_THROW(parse_json(nested(kMaxJsonNesting), "x.json"));
  EXPECT_EQ(error_of([] { parse_json(nested(kMaxJsonNesting + 1), "x.json"); }),
            "x.json: JSON nested deeper than 256 levels");
  EXPECT_NE(error_of([] { parse_json("{\"a\": ", "x.json"); }).find("x.json: not valid JSON"),
            std::string::npos);
}

TEST(ParserHardening, DeeplyNestedConfigJsonIsRefused) {
  TempDir dir;
  write_all(dir / "config.json", R"({"model_type": "bart", "d_model": )" + nested(kHostileDepth) + "}");
  EXPECT_NE(error_of([&] { BartConfig::from_file(dir / "config.json"); }).find("nested deeper"),
            std::string::npos);
  write_all(dir / "config.json", R"({"model_type": "t5", "d_model": )" + nested(kHostileDepth) + "}");
  EXPECT_NE(error_of([&] { T5Config::from_file(dir / "config.json"); }).find("nested deeper"),
            std::string::npos);
}

TEST(ParserHardening, DeeplyNestedGenerationConfigIsRefused) {
  TempDir dir;
  write_all(dir / "config.json", R"({"model_type": "bart"})");
  write_all(dir / "generation_config.json", R"({"num_beams": )" + nested(kHostileDepth) + "}");
  const std::string message =
      error_of([&] { generate::GenerationConfig::from_model_directory(dir.path(), special_tokens(BartConfig{})); });
  EXPECT_NE(message.find("generation_config.json: JSON nested deeper"), std::string::npos) << message;
}

// Found by generation_config_fuzzer: a generation_config.json whose top level is not an
// object (here a string, then bytes after a NUL) escaped as nlohmann's type_error from
// value("_from_model_config"); so did a _from_model_config that is not a boolean.
TEST(ParserHardening, GenerationConfigThatIsNotAnObjectIsRefused) {
  TempDir dir;
  write_all(dir / "config.json", R"({"model_type": "bart"})");
  auto load = [&] { generate::GenerationConfig::from_model_directory(dir.path(), special_tokens(BartConfig{})); };
  write_all(dir / "generation_config.json", R"("summaries")");
  EXPECT_CONTAINS(error_of(load), "generation_config.json: expected a JSON object, found string");
  write_all(dir / "generation_config.json", std::string(R"(":0.07i")") + std::string(8, '\0') + R"(d": 1}")");
  EXPECT_CONTAINS(error_of(load), "generation_config.json: not valid JSON");
  write_all(dir / "generation_config.json", R"({"_from_model_config": "yes", "num_beams": 2})");
  EXPECT_CONTAINS(error_of(load), "generation_config.json: _from_model_config: expected true or false, found \"yes\"");
  write_all(dir / "generation_config.json", R"({"_from_model_config": null, "num_beams": 2})");
  EXPECT_NO_THROW(load());
}

TEST(ParserHardening, JsonWithANulByteIsInvalid) {
  // nlohmann stops at a NUL as at the end of the input; Python's json.loads refuses it.
  EXPECT_CONTAINS(error_of([] { parse_json(std::string("{}\0{\"a\": 1}", 11), "x.json"); }),
                  "x.json: not valid JSON: a NUL byte at offset 2");
}

TEST(ParserHardening, NulBytesInRequestsHeadersAndJobFilesAreRefused) {
  using namespace std::string_literals;
  auto parsed = serve::parse_inference_request("{\"inputs\": \"x\"}\0junk"s);
  ASSERT_TRUE(std::holds_alternative<serve::RequestError>(parsed));
  EXPECT_EQ(std::get<serve::RequestError>(parsed).message, "malformed JSON: a NUL byte at offset 15");

  TempDir dir;
  const std::string header = "{\"__metadata__\": {}}\0\0\0\0"s;
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = char(uint64_t(header.size()) >> (8 * i));
  write_all(dir / "model.safetensors", file + header);
  EXPECT_CONTAINS(error_of([&] { SafetensorsReader::open(dir / "model.safetensors"); }),
                  "model.safetensors: header is not valid JSON: NUL byte at offset 20");

  write_all(dir / "job.json", "{\"learning_rate\": 1e-4}\0{\"bogus\": 1}"s);
  const std::string job = (dir / "job.json").string();
  EXPECT_EQ(error_of([&] { train::parse_training_arguments({"--config", job}); }),
            job + ": invalid JSON: a NUL byte at offset 23");
}

// Found by model_config_fuzzer: the legacy key force_bos_token_to_be_generated holding a
// number escaped as nlohmann's type_error.
TEST(ParserHardening, BartConfigLegacyForceBosMustBeABoolean) {
  const nlohmann::json bad = {{"model_type", "bart"}, {"force_bos_token_to_be_generated", 6}};
  EXPECT_EQ(error_of([&] { BartConfig::from_json(bad, "config.json"); }),
            "config.json: field \"force_bos_token_to_be_generated\" must be true or false, found 6");
  const nlohmann::json legacy = {{"model_type", "bart"}, {"force_bos_token_to_be_generated", true}, {"bos_token_id", 0}};
  EXPECT_EQ(BartConfig::from_json(legacy, "config.json").forced_bos_token_id, 0);
}

// Found by trainer_state_fuzzer: a global_step of 4.4e51 was converted to int64 (undefined
// behaviour, UBSan's float-cast-overflow). Counts must be integers; total_flos is a float, as
// in HF's files, so a large run's 1e19 loads.
TEST(ParserHardening, TrainerStateCountsMustBeIntegers) {
  TempDir dir;
  const auto file = dir / "trainer_state.json";
  auto load = [&] { train::TrainerState::load(file); };
  write_all(file, R"({"global_step": 4444444444444444444444444444444444444444444444444694, "epoch": 3.0})");
  EXPECT_CONTAINS(error_of(load), "trainer_state.json: global_step: expected an integer, found 4.44444444");
  write_all(file, R"({"global_step": 18446744073709551615})");
  EXPECT_CONTAINS(error_of(load), "trainer_state.json: global_step: 18446744073709551615 is out of range");
  write_all(file, R"({"global_step": 12, "save_steps": 5e9})");
  EXPECT_CONTAINS(error_of(load), "trainer_state.json: save_steps: expected an integer, found 5000000000.0");
  write_all(file, R"({"epoch": 1.0})");
  EXPECT_CONTAINS(error_of(load), "trainer_state.json: not a trainer state: no global_step");
  write_all(file, R"({"global_step": 12, "total_flos": 1.2e19, "save_steps": null})");
  train::TrainerState s = train::TrainerState::load(file);
  EXPECT_EQ(s.global_step, 12);
  EXPECT_EQ(s.save_steps, 500);
  EXPECT_EQ(s.total_flos, 1.2e19);
  EXPECT_EQ(s.to_json()["total_flos"].get<double>(), 1.2e19);
}

TEST(ParserHardening, DeeplyNestedTokenizerJsonIsRefused) {
  TempDir dir;
  write_all(dir / "tokenizer.json",
            R"({"model": {"type": "BPE", "vocab": {}, "merges": []}, "normalizer": )" +
                nested(kHostileDepth) + "}");
  const std::string message = error_of([&] { tokenize::Tokenizer::from_directory(dir.path()); });
  EXPECT_NE(message.find("tokenizer.json: JSON nested deeper"), std::string::npos) << message;
}

TEST(ParserHardening, DeeplyNestedUnigramTokenizerJsonIsRefused) {
  TempDir dir;
  write_all(dir / "tokenizer.json",
            R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]]},
                "normalizer": null, "pre_tokenizer": )" + nested(kHostileDepth) + "}");
  const std::string message = error_of([&] { tokenize::UnigramTokenizer::from_directory(dir.path()); });
  EXPECT_NE(message.find("tokenizer.json: JSON nested deeper"), std::string::npos) << message;
}

TEST(ParserHardening, DeeplyNestedTrainerStateIsRefused) {
  TempDir dir;
  write_all(dir / "trainer_state.json", R"({"global_step": 3, "log_history": )" + nested(kHostileDepth) + "}");
  EXPECT_NE(error_of([&] { train::TrainerState::load(dir / "trainer_state.json"); }).find("nested deeper"),
            std::string::npos);
}

TEST(ParserHardening, DeeplyNestedCheckpointIndexIsRefused) {
  TempDir dir;
  write_all(dir / kSafeWeightsIndexName, R"({"weight_map": {"a": )" + nested(kHostileDepth) + "}}");
  const std::string message = error_of([&] { CheckpointReader::open(dir.path()); });
  EXPECT_NE(message.find("index.json: JSON nested deeper"), std::string::npos) << message;
}

TEST(ParserHardening, DeeplyNestedSafetensorsHeaderIsRefused) {
  TempDir dir;
  std::string header = R"({"__metadata__": )" + nested(kHostileDepth) + "}";
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = char(uint64_t(header.size()) >> (8 * i));
  write_all(dir / "model.safetensors", file + header);
  const std::string message = error_of([&] { SafetensorsReader::open(dir / "model.safetensors"); });
  EXPECT_NE(message.find("header is not valid JSON: nested deeper than 256 levels"), std::string::npos)
      << message;
}

TEST(ParserHardening, DeeplyNestedRequestIsRefused) {
  auto parsed = serve::parse_inference_request(R"({"inputs": "x", "parameters": )" + nested(kHostileDepth) + "}");
  ASSERT_TRUE(std::holds_alternative<serve::RequestError>(parsed));
  EXPECT_EQ(std::get<serve::RequestError>(parsed).message, "JSON nested deeper than 32 levels");
}

// Found by spiece_model_fuzzer: in this mutated model (tests/unit/data), Debian's
// libsentencepiece throws from its trie ("failed to insert key: zero-length key") instead of
// returning a status.
TEST(ParserHardening, SentencePieceModelThatMakesTheLibraryThrowIsRefused) {
  const std::filesystem::path model =
      std::filesystem::path(PRECIS_SOURCE_DIR) / "tests/unit/data/spiece_zero_length_key.model";
  const std::string message =
      error_of([&] { tokenize::SentencePieceTokenizer::from_model_file(model); });
  EXPECT_NE(message.find("spiece_zero_length_key.model: not a SentencePiece model"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace precis
