#include "precis/tokenize/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/json_input.h"
#include "precis/tokenize/clean_up.h"

namespace precis::tokenize {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Python's str.strip() family on the ASCII whitespace that matters here. (Python also strips
// Unicode spaces; the texts next to specials in practice differ only by ASCII ones.)
std::string_view lstrip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}
std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

SentencePieceTokenizer SentencePieceTokenizer::from_model_file(const std::filesystem::path& path,
                                                               int extra_ids) {
  SentencePieceTokenizer t;
  t.sp_ = std::make_shared<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status status;
  try {
    status = t.sp_->Load(path.string());
  } catch (const std::exception& e) {
    // libsentencepiece mostly returns a status, but its trie of user-defined pieces throws
    // (an empty piece: "failed to insert key: zero-length key").
    throw Error(path.string() + ": not a SentencePiece model: " + e.what());
  }
  check(status.ok(), path.string() + ": not a SentencePiece model: " + status.ToString());
  check(extra_ids >= 0, path.string() + ": extra_ids must not be negative");
  t.extra_ids_ = extra_ids;
  t.pad_id_ = t.sp_->pad_id() >= 0 ? t.sp_->pad_id() : 0;
  t.eos_id_ = t.sp_->eos_id() >= 0 ? t.sp_->eos_id() : 1;
  t.unk_id_ = t.sp_->unk_id();
  t.specials_ = {{"<pad>", t.pad_id_}, {"</s>", t.eos_id_}, {"<unk>", t.unk_id_}};
  const int32_t pieces = t.sp_->GetPieceSize();
  for (int i = 0; i < extra_ids; ++i)
    t.specials_["<extra_id_" + std::to_string(i) + ">"] = pieces + extra_ids - 1 - i;
  return t;
}

SentencePieceTokenizer SentencePieceTokenizer::from_directory(const std::filesystem::path& dir) {
  int extra_ids = 100;
  if (std::filesystem::exists(dir / "tokenizer_config.json")) {
    const nlohmann::json j = read_json_file(dir / "tokenizer_config.json");
    check(j.is_object(), (dir / "tokenizer_config.json").string() + ": not a JSON object");
    if (auto e = j.find("extra_ids"); e != j.end() && !e->is_null()) {
      check(e->is_number_integer() && *e >= 0 && *e <= 100000,
            (dir / "tokenizer_config.json").string() +
                ": extra_ids should be an integer in [0, 100000], got " + e->dump());
      extra_ids = e->get<int>();
    }
  }
  check(std::filesystem::exists(dir / "spiece.model"),
        dir.string() + ": no spiece.model (a T5 tokenizer directory needs one)");
  SentencePieceTokenizer t = from_model_file(dir / "spiece.model", extra_ids);
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    if (auto bytes = read_file_bytes(dir / name)) t.config_files_[name] = std::move(*bytes);
  }
  return t;
}

std::vector<int32_t> SentencePieceTokenizer::encode_truncated(std::string_view text, size_t max_length) const {
  std::vector<int32_t> ids = encode(text, false);
  if (max_length > 0 && ids.size() + 1 > max_length) ids.resize(max_length - 1);
  if (ids.empty() || ids.back() != eos_id_) ids.push_back(eos_id_);
  return ids;
}

void SentencePieceTokenizer::save(const std::filesystem::path& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check(!ec, dir.string() + ": cannot create directory: " + ec.message());
  write_file_atomic(dir / "spiece.model", sp_->serialized_model_proto());
  auto piece = [&](int32_t id) { return sp_->IdToPiece(id); };
  nlohmann::json specials = {{"eos_token", piece(eos_id_)}, {"pad_token", piece(pad_id_)}};
  if (unk_id_ >= 0) specials["unk_token"] = piece(unk_id_);
  auto config = config_files_.find("tokenizer_config.json");
  if (config != config_files_.end()) {
    write_file_atomic(dir / "tokenizer_config.json", config->second);
  } else {
    nlohmann::json j = specials;
    j["tokenizer_class"] = "T5Tokenizer";
    j["extra_ids"] = extra_ids_;
    write_file_atomic(dir / "tokenizer_config.json", j.dump(2) + "\n");
  }
  auto map = config_files_.find("special_tokens_map.json");
  write_file_atomic(dir / "special_tokens_map.json",
                    map != config_files_.end() ? map->second : specials.dump(2) + "\n");
}

size_t SentencePieceTokenizer::size() const { return size_t(sp_->GetPieceSize()) + size_t(extra_ids_); }

