// Porter's five steps with NLTK's extensions. Read with nltk/stem/porter.py beside it: each
// step below names the NLTK method it mirrors. A rule list is "first matching suffix
// decides": when the suffix matches but its condition fails, the word is returned as it is
// and later rules are not tried.
#include "precis/eval/porter_stemmer.h"

#include <array>
#include <span>

namespace precis::eval {
namespace {

bool is_vowel_letter(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Porter's consonant: not a vowel letter, and a `y` only when it follows a vowel (or starts
// the word). A run of y's alternates, so walk back to the first non-y (or the start).
bool is_consonant(std::string_view s, size_t i) {
  size_t p = i;
  while (p > 0 && s[p] == 'y') --p;
  bool at_p = s[p] == 'y' ? true : !is_vowel_letter(s[p]);
  return ((i - p) % 2 == 0) ? at_p : !at_p;
}

// m in [C](VC){m}[V]: the number of vowel-to-consonant transitions.
int measure(std::string_view s) {
  int m = 0;
  bool previous_consonant = true;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool consonant = is_vowel_letter(c) ? false : (c == 'y' ? (i == 0 || !previous_consonant) : true);
    if (i > 0 && consonant && !previous_consonant) ++m;
    previous_consonant = consonant;
  }
  return m;
}

bool contains_vowel(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (!is_consonant(s, i)) return true;
  return false;
}

// *d: ends with the same consonant twice.
bool ends_double_consonant(std::string_view s) {
  const size_t n = s.size();
  return n >= 2 && s[n - 1] == s[n - 2] && is_consonant(s, n - 1);
}

// *o: consonant-vowel-consonant with the last not w, x or y; NLTK also accepts a two-letter
// vowel-consonant stem.
bool ends_cvc(std::string_view s) {
  const size_t n = s.size();
  if (n >= 3 && is_consonant(s, n - 3) && !is_consonant(s, n - 2) && is_consonant(s, n - 1) &&
      s[n - 1] != 'w' && s[n - 1] != 'x' && s[n - 1] != 'y')
    return true;
  return n == 2 && !is_consonant(s, 0) && is_consonant(s, 1);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

enum class Condition { kNone, kMeasureAbove0, kMeasureAbove1, kMeasureAbove1AndEndsST, kLogi };

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
  Condition condition;
};

bool holds(Condition condition, std::string_view stem, std::string_view word) {
  switch (condition) {
    case Condition::kNone: return true;
    case Condition::kMeasureAbove0: return measure(stem) > 0;
    case Condition::kMeasureAbove1: return measure(stem) > 1;
    case Condition::kMeasureAbove1AndEndsST:
      return measure(stem) > 1 && !stem.empty() && (stem.back() == 's' || stem.back() == 't');
    case Condition::kLogi: return measure(word.substr(0, word.size() - 3)) > 0;
  }
  return false;
}

std::string apply_rules(const std::string& word, std::span<const Rule> rules) {
  for (const Rule& rule : rules) {
    if (!ends_with(word, rule.suffix)) continue;
    const std::string_view stem = std::string_view(word).substr(0, word.size() - rule.suffix.size());
    if (!holds(rule.condition, stem, word)) return word;
    return std::string(stem) + std::string(rule.replacement);
  }
  return word;
}

std::string replace_suffix(const std::string& word, size_t suffix_length, std::string_view replacement) {
  return word.substr(0, word.size() - suffix_length) + std::string(replacement);
}

// _step1a: plurals.
std::string step1a(const std::string& w) {
  if (w.size() == 4 && ends_with(w, "ies")) return replace_suffix(w, 3, "ie");
  static constexpr std::array<Rule, 4> rules{{
      {"sses", "ss", Condition::kNone},
      {"ies", "i", Condition::kNone},
      {"ss", "ss", Condition::kNone},
      {"s", "", Condition::kNone},
  }};
  return apply_rules(w, rules);
}

// _step1b: past tenses and gerunds, then the clean-up of what they leave.
std::string step1b(const std::string& w) {
  if (ends_with(w, "ied")) return replace_suffix(w, 3, w.size() == 4 ? "ie" : "i");
  if (ends_with(w, "eed")) {
    const std::string_view stem = std::string_view(w).substr(0, w.size() - 3);
    return measure(stem) > 0 ? std::string(stem) + "ee" : w;
  }
  std::string stem;
  bool stripped = false;
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (!ends_with(w, suffix)) continue;
    std::string candidate = w.substr(0, w.size() - suffix.size());
    if (contains_vowel(candidate)) {
      stem = std::move(candidate);
      stripped = true;
      break;
    }
  }
  if (!stripped) return w;
  if (ends_with(stem, "at")) return stem + "e";
  if (ends_with(stem, "bl")) return stem + "e";
  if (ends_with(stem, "iz")) return stem + "e";
  if (ends_double_consonant(stem)) {
    const char last = stem.back();
    if (last == 'l' || last == 's' || last == 'z') return stem;
    stem.pop_back();
    return stem;
  }
  if (measure(stem) == 1 && ends_cvc(stem)) return stem + "e";
  return stem;
}

// _step1c: y -> i after a consonant, when something precedes that consonant.
std::string step1c(const std::string& w) {
  if (!ends_with(w, "y")) return w;
  const std::string_view stem = std::string_view(w).substr(0, w.size() - 1);
  if (stem.size() > 1 && is_consonant(stem, stem.size() - 1)) return std::string(stem) + "i";
  return w;
}

// _step2: double suffixes to single ones.
std::string step2(const std::string& w) {
  if (ends_with(w, "alli") && measure(std::string_view(w).substr(0, w.size() - 4)) > 0)
    return step2(replace_suffix(w, 4, "al"));
  static constexpr std::array<Rule, 22> rules{{
      {"ational", "ate", Condition::kMeasureAbove0},
      {"tional", "tion", Condition::kMeasureAbove0},
      {"enci", "ence", Condition::kMeasureAbove0},
      {"anci", "ance", Condition::kMeasureAbove0},
      {"izer", "ize", Condition::kMeasureAbove0},
      {"bli", "ble", Condition::kMeasureAbove0},
      {"alli", "al", Condition::kMeasureAbove0},
      {"entli", "ent", Condition::kMeasureAbove0},
      {"eli", "e", Condition::kMeasureAbove0},
      {"ousli", "ous", Condition::kMeasureAbove0},
      {"ization", "ize", Condition::kMeasureAbove0},
      {"ation", "ate", Condition::kMeasureAbove0},
      {"ator", "ate", Condition::kMeasureAbove0},
      {"alism", "al", Condition::kMeasureAbove0},
      {"iveness", "ive", Condition::kMeasureAbove0},
      {"fulness", "ful", Condition::kMeasureAbove0},
      {"ousness", "ous", Condition::kMeasureAbove0},
      {"aliti", "al", Condition::kMeasureAbove0},
      {"iviti", "ive", Condition::kMeasureAbove0},
      {"biliti", "ble", Condition::kMeasureAbove0},
      {"fulli", "ful", Condition::kMeasureAbove0},
      {"logi", "log", Condition::kLogi},
  }};
  return apply_rules(w, rules);
}

// _step3: -ic-, -full, -ness etc.
std::string step3(const std::string& w) {
  static constexpr std::array<Rule, 7> rules{{
      {"icate", "ic", Condition::kMeasureAbove0},
      {"ative", "", Condition::kMeasureAbove0},
      {"alize", "al", Condition::kMeasureAbove0},
      {"iciti", "ic", Condition::kMeasureAbove0},
      {"ical", "ic", Condition::kMeasureAbove0},
      {"ful", "", Condition::kMeasureAbove0},
      {"ness", "", Condition::kMeasureAbove0},
  }};
  return apply_rules(w, rules);
}

// _step4: drop -ant, -ence etc. in context <c>vcvc<v>.
std::string step4(const std::string& w) {
  static constexpr std::array<Rule, 19> rules{{
      {"al", "", Condition::kMeasureAbove1},
      {"ance", "", Condition::kMeasureAbove1},
      {"ence", "", Condition::kMeasureAbove1},
      {"er", "", Condition::kMeasureAbove1},
      {"ic", "", Condition::kMeasureAbove1},
      {"able", "", Condition::kMeasureAbove1},
      {"ible", "", Condition::kMeasureAbove1},
      {"ant", "", Condition::kMeasureAbove1},
      {"ement", "", Condition::kMeasureAbove1},
      {"ment", "", Condition::kMeasureAbove1},
      {"ent", "", Condition::kMeasureAbove1},
      {"ion", "", Condition::kMeasureAbove1AndEndsST},
      {"ou", "", Condition::kMeasureAbove1},
      {"ism", "", Condition::kMeasureAbove1},
      {"ate", "", Condition::kMeasureAbove1},
      {"iti", "", Condition::kMeasureAbove1},
      {"ous", "", Condition::kMeasureAbove1},
      {"ive", "", Condition::kMeasureAbove1},
      {"ize", "", Condition::kMeasureAbove1},
  }};
  return apply_rules(w, rules);
}

// _step5a: a final -e.
std::string step5a(const std::string& w) {
  if (!ends_with(w, "e")) return w;
  const std::string_view stem = std::string_view(w).substr(0, w.size() - 1);
  const int m = measure(stem);
  if (m > 1 || (m == 1 && !ends_cvc(stem))) return std::string(stem);
  return w;
}

// _step5b: -ll -> -l when m(word minus its last letter) > 1.
std::string step5b(const std::string& w) {
  if (ends_with(w, "ll") && measure(std::string_view(w).substr(0, w.size() - 1)) > 1)
    return w.substr(0, w.size() - 1);
  return w;
}

// NLTK's pool of irregular forms, looked up before any step.
const std::string_view* irregular_stem(std::string_view word) {
  struct Irregular {
    std::string_view form, stem;
  };
  static constexpr std::array<Irregular, 16> pool{{
      {"sky", "sky"},         {"skies", "sky"},       {"dying", "die"},
      {"lying", "lie"},       {"tying", "tie"},       {"news", "news"},
      {"innings", "inning"},  {"inning", "inning"},   {"outings", "outing"},
      {"outing", "outing"},   {"cannings", "canning"}, {"canning", "canning"},
      {"howe", "howe"},       {"proceed", "proceed"}, {"exceed", "exceed"},
      {"succeed", "succeed"},
  }};
  for (const Irregular& entry : pool)
    if (entry.form == word) return &entry.stem;
  return nullptr;
}

}  // namespace

std::string porter_stem(std::string_view word) {
  if (const std::string_view* stem = irregular_stem(word)) return std::string(*stem);
  if (word.size() <= 2) return std::string(word);
  std::string w(word);
  w = step1a(w);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  w = step5a(w);
  w = step5b(w);
  return w;
}

}  // namespace precis::eval
