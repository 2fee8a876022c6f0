#include "precis/hub/card_formatting.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace precis::hub {

using json = nlohmann::json;

namespace {

// Python's str.capitalize on ASCII: first letter upper, the rest lower.
std::string capitalize(std::string s) {
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = char(i == 0 ? std::toupper((unsigned char)s[i]) : std::tolower((unsigned char)s[i]));
  return s;
}

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest round-trip digits and exponent, laid out by Python's repr rules: scientific
  // when the decimal point would sit before position -4 or after position 16.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  const bool negative = mantissa[0] == '-';
  std::string digits;
  for (char ch : mantissa)
    if (std::isdigit((unsigned char)ch)) digits += ch;
  const int point = exponent + 1;  // value = 0.digits x 10^point
  std::string out = negative ? "-" : "";
  if (point <= -4 || point > 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp;
  }
  if (point <= 0) return out + "0." + std::string(size_t(-point), '0') + digits;
  if (size_t(point) >= digits.size())
    return out + digits + std::string(size_t(point) - digits.size(), '0') + ".0";
  return out + digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
}

std::string yaml_scalar(std::string_view s) {
  bool plain = !s.empty() && (std::isalpha((unsigned char)s.front()) || s.front() == '_');
  for (char ch : s)
    if (!std::isalnum((unsigned char)ch) && ch != '-' && ch != '_' && ch != '.' && ch != '/' &&
        ch != ' ')
      plain = false;
  if (plain && s.back() == ' ') plain = false;
  if (plain) {
    // Words YAML 1.1 reads as booleans or null.
    std::string lower(s);
    for (char& ch : lower) ch = char(std::tolower((unsigned char)ch));
    static const std::set<std::string> special = {"true", "false", "yes", "no",  "on",
                                                  "off",  "y",     "n",   "null"};
    if (special.count(lower)) plain = false;
  }
  if (plain) return std::string(s);
  // JSON's string escapes are valid in a YAML double-quoted scalar.
  return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string python_str(const json& v) {
  if (v.is_number_float()) return python_float_repr(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "None";
  return v.dump();
}

std::string maybe_round(const json& v) {
  std::string s = python_str(v);
  if (!v.is_number_float()) return s;
  const size_t dot = s.find('.');
  if (dot != std::string::npos && s.size() - dot - 1 > 4) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", v.get<double>());
    s = buf;
  }
  return s;
}

std::string yaml_number(const json& v) {
  if (!v.is_number_float()) return v.dump();
  const double d = v.get<double>();
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  std::string s = python_float_repr(d);
  const size_t e = s.find('e');
  if (e != std::string::npos && s.find('.') == std::string::npos) s.insert(e, ".0");
  return s;
}

std::string metric_display_name(const std::string& key) {
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t end = key.find('_', start);
    if (!out.empty() || start > 0) out += ' ';
    out +=
        capitalize(key.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& v = c < cells.size() ? cells[c] : std::string();
      s += "| " + v + std::string(width[c] - v.size() + 1, ' ');
    }
    return s + "|\n";
  };
  std::string table = line(header);
  for (size_t w : width) table += "|:" + std::string(w, '-') + ":";
  table += "|\n";
  for (const auto& row : rows) table += line(row);
  return table;
}

}  // namespace precis::hub
