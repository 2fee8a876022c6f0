// precis card: writes the model card (README.md with the Hub's YAML front matter, and
// loss_curve.svg) into a model directory from the files precis train left there.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/hub/model_card.h"

namespace {

struct CardOptions {
  std::string model;
  std::string base_model;
  std::string model_name;
  std::string widget_text;
  std::string license;
  precis::hub::ModelCardOptions card;
};

PRECIS_COMMAND("card", "Write the model card (README.md the Hugging Face Hub reads, with model-index) of a model directory",
               [](CLI::App& app) {
                 auto o = std::make_shared<CardOptions>();
                 app.add_option("--model", o->model, "The model directory (precis train's output_dir)")->required();
                 app.add_option("--language", o->card.language, "Language of the model's texts (ISO 639-1)")
                     ->default_val("en");
                 app.add_option("--license", o->license, "License id for the Hub (default apache-2.0)");
                 app.add_option("--dataset", o->card.datasets,
                                "Dataset id (repeatable); default: training_args.json's dataset_name or data file "
                                "names");
                 app.add_option("--tag", o->card.tags,
                                "Tag (repeatable); default: summarization, generated_from_trainer, precis");
                 app.add_option("--base_model", o->base_model,
                                "Hub id of the model fine-tuned; default: model_name_or_path when it is a Hub id");
                 app.add_option("--model_name", o->model_name, "Name in the card and model-index; default: the "
                                                               "directory's name");
                 app.add_option("--widget_text", o->widget_text, "Example input for the Hub's inference widget");
                 precis::cli::add_hf_semantics_option(app);
                 app.callback([o] {
                   precis::hub::ModelCardOptions card = o->card;
                   if (!o->license.empty()) card.license = o->license;
                   if (!o->base_model.empty()) card.base_model = o->base_model;
                   if (!o->model_name.empty()) card.model_name = o->model_name;
                   if (!o->widget_text.empty()) card.widget_text = o->widget_text;
                   std::printf("%s\n", precis::hub::write_model_card(o->model, card).string().c_str());
                 });
               });

}  // namespace
