// Punkt's inference, step by step as NLTK 3.9.1 runs it; each function names the NLTK method
// it stands for. Offsets are byte offsets into UTF-8 text: every character Punkt's rules name
// is ASCII, and whitespace and word characters are decoded where a rule asks about them.
#include "precis/eval/punkt.h"

#include <fstream>
#include <iterator>
#include <optional>

#include "precis/core/error.h"
#include "precis/eval/python_text.h"
#include "precis/tokenize/utf8.h"

namespace precis::eval {
namespace {

namespace py = python_text;
// The code point at s[i]; an ill-formed byte is one of its own (U+FFFD), with no property.
using tokenize::decode_utf8_lossy_at;

// ---- PunktLanguageVars -------------------------------------------------------------------

bool is_sentence_end_char(char c) { return c == '.' || c == '?' || c == '!'; }

// _re_non_word_chars: characters that cannot appear within words.
constexpr std::string_view kPunktNonWordChars = ")\";}]*:@'({[!?";
// Characters _re_word_start excludes from starting a word token.
constexpr std::string_view kPunktNotWordStart = "(\"`{[:;&#*@)}]-,";
// re_boundary_realignment's closing punctuation.
constexpr std::string_view kPunktClosers = "\"')]}";
// _ortho_heuristic's punctuation, which never starts a sentence.
constexpr std::string_view kPunktPunctuation = ";:,.!?";

bool is_one_of(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }
bool is_non_word_char(char c) { return is_one_of(kPunktNonWordChars, c); }

bool space_at(std::string_view s, size_t i, size_t& length) {
  return py::is_space(decode_utf8_lossy_at(s, i, length));
}
bool space_at(std::string_view s, size_t i) {
  size_t n = 0;
  return space_at(s, i, n);
}

// Length of _re_multi_char_punct's match at s[i] (0 when none): "--"+, ".."+, or a spaced
// ellipsis ". . ." (periods each followed by one whitespace character, then a period).
size_t multi_char_punct_at(std::string_view s, size_t i) {
  if (i + 1 < s.size() && (s[i] == '-' || s[i] == '.') && s[i + 1] == s[i]) {
    size_t j = i;
    while (j < s.size() && s[j] == s[i]) ++j;
    return j - i;
  }
  // (?:\.\s){2,}\. : as many ". " pairs as there are, then a period, backtracking one pair
  // (whose period then closes the match) when no period follows the last pair.
  std::vector<size_t> pair_ends;
  size_t j = i, n = 0;
  while (j + 1 < s.size() && s[j] == '.' && space_at(s, j + 1, n)) pair_ends.push_back(j += 1 + n);
  if (pair_ends.size() >= 2 && j < s.size() && s[j] == '.') return j + 1 - i;
  if (pair_ends.size() >= 3) return pair_ends[pair_ends.size() - 2] + 1 - i;
  return 0;
}

// The end-of-word lookahead of _word_tokenize_fmt, at s[i].
bool word_ends_at(std::string_view s, size_t i) {
  if (i == s.size() || space_at(s, i) || is_non_word_char(s[i]) || multi_char_punct_at(s, i))
    return true;
  if (s[i] != ',') return false;  // a comma ends a word only at the end of one
  return i + 1 == s.size() || space_at(s, i + 1) || is_non_word_char(s[i + 1]) ||
         multi_char_punct_at(s, i + 1);
}

// PunktLanguageVars.word_tokenize on one line (no "\n" in it): multi-character punctuation,
// words (punctuation other than periods split off), or any other single character.
std::vector<std::string_view> word_tokenize(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0, n = 0;
  while (i < line.size()) {
    if (space_at(line, i, n)) {
      i += n;
      continue;
    }
    size_t end = i + multi_char_punct_at(line, i);
    if (end == i && !is_one_of(kPunktNotWordStart, line[i])) {
      end = i;
      do {
        decode_utf8_lossy_at(line, end, n);
        end += n;
      } while (!word_ends_at(line, end));
    } else if (end == i) {
      decode_utf8_lossy_at(line, i, n);
      end = i + n;
    }
    tokens.push_back(line.substr(i, end - i));
    i = end;
  }
  return tokens;
}

// ---- PunktToken --------------------------------------------------------------------------

constexpr std::string_view kNumberType = "##number##";

// _RE_NUMERIC, ^-?[\.,]?\d[\d,\.-]*\.?$ (\d: Unicode decimal digits).
bool is_numeric(std::string_view s) {
  size_t i = 0, n = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) ++i;
  if (i == s.size() || !py::is_decimal(decode_utf8_lossy_at(s, i, n))) return false;
  for (i += n; i < s.size(); i += n) {
    const char32_t cp = decode_utf8_lossy_at(s, i, n);
    if (!py::is_decimal(cp) && cp != ',' && cp != '.' && cp != '-') return false;
  }
  return true;
}

struct Token {
  std::string_view tok;
  std::string type;  // lower case, numbers as ##number##
  bool period_final = false;
  bool sentbreak = false, abbr = false, ellipsis = false;

