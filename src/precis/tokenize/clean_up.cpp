#include "precis/tokenize/clean_up.h"

#include <string_view>
#include <utility>

namespace precis::tokenize {

std::string clean_up_tokenization(std::string text) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) {
    if (text.find(from) == std::string::npos) continue;
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    for (size_t hit; (hit = text.find(from, i)) != std::string::npos; i = hit + from.size()) {
      out.append(text, i, hit - i);
      out += to;
    }
    out.append(text, i);
    text = std::move(out);
  }
  return text;
}

}  // namespace precis::tokenize
