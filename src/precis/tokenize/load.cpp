// Reading a tokenizer from a checkpoint directory, with the adjustments transformers'
// BartTokenizerFast makes on top of the files (so the result is what AutoTokenizer gives).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_set>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/hf_semantics.h"
#include "precis/core/json_input.h"
#include "precis/tokenize/added_token_json.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/tokenizer_config.h"

namespace precis::tokenize {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  return read_existing_file(path, path.string() + ": cannot open for reading");
}

json read_json(const fs::path& path) { return parse_json(read_text(path), path.string()); }

// obj[key], or null when absent, without copying (a vocabulary is megabytes).
const json& field(const json& obj, const char* key) {
  static const json null;
  auto it = obj.find(key);
  return it == obj.end() ? null : *it;
}

// A special token in a config is a string, {"content": ...} (AddedToken), or null.
std::optional<std::string> token_content(const json& v, const std::string& where) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return v.get<std::string>();
  check(v.is_object() && v.contains("content") && v["content"].is_string(),
        where + " should be a string or an object with \"content\", found " + v.dump());
  return v["content"].get<std::string>();
}

bool get_bool(const json& obj, const char* key, bool fallback, const std::string& where) {
  if (!obj.contains(key) || obj[key].is_null()) return fallback;
  check(obj[key].is_boolean(),
        where + ": \"" + key + "\" should be true or false, found " + obj[key].dump());
  return obj[key].get<bool>();
}

std::string get_type(const json& c) {
  return c.is_object() && c.contains("type") && c["type"].is_string() ? c["type"].get<std::string>()
                                                                      : "";
}

void read_special_tokens(const json& config, const std::string& where, SpecialTokens& s) {
  static const std::pair<const char*, std::optional<std::string> SpecialTokens::*> kFields[] = {
      {"bos_token", &SpecialTokens::bos},  {"eos_token", &SpecialTokens::eos},
      {"unk_token", &SpecialTokens::unk},  {"sep_token", &SpecialTokens::sep},
      {"pad_token", &SpecialTokens::pad},  {"cls_token", &SpecialTokens::cls},
      {"mask_token", &SpecialTokens::mask}};
  for (const auto& [key, field] : kFields)
    if (config.contains(key)) s.*field = token_content(config[key], where + ": \"" + key + "\"");
  if (config.contains("additional_special_tokens")) {
    const json& list = config["additional_special_tokens"];
    check(list.is_array(), where + ": \"additional_special_tokens\" should be a list");
    s.additional.clear();
    for (const json& v : list)
      if (auto c = token_content(v, where + ": additional_special_tokens entry"))
        s.additional.push_back(*c);
  }
}

// "a b" (tokenizers < 0.20) or ["a", "b"] (>= 0.20).
std::pair<std::string, std::string> read_merge(const json& m, size_t index,
                                               const std::string& where) {
  std::string at = where + ": model.merges[" + std::to_string(index) + "]";
  if (m.is_string()) {
    const std::string& s = m.get_ref<const std::string&>();
    size_t space = s.find(' ');
    check(space != std::string::npos && s.find(' ', space + 1) == std::string::npos,
          at + " should be two tokens separated by one space, found \"" + s + "\"");
    return {s.substr(0, space), s.substr(space + 1)};
  }
  check(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(),
        at + " should be \"a b\" or [\"a\", \"b\"], found " + m.dump());
  return {m[0].get<std::string>(), m[1].get<std::string>()};
}

std::unordered_map<std::string, int32_t> read_vocab(const json& v, const std::string& where) {
  check(v.is_object(), where + " should be an object {token: id}");
  std::unordered_map<std::string, int32_t> vocab;
  vocab.reserve(v.size());
  for (auto it = v.begin(); it != v.end(); ++it) {
    check(it.value().is_number_integer() && it.value().get<int64_t>() >= 0 &&
              it.value().get<int64_t>() < (int64_t{1} << 31),
          where + ": id of token \"" + it.key() + "\" should be a non-negative integer, found " +
              it.value().dump());
    vocab.emplace(it.key(), it.value().get<int32_t>());
  }
  return vocab;
}

}  // namespace

