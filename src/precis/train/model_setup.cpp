#include "precis/train/model_setup.h"

#include <cstdio>

#include "precis/core/error.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/t5/t5_init.h"
#include "precis/tokenize/tokenizer.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

// validate_job has made sure there is a directory to read it from.
std::unique_ptr<tokenize::TextTokenizer> load_tokenizer(const TrainingArguments& a) {
  return tokenize::load_text_tokenizer(a.tokenizer_name.value_or(a.model_name_or_path));
}

void say_new_model(const TrainingArguments& a, int64_t parameters) {
  std::fprintf(stderr, "precis: new %s model (%lld parameters), initialised with seed %lld\n",
               a.config_name->c_str(), (long long)parameters, (long long)a.seed);
}

}  // namespace

template <>
LoadedModel<BartModel> load_model_and_tokenizer<BartModel>(const TrainingArguments& a,
                                                           bool verbose) {
  auto tokenizer = load_tokenizer(a);
  BartModel model;
  if (!a.model_name_or_path.empty()) {
    model = BartModel::load(a.model_name_or_path);
  } else {
    // A new BART takes its special tokens from the byte-level BPE it will be trained with.
    const tokenize::Tokenizer bpe = tokenize::Tokenizer::from_directory(*a.tokenizer_name);
    BartConfig config = bart_config_from(*a.config_name);
    config.vocab_size = int64_t(bpe.size());
    config.pad_token_id = bpe.pad_token_id();
    config.bos_token_id = bpe.bos_token_id();
    config.eos_token_id = config.decoder_start_token_id = bpe.eos_token_id();
    config.forced_eos_token_id = bpe.eos_token_id();
    model = BartModel::allocate(config);
    initialize_bart(model, uint64_t(a.seed));
    if (verbose) say_new_model(a, parameter_count(config));
  }
  if (int64_t(tokenizer->size()) > model.config.vocab_size) {
    if (verbose)
      std::fprintf(stderr,
                   "precis: resizing the embeddings from %lld to %zu rows to fit the tokenizer\n",
                   (long long)model.config.vocab_size, tokenizer->size());
    model = resize_token_embeddings(model, int64_t(tokenizer->size()), uint64_t(a.seed));
  }
  return {std::move(model), std::move(tokenizer)};
}

template <>
LoadedModel<T5Model> load_model_and_tokenizer<T5Model>(const TrainingArguments& a, bool verbose) {
  // run_summarization warns the same way for the t5-* checkpoints it knows by name.
  if (!a.source_prefix && verbose)
    std::fprintf(stderr,
                 "precis: warning: You're running a t5 model but didn't provide a source prefix, "
                 "which is expected, e.g. with `--source_prefix 'summarize: '`\n");
  auto tokenizer = load_tokenizer(a);
  T5Model model;
  if (!a.model_name_or_path.empty()) {
    model = T5Model::load(a.model_name_or_path);
  } else {
    T5Config config = t5_config_from(*a.config_name);
    config.vocab_size = int64_t(tokenizer->size());
    config.pad_token_id = config.decoder_start_token_id = tokenizer->pad_token_id();
    model = T5Model::allocate(config);
    initialize_t5(model, uint64_t(a.seed));
    if (verbose) say_new_model(a, parameter_count(config));
  }
  check(int64_t(tokenizer->size()) <= model.config.vocab_size,
        "the tokenizer has " + std::to_string(tokenizer->size()) +
            " tokens but the T5 model only " + std::to_string(model.config.vocab_size) +
            " embedding rows (precis resizes BART's embeddings, not T5's)");
  return {std::move(model), std::move(tokenizer)};
}

fs::path generation_config_file(const std::string& path) {
  fs::path p(path);
  if (fs::is_directory(p)) p /= "generation_config.json";
  check(fs::is_regular_file(p), "--generation_config " + path +
                                    ": no such file (expected a generation_config.json or a "
                                    "directory holding one)");
  return p;
}

}  // namespace precis::train
