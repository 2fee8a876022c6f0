#include "precis/tokenize/normalizer_sequence.h"

#include <cctype>
#include <limits>

#include "precis/core/error.h"
#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

using nlohmann::json;

std::string base64_decode(std::string_view text, const std::string& where) {
  auto sextet = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '=') {
      for (size_t j = i; j < text.size(); ++j)
        check(text[j] == '=', where + ": precompiled_charsmap: base64 data after '=' padding");
      break;
    }
    const int v = sextet(text[i]);
    check(v >= 0, where + ": precompiled_charsmap is not base64 (character " +
                      std::to_string(static_cast<unsigned char>(text[i])) + " at offset " +
                      std::to_string(i) + ")");
    bits = (bits << 6) | uint32_t(v);
    if (++count == 4) {
      out += char((bits >> 16) & 0xFF);
      out += char((bits >> 8) & 0xFF);
      out += char(bits & 0xFF);
      bits = 0, count = 0;
    }
  }
  check(count != 1, where + ": precompiled_charsmap: truncated base64");
  if (count == 2) out += char((bits >> 4) & 0xFF);
  if (count == 3) out += char((bits >> 10) & 0xFF), out += char((bits >> 2) & 0xFF);
  return out;
}

bool is_white_space_at(std::string_view s, size_t i, size_t& len) {
  return char_class(decode_utf8_at(s, i, len)) == CharClass::kSpace;
}

// Parses the Regex patterns Replace is given in practice (" {2,}"): one character, possibly
// backslash-escaped, then an optional quantifier. Returns false for anything else.
bool parse_repeat(const std::string& pattern, std::string& literal, size_t& min, size_t& max) {
  static const std::string kMeta = "\\^$.|?*+()[]{}";
  size_t i = 0;
  if (pattern.empty()) return false;
  if (pattern[0] == '\\') {
    if (pattern.size() < 2 || std::isalnum(static_cast<unsigned char>(pattern[1]))) return false;
    literal = pattern.substr(1, 1);
    i = 2;
  } else {
    if (kMeta.find(pattern[0]) != std::string::npos) return false;
    size_t len = 0;
    decode_utf8_at(pattern, 0, len);
    literal = pattern.substr(0, len);
    i = len;
  }
  std::string_view q = std::string_view(pattern).substr(i);
  min = max = 1;
  if (q.empty()) return true;
  if (q == "+") {
    max = std::numeric_limits<size_t>::max();
    return true;
  }
  if (q.front() != '{' || q.back() != '}') return false;
  std::string body(q.substr(1, q.size() - 2));
  size_t comma = body.find(',');
  auto number = [](const std::string& s, size_t& n) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 6)
      return false;
    n = std::stoul(s);
    return true;
  };
  if (comma == std::string::npos) return number(body, min) && (max = min) > 0;
  if (!number(body.substr(0, comma), min) || min == 0) return false;
  std::string upper = body.substr(comma + 1);
  if (upper.empty()) {
    max = std::numeric_limits<size_t>::max();
    return true;
  }
  return number(upper, max) && max >= min;
}

}  // namespace

NormalizerSequence NormalizerSequence::from_json(const json& config, const std::string& where) {
  NormalizerSequence n;
  n.add(config, where);
  return n;
}

void NormalizerSequence::add(const json& c, const std::string& where) {
  if (c.is_null()) return;
  check(
      c.is_object() && c.contains("type") && c["type"].is_string(),
      where + ": normalizer should be an object with a \"type\", found " + c.dump().substr(0, 200));
  const std::string type = c["type"];
  Step step{};
  if (type == "Sequence") {
    check(c.contains("normalizers") && c["normalizers"].is_array(),
          where + ": normalizer Sequence needs a \"normalizers\" list");
    for (const json& sub : c["normalizers"]) add(sub, where);
    return;
  } else if (type == "Precompiled") {
    const json& map = c.value("precompiled_charsmap", json());
    check(map.is_string() || map.is_null(),
          where + ": normalizer Precompiled: precompiled_charsmap should be a base64 string");
    step.kind = Step::Kind::kPrecompiled;
    if (map.is_string())
      step.charsmap =
          PrecompiledCharsmap::from_bytes(base64_decode(map.get<std::string>(), where), where);
  } else if (type == "Strip") {
    step.kind = Step::Kind::kStrip;
    for (const char* field : {"strip_left", "strip_right"})
      check(c.contains(field) && c[field].is_boolean(),
            where + ": normalizer Strip needs a boolean \"" + field + "\"");
    step.strip_left = c["strip_left"];
    step.strip_right = c["strip_right"];
  } else if (type == "Replace") {
    step.kind = Step::Kind::kReplace;
    check(c.contains("content") && c["content"].is_string(),
          where + ": normalizer Replace needs a string \"content\"");
    step.content = c["content"];
    const json& pattern = c.value("pattern", json());
    check(pattern.is_object() && pattern.size() == 1 &&
              (pattern.contains("String") || pattern.contains("Regex")) &&
              pattern.begin()->is_string(),
          where +
              ": normalizer Replace: pattern should be {\"String\": ...} or {\"Regex\": ...}, "
              "found " +
              pattern.dump());
    const std::string text = pattern.begin()->get<std::string>();
    if (pattern.contains("String")) {
      check(!text.empty(), where + ": normalizer Replace: empty String pattern");
      step.literal = text;
    } else {
      check(parse_repeat(text, step.literal, step.repeat_min, step.repeat_max),
            where + ": normalizer Replace: Regex pattern '" + text +
                "' is not supported (only one character, optionally with +, {n}, {n,} or {n,m})");
    }
  } else {
    throw Error(where + ": unsupported normalizer type '" + type +
                "' (expected Precompiled, Strip, Replace or Sequence)");
  }
  steps_.push_back(std::move(step));
}

std::string NormalizerSequence::apply(const Step& step, std::string_view text) {
  switch (step.kind) {
    case Step::Kind::kPrecompiled:
      return step.charsmap.normalize(text);
    case Step::Kind::kStrip: {
      size_t begin = 0, end = text.size(), len = 0;
      if (step.strip_left)
        while (begin < end && is_white_space_at(text, begin, len)) begin += len;
      if (step.strip_right)
        while (end > begin) {
          size_t i = end - 1;
          while (i > begin && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
          if (!is_white_space_at(text, i, len)) break;
          end = i;
        }
      return std::string(text.substr(begin, end - begin));
    }
    case Step::Kind::kReplace: {
      std::string out;
      const std::string& lit = step.literal;
      size_t pos = 0;
      while (pos < text.size()) {
        size_t hit = text.find(lit, pos);
        if (hit == std::string_view::npos) break;
        if (step.repeat_min == 0) {  // plain literal
          out.append(text, pos, hit - pos);
          out += step.content;
          pos = hit + lit.size();
          continue;
        }
        size_t copies = 0, end = hit;
        while (copies < step.repeat_max && text.substr(end, lit.size()) == lit)
          end += lit.size(), ++copies;
        if (copies >= step.repeat_min) {
          out.append(text, pos, hit - pos);
          out += step.content;
        } else {
          out.append(text, pos, end - pos);
        }
        pos = end;
      }
      out.append(text.substr(std::min(pos, text.size())));
      return out;
    }
  }
  return std::string(text);
}

std::string NormalizerSequence::normalize(std::string_view text) const {
  std::string s(text);
  for (const Step& step : steps_) s = apply(step, s);
  return s;
}

}  // namespace precis::tokenize
