// A small, safe Markdown renderer for showing a model card (README.md) on the web page:
// headings, paragraphs, pipe tables, lists, fenced and inline code, emphasis, links and
// horizontal rules. Safe because every piece of text is HTML-escaped and raw HTML is shown
// as text; links keep only http(s), mailto, relative and #fragment targets, and images
// become links (the page loads no external asset) unless the caller hands their bytes in as
// a data: URI. HTML comments are hidden, as the Hub hides them (precis card writes one at the
// top). The YAML front matter is left out.
#pragma once

#include <functional>
#include <optional>
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

// An image's target (as written in the Markdown) -> a data: URI to show it inline, or nullopt
// to show the image as a link labelled with its alternative text.
using ImageSource = std::function<std::optional<std::string>(const std::string& target)>;

std::string markdown_to_html(std::string_view markdown, const ImageSource& images = {});

}  // namespace precis::serve
