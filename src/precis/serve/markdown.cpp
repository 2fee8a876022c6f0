#include "precis/serve/markdown.h"

#include <cctype>
#include <vector>

namespace precis::serve {

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Link targets that cannot run script: no javascript:, data: or other schemes.
bool safe_url(const std::string& url) {
  if (starts_with(url, "http://") || starts_with(url, "https://") || starts_with(url, "mailto:") ||
      starts_with(url, "#"))
    return true;
  size_t colon = url.find(':');
  size_t stop = url.find_first_of("/?#");
  return colon == std::string::npos || (stop != std::string::npos && stop < colon);
}

constexpr std::string_view kCommentOpen = "<!--", kCommentClose = "-->";

// Inline markup of one block's text: `code`, **strong**, *em*, [text](url), ![alt](url), and
// <!-- comments --> left out.
std::string inline_html(std::string_view s, const ImageSource& images) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (starts_with(s.substr(i), kCommentOpen)) {
      size_t end = s.find(kCommentClose, i + kCommentOpen.size());
      if (end != std::string_view::npos) {
        i = end + kCommentClose.size();
        continue;
      }
    }
    if (c == '`') {
      size_t end = s.find('`', i + 1);
      if (end != std::string_view::npos) {
        out += "<code>" + html_escape(s.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    }
    if (starts_with(s.substr(i), "**")) {
      size_t end = s.find("**", i + 2);
      if (end != std::string_view::npos && end > i + 2) {
        out += "<strong>" + inline_html(s.substr(i + 2, end - i - 2), images) + "</strong>";
        i = end + 2;
        continue;
      }
    }
    if ((c == '*' || c == '_') && i + 1 < s.size() &&
        !std::isspace(static_cast<unsigned char>(s[i + 1]))) {
      size_t end = s.find(c, i + 1);
      bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]));
      if (end != std::string_view::npos && end > i + 1 && word_start) {
        out += "<em>" + inline_html(s.substr(i + 1, end - i - 1), images) + "</em>";
        i = end + 1;
        continue;
      }
    }
    bool image = c == '!' && i + 1 < s.size() && s[i + 1] == '[';
    if (c == '[' || image) {
      size_t open = i + (image ? 1 : 0);
      size_t close = s.find("](", open);
      size_t end = close == std::string_view::npos ? close : s.find(')', close + 2);
      if (end != std::string_view::npos) {
        std::string text(s.substr(open + 1, close - open - 1));
        std::string url = trim(s.substr(close + 2, end - close - 2));
        std::optional<std::string> inline_image = image && images ? images(url) : std::nullopt;
        std::string label =
            image ? html_escape(text.empty() ? url : text) : inline_html(text, images);
        if (inline_image)
          out +=
              "<img src=\"" + html_escape(*inline_image) + "\" alt=\"" + html_escape(text) + "\">";
        else if (safe_url(url))
          out +=
              "<a href=\"" + html_escape(url) + "\" rel=\"noopener noreferrer\">" + label + "</a>";
        else
          out += label;
        i = end + 1;
        continue;
      }
    }
    out += html_escape(s.substr(i, 1));
    ++i;
  }
  return out;
}

bool is_table_separator(const std::string& line) {
  if (line.find('|') == std::string::npos || line.find('-') == std::string::npos) return false;
  for (char c : line)
    if (c != '|' && c != '-' && c != ':' && c != ' ') return false;
  return true;
}

std::vector<std::string> table_cells(std::string line) {
  line = trim(line);
  if (!line.empty() && line.front() == '|') line.erase(0, 1);
  if (!line.empty() && line.back() == '|') line.pop_back();
  std::vector<std::string> cells;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '|') {
      cells.push_back(trim(std::string_view(line).substr(start, i - start)));
      start = i + 1;
    }
  }
  return cells;
}

// "- item", "* item", "+ item" or "1. item": true, with the item's text and kind.
bool list_item(const std::string& line, bool& ordered, std::string& text) {
  std::string t = trim(line);
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') {
    ordered = false;
    text = trim(std::string_view(t).substr(2));
    return true;
  }
  size_t d = 0;
  while (d < t.size() && std::isdigit(static_cast<unsigned char>(t[d]))) ++d;
  if (d > 0 && d + 1 < t.size() && t[d] == '.' && t[d + 1] == ' ') {
    ordered = true;
    text = trim(std::string_view(t).substr(d + 2));
    return true;
  }
  return false;
}