  explicit Token(std::string_view t)
      : tok(t), type(py::lower(t)), period_final(!t.empty() && t.back() == '.') {
    if (is_numeric(type)) type = kNumberType;
  }
  std::string_view type_no_period() const {
    std::string_view t = type;
    if (t.size() > 1 && t.back() == '.') t.remove_suffix(1);
    return t;
  }
  std::string_view type_no_sentperiod() const {
    return sentbreak ? type_no_period() : std::string_view(type);
  }
  bool first_upper() const {
    size_t n = 0;
    return py::is_upper(decode_utf8_lossy_at(tok, 0, n));
  }
  bool first_lower() const {
    size_t n = 0;
    return py::is_lower(decode_utf8_lossy_at(tok, 0, n));
  }
  // _RE_ELLIPSIS: two or more periods and nothing else.
  bool is_ellipsis() const {
    return tok.size() >= 2 && tok.find_first_not_of('.') == std::string_view::npos;
  }
  // _RE_INITIAL, [^\W\d]\.$ : one word character that is no decimal digit, then a period.
  bool is_initial() const {
    size_t n = 0;
    const char32_t cp = decode_utf8_lossy_at(tok, 0, n);
    return n + 1 == tok.size() && tok.back() == '.' && py::is_word(cp) && !py::is_decimal(cp);
  }
};

// PunktBaseClass._tokenize_words: the word tokens of each line that is not blank.
std::vector<Token> tokenize_words(std::string_view text) {
  std::vector<Token> tokens;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (!py::strip(line).empty())
      for (std::string_view t : word_tokenize(line)) tokens.emplace_back(t);
    start = end + 1;
  }
  return tokens;
}

// ---- PunktSentenceTokenizer --------------------------------------------------------------

class Punkt {
 public:
  explicit Punkt(const PunktParameters& p) : p_(p) {}

  std::vector<std::string_view> sentences(std::string_view text) const {
    std::vector<std::string_view> out;
    for (auto [begin, end] : realign_boundaries(text, slices_from_text(text)))
      out.push_back(text.substr(begin, end - begin));
    return out;
  }

 private:
  struct Slice {
    size_t begin, end;  // begin > end reads as empty, as Python's text[begin:end]
  };
  // A match of period_context_re: the sentence-end character at `at`, followed either by a
  // non-word character (after_end = at + 2, no next token) or by whitespace and a token
  // starting at next_token.
  struct Candidate {
    size_t at, after_end;
    std::optional<size_t> next_token;
  };

  // _first_pass_annotation.
  void first_pass(Token& t) const {
    if (t.tok.size() == 1 && is_sentence_end_char(t.tok[0])) {
      t.sentbreak = true;
    } else if (t.is_ellipsis()) {
      t.ellipsis = true;
    } else if (t.period_final && !t.tok.ends_with("..")) {
      const std::string word = py::lower(t.tok.substr(0, t.tok.size() - 1));
      const size_t hyphen = word.rfind('-');
      const std::string last_part = hyphen == std::string::npos ? word : word.substr(hyphen + 1);
      if (p_.abbrev_types.count(word) || p_.abbrev_types.count(last_part))
        t.abbr = true;
      else
        t.sentbreak = true;
    }
  }

  int64_t ortho_context(std::string_view type) const {
    auto it = p_.ortho_context.find(std::string(type));
    return it == p_.ortho_context.end() ? 0 : it->second;
  }

  enum class Starter { kYes, kNo, kUnknown };

  // _ortho_heuristic: does `t` start a sentence, by the cases it was seen in?
  Starter ortho_heuristic(const Token& t) const {
    if (t.tok.size() == 1 && is_one_of(kPunktPunctuation, t.tok[0])) return Starter::kNo;
    const int64_t context = ortho_context(t.type_no_sentperiod());
    if (t.first_upper() && (context & kOrthoLc) && !(context & kOrthoMidUc)) return Starter::kYes;
    if (t.first_lower() && ((context & kOrthoUc) || !(context & kOrthoBegLc))) return Starter::kNo;
    return Starter::kUnknown;
  }

