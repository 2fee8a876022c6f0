#include "precis/tokenize/metaspace.h"

#include "precis/core/error.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

Metaspace Metaspace::from_json(const nlohmann::json& c, const std::string& where,
                               const std::string& field) {
  const std::string at = where + ": " + field + " Metaspace";
  Metaspace m;
  check(c.contains("replacement") && c["replacement"].is_string(),
        at + " needs a string \"replacement\"");
  m.replacement = c["replacement"];
  size_t len = 0;
  check(!m.replacement.empty() && find_invalid_utf8(m.replacement) == std::string::npos &&
            (decode_utf8_at(m.replacement, 0, len), len == m.replacement.size()),
        at + ": replacement should be one character, found \"" + m.replacement + "\"");
  bool scheme_given = false;
  if (auto s = c.find("prepend_scheme"); s != c.end() && !s->is_null()) {
    check(s->is_string(), at + ": prepend_scheme should be a string");
    const std::string scheme = *s;
    if (scheme == "always")
      m.prepend_scheme = PrependScheme::kAlways;
    else if (scheme == "first")
      m.prepend_scheme = PrependScheme::kFirst;
    else if (scheme == "never")
      m.prepend_scheme = PrependScheme::kNever;
    else
      throw Error(at + ": prepend_scheme should be always, first or never, found \"" + scheme +
                  "\"");
    scheme_given = true;
  }
  if (auto a = c.find("add_prefix_space"); a != c.end() && !a->is_null()) {
    check(a->is_boolean(), at + ": add_prefix_space should be a boolean");
    if (!a->get<bool>()) {
      check(!scheme_given || m.prepend_scheme == PrependScheme::kNever,
            at + ": add_prefix_space false does not match prepend_scheme");
      m.prepend_scheme = PrependScheme::kNever;
    }
  }
  if (auto s = c.find("split"); s != c.end() && !s->is_null()) {
    check(s->is_boolean(), at + ": split should be a boolean");
    m.split = *s;
  }
  return m;
}

std::vector<std::string> Metaspace::pre_tokenize(std::string_view normalized,
                                                 bool starts_text) const {
  std::string s;
  s.reserve(normalized.size() + replacement.size());
  for (char c : normalized) {
    if (c == ' ')
      s += replacement;
    else
      s += c;
  }
  // Prepending to an empty string does nothing in HF (NormalizedString::prepend).
  const bool prepend = prepend_scheme == PrependScheme::kAlways ||
                       (prepend_scheme == PrependScheme::kFirst && starts_text);
  if (prepend && !s.empty() && !s.starts_with(replacement)) s.insert(0, replacement);
  std::vector<std::string> pieces;
  if (s.empty()) return pieces;
  if (!split) {
    pieces.push_back(std::move(s));
    return pieces;
  }
  // Split before every replacement, the replacement staying with what follows it.
  size_t start = 0;
  for (size_t hit = s.find(replacement, 1); hit != std::string::npos;
       hit = s.find(replacement, hit + 1)) {
    pieces.push_back(s.substr(start, hit - start));
    start = hit;
  }
  pieces.push_back(s.substr(start));
  return pieces;
}

std::vector<std::string> Metaspace::decode(const std::vector<std::string>& tokens) const {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    std::string d;
    for (size_t pos = 0; pos < t.size();) {
      if (t.compare(pos, replacement.size(), replacement) == 0) {
        if (i != 0 || prepend_scheme == PrependScheme::kNever) d += ' ';
        pos += replacement.size();
      } else {
        d += t[pos++];
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace precis::tokenize
