// Test tool for the tokenizer.json (Unigram) oracle test: reads a JSON array from a file and
// prints one JSON value per element.
//   unigram_probe encode DIR TEXTS.json [plain]  -> the ids of each text (with the post-processor's
//                                                  </s> unless "plain")
//   unigram_probe decode DIR IDS.json [keep]     -> each id list decoded (skipping special tokens
//                                                  unless "keep")
//   unigram_probe normalize DIR TEXTS.json       -> each text through tokenizer.json's normalizer
//   unigram_probe graphemes - TEXTS.json         -> each text cut into extended grapheme clusters
//   unigram_probe info DIR                       -> {"size", "eos_id", "pad_id"}
//   unigram_probe save DIR OUT_DIR               -> writes the tokenizer to OUT_DIR
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "precis/core/error.h"
#include "precis/tokenize/grapheme_break.h"
#include "precis/tokenize/normalizer_sequence.h"
#include "precis/tokenize/unigram_tokenizer.h"

using namespace precis;
using nlohmann::json;

namespace {

json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    const std::string option = argc > 4 ? argv[4] : "";
    if (cmd == "info" && argc == 3) {
      auto tok = tokenize::UnigramTokenizer::from_directory(argv[2]);
      std::cout
          << json{{"size", tok.size()}, {"eos_id", tok.eos_id()}, {"pad_id", tok.pad_id()}}.dump()
          << "\n";
      return 0;
    }
    if (cmd == "save" && argc == 4) {
      tokenize::UnigramTokenizer::from_directory(argv[2]).save(argv[3]);
      return 0;
    }
    if (cmd == "graphemes" && argc == 4) {
      for (const auto& item : read_json(argv[3])) {
        const std::string text = item.get<std::string>();
        json clusters = json::array();
        for (size_t start = 0, end; start < text.size(); start = end) {
          end = tokenize::grapheme_end(text, start);
          clusters.push_back(text.substr(start, end - start));
        }
        std::cout << clusters.dump() << "\n";
      }
      return 0;
    }
    if (cmd == "normalize" && argc == 4) {
      const std::string where = std::string(argv[2]) + "/tokenizer.json";
      auto normalizer = tokenize::NormalizerSequence::from_json(
          read_json(where).value("normalizer", json()), where);
      for (const auto& item : read_json(argv[3]))
        std::cout << json(normalizer.normalize(item.get<std::string>())).dump() << "\n";
      return 0;
    }
    if ((cmd != "encode" && cmd != "decode") || argc < 4) {
      std::fprintf(stderr,
                   "usage: unigram_probe encode|decode|normalize DIR INPUT.json [plain|keep]\n"
                   "       unigram_probe graphemes - INPUT.json | info DIR | save DIR OUT_DIR\n");
      return 2;
    }
    auto tok = tokenize::UnigramTokenizer::from_directory(argv[2]);
    for (const auto& item : read_json(argv[3])) {
      if (cmd == "encode") {
        std::cout << json(tok.encode(item.get<std::string>(), option != "plain")).dump() << "\n";
      } else {
        std::vector<int32_t> ids = item.get<std::vector<int32_t>>();
        std::cout << json(tok.decode(ids, option != "keep")).dump() << "\n";
      }
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "unigram_probe: error: %s\n", e.what());
    return 1;
  } catch (const json::exception& e) {
    std::fprintf(stderr, "unigram_probe: error: %s\n", e.what());
    return 1;
  }
}
