// The web page at GET /: one self-contained HTML document (inline CSS and script, no
// external asset) to try the model: a text box preloaded with the model card's widget
// example, the generation settings with the checkpoint's defaults, a button, the summary
// with its latency, and the model card rendered below.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace precis::serve {

// The first `widget:` entry's `text:` in a model card's front matter (the text the Hub's
// inference widget starts with), or nullopt.
std::optional<std::string> widget_example(std::string_view readme);

struct PageContent {
  std::string model_name;
  std::string example_text;  // the text box's initial content
  std::string card_html;     // the rendered README.md, or a line saying there is none
  nlohmann::json defaults;   // generation settings shown in the form, by API name
  bool token_required = false;
};

// Reads README.md from the model directory, if there is one; `defaults` as above.
PageContent page_content(const std::filesystem::path& model_dir, nlohmann::json defaults,
                         bool token_required);

std::string render_page(const PageContent& content);

}  // namespace precis::serve
