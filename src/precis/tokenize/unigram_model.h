// The Unigram model of HF `tokenizers` (tokenizers/src/models/unigram/model.rs,
// Unigram::encode; SentencePiece's unigram): each pre-token is cut into vocabulary pieces by
// Viterbi over the lattice of pieces that match at every character position, maximising the sum
// of piece scores. A character where no single-character piece starts may be covered by an
// unknown node scored min_score - 10; neighbouring unknown nodes fuse into one <unk>.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace precis::tokenize {

class UnigramModel {
 public:
  // From tokenizer.json's "model" object: {"type": "Unigram", "unk_id", "vocab": [[piece,
  // score], ...], "byte_fallback"}. Throws precis::Error naming `where` and the field.
  static UnigramModel from_json(const nlohmann::json& model, const std::string& where);

  // Appends the ids of one pre-token (valid UTF-8).
  void tokenize(std::string_view pre_token, std::vector<int32_t>& ids) const;

  size_t size() const { return pieces_.size(); }
  const std::string& piece(int32_t id) const { return pieces_[size_t(id)]; }
  // -1 when the piece is not in the vocabulary.
  int32_t piece_id(std::string_view piece) const;
  int32_t unk_id() const { return unk_id_; }

 private:
  // Best segmentation as strings (fused unknowns are one string), HF's encode_optimized.
  std::vector<std::string_view> segment(std::string_view text) const;

  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  // Piece -> id; for a repeated piece, its last id (as HF's map built in vocabulary order).
  std::unordered_map<std::string_view, int32_t> ids_;
  size_t longest_piece_ = 0;  // bytes
  double min_score_ = 0.0;
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false;
};

}  // namespace precis::tokenize
