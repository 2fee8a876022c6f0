#include "precis/tokenize/tokenizer.h"

#include <algorithm>
#include <atomic>
#include <unordered_set>

#include "precis/core/error.h"
#include "precis/tokenize/clean_up.h"
#include "precis/tokenize/byte_level.h"
#include "precis/tokenize/gpt2_split.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

enum : uint8_t { kExists = 1, kSpecial = 2 };

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Per-thread memo of word -> ids. Most words of real text repeat, so this skips the merge
// loop for nearly all of them. It belongs to one tokenizer at a time (by cache key) and is
// cleared when full, which keeps memory bounded without bookkeeping.
struct WordCache {
  static constexpr size_t kMaxWords = 1 << 17;
  uint64_t owner = 0;
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>, StringViewHash,
                     std::equal_to<>>
      spans;  // word -> (offset, count) in ids
  std::vector<int32_t> ids;

  void reset(uint64_t key) {
    owner = key;
    spans.clear();
    ids.clear();
  }
};

std::atomic<uint64_t> next_cache_key{1};

}  // namespace

void Tokenizer::finish() {
  std::sort(added_.begin(), added_.end(),
            [](const AddedToken& a, const AddedToken& b) { return a.id < b.id; });
  std::vector<AddedToken> raw, normalized;
  added_by_content_.clear();
  for (const AddedToken& t : added_) {
    (t.normalized ? normalized : raw).push_back(t);
    added_by_content_[t.content] = t.id;
  }
  raw_matcher_ = AddedTokenMatcher(std::move(raw));
  normalized_matcher_ = AddedTokenMatcher(std::move(normalized));

  int32_t max_id = -1;
  for (const auto& [token, id] : bpe_->vocab()) max_id = std::max(max_id, id);
  for (const AddedToken& t : added_) max_id = std::max(max_id, t.id);
  id_token_.assign(static_cast<size_t>(max_id + 1), {});
  id_bytes_.assign(id_token_.size(), {});
  id_flags_.assign(id_token_.size(), 0);
  for (const auto& [token, id] : bpe_->vocab()) {
    id_token_[id] = token;
    id_flags_[id] = kExists;
  }
  std::unordered_set<std::string> special_contents;
  for (const AddedToken& t : added_) {
    id_token_[t.id] = t.content;  // an added token's content wins over the model's token
    id_flags_[t.id] = kExists;
    if (t.special) special_contents.insert(t.content);
  }
  for (size_t id = 0; id < id_token_.size(); ++id) {
    if (!(id_flags_[id] & kExists)) continue;
    if (special_contents.count(id_token_[id])) id_flags_[id] |= kSpecial;
    if (byte_level_decoder_) {
      // HF's ByteLevel decoder keeps a token's own bytes when a character is not mapped.
      id_bytes_[id] = byte_level_decode(id_token_[id]).value_or(id_token_[id]);
    }
  }
  size_ = bpe_->vocab().size();
  for (const auto& [content, id] : added_by_content_)
    if (!bpe_->vocab().count(content)) ++size_;
  cache_key_ = next_cache_key.fetch_add(1);
}

