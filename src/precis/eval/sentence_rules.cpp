// precis's own English rules. A token is a run of non-space characters. A sentence ends after
// a token whose last character, once closing quotes and brackets are set aside, is `?`, `!` or
// `.`, unless the period belongs to an abbreviation, an initial, a number before a lower-case
// word, or an ellipsis before a lower-case word.
#include "precis/eval/sentence_rules.h"

#include <algorithm>
#include <array>
#include <string>

namespace precis::eval {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool is_letter(unsigned char c) { return is_lower(c) || is_upper(c); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Closing marks that stay with the sentence before them, and opening marks that a word may
// start with.
constexpr std::array<std::string_view, 9> kClosers = {"\"", "'", ")", "]", "}", "\u2019", "\u201d", "\u00bb", "*"};
constexpr std::array<std::string_view, 8> kOpeners = {"\"", "'", "(", "[", "{", "\u2018", "\u201c", "\u00ab"};

// Common English abbreviations that end in a period (lower case, without the period).
constexpr std::array<std::string_view, 78> kAbbreviations = {
    "mr",    "mrs",   "ms",    "messrs", "dr",    "prof",  "rev",  "hon",   "gen",   "col",   "lt",    "sgt",
    "capt",  "cmdr",  "adm",   "maj",    "gov",   "sen",   "rep",  "reps",  "pres",  "supt",  "st",    "mt",
    "ft",    "jr",    "sr",    "co",     "corp",  "inc",   "ltd",  "bros",  "dept",  "univ",  "assn",  "vs",
    "etc",   "cf",    "al",    "approx", "est",   "fig",   "figs", "vol",   "vols",  "pp",    "ed",    "eds",
    "jan",   "feb",   "apr",   "jun",    "jul",   "aug",   "sep",  "sept",  "oct",   "nov",   "dec",   "mon",
    "tue",   "tues",  "wed",   "thu",    "thur",  "thurs", "fri",  "ave",   "blvd",  "calif", "conn",  "ariz",
    "colo",  "tenn",  "mass",  "esq",    "no",    "nos"};

// Capitalised words that, after an abbreviation, still start a new sentence.
constexpr std::array<std::string_view, 22> kSentenceStarters = {
    "the", "he",  "she",  "it",   "they", "we",    "i",       "this",    "these",   "there",   "but",
    "however", "in", "if", "when", "while", "although", "according", "meanwhile", "yet", "thus", "you"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Removes one closer (or opener) from the end (start) of s while there is one.
template <size_t N>
std::string_view strip_suffixes(std::string_view s, const std::array<std::string_view, N>& marks) {
  for (bool again = true; again && !s.empty();) {
    again = false;
    for (std::string_view m : marks)
      if (s.size() >= m.size() && s.substr(s.size() - m.size()) == m) {
        s.remove_suffix(m.size());
        again = true;
        break;
      }
  }
  return s;
}

template <size_t N>
std::string_view strip_prefixes(std::string_view s, const std::array<std::string_view, N>& marks) {
  for (bool again = true; again && !s.empty();) {
    again = false;
    for (std::string_view m : marks)
      if (s.substr(0, m.size()) == m) {
        s.remove_prefix(m.size());
        again = true;
        break;
      }
  }
  return s;
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (is_upper(static_cast<unsigned char>(c))) c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// "J", "U.S", "e.g", "Ph.D": letters joined by periods, each part at most two letters, or
// a single letter.
bool is_initials(std::string_view body) {
  if (body.empty()) return false;
  size_t run = 0;
  for (unsigned char c : body) {
    if (c == '.') {
      if (run == 0) return false;
      run = 0;
    } else if (is_letter(c)) {
      if (++run > 2) return false;
    } else {
      return false;
    }
  }
  return body.size() == 1 || body.find('.') != std::string_view::npos;
}

// "2010", "3.5", "1,000", "12:30": digits with number punctuation.
bool is_number(std::string_view body) {
  bool digit = false;
  for (unsigned char c : body) {
    if (is_digit(c)) {
      digit = true;
    } else if (c != '.' && c != ',' && c != ':' && c != '-' && c != '/' && c != '%' && c != '$') {
      return false;
    }
  }
  return digit;
}

bool ends_sentence(std::string_view token, std::string_view next) {
  const std::string_view core = strip_suffixes(token, kClosers);
  if (core.empty()) return false;
  const char last = core.back();
  if (last == '?' || last == '!') return true;
  if (last != '.') return false;

  const std::string_view next_word = strip_prefixes(next, kOpeners);
  const unsigned char next_first = next_word.empty() ? 0 : static_cast<unsigned char>(next_word.front());
  const bool next_lower = is_lower(next_first);

  std::string_view body = core;
  size_t periods = 0;
  while (!body.empty() && body.back() == '.') {
    body.remove_suffix(1);
    ++periods;
  }
  if (periods >= 2) return !next_lower;  // an ellipsis ends a sentence before a capital
  body = strip_prefixes(body, kOpeners);
  const std::string lower = lower_ascii(body);
  if (contains(kAbbreviations, lower) || is_initials(body)) {
    if (body.size() == 1) return false;  // an initial: "J. Smith"
    std::string next_lower_word = lower_ascii(next_word);
    while (!next_lower_word.empty() && !is_letter(static_cast<unsigned char>(next_lower_word.back())))
      next_lower_word.pop_back();
    return is_upper(next_first) && contains(kSentenceStarters, next_lower_word);
  }
  if (is_number(body)) return !next_lower;
  return true;
}

}  // namespace

std::vector<std::string_view> rule_based_sentences(std::string_view text) {
  struct Token {
    size_t begin, end;
  };
  std::vector<Token> tokens;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && is_space(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) break;
    const size_t begin = i;
    while (i < text.size() && !is_space(static_cast<unsigned char>(text[i]))) ++i;
    tokens.push_back({begin, i});
  }
  std::vector<std::string_view> sentences;
  if (tokens.empty()) return sentences;
  size_t start = tokens.front().begin;
  for (size_t k = 0; k + 1 < tokens.size(); ++k) {
    const std::string_view token = text.substr(tokens[k].begin, tokens[k].end - tokens[k].begin);
    const std::string_view next = text.substr(tokens[k + 1].begin, tokens[k + 1].end - tokens[k + 1].begin);
    if (ends_sentence(token, next)) {
      sentences.push_back(text.substr(start, tokens[k].end - start));
      start = tokens[k + 1].begin;
    }
  }
  sentences.push_back(text.substr(start, tokens.back().end - start));
  return sentences;
}

}  // namespace precis::eval
