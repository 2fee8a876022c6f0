#include "precis/tokenize/unigram_tokenizer.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/hf_semantics.h"
#include "precis/core/json_input.h"
#include "precis/tokenize/added_token_json.h"
#include "precis/tokenize/clean_up.h"
#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

using nlohmann::json;

json parse_object(const std::string& bytes, const std::filesystem::path& path) {
  json j = parse_json(bytes, path.string());
  check(j.is_object(), path.string() + ": should hold a JSON object");
  return j;
}

// A special token as tokenizer_config.json / special_tokens_map.json write it: a string or
// an AddedToken object {"content": ...}. Empty when absent.
std::string token_text(const json& config, const char* field, const std::string& where) {
  auto it = config.find(field);
  if (it == config.end() || it->is_null()) return "";
  if (it->is_string()) return *it;
  check(it->is_object() && it->contains("content") && (*it)["content"].is_string(),
        where + ": " + field + " should be a string or an object with a \"content\" string");
  return (*it)["content"];
}

// Words of `text` between runs of Unicode White_Space, with their byte offsets (HF's
// WhitespaceSplit pre-tokenizer).
std::vector<std::pair<size_t, std::string_view>> whitespace_words(std::string_view text) {
  std::vector<std::pair<size_t, std::string_view>> words;
  size_t start = std::string_view::npos, len = 0;
  for (size_t i = 0; i < text.size(); i += len) {
    const bool space = char_class(decode_utf8_at(text, i, len)) == CharClass::kSpace;
    if (space && start != std::string_view::npos) {
      words.emplace_back(start, text.substr(start, i - start));
      start = std::string_view::npos;
    } else if (!space && start == std::string_view::npos) {
      start = i;
    }
  }
  if (start != std::string_view::npos) words.emplace_back(start, text.substr(start));
  return words;
}

}  // namespace

