#include "precis/tokenize/unigram_model.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "precis/core/error.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

using nlohmann::json;

constexpr double kUnknownPenalty = 10.0;  // unknown nodes score min_score - 10

}  // namespace

UnigramModel UnigramModel::from_json(const json& m, const std::string& where) {
  check(m.is_object() && m.value("type", "") == "Unigram",
        where + ": model.type should be \"Unigram\", found " +
            (m.is_object() && m.contains("type") ? m["type"].dump() : std::string("none")));
  check(m.contains("vocab") && m["vocab"].is_array() && !m["vocab"].empty(),
        where + ": model.vocab should be a non-empty list of [piece, score]");
  UnigramModel u;
  const json& vocab = m["vocab"];
  u.pieces_.reserve(vocab.size());
  u.scores_.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    const json& entry = vocab[i];
    check(entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_number(),
          where + ": model.vocab[" + std::to_string(i) + "] should be [piece, score], found " +
              entry.dump().substr(0, 200));
    std::string piece = entry[0];
    check(find_invalid_utf8(piece) == std::string::npos,
          where + ": model.vocab[" + std::to_string(i) + "] is not valid UTF-8");
    u.pieces_.push_back(std::move(piece));
    u.scores_.push_back(entry[1].get<double>());
  }
  for (size_t i = 0; i < u.pieces_.size(); ++i) {
    u.ids_[u.pieces_[i]] = int32_t(i);
    u.longest_piece_ = std::max(u.longest_piece_, u.pieces_[i].size());
  }
  u.min_score_ = *std::min_element(u.scores_.begin(), u.scores_.end());
  if (auto unk = m.find("unk_id"); unk != m.end() && !unk->is_null()) {
    check(unk->is_number_integer() && unk->get<int64_t>() >= 0 &&
              unk->get<int64_t>() < int64_t(vocab.size()),
          where + ": model.unk_id should be an id below the vocabulary size " +
              std::to_string(vocab.size()) + ", found " + unk->dump());
    u.unk_id_ = unk->get<int32_t>();
  }
  if (auto b = m.find("byte_fallback"); b != m.end() && !b->is_null()) {
    check(b->is_boolean(), where + ": model.byte_fallback should be a boolean");
    u.byte_fallback_ = *b;
  }
  return u;
}

int32_t UnigramModel::piece_id(std::string_view piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

std::vector<std::string_view> UnigramModel::segment(std::string_view text) const {
  // best[i]: the best path over text[0, i) and its last node (piece id, where it starts).
  struct Node {
    double score = 0.0;
    std::optional<size_t> start;
    int32_t id = 0;
  };
  std::vector<Node> best(text.size() + 1);
  const double unk_score = min_score_ - kUnknownPenalty;
  auto relax = [&](size_t start, size_t end, int32_t id, double score) {
    Node& target = best[end];
    const double candidate = best[start].score + score;
    // Strictly better only: the first path found (earliest start) wins ties.
    if (!target.start || candidate > target.score) target = {candidate, start, id};
  };
  for (size_t start = 0, char_len = 0; start < text.size(); start += char_len) {
    decode_utf8_at(text, start, char_len);
    bool single_char_piece = false;
    // Pieces that start here, shortest first (the order of HF's trie common-prefix search).
    const size_t longest = std::min(longest_piece_, text.size() - start);
    for (size_t len = 1; len <= longest; ++len) {
      auto it = ids_.find(text.substr(start, len));
      if (it == ids_.end()) continue;
      relax(start, start + len, it->second, scores_[size_t(it->second)]);
      if (len == char_len) single_char_piece = true;
    }
    if (!single_char_piece) {
      check(unk_id_ >= 0, "unigram model: '" + std::string(text.substr(start, char_len)) +
                              "' is not in the vocabulary and the model has no unk_id");
      relax(start, start + char_len, unk_id_, unk_score);
    }
  }
  // Back from the end; unknown nodes next to each other become one string.
  std::vector<std::string_view> pieces;
  size_t end = text.size(), unknown_end = std::string_view::npos;
  while (end > 0) {
    const Node& node = best[end];
    const size_t start = *node.start;
    if (node.id == unk_id_) {
      if (unknown_end == std::string_view::npos) unknown_end = end;
    } else {
      if (unknown_end != std::string_view::npos)
        pieces.push_back(text.substr(end, unknown_end - end));
      unknown_end = std::string_view::npos;
      pieces.push_back(text.substr(start, end - start));
    }
    end = start;
  }
  if (unknown_end != std::string_view::npos) pieces.push_back(text.substr(0, unknown_end));
  std::reverse(pieces.begin(), pieces.end());
  return pieces;
}

void UnigramModel::tokenize(std::string_view pre_token, std::vector<int32_t>& ids) const {
  if (pre_token.empty()) return;
  for (std::string_view piece : segment(pre_token)) {
    if (int32_t id = piece_id(piece); id >= 0) {
      ids.push_back(id);
      continue;
    }
    if (byte_fallback_) {
      // <0xXX> per byte, when every one of them is in the vocabulary.
      std::vector<int32_t> bytes;
      for (unsigned char b : piece) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        int32_t id = piece_id(name);
        if (id < 0) break;
        bytes.push_back(id);
      }
      if (bytes.size() == piece.size()) {
        ids.insert(ids.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    check(unk_id_ >= 0,
          "unigram model: '" + std::string(piece) + "' has no id and the model has no unk_id");
    ids.push_back(unk_id_);
  }
}

}  // namespace precis::tokenize