bool SentencePieceTokenizer::is_sentinel(int32_t id) const {
  return id >= sp_->GetPieceSize() && id < sp_->GetPieceSize() + extra_ids_;
}

std::string SentencePieceTokenizer::sentinel(int32_t id) const {
  return "<extra_id_" + std::to_string(sp_->GetPieceSize() + extra_ids_ - 1 - id) + ">";
}

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text, bool add_eos) const {
  // Split at every special token, leftmost first and longest at a position (HF's trie).
  struct Part {
    std::string_view text;
    int32_t special = -1;
  };
  std::vector<Part> parts;
  size_t start = 0, pos = 0;
  while (pos < text.size()) {
    size_t best = 0;
    int32_t id = -1;
    if (text[pos] == '<') {
      for (const auto& [token, tid] : specials_)
        if (token.size() > best && text.substr(pos, token.size()) == token) best = token.size(), id = tid;
    }
    if (id < 0) {
      ++pos;
      continue;
    }
    parts.push_back({text.substr(start, pos - start)});
    parts.push_back({text.substr(pos, best), id});
    pos += best;
    start = pos;
  }
  parts.push_back({text.substr(start)});
  // Sentinels are AddedToken(lstrip=True, rstrip=True): they eat the spaces beside them.
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].special < 0 || !is_sentinel(parts[i].special)) continue;
    if (i > 0) parts[i - 1].text = rstrip(parts[i - 1].text);
    if (i + 1 < parts.size()) parts[i + 1].text = lstrip(parts[i + 1].text);
  }
  std::vector<int32_t> ids;
  std::vector<std::string> pieces;
  for (const Part& part : parts) {
    if (part.special >= 0) {
      ids.push_back(part.special);
      continue;
    }
    if (part.text.empty()) continue;
    pieces.clear();
    auto status = sp_->Encode(absl::string_view(part.text.data(), part.text.size()), &pieces);
    check(status.ok(), "sentencepiece: " + status.ToString());
    for (const auto& piece : pieces) ids.push_back(sp_->PieceToId(piece));
  }
  if (add_eos && (ids.empty() || ids.back() != eos_id_)) ids.push_back(eos_id_);
  return ids;
}

std::string SentencePieceTokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens,
                                           std::optional<bool> clean_up_tokenization_spaces) const {
  // PreTrainedTokenizer._decode: sentinels stand alone; runs of other tokens go through
  // T5Tokenizer.convert_tokens_to_string; the parts are joined with spaces.
  auto is_special = [&](int32_t id) {
    return id == pad_id_ || id == eos_id_ || id == unk_id_ || is_sentinel(id);
  };
  std::vector<std::string> sub_texts;
  std::vector<std::string> run;
  auto flush = [&](bool keep_empty) {
    if (run.empty()) return;
    // convert_tokens_to_string: drop the first token's "▁" (add_prefix_space), decode the
    // pieces between specials with sentencepiece, specials verbatim, then strip.
    static const std::string kSpace = "\xe2\x96\x81";
    if (run[0].compare(0, kSpace.size(), kSpace) == 0) run[0] = run[0].substr(kSpace.size());
    std::string out;
    std::vector<std::string> current;
    bool prev_special = false;
    auto sp_decode = [&](const std::vector<std::string>& pieces) {
      std::string s;
      if (!pieces.empty()) sp_->Decode(pieces, &s);
      return s;
    };
    for (const auto& token : run) {
      if (specials_.count(token)) {
        if (!prev_special) out += " ";
        out += sp_decode(current) + token;
        prev_special = true;
        current.clear();
      } else {
        current.push_back(token);
        prev_special = false;
      }
    }
    out += sp_decode(current);
    std::string_view stripped = rstrip(lstrip(out));
    if (keep_empty || !stripped.empty()) sub_texts.emplace_back(stripped);
    run.clear();
  };
  for (int32_t id : ids) {
    if (skip_special_tokens && is_special(id)) continue;
    if (is_sentinel(id)) {
      flush(false);
      sub_texts.push_back(sentinel(id));
    } else if (id >= 0 && id < sp_->GetPieceSize()) {
      run.push_back(sp_->IdToPiece(id));
    }
  }
  flush(true);
  std::string text;
  for (size_t i = 0; i < sub_texts.size(); ++i) text += (i ? " " : "") + sub_texts[i];
  return clean_up_tokenization_spaces.value_or(true) ? clean_up_tokenization(text) : text;
}

}  // namespace precis::tokenize