UnigramTokenizer UnigramTokenizer::from_directory(const std::filesystem::path& dir) {
  UnigramTokenizer t;
  const std::filesystem::path path = dir / "tokenizer.json";
  std::optional<std::string> bytes = read_file_bytes(path);
  check(bytes.has_value(),
        path.string() + ": cannot read (a Unigram tokenizer directory needs tokenizer.json)");
  const std::string where = path.string();
  const json j = parse_object(*bytes, path);
  t.files_["tokenizer.json"] = *bytes;

  check(j.contains("model"), where + ": no \"model\"");
  t.model_ = UnigramModel::from_json(j["model"], where);
  t.normalizer_ = NormalizerSequence::from_json(j.value("normalizer", json()), where);

  // Pre-tokenizer: Metaspace, or (older conversions) Sequence[WhitespaceSplit, Metaspace].
  const json pre = j.value("pre_tokenizer", json());
  auto type_of = [](const json& c) {
    return c.is_object() ? c.value("type", std::string()) : std::string();
  };
  if (type_of(pre) == "Metaspace") {
    t.pre_tokenizer_ = Metaspace::from_json(pre, where, "pre_tokenizer");
  } else if (type_of(pre) == "Sequence" && pre.contains("pretokenizers") &&
             pre["pretokenizers"].is_array() && pre["pretokenizers"].size() == 2 &&
             type_of(pre["pretokenizers"][0]) == "WhitespaceSplit" &&
             type_of(pre["pretokenizers"][1]) == "Metaspace") {
    t.whitespace_split_ = true;
    t.pre_tokenizer_ =
        Metaspace::from_json(pre["pretokenizers"][1], where, "pre_tokenizer.pretokenizers[1]");
  } else {
    throw Error(
        where +
        ": pre_tokenizer should be Metaspace or Sequence[WhitespaceSplit, Metaspace], found " +
        pre.dump().substr(0, 200));
  }

  const json dec = j.value("decoder", json());
  if (dec.is_null()) {
    t.has_decoder_ = false;
  } else {
    check(type_of(dec) == "Metaspace",
          where + ": decoder should be Metaspace, found " + dec.dump().substr(0, 200));
    t.decoder_ = Metaspace::from_json(dec, where, "decoder");
  }
  t.post_processor_ = PostProcessor::from_json(j.value("post_processor", json()), where);

  const json added = j.value("added_tokens", json::array());
  check(added.is_array(), where + ": added_tokens should be a list");
  std::vector<AddedToken> raw, normalized;
  for (size_t i = 0; i < added.size(); ++i) {
    const std::string at = where + ": added_tokens[" + std::to_string(i) + "]";
    AddedToken token = read_added_token(added[i], at);
    t.added_by_id_[token.id] = token.content;
    t.added_by_content_[token.content] = token.id;
    if (token.special) t.special_contents_.insert(token.content);
    (token.normalized ? normalized : raw).push_back(token);
    t.added_.push_back(std::move(token));
  }
  t.raw_matcher_ = AddedTokenMatcher(std::move(raw));
  // tokenizers looks for a normalized token's content normalized as the text is.
  t.normalized_matcher_ = AddedTokenMatcher(std::move(normalized), [&](std::string_view content) {
    return t.normalizer_.normalize(content);
  });

  // Special tokens and the clean-up flag from the transformers configs, as T5TokenizerFast
  // takes them (tokenizer_config.json over special_tokens_map.json over the defaults).
  std::vector<std::pair<std::filesystem::path, json>> configs;
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    if (auto file = read_file_bytes(dir / name)) {
      configs.emplace_back(dir / name, parse_object(*file, dir / name));
      t.files_[name] = *file;
    }
  }
  for (auto [field, value] : {std::pair<const char*, std::string*>{"eos_token", &t.eos_token_},
                              {"pad_token", &t.pad_token_},
                              {"unk_token", &t.unk_token_}}) {
    for (auto it = configs.rbegin(); it != configs.rend(); ++it)
      if (std::string s = token_text(it->second, field, it->first.string()); !s.empty()) *value = s;
  }
  // Absent from the config: 4.44 cleans up, 5.x does not.
  t.clean_up_tokenization_spaces_ = hf_semantics() != HfSemantics::kV5;
  if (!configs.empty() && configs.front().first.filename() == "tokenizer_config.json") {
    const json& config = configs.front().second;
    if (auto c = config.find("clean_up_tokenization_spaces"); c != config.end() && !c->is_null()) {
      check(c->is_boolean(),
            configs.front().first.string() + ": clean_up_tokenization_spaces should be a boolean");
      t.clean_up_tokenization_spaces_ = *c;
    }
  }
  t.eos_id_ = t.token_id(t.eos_token_);
  t.pad_id_ = t.token_id(t.pad_token_);
  check(t.eos_id_ >= 0,
        where + ": eos token '" + t.eos_token_ + "' is neither an added token nor in model.vocab");
  check(t.pad_id_ >= 0,
        where + ": pad token '" + t.pad_token_ + "' is neither an added token nor in model.vocab");
  return t;
}

int32_t UnigramTokenizer::token_id(std::string_view token) const {
  if (auto it = added_by_content_.find(std::string(token)); it != added_by_content_.end())
    return it->second;
  return model_.piece_id(token);
}

std::vector<int32_t> UnigramTokenizer::encode_truncated(std::string_view text, size_t max_length) const {
  std::vector<int32_t> content = encode(text, false);
  const size_t room = max_length > post_processor_.added() ? max_length - post_processor_.added() : 0;
  if (max_length > 0 && content.size() > room) content.resize(room);
  std::vector<int32_t> ids = post_processor_.prefix;
  ids.insert(ids.end(), content.begin(), content.end());
  ids.insert(ids.end(), post_processor_.suffix.begin(), post_processor_.suffix.end());
  return ids;
}

