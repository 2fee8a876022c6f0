// What encode() adds around a single sequence when add_special_tokens is on: BART's
// RobertaProcessing gives <s> ... </s>. Read from the tokenizer.json `post_processor`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace precis::tokenize {

struct PostProcessor {
  std::vector<int32_t> prefix;  // ids before the sequence
  std::vector<int32_t> suffix;  // ids after it
  nlohmann::json config;        // as read (null when none), written back by save()

  size_t added() const { return prefix.size() + suffix.size(); }

  // Accepts null, RobertaProcessing, BertProcessing, TemplateProcessing, ByteLevel (offsets
  // only: adds nothing) and Sequence of those. Throws precis::Error naming what it cannot
  // read; `where` prefixes the message (the file).
  static PostProcessor from_json(const nlohmann::json& config, const std::string& where);
};

}  // namespace precis::tokenize