void Tokenizer::encode_text(std::string_view text, std::vector<int32_t>& out) const {
  thread_local std::vector<std::string_view> pieces;
  thread_local WordCache cache;
  if (cache.owner != cache_key_) cache.reset(cache_key_);

  std::string prefixed;
  if (settings_.add_prefix_space && !text.starts_with(' ')) {
    prefixed.reserve(text.size() + 1);
    prefixed += ' ';
    prefixed += text;
    text = prefixed;
  }
  pieces.clear();
  if (use_regex_) {
    split_gpt2(text, pieces);
  } else {
    pieces.push_back(text);
  }
  for (std::string_view piece : pieces) {
    auto hit = cache.spans.find(piece);
    if (hit != cache.spans.end()) {
      auto [offset, count] = hit->second;
      out.insert(out.end(), cache.ids.begin() + offset, cache.ids.begin() + offset + count);
      continue;
    }
    size_t before = out.size();
    bpe_->encode_word(piece, out);
    if (cache.spans.size() >= WordCache::kMaxWords) cache.reset(cache_key_);
    auto offset = static_cast<uint32_t>(cache.ids.size());
    cache.ids.insert(cache.ids.end(), out.begin() + before, out.end());
    cache.spans.emplace(std::string(piece),
                        std::pair{offset, static_cast<uint32_t>(out.size() - before)});
  }
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, const EncodeOptions& options) const {
  size_t bad = find_invalid_utf8(text);
  check(bad == std::string_view::npos,
        "text to tokenize is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  // Non-normalized added tokens are cut first, then the normalized ones from what is left
  // (HF's two passes; BART has no normalizer, so only the order of matching differs).
  std::vector<Segment> first, segments;
  raw_matcher_.split(text, first);
  for (const Segment& s : first) {
    if (s.id >= 0) {
      segments.push_back(s);
    } else {
      normalized_matcher_.split(s.text, segments);
    }
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + post_.added() + 1);
  if (options.add_special_tokens) ids.insert(ids.end(), post_.prefix.begin(), post_.prefix.end());
  size_t content_start = ids.size();
  for (const Segment& s : segments) {
    if (s.id >= 0) {
      ids.push_back(s.id);
    } else {
      encode_text(s.text, ids);
    }
  }
  if (options.max_length) {
    size_t specials = options.add_special_tokens ? post_.added() : 0;
    if (*options.max_length >= specials) {
      size_t keep = *options.max_length - specials;
      if (ids.size() - content_start > keep) ids.resize(content_start + keep);
    }
  }
  if (options.add_special_tokens) ids.insert(ids.end(), post_.suffix.begin(), post_.suffix.end());
  return ids;
}

std::vector<std::vector<int32_t>> Tokenizer::encode_batch(const std::vector<std::string>& texts,
                                                          const EncodeOptions& options) const {
  std::vector<std::vector<int32_t>> out(texts.size());
  // An exception must not leave an OpenMP region, so the first one is carried out.
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t i = 0; i < texts.size(); ++i) {
    try {
      out[i] = encode(texts[i], options);
    } catch (...) {
#pragma omp critical(precis_tokenize_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, const DecodeOptions& options) const {
  std::string text;
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= id_flags_.size()) continue;
    uint8_t flags = id_flags_[id];
    if (!(flags & kExists) || (options.skip_special_tokens && (flags & kSpecial))) continue;
    if (byte_level_decoder_) {
      text += id_bytes_[id];
    } else {
      if (!text.empty()) text += ' ';
      text += id_token_[id];
    }
  }
  if (byte_level_decoder_) text = utf8_lossy(text);
  bool clean =
      options.clean_up_tokenization_spaces.value_or(settings_.clean_up_tokenization_spaces) &&
      !settings_.clean_up_ignored;
  return clean ? clean_up_tokenization(std::move(text)) : text;
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  std::string key(token);
  if (auto it = added_by_content_.find(key); it != added_by_content_.end()) return it->second;
  if (auto it = bpe_->vocab().find(key); it != bpe_->vocab().end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> Tokenizer::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= id_flags_.size() || !(id_flags_[id] & kExists))
    return std::nullopt;
  return id_token_[id];
}

bool Tokenizer::is_special(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < id_flags_.size() && (id_flags_[id] & kSpecial);
}

int32_t Tokenizer::special_id(const std::optional<std::string>& token, const char* name) const {
  check(token.has_value(), std::string("this tokenizer has no ") + name + "_token");
  auto id = token_to_id(*token);
  check(id.has_value(), std::string(name) + "_token '" + *token + "' is not in the vocabulary");
  return *id;
}

}  // namespace precis::tokenize
