// The model card of a trained model directory: README.md with the YAML front matter the
// Hugging Face Hub reads (language, license, tags, datasets, base_model, widget, model-index
// with the ROUGE scores), then a body like Trainer.create_model_card's (hyperparameters,
// training results table) plus evaluation tables, a loss curve, usage and versions.
//
// Everything comes from the files `precis train` writes to its output_dir: config.json
// (required), training_args.json, trainer_state.json, eval_results.json (validation split),
// predict_results.json (test split). A missing file leaves its sections out; a malformed one
// throws precis::Error naming it. The same directory and options give the same bytes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace precis::hub {

// The precis release the card names under "Framework versions", and the transformers
// version whose checkpoint format precis writes.
inline constexpr std::string_view kPrecisVersion = "0.1.0";
inline constexpr std::string_view kTransformersFormatVersion = "4.44.2";

struct ModelCardOptions {
  std::string language = "en";
  std::optional<std::string> license;  // unset: apache-2.0
  std::vector<std::string> tags;       // empty: summarization, generated_from_trainer, precis
  // Dataset ids for `datasets:` and the model-index. Empty: training_args.json's dataset_name,
  // else the names of its train/validation/test files (the file stem, or the folder name for
  // a stem that only names a split, as data/samsum/train.json -> samsum).
  std::vector<std::string> datasets;
  // Unset: model_name_or_path when it reads as a Hub id ("org/name"); else none (a model
  // trained from a config or preset has no base model).
  std::optional<std::string> base_model;
  // Unset: training_args.json's hub_model_id (its last part), else the directory's name.
  std::optional<std::string> model_name;
  // The inference widget's example input. Unset: the first record of training_args.json's
  // test_file, else validation_file, when it reads; else the card has no widget.
  std::optional<std::string> widget_text;
};

struct ModelCardFiles {
  std::string readme;          // README.md
  std::string loss_curve_svg;  // loss_curve.svg; empty when trainer_state.json logs no loss
};

ModelCardFiles render_model_card(const std::filesystem::path& dir, const ModelCardOptions& options = {});

// README.md's text.
std::string model_card(const std::filesystem::path& dir, const ModelCardOptions& options = {});

// Writes dir/README.md and, when there is a curve, dir/loss_curve.svg (each atomically).
// Returns the README's path.
std::filesystem::path write_model_card(const std::filesystem::path& dir, const ModelCardOptions& options = {});

}  // namespace precis::hub
