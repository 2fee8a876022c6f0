// Writing a tokenizer as transformers' save_pretrained does for BartTokenizerFast, so that
// AutoTokenizer.from_pretrained(dir) (fast from tokenizer.json, or slow from vocab.json +
// merges.txt) loads the same tokenizer back.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/tokenize/tokenizer.h"

namespace precis::tokenize {

using ordered = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct TokenizerWriter {
  const Tokenizer& t;

  ordered vocab_by_id() const {
    std::vector<std::pair<int32_t, const std::string*>> entries;
    for (const auto& [token, id] : t.bpe_->vocab()) entries.emplace_back(id, &token);
    std::sort(entries.begin(), entries.end());
    ordered v = ordered::object();
    for (const auto& [id, token] : entries) v[*token] = id;
    return v;
  }

  // tokenizers < 0.20 read only "a b"; pairs are needed only when a token holds a space,
  // which byte-level tokens never do (space is 'Ġ').
  bool merges_need_pairs() const {
    for (const auto& [a, b] : t.bpe_->merges())
      if (a.find(' ') != std::string::npos || b.find(' ') != std::string::npos) return true;
    return false;
  }

  ordered added_token_flags(const AddedToken& a) const {
    return {{"content", a.content}, {"lstrip", a.lstrip},           {"normalized", a.normalized},
            {"rstrip", a.rstrip},   {"single_word", a.single_word}, {"special", a.special}};
  }

  const AddedToken* added(const std::string& content) const {
    for (const AddedToken& a : t.added_)
      if (a.content == content) return &a;
    return nullptr;
  }

  ordered tokenizer_json() const {
    ordered added_tokens = ordered::array();
    for (const AddedToken& a : t.added_)
      added_tokens.push_back({{"id", a.id},
                              {"content", a.content},
                              {"single_word", a.single_word},
                              {"lstrip", a.lstrip},
                              {"rstrip", a.rstrip},
                              {"normalized", a.normalized},
                              {"special", a.special}});
    ordered merges = ordered::array();
    bool pairs = merges_need_pairs();
    for (const auto& [a, b] : t.bpe_->merges())
      merges.push_back(pairs ? ordered::array({a, b}) : ordered(a + " " + b));
    ordered byte_level = {{"type", "ByteLevel"},
                          {"add_prefix_space", t.settings_.add_prefix_space},
                          {"trim_offsets", t.trim_offsets_},
                          {"use_regex", t.use_regex_}};
    ordered decoder = nullptr;
    if (t.byte_level_decoder_)
      decoder = {{"type", "ByteLevel"},
                 {"add_prefix_space", true},
                 {"trim_offsets", true},
                 {"use_regex", true}};
    ordered unk = nullptr;
    if (t.bpe_->unk_token()) unk = *t.bpe_->unk_token();
    return {{"version", "1.0"},
            {"truncation", nullptr},
            {"padding", nullptr},
            {"added_tokens", added_tokens},
            {"normalizer", nullptr},
            {"pre_tokenizer", byte_level},
            {"post_processor", ordered::parse(t.post_.config.dump())},
            {"decoder", decoder},
            {"model",
             {{"type", "BPE"},
              {"dropout", nullptr},
              {"unk_token", unk},
              {"continuing_subword_prefix", ""},
              {"end_of_word_suffix", ""},
              {"fuse_unk", t.bpe_->fuse_unk()},
              {"byte_fallback", false},
              {"ignore_merges", t.bpe_->ignore_merges()},
              {"vocab", vocab_by_id()},
              {"merges", merges}}}};
  }

  // The special-token attributes, as the strings tokenizer_config.json holds or as the
  // AddedToken objects special_tokens_map.json holds.
  void add_special_tokens(ordered& out, bool as_objects) const {
    const SpecialTokens& s = t.settings_.special_tokens;
    const std::pair<const char*, const std::optional<std::string>*> fields[] = {
        {"bos_token", &s.bos},   {"cls_token", &s.cls}, {"eos_token", &s.eos},
        {"mask_token", &s.mask}, {"pad_token", &s.pad}, {"sep_token", &s.sep},
        {"unk_token", &s.unk}};
    auto value = [&](const std::string& content) {
      const AddedToken* a = added(content);
      if (!as_objects || !a) return ordered(content);
      ordered flags = added_token_flags(*a);
      flags.erase("special");
      return flags;
    };
    if (!s.additional.empty()) {
      ordered list = ordered::array();
      for (const std::string& a : s.additional) list.push_back(value(a));
      out["additional_special_tokens"] = list;
    }
    for (const auto& [key, field] : fields) {
      if (*field) {
        out[key] = value(**field);
      } else if (!as_objects) {
        out[key] = nullptr;
      }
    }
  }

  ordered tokenizer_config() const {
    ordered decoder = ordered::object();
    for (const AddedToken& a : t.added_) decoder[std::to_string(a.id)] = added_token_flags(a);
    ordered c = {{"add_prefix_space", t.settings_.add_prefix_space},
                 {"added_tokens_decoder", decoder},
                 {"clean_up_tokenization_spaces", t.settings_.clean_up_tokenization_spaces},
                 {"errors", "replace"},
                 {"tokenizer_class", "BartTokenizer"},
                 {"trim_offsets", t.trim_offsets_}};
    // Without a limit the key is left out: transformers then uses its int(1e30) default.
    if (t.settings_.model_max_length) c["model_max_length"] = *t.settings_.model_max_length;
    add_special_tokens(c, /*as_objects=*/false);
    return c;
  }

  std::string merges_txt() const {
    std::string out = "#version: 0.2\n";
    for (const auto& [a, b] : t.bpe_->merges()) out += a + " " + b + "\n";
    return out;
  }
};

void Tokenizer::save(const fs::path& dir) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  check(!ec, dir.string() + ": cannot create directory: " + ec.message());
  TokenizerWriter w{*this};
  auto dump = [&](const ordered& j, const char* name) {
    try {
      return j.dump(2, ' ', /*ensure_ascii=*/false) + "\n";
    } catch (const nlohmann::json::exception& e) {
      throw Error((dir / name).string() + ": cannot write: " + e.what());
    }
  };
  ordered special_map = ordered::object();
  w.add_special_tokens(special_map, /*as_objects=*/true);
  write_file_atomic(dir / "vocab.json", dump(w.vocab_by_id(), "vocab.json"));
  write_file_atomic(dir / "merges.txt", w.merges_txt());
  write_file_atomic(dir / "tokenizer.json", dump(w.tokenizer_json(), "tokenizer.json"));
  write_file_atomic(dir / "tokenizer_config.json",
                    dump(w.tokenizer_config(), "tokenizer_config.json"));
  write_file_atomic(dir / "special_tokens_map.json", dump(special_map, "special_tokens_map.json"));
}

}  // namespace precis::tokenize