struct TokenizerLoader {
  // transformers' PreTrainedTokenizerFast adds every special token the backend does not
  // already have (BART's <mask> with lstrip), reusing a vocabulary id where there is one.
  static void add_missing_specials(Tokenizer& t, bool normalized) {
    const SpecialTokens& s = t.settings_.special_tokens;
    std::vector<std::pair<std::string, bool>> wanted;  // content, is the mask
    for (const auto* field : {&s.bos, &s.eos, &s.unk, &s.sep, &s.pad, &s.cls, &s.mask})
      if (*field) wanted.emplace_back(**field, field == &s.mask);
    for (const std::string& a : s.additional) wanted.emplace_back(a, false);
    std::unordered_set<std::string> have;
    int32_t next_id = 0;
    for (const auto& [token, id] : t.bpe_->vocab()) next_id = std::max(next_id, id + 1);
    for (const AddedToken& a : t.added_) {
      have.insert(a.content);
      next_id = std::max(next_id, a.id + 1);
    }
    for (const auto& [content, is_mask] : wanted) {
      if (!have.insert(content).second) continue;
      AddedToken a;
      a.content = content;
      a.special = true;
      a.lstrip = is_mask;
      a.normalized = normalized || is_mask;
      auto it = t.bpe_->vocab().find(content);
      a.id = it != t.bpe_->vocab().end() ? it->second : next_id++;
      t.added_.push_back(a);
    }
  }

  static void read_settings(const fs::path& dir, TokenizerSettings& s, json& config) {
    fs::path config_path = dir / "tokenizer_config.json";
    config = json::object();
    const bool v5 = hf_semantics() == HfSemantics::kV5;
    s.clean_up_tokenization_spaces = !v5;
    s.clean_up_ignored = v5;
    if (fs::exists(config_path)) {
      config = read_json(config_path);
      check(config.is_object(), config_path.string() + ": should hold a JSON object");
      read_special_tokens(config, config_path.string(), s.special_tokens);
      s.add_prefix_space = get_bool(config, "add_prefix_space", false, config_path.string());
      s.clean_up_tokenization_spaces =
          get_bool(config, "clean_up_tokenization_spaces", !v5, config_path.string());
      s.clean_up_ignored =
          v5 && !get_bool(config,
                          "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output",
                          false, config_path.string());
      s.model_max_length = model_max_length_from(config, config_path.string());
    }
    fs::path map_path = dir / "special_tokens_map.json";
    if (fs::exists(map_path)) {
      json map = read_json(map_path);
      check(map.is_object(), map_path.string() + ": should hold a JSON object");
      read_special_tokens(map, map_path.string(), s.special_tokens);
    }
  }

