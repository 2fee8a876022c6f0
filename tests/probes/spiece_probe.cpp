// Test tool for the T5 tokenizer oracle test: reads a JSON array from a file and prints one
// JSON value per element.
//   spiece_probe encode TOKENIZER_DIR TEXTS.json        -> the ids of each text (with </s>)
//   spiece_probe decode TOKENIZER_DIR IDS.json [keep]   -> each id list decoded (skipping
//                                                         special tokens unless "keep")
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "precis/core/error.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"

using namespace precis;

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if ((cmd != "encode" && cmd != "decode") || argc < 4) {
      std::fprintf(stderr, "usage: spiece_probe encode|decode DIR INPUT.json [keep]\n");
      return 2;
    }
    auto tok = tokenize::SentencePieceTokenizer::from_directory(argv[2]);
    std::ifstream in(argv[3]);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json items = nlohmann::json::parse(text.str());
    for (const auto& item : items) {
      if (cmd == "encode") {
        std::cout << nlohmann::json(tok.encode(item.get<std::string>())).dump() << "\n";
      } else {
        std::vector<int32_t> ids = item.get<std::vector<int32_t>>();
        bool skip = !(argc == 5 && std::string(argv[4]) == "keep");
        std::cout << nlohmann::json(tok.decode(ids, skip)).dump() << "\n";
      }
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "spiece_probe: error: %s\n", e.what());
    return 1;
  }
}