  // _second_pass_annotation: revises t1's decision by the token after it.
  void second_pass(Token& t1, const Token& t2) const {
    if (!t1.period_final) return;
    const std::string type(t1.type_no_period());
    const std::string next_type(t2.type_no_sentperiod());
    const bool initial = t1.is_initial();
    if (p_.collocations.count({type, next_type})) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if ((t1.abbr || t1.ellipsis) && !initial) {
      if (ortho_heuristic(t2) == Starter::kYes) {
        t1.sentbreak = true;
        return;
      }
      if (t2.first_upper() && p_.sent_starters.count(next_type)) {
        t1.sentbreak = true;
        return;
      }
    }
    if (initial || type == kNumberType) {
      const Starter starter = ortho_heuristic(t2);
      if (starter == Starter::kNo) {
        t1.sentbreak = false;
        t1.abbr = true;
        return;
      }
      // An initial before a word never seen in lower case: J. Bach.
      if (starter == Starter::kUnknown && initial && t2.first_upper() &&
          !(ortho_context(next_type) & kOrthoLc)) {
        t1.sentbreak = false;
        t1.abbr = true;
      }
    }
  }

  // text_contains_sentbreak: after both passes, does a token other than the last end a
  // sentence? (A token's second pass sees the next token after its first pass only.)
  bool text_contains_sentbreak(std::string_view text) const {
    std::vector<Token> tokens = tokenize_words(text);
    for (Token& t : tokens) first_pass(t);
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      second_pass(tokens[i], tokens[i + 1]);
      if (tokens[i].sentbreak) return true;
    }
    return false;
  }

  // period_context_re().finditer(text).
  static std::vector<Candidate> period_contexts(std::string_view text) {
    std::vector<Candidate> found;
    for (size_t i = 0; i < text.size(); ++i) {
      if (!is_sentence_end_char(text[i])) continue;
      const size_t after = i + 1;
      if (after < text.size() && is_non_word_char(text[after])) {
        found.push_back({i, after + 1, std::nullopt});
        continue;
      }
      size_t j = after, n = 0;
      while (j < text.size() && space_at(text, j, n)) j += n;
      if (j == after || j == text.size()) continue;  // needs whitespace, then a token
      const size_t next = j;
      while (j < text.size() && !space_at(text, j, n)) j += n;
      found.push_back({i, j, next});
    }
    return found;
  }

  // The last ASCII whitespace character (Python's string.whitespace) in s, 0 when none, as
  // _get_last_whitespace_index returns it (so one at index 0 also reads as none).
  static size_t last_ascii_whitespace(std::string_view s) {
    const size_t i = s.find_last_of(" \t\n\r\x0b\x0c");
    return i == std::string_view::npos ? 0 : i;
  }

  // _match_potential_end_contexts: each candidate with the text it is decided on, the word
  // before it through the token after it; a candidate inside the word of the next one is
  // dropped.
  static std::vector<std::pair<Candidate, Slice>> potential_end_contexts(std::string_view text) {
    std::vector<std::pair<Candidate, Slice>> out;
    Slice previous{0, 0};
    std::optional<Candidate> previous_match;
    for (const Candidate& m : period_contexts(text)) {
      const std::string_view before = text.substr(previous.end, m.at - previous.end);
      size_t word_start = last_ascii_whitespace(before);
      word_start = word_start ? word_start + previous.end + 1 : previous.begin;
      const Slice word{word_start, m.at};
      if (previous_match && previous.end <= word.begin)
        out.push_back({*previous_match, {previous.begin, previous_match->after_end}});
      previous_match = m;
      previous = word;
    }
    if (previous_match)
      out.push_back({*previous_match, {previous.begin, previous_match->after_end}});
    return out;
  }

  // _slices_from_text.
  std::vector<Slice> slices_from_text(std::string_view text) const {
    std::vector<Slice> slices;
    size_t last_break = 0;
    for (const auto& [m, context] : potential_end_contexts(text)) {
      if (!text_contains_sentbreak(text.substr(context.begin, context.end - context.begin)))
        continue;
      slices.push_back({last_break, m.at + 1});
      last_break = m.next_token ? *m.next_token : m.at + 1;
    }
    slices.push_back({last_break, py::rstrip(text).size()});
    return slices;
  }

  // re_boundary_realignment.match(s): closing quotes or brackets (as few as will do) followed
  // by whitespace (all of it taken), by "--", or by the end; returns (closers' length,
  // match length).
  static std::optional<std::pair<size_t, size_t>> boundary_realignment(std::string_view s) {
    for (size_t k = 1; k <= s.size() && is_one_of(kPunktClosers, s[k - 1]); ++k) {
      size_t j = k, n = 0;
      while (j < s.size() && space_at(s, j, n)) j += n;
      if (j > k || s.substr(k, 2) == "--" || k == s.size()) return std::pair{k, j};
    }
    return std::nullopt;
  }

  // _realign_boundaries: closing punctuation at the start of a sentence moves to the end of
  // the one before.
  static std::vector<Slice> realign_boundaries(std::string_view text,
                                               const std::vector<Slice>& slices) {
    std::vector<Slice> out;
    size_t realign = 0;
    auto non_empty = [](const Slice& s) { return s.begin < s.end; };
    for (size_t i = 0; i < slices.size(); ++i) {
      const Slice s1{slices[i].begin + realign, slices[i].end};
      if (i + 1 == slices.size()) {
        if (non_empty(s1)) out.push_back(s1);
        break;
      }
      const Slice& s2 = slices[i + 1];
      const std::string_view second =
          s2.begin < s2.end ? text.substr(s2.begin, s2.end - s2.begin) : "";
      if (auto m = boundary_realignment(second)) {
        out.push_back({s1.begin, s2.begin + m->first});
        realign = m->second;
      } else {
        realign = 0;
        if (non_empty(s1)) out.push_back(s1);
      }
    }
    return out;
  }

  const PunktParameters& p_;
};

