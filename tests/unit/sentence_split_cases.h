// The sentence-splitting cases of tests/unit/data/sentence_split_cases.json, whose expectations
// are NLTK's (tests/oracle/test_rouge.py checks them against NLTK), and the check a splitter
// passes on them: the rule-based one (test_rouge_sentence_split.cpp) and Punkt on the tiny
// tables (test_punkt.cpp).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "precis/eval/python_text.h"
#include "precis/eval/sentence_split.h"

#include "test_support.h"

namespace precis::testing {

// The file's section `name`: "rule_based" (the cases), "tiny_punkt" (the tables and the cases).
inline nlohmann::json sentence_split_data(const std::string& name) {
  const std::string path =
      std::string(PRECIS_SOURCE_DIR) + "/tests/unit/data/sentence_split_cases.json";
  return nlohmann::json::parse(read_all(path))[name];
}

// Each case's text splits into its sentences as run_summarization's
// nltk.sent_tokenize(text.strip()) does, and on_lines gives them one per line, as rougeLsum
// reads them.
inline void expect_splits_as_nltk(const eval::SentenceSplitter& splitter,
                                  const nlohmann::json& cases) {
  for (const nlohmann::json& c : cases) {
    const auto text = c.at("text").get<std::string>();
    const auto expected = c.at("sentences").get<std::vector<std::string>>();
    SCOPED_TRACE(text);
    const auto sentences = splitter.split(eval::python_text::strip(text));
    EXPECT_EQ(std::vector<std::string>(sentences.begin(), sentences.end()), expected);
    std::string lines;
    for (const std::string& s : expected) lines += (lines.empty() ? "" : "\n") + s;
    EXPECT_EQ(splitter.on_lines(text), lines);
  }
}

}  // namespace precis::testing