std::vector<int32_t> UnigramTokenizer::encode(std::string_view text, bool add_eos) const {
  check(find_invalid_utf8(text) == std::string_view::npos,
        "unigram tokenizer: input text is not valid UTF-8");
  std::vector<int32_t> ids;
  if (add_eos) ids = post_processor_.prefix;
  std::vector<Segment> raw_parts, normalized_parts;
  raw_matcher_.split(text, raw_parts);
  for (const Segment& part : raw_parts) {
    if (part.id >= 0) {
      ids.push_back(part.id);
      continue;
    }
    // Metaspace's "first" scheme prepends "▁" only to the piece that starts the input.
    const bool part_starts_text = part.text.data() == text.data();
    const std::string normalized = normalizer_.normalize(part.text);
    normalized_parts.clear();
    normalized_matcher_.split(normalized, normalized_parts);
    for (const Segment& sub : normalized_parts) {
      if (sub.id >= 0) {
        ids.push_back(sub.id);
        continue;
      }
      const bool sub_starts_text = part_starts_text && sub.text.data() == normalized.data();
      auto run_model = [&](std::string_view piece, bool starts_text) {
        for (const std::string& pre_token : pre_tokenizer_.pre_tokenize(piece, starts_text))
          model_.tokenize(pre_token, ids);
      };
      if (!whitespace_split_) {
        run_model(sub.text, sub_starts_text);
      } else {
        for (const auto& [offset, word] : whitespace_words(sub.text))
          run_model(word, sub_starts_text && offset == 0);
      }
    }
  }
  if (add_eos) ids.insert(ids.end(), post_processor_.suffix.begin(), post_processor_.suffix.end());
  return ids;
}

std::string UnigramTokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens,
                                     std::optional<bool> clean_up_tokenization_spaces) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    std::string token;
    if (auto it = added_by_id_.find(id); it != added_by_id_.end())
      token = it->second;
    else if (id >= 0 && size_t(id) < model_.size())
      token = model_.piece(id);
    else
      continue;
    if (skip_special_tokens && special_contents_.count(token)) continue;
    tokens.push_back(std::move(token));
  }
  std::string text;
  if (has_decoder_) {
    for (const std::string& piece : decoder_.decode(tokens)) text += piece;
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
  }
  return clean_up_tokenization_spaces.value_or(clean_up_tokenization_spaces_)
             ? clean_up_tokenization(std::move(text))
             : text;
}

size_t UnigramTokenizer::size() const {
  // HF's get_vocab(with_added_tokens=true).len(): the model's pieces and the added tokens,
  // each distinct text counted once.
  std::unordered_set<std::string_view> tokens;
  for (size_t id = 0; id < model_.size(); ++id) tokens.insert(model_.piece(int32_t(id)));
  for (const AddedToken& a : added_) tokens.insert(a.content);
  return tokens.size();
}

void UnigramTokenizer::save(const std::filesystem::path& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check(!ec, dir.string() + ": cannot create directory: " + ec.message());
  write_file_atomic(dir / "tokenizer.json", files_.at("tokenizer.json"));

  json specials = {{"eos_token", eos_token_}, {"pad_token", pad_token_}, {"unk_token", unk_token_}};
  int sentinels = 0;
  json additional = json::array();
  for (const AddedToken& a : added_) {
    if (a.content.starts_with("<extra_id_") && a.content.ends_with(">")) {
      ++sentinels;
      additional.push_back(a.content);
    }
  }
  if (auto config = files_.find("tokenizer_config.json"); config != files_.end()) {
    // There is no spiece.model here: add_prefix_space / from_slow would make T5TokenizerFast
    // convert from it and fail, so those keys go (the tokenizer.json already says how the
    // prefix space is added). Otherwise the bytes are kept as read.
    json j = json::parse(config->second);
    if (j.contains("add_prefix_space") || j.contains("from_slow")) {
      j.erase("add_prefix_space");
      j.erase("from_slow");
      write_file_atomic(dir / "tokenizer_config.json", j.dump(2, ' ', false) + "\n");
    } else {
      write_file_atomic(dir / "tokenizer_config.json", config->second);
    }
  } else {
    json j = specials;
    j["tokenizer_class"] = "T5Tokenizer";
    j["extra_ids"] = sentinels;
    j["additional_special_tokens"] = additional;
    j["clean_up_tokenization_spaces"] = clean_up_tokenization_spaces_;
    write_file_atomic(dir / "tokenizer_config.json", j.dump(2) + "\n");
  }
  if (auto map = files_.find("special_tokens_map.json"); map != files_.end()) {
    write_file_atomic(dir / "special_tokens_map.json", map->second);
  } else {
    json j = specials;
    j["additional_special_tokens"] = additional;
    write_file_atomic(dir / "special_tokens_map.json", j.dump(2) + "\n");
  }
}

}  // namespace precis::tokenize
