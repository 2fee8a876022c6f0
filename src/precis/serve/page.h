// The web page at GET /: one self-contained HTML document (inline CSS and script, no
// external asset) to try the model: a text box with an example of the model's own kind, the
// generation settings with the checkpoint's defaults, a button, the summary with its latency,
// and the model card rendered below (its pictures inlined). It fits a phone's width: wide
// tables and code scroll inside the card, the page itself does not scroll sideways.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "precis/serve/card_front_matter.h"

namespace precis::serve {

struct PageContent {
  std::string model_name;    // the page's title and heading
  std::string example_text;  // the text box's initial content; empty shows a placeholder
  std::string card_html;     // the rendered README.md, or a line saying there is none
  nlohmann::json defaults;   // generation settings shown in the form, by API name
  bool token_required = false;
};

// From the model directory: the name is the card's (card_model_name), else the directory's.
// The example is the card's widget example; else the first record of the run's test or
// validation file (hub/training_data_example.h, as training_args.json names them); else none.
// Throws precis::Error naming training_args.json when it is consulted and malformed.
PageContent page_content(const std::filesystem::path& model_dir, nlohmann::json defaults,
                         bool token_required);

std::string render_page(const PageContent& content);

}  // namespace precis::serve
