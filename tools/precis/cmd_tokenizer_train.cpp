// precis tokenizer train: a byte-level BPE trained on text files exactly as HF `tokenizers`'
// ByteLevelBPETokenizer.train does, saved as a BART tokenizer directory (vocab.json,
// merges.txt, tokenizer.json, configs) that transformers' AutoTokenizer loads.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "precis/core/error.h"
#include "precis/core/progress.h"
#include "precis/tokenize/bpe_trainer.h"
#include "precis/tokenize/bpe_trainer_corpus.h"

namespace {

struct TrainTokenizerOptions {
  std::vector<std::string> files;
  std::string output;
  size_t vocab_size = 8000;
  uint64_t min_frequency = 2;
  std::vector<std::string> text_fields;
  std::optional<size_t> model_max_length;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_train(const TrainTokenizerOptions& o) {
  using namespace precis::tokenize;
  auto start = std::chrono::steady_clock::now();
  TrainingFileOptions file_options;
  file_options.text_fields = o.text_fields;
  WordCounts words;
  {
    precis::Progress progress("reading", int64_t(o.files.size()), "files");
    for (const std::string& file : o.files) {
      count_file_words(file, file_options, words);
      progress.advance(1);
    }
  }
  double read_seconds = seconds_since(start);

  BpeTrainerOptions options;
  options.vocab_size = o.vocab_size;
  options.min_frequency = o.min_frequency;
  options.show_progress = true;
  TokenizerSettings settings;
  settings.model_max_length = o.model_max_length;
  Tokenizer tokenizer = train_tokenizer(words, options, settings);
  tokenizer.save(o.output);
  std::printf(
      "%zu distinct words from %zu file(s) in %.1f s; vocabulary of %zu tokens in %.1f s "
      "-> %s\n",
      words.size(), o.files.size(), read_seconds, tokenizer.size(), seconds_since(start),
      o.output.c_str());
}

void setup_train(CLI::App& tokenizer) {
  auto* app = tokenizer.add_subcommand(
      "train",
      "Train a byte-level BPE (RoBERTa/BART style: <s> <pad> </s> <unk> first, <mask> last) "
      "exactly as HF tokenizers' ByteLevelBPETokenizer.train does");
  auto o = std::make_shared<TrainTokenizerOptions>();
  app->add_option("--files", o->files,
                  "Text files: plain text (every line, newline included, is a text, as HF "
                  "reads files) or JSON lines (.jsonl/.json: see --text_field)")
      ->required()
      ->expected(1, -1)
      ->check(CLI::ExistingFile);
  app->add_option("--output", o->output,
                  "Directory for vocab.json, merges.txt, tokenizer.json, tokenizer_config.json, "
                  "special_tokens_map.json")
      ->required();
  app->add_option("--vocab_size", o->vocab_size,
                  "Size of the whole vocabulary, special tokens and <mask> included")
      ->capture_default_str();
  app->add_option("--min_frequency", o->min_frequency,
                  "Stop merging when the most frequent pair occurs fewer times than this")
      ->capture_default_str();
  app->add_option("--text_field", o->text_fields,
                  "JSON lines: a string field that is a text (repeat for several); default: "
                  "every top-level string value")
      ->take_all();
  app->add_option("--model_max_length", o->model_max_length,
                  "The value of model_max_length in tokenizer_config.json (default: none, as HF)");
  app->callback([o] { run_train(*o); });
}

}  // namespace

PRECIS_COMMAND("tokenizer", "Build tokenizers (see `precis tokenizer train`)", [](CLI::App& app) {
  app.require_subcommand(1);
  setup_train(app);
});