  static void read_tokenizer_json(const fs::path& path, Tokenizer& t) {
    const std::string where = path.string();
    json j = read_json(path);
    check(j.is_object(), where + ": should hold a JSON object");
    try {
      const json& model = field(j, "model");
      std::string type = get_type(model);
      check(model.is_object() && (type == "BPE" || (type.empty() && model.contains("merges"))),
            where + ": model should be a BPE model, found type \"" + type + "\"");
      check(model.contains("vocab") && model.contains("merges") && model["merges"].is_array(),
            where + ": BPE model needs \"vocab\" and a \"merges\" list");
      check(field(model, "dropout").is_null() || model["dropout"].get<double>() == 0.0,
            where + ": BPE dropout is not supported (it makes encoding random)");
      for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        const json& v = field(model, key);
        check(v.is_null() || v == "",
              where + ": BPE " + key + " " + v.dump() + " is not supported");
      }
      check(!get_bool(model, "byte_fallback", false, where),
            where + ": BPE byte_fallback is not supported");
      std::optional<std::string> unk;
      if (model.contains("unk_token") && model["unk_token"].is_string()) unk = model["unk_token"];
      std::vector<std::pair<std::string, std::string>> merges;
      merges.reserve(model["merges"].size());
      for (size_t i = 0; i < model["merges"].size(); ++i)
        merges.push_back(read_merge(model["merges"][i], i, where));
      try {
        t.bpe_.emplace(read_vocab(model["vocab"], where + ": model.vocab"), std::move(merges), unk,
                       get_bool(model, "fuse_unk", false, where),
                       get_bool(model, "ignore_merges", false, where));
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }

      const json& added = field(j, "added_tokens");
      check(added.is_null() || added.is_array(), where + ": added_tokens should be a list");
      for (size_t i = 0; added.is_array() && i < added.size(); ++i) {
        std::string at = where + ": added_tokens[" + std::to_string(i) + "]";
        t.added_.push_back(read_added_token(added[i], at));
      }

      const json& normalizer = field(j, "normalizer");
      check(normalizer.is_null() ||
                (get_type(normalizer) == "Sequence" && field(normalizer, "normalizers").empty()),
            where + ": normalizer " + normalizer.dump().substr(0, 80) +
                " is not supported (byte-level BPE files have none)");

      const json* pre = &field(j, "pre_tokenizer");
      if (get_type(*pre) == "Sequence" && field(*pre, "pretokenizers").size() == 1)
        pre = &(*pre)["pretokenizers"][0];
      check(get_type(*pre) == "ByteLevel",
            where + ": pre_tokenizer should be ByteLevel, found " + pre->dump().substr(0, 80));
      // BartTokenizerFast overrides a top-level ByteLevel's add_prefix_space with its own
      // argument (tokenizer_config.json's value, default false); keep track of which.
      if (!field(j, "pre_tokenizer").contains("add_prefix_space"))
        t.settings_.add_prefix_space = get_bool(*pre, "add_prefix_space", false, where);
      t.use_regex_ = get_bool(*pre, "use_regex", true, where);
      t.trim_offsets_ = get_bool(*pre, "trim_offsets", true, where);

      t.post_ = PostProcessor::from_json(field(j, "post_processor"), where);

      const json* decoder = &field(j, "decoder");
      if (get_type(*decoder) == "Sequence" && field(*decoder, "decoders").size() == 1)
        decoder = &(*decoder)["decoders"][0];
      check(decoder->is_null() || get_type(*decoder) == "ByteLevel",
            where + ": decoder should be ByteLevel, found " + decoder->dump().substr(0, 80));
      t.byte_level_decoder_ = !decoder->is_null();
    } catch (const json::exception& e) {
      throw Error(where + ": unexpected structure: " + e.what());
    }
  }

  static Tokenizer from_slow_files(const fs::path& dir, TokenizerSettings settings,
                                   const json& config) {
    fs::path vocab_path = dir / "vocab.json", merges_path = dir / "merges.txt";
    json vocab_json = read_json(vocab_path);
    auto vocab = read_vocab(vocab_json, vocab_path.string());

    // As the slow tokenizer reads it: the first line (#version) and the last (empty after
    // the final newline) are dropped, each line splits on whitespace, and a repeated merge
    // keeps its first position (it becomes a dict key, then the converter lists the keys).
    std::string text = read_text(merges_path);
    std::vector<std::string_view> lines;
    for (size_t start = 0;;) {
      size_t end = text.find('\n', start);
      lines.push_back(
          std::string_view(text).substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    std::vector<std::pair<std::string, std::string>> merges;
    std::unordered_set<std::string> seen;
    for (size_t i = 1; i + 1 < lines.size(); ++i) {
      std::vector<std::string> parts;
      std::istringstream words{std::string(lines[i])};
      for (std::string w; words >> w;) parts.push_back(w);
      check(parts.size() == 2, merges_path.string() + ":" + std::to_string(i + 1) +
                                   ": expected two tokens separated by a space, found \"" +
                                   std::string(lines[i]) + "\"");
      if (seen.insert(parts[0] + ' ' + parts[1]).second) merges.emplace_back(parts[0], parts[1]);
    }

    Tokenizer t;
    t.settings_ = std::move(settings);
    try {
      t.bpe_.emplace(std::move(vocab), std::move(merges));
    } catch (const Error& e) {
      throw Error(merges_path.string() + ": " + e.what());
    }
    if (config.contains("added_tokens_decoder")) {
      const json& decoder = config["added_tokens_decoder"];
      std::string where = (dir / "tokenizer_config.json").string() + ": added_tokens_decoder";
      check(decoder.is_object(), where + " should be an object {id: token}");
      for (auto it = decoder.begin(); it != decoder.end(); ++it) {
        t.added_.push_back(read_keyed_added_token(it.key(), it.value(), where));
      }
    }
    check_ids_are_dense(t, vocab_path.string() + (config.contains("added_tokens_decoder")
                                                      ? " (with tokenizer_config.json's added tokens)"
                                                      : ""));
    finish_slow(t);
    return t;
  }

  // The id tables are dense, as the ids of real files are (0..N-1, added tokens after). A few
  // holes are harmless; an id far past the number of tokens would allocate gigabytes.
  static void check_ids_are_dense(const Tokenizer& t, const std::string& where) {
    int64_t max_id = -1;
    for (const auto& [token, id] : t.bpe_->vocab()) max_id = std::max<int64_t>(max_id, id);
    for (const AddedToken& a : t.added_) max_id = std::max<int64_t>(max_id, a.id);
    const size_t tokens = t.bpe_->vocab().size() + t.added_.size();
    check(max_id < int64_t(std::max(2 * tokens, tokens + 65536)),
          where + ": token id " + std::to_string(max_id) + " is far past the " +
              std::to_string(tokens) + " tokens (ids should number them from 0)");
  }

  // What convert_slow_tokenizer's RobertaConverter builds around the BPE model.
  static void finish_slow(Tokenizer& t) {
    add_missing_specials(t, /*normalized=*/true);
    t.finish();  // for token_to_id below
    const SpecialTokens& s = t.settings_.special_tokens;
    if (s.cls && s.sep) {
      auto cls = t.token_to_id(*s.cls), sep = t.token_to_id(*s.sep);
      if (cls && sep) {
        t.post_.prefix = {*cls};
        t.post_.suffix = {*sep};
        t.post_.config = {{"type", "RobertaProcessing"},
                          {"sep", {*s.sep, *sep}},
                          {"cls", {*s.cls, *cls}},
                          {"trim_offsets", true},
                          {"add_prefix_space", t.settings_.add_prefix_space}};
      }
    }
  }
};

Tokenizer Tokenizer::from_directory(const fs::path& dir) {
  check(fs::is_directory(dir), dir.string() + ": not a directory");
  TokenizerSettings settings;
  json config;
  TokenizerLoader::read_settings(dir, settings, config);
  if (fs::exists(dir / "tokenizer.json")) {
    Tokenizer t;
    t.settings_ = settings;
    TokenizerLoader::read_tokenizer_json(dir / "tokenizer.json", t);
    TokenizerLoader::check_ids_are_dense(t, (dir / "tokenizer.json").string());
    TokenizerLoader::add_missing_specials(t, /*normalized=*/false);
    t.finish();
    return t;
  }
  check(fs::exists(dir / "vocab.json") && fs::exists(dir / "merges.txt"),
        dir.string() + ": no tokenizer.json, and no vocab.json + merges.txt to build one from");
  return TokenizerLoader::from_slow_files(dir, std::move(settings), config);
}

Tokenizer Tokenizer::from_vocab_and_merges(std::unordered_map<std::string, int32_t> vocab,
                                           std::vector<std::pair<std::string, std::string>> merges,
                                           const TokenizerSettings& settings) {
  Tokenizer t;
  t.settings_ = settings;
  t.bpe_.emplace(std::move(vocab), std::move(merges));
  TokenizerLoader::finish_slow(t);
  return t;
}

}  // namespace precis::tokenize