bool is_rule(const std::string& line) {
  std::string t = trim(line);
  if (t.size() < 3) return false;
  for (char c : t)
    if (c != t[0] && c != ' ') return false;
  return t[0] == '-' || t[0] == '*' || t[0] == '_';
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

CardParts split_front_matter(std::string_view markdown) {
  CardParts parts;
  auto first_line_end = markdown.find('\n');
  if (first_line_end != std::string_view::npos &&
      trim(markdown.substr(0, first_line_end)) == "---") {
    size_t pos = first_line_end + 1;
    while (pos < markdown.size()) {
      size_t end = markdown.find('\n', pos);
      if (end == std::string_view::npos) end = markdown.size();
      if (trim(markdown.substr(pos, end - pos)) == "---") {
        parts.front_matter =
            std::string(markdown.substr(first_line_end + 1, pos - first_line_end - 1));
        parts.body = std::string(markdown.substr(std::min(end + 1, markdown.size())));
        return parts;
      }
      pos = end + 1;
    }
  }
  parts.body = std::string(markdown);
  return parts;
}

std::string markdown_to_html(std::string_view markdown, const ImageSource& images) {
  std::vector<std::string> lines;
  std::string body = split_front_matter(markdown).body;
  for (size_t pos = 0; pos <= body.size();) {
    size_t end = body.find('\n', pos);
    if (end == std::string::npos) end = body.size();
    std::string line = body.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  std::string html;
  std::string paragraph;
  auto flush_paragraph = [&] {
    if (!trim(paragraph).empty()) html += "<p>" + inline_html(trim(paragraph), images) + "</p>\n";
    paragraph.clear();
  };
  for (size_t i = 0; i < lines.size();) {
    const std::string& line = lines[i];
    std::string t = trim(line);
    bool ordered = false;
    std::string item;
    if (t.empty()) {
      flush_paragraph();
      ++i;
    } else if (starts_with(t, "```") || starts_with(t, "~~~")) {
      flush_paragraph();
      const std::string fence = t.substr(0, 3);
      std::string code;
      for (++i; i < lines.size() && !starts_with(trim(lines[i]), fence); ++i)
        code += lines[i] + "\n";
      html += "<pre><code>" + html_escape(code) + "</code></pre>\n";
      ++i;
    } else if (starts_with(t, kCommentOpen)) {
      // A comment block (CommonMark's HTML block of kind 2) runs to the line holding "-->", or
      // to the end; the Hub shows none of it. What follows "-->" on that line is shown.
      flush_paragraph();
      size_t close = t.find(kCommentClose, kCommentOpen.size());
      std::string rest;
      if (close != std::string::npos) {
        rest = t.substr(close + kCommentClose.size());
      } else {
        for (++i; i < lines.size(); ++i) {
          close = lines[i].find(kCommentClose);
          if (close != std::string::npos) {
            rest = lines[i].substr(close + kCommentClose.size());
            break;
          }
        }
      }
      if (!trim(rest).empty()) html += "<p>" + inline_html(trim(rest), images) + "</p>\n";
      ++i;
    } else if (t[0] == '#') {
      flush_paragraph();
      size_t level = 0;
      while (level < t.size() && t[level] == '#') ++level;
      if (level <= 6 && (level == t.size() || t[level] == ' ')) {
        std::string n = std::to_string(level);
        html += "<h" + n + ">" + inline_html(trim(std::string_view(t).substr(level)), images) +
                "</h" + n + ">\n";
      } else {
        html += "<p>" + inline_html(t, images) + "</p>\n";
      }
      ++i;
    } else if (is_rule(t)) {
      flush_paragraph();
      html += "<hr>\n";
      ++i;
    } else if (t.find('|') != std::string::npos && i + 1 < lines.size() &&
               is_table_separator(trim(lines[i + 1]))) {
      flush_paragraph();
      html += "<table>\n<thead><tr>";
      for (const auto& cell : table_cells(t)) html += "<th>" + inline_html(cell, images) + "</th>";
      html += "</tr></thead>\n<tbody>\n";
      for (i += 2; i < lines.size() && trim(lines[i]).find('|') != std::string::npos; ++i) {
        html += "<tr>";
        for (const auto& cell : table_cells(lines[i]))
          html += "<td>" + inline_html(cell, images) + "</td>";
        html += "</tr>\n";
      }
      html += "</tbody>\n</table>\n";
    } else if (list_item(line, ordered, item)) {
      flush_paragraph();
      const char* tag = ordered ? "ol" : "ul";
      html += std::string("<") + tag + ">\n";
      bool next_ordered = ordered;
      while (i < lines.size() && list_item(lines[i], next_ordered, item) &&
             next_ordered == ordered) {
        html += "<li>" + inline_html(item, images) + "</li>\n";
        ++i;
      }
      html += std::string("</") + tag + ">\n";
    } else if (t[0] == '>') {
      flush_paragraph();
      html += "<blockquote>" + inline_html(trim(std::string_view(t).substr(1)), images) +
              "</blockquote>\n";
      ++i;
    } else {
      paragraph += t + "\n";
      ++i;
    }
  }
  flush_paragraph();
  return html;
}

}  // namespace precis::serve
