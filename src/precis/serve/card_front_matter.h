// What the page takes from a model card's YAML front matter: the model's name and the
// example its inference widget starts with. A front matter that is not YAML, or lacks the
// field, gives nullopt: the card still shows, and the page falls back (see page.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace precis::serve {

// The first `widget:` entry's `text:` (the text the Hub's inference widget starts with).
std::optional<std::string> widget_example(std::string_view readme);

// The model-index's first `name:`, which precis card and Trainer.create_model_card set to the
// model's name (hub_model_id's last part, else the output directory's name).
std::optional<std::string> card_model_name(std::string_view readme);

}  // namespace precis::serve
