// How transformers' model card writes values, which the card's bytes must match: Python's str()
// and repr() of numbers, modelcard._maybe_round, its markdown tables and metric names, and YAML
// scalars that PyYAML reads back as the same value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace precis::hub {

// Python's repr() of a float ("5e-05", "0.9", "3.0"), as Trainer's card prints hyperparameters.
std::string python_float_repr(double v);

// Python's str() of a JSON value (True, None, floats by repr).
std::string python_str(const nlohmann::json& v);

// transformers.modelcard._maybe_round: floats with more than 4 decimals as %.4f.
std::string maybe_round(const nlohmann::json& v);

// A number PyYAML (YAML 1.1) reads back as the same number: floats need a '.' in the mantissa.
std::string yaml_number(const nlohmann::json& v);

// A YAML scalar for `s`: plain when it reads back as that same string, else double-quoted.
std::string yaml_scalar(std::string_view s);

// HF's display name of a metric key without its prefix: "gen_len" -> "Gen Len",
// "rougeLsum" -> "Rougelsum".
std::string metric_display_name(const std::string& key);

// transformers.modelcard.make_markdown_table: centred columns padded to the widest cell.
std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows);

}  // namespace precis::hub
