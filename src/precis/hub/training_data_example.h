// The example a model is tried on first (the card's inference widget, the page's text box):
// a text of the run's own data, so a model trained on Debian package descriptions is not
// shown a chat dialogue. It is the first record of training_args.json's test_file, else of
// its validation_file, read with the run's columns (text_column, or dataset_name's mapping).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace precis::hub {

// `training_args`: training_args.json's object, read from `source` (named in errors).
// nullopt when neither file is named, none is there any more, or its first record has no
// text: a file moved or changed since training leaves the model without an example rather
// than stop the card or the page. A field of the wrong type throws precis::Error naming
// `source` and the field.
std::optional<std::string> training_data_example(const nlohmann::json& training_args,
                                                 const std::filesystem::path& source);

}  // namespace precis::hub
