// A small, safe Markdown renderer for showing a model card (README.md) on the web page:
// headings, paragraphs, pipe tables, lists, fenced and inline code, emphasis, links and
// horizontal rules. Safe because every piece of text is HTML-escaped and raw HTML is shown
// as text; links keep only http(s), mailto, relative and #fragment targets, and images
// become links (the page loads no external asset). The YAML front matter is left out.
#pragma once

#include <string>
#include <string_view>

namespace precis::serve {

std::string html_escape(std::string_view text);

// The front matter (between the first line "---" and the next "---") and the rest.
struct CardParts {
  std::string front_matter;  // YAML, without the --- lines; empty if none
  std::string body;
};
CardParts split_front_matter(std::string_view markdown);

std::string markdown_to_html(std::string_view markdown);

}  // namespace precis::serve
