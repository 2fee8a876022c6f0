// run_summarization's model set-up: the weights from model_name_or_path (with config_name's
// config when given), or a new model from config_name (a preset or a config.json) with HF's
// initialisation; the tokenizer from tokenizer_name or the model's directory; then, for BART,
// resize_token_embeddings when the tokenizer has more tokens than the model has rows.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "precis/model/common/seq2seq_family.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

template <class Model>
struct LoadedModel {
  Model model;
  std::unique_ptr<tokenize::TextTokenizer> tokenizer;
};

// Model: a family's (each specializes it). `verbose` (rank 0) says what was made or resized, on
// stderr.
template <class Model>
LoadedModel<Model> load_model_and_tokenizer(const TrainingArguments& args, bool verbose);
template <>
LoadedModel<BartModel> load_model_and_tokenizer<BartModel>(const TrainingArguments& args,
                                                           bool verbose);
template <>
LoadedModel<T5Model> load_model_and_tokenizer<T5Model>(const TrainingArguments& args, bool verbose);

// Seq2SeqTrainingArguments.generation_config: a generation_config.json, or a directory with one.
// Throws precis::Error when there is none.
std::filesystem::path generation_config_file(const std::string& path);

}  // namespace precis::train