// ---- load_punkt_params -------------------------------------------------------------------

// The lines of a file read as Python reads a text file (UTF-8, universal newlines), without
// their line ends.
std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path.string() +
                      ": cannot open (a punkt_tab language directory holds abbrev_types.txt, "
                      "collocations.tab, ortho_context.tab and sent_starters.txt)");
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check(!in.bad(), path.string() + ": cannot read");
  std::vector<std::string> lines;
  std::string line;
  bool open_line = false;
  for (size_t i = 0; i < content.size(); ++i) {
    const char c = content[i];
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < content.size() && content[i + 1] == '\n') ++i;
      lines.push_back(std::move(line));
      line.clear();
      open_line = false;
    } else {
      line += c;
      open_line = true;
    }
  }
  if (open_line) lines.push_back(std::move(line));
  for (size_t k = 0; k < lines.size(); ++k) {
    const size_t bad = tokenize::find_invalid_utf8(lines[k]);
    check(bad == std::string_view::npos, path.string() + ":" + std::to_string(k + 1) +
                                             ": not UTF-8 (byte " + std::to_string(bad + 1) + ")");
  }
  return lines;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// int(s) for the integers a punkt_tab file holds: optional whitespace and sign, ASCII digits.
std::optional<int64_t> parse_integer(std::string_view s) {
  s = py::strip(s);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) negative = s[0] == '-', s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

}  // namespace

PunktParameters load_punkt_parameters(const std::filesystem::path& dir) {
  PunktParameters p;
  for (std::string& type : read_lines(dir / "abbrev_types.txt"))
    p.abbrev_types.insert(std::move(type));
  for (std::string& type : read_lines(dir / "sent_starters.txt"))
    p.sent_starters.insert(std::move(type));
  const std::filesystem::path collocations = dir / "collocations.tab";
  const std::vector<std::string> collocation_lines = read_lines(collocations);
  for (size_t k = 0; k < collocation_lines.size(); ++k) {
    std::vector<std::string> f = split_tabs(collocation_lines[k]);
    check(f.size() == 2, collocations.string() + ":" + std::to_string(k + 1) +
                             ": expected TYPE<TAB>TYPE, found " + std::to_string(f.size()) +
                             " tab-separated fields");
    p.collocations.insert({std::move(f[0]), std::move(f[1])});
  }
  const std::filesystem::path ortho = dir / "ortho_context.tab";
  const std::vector<std::string> ortho_lines = read_lines(ortho);
  for (size_t k = 0; k < ortho_lines.size(); ++k) {
    std::vector<std::string> f = split_tabs(ortho_lines[k]);
    const std::string where = ortho.string() + ":" + std::to_string(k + 1) + ": ";
    check(f.size() == 2, where + "expected TYPE<TAB>INTEGER, found " + std::to_string(f.size()) +
                             " tab-separated fields");
    const std::optional<int64_t> flags = parse_integer(f[1]);
    check(flags.has_value(), where + "'" + f[1] + "' is not an integer");
    p.ortho_context[std::move(f[0])] = *flags;
  }
  return p;
}

std::vector<std::string_view> punkt_sentences(const PunktParameters& params,
                                              std::string_view text) {
  return Punkt(params).sentences(text);
}

}  // namespace precis::eval
