// precis tokenize: token ids of texts exactly as the checkpoint's Hugging Face tokenizer
// (AutoTokenizer) gives them, as JSON lines {"ids": [...]} (with --decode also "text").
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/core/error.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unigram_tokenizer.h"

namespace {

struct TokenizeOptions {
  std::string model;
  std::optional<std::string> text;
  std::string input;
  std::optional<size_t> max_length;
  bool no_special_tokens = false;
  bool decode = false;
  bool skip_special_tokens = false;
  std::optional<bool> clean_up_tokenization_spaces;
  std::string save;
};

// A line of --input: a text to encode, or (an object with "ids") ids to decode.
struct InputLine {
  std::string text;
  std::optional<std::vector<int32_t>> ids;
};

// One text per line: a JSON string, or an object with a string "text" field (or with an
// "ids" list, to decode). Blank lines are skipped.
std::vector<InputLine> read_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  precis::check(in.good(), path + ": cannot open for reading");
  std::vector<InputLine> texts;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = path + ":" + std::to_string(number);
    if (size_t nul = line.find('\0'); nul != std::string::npos)  // nlohmann would stop there
      throw precis::Error(where + ": not valid JSON: a NUL byte at column " + std::to_string(nul + 1));
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw precis::Error(where +
                          ": not valid JSON (expected a JSON string or an object with "
                          "a \"text\" field): " +
                          e.what());
    }
    if (j.is_string()) {
      texts.push_back({j.get<std::string>(), std::nullopt});
    } else if (j.is_object() && j.contains("text") && j["text"].is_string()) {
      texts.push_back({j["text"].get<std::string>(), std::nullopt});
    } else if (j.is_object() && j.contains("ids") && j["ids"].is_array()) {
      std::vector<int32_t> ids;
      for (const auto& id : j["ids"]) {
        precis::check(id.is_number_integer() && id.get<int64_t>() >= INT32_MIN && id.get<int64_t>() <= INT32_MAX,
                      where + ": \"ids\" should hold 32-bit integers, found " + id.dump());
        ids.push_back(id.get<int32_t>());
      }
      texts.push_back({"", std::move(ids)});
    } else {
      std::string found = j.dump();
      if (found.size() > 60) found = found.substr(0, 60) + "...";
      throw precis::Error(where +
                          ": expected a JSON string or an object with a string \"text\" "
                          "field, found " +
                          found);
    }
  }
  precis::check(!in.bad(), path + ": read error");
  return texts;
}

std::vector<InputLine> input_lines(const TokenizeOptions& o) {
  if (o.text) return {{*o.text, std::nullopt}};
  return read_input(o.input);
}

void write_line(std::string& out, const std::vector<int32_t>& ids, const std::optional<std::string>& text) {
  nlohmann::ordered_json line = {{"ids", ids}};
  if (text) line["text"] = *text;
  out += line.dump();
  out += '\n';
}

// T5's tokenizers (spiece.model: T5Tokenizer; tokenizer.json: T5TokenizerFast): </s> appended
// unless --no_special_tokens.
template <class T5Tokenizer>
void run_tokenize_t5(const TokenizeOptions& o) {
  precis::check(!o.clean_up_tokenization_spaces.has_value() || *o.clean_up_tokenization_spaces,
                "--clean_up_tokenization_spaces false: T5's tokenizer always cleans up (transformers 4.44 default)");
  T5Tokenizer tokenizer = T5Tokenizer::from_directory(o.model);
  if (!o.save.empty()) tokenizer.save(o.save);
  if (!o.text && o.input.empty()) return;
  std::string out;
  for (const InputLine& l : input_lines(o)) {
    std::vector<int32_t> ids;
    if (l.ids) {
      ids = *l.ids;
    } else if (o.no_special_tokens) {
      ids = tokenizer.encode(l.text, false);
      if (o.max_length && ids.size() > *o.max_length) ids.resize(*o.max_length);
    } else {
      ids = tokenizer.encode_truncated(l.text, o.max_length.value_or(0));
    }
    write_line(out, ids, o.decode || l.ids ? std::optional(tokenizer.decode(ids, o.skip_special_tokens))
                                           : std::nullopt);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

void run_tokenize(const TokenizeOptions& o) {
  using namespace precis::tokenize;
  switch (tokenizer_kind(o.model)) {
    case TokenizerKind::kUnigramJson:
      return run_tokenize_t5<UnigramTokenizer>(o);
    case TokenizerKind::kSpieceModel:
      return run_tokenize_t5<SentencePieceTokenizer>(o);
    case TokenizerKind::kByteLevelBpe:
      break;
  }
  Tokenizer tokenizer = Tokenizer::from_directory(o.model);
  if (!o.save.empty()) tokenizer.save(o.save);
  if (!o.text && o.input.empty()) return;
  std::vector<InputLine> lines = input_lines(o);
  std::vector<std::string> texts;
  for (const InputLine& l : lines) texts.push_back(l.ids ? std::string() : l.text);
  EncodeOptions encode;
  encode.add_special_tokens = !o.no_special_tokens;
  encode.max_length = o.max_length;
  std::vector<std::vector<int32_t>> all = tokenizer.encode_batch(texts, encode);
  DecodeOptions decode;
  decode.skip_special_tokens = o.skip_special_tokens;
  decode.clean_up_tokenization_spaces = o.clean_up_tokenization_spaces;
  std::string out;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::vector<int32_t>& ids = lines[i].ids ? *lines[i].ids : all[i];
    write_line(out, ids, o.decode || lines[i].ids ? std::optional(tokenizer.decode(ids, decode)) : std::nullopt);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

PRECIS_COMMAND("tokenize",
               "token ids of texts as the checkpoint's Hugging Face tokenizer gives them",
               [](CLI::App& app) {
                 auto o = std::make_shared<TokenizeOptions>();
                 app.add_option("--model", o->model,
                                "Model directory with tokenizer.json (BPE or T5's Unigram), vocab.json + merges.txt, or spiece.model (T5)")
                     ->required();
                 auto* text = app.add_option("--text", o->text, "One text to tokenize");
                 auto* input = app.add_option("--input", o->input,
                                              "File of texts: one JSON string, or object with "
                                              "\"text\", per line (an object with \"ids\" "
                                              "is decoded instead)");
                 text->excludes(input);
                 app.add_option("--max_length", o->max_length,
                                "Truncate to N ids, special tokens included (truncation=True)");
                 app.add_flag("--no_special_tokens", o->no_special_tokens,
                              "Do not add <s> ... </s> (add_special_tokens=False)");
                 app.add_flag("--decode", o->decode, "Also decode the ids back to \"text\"");
                 app.add_flag("--skip_special_tokens", o->skip_special_tokens,
                              "With --decode: leave special tokens out of the text");
                 app.add_option("--clean_up_tokenization_spaces", o->clean_up_tokenization_spaces,
                                "With --decode: true/false (default: the tokenizer's setting)");
                 app.add_option("--save", o->save,
                                "Also write the tokenizer files (tokenizer.json, vocab.json, "
                                "merges.txt, configs) to this directory");
                 precis::cli::add_hf_semantics_option(app);
                 app.callback([o, text, input] {
                   precis::check(text->count() + input->count() == 1 || !o->save.empty(),
                                 "tokenize needs --text STR or --input FILE");
                   run_tokenize(*o);
                 });
               });

}  // namespace
