// precis generate: summaries of texts with a checkpoint, as transformers' generate() makes
// them (the checkpoint's generation config, overridable here), as JSON lines
// {"summary_text": ..., "ids": [...]}, num_return_sequences lines per input, in input order.
// ids are the row generate() returns for the batch (start token first, pad-padded);
// summary_text is tokenizer.decode(ids, skip_special_tokens=True), as the pipeline gives it.
// T5 checkpoints (config.json model_type "t5") use their tokenizer.json (Unigram) or spiece.model.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/core/error.h"
#include "precis/data/dataset.h"
#include "precis/generate/generate.h"
#include "precis/io/safetensors.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/device_choice.h"
#include "precis/model/families.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/train/compute_copy.h"
#include "quantization_option.h"
#include "summary_lengths.h"

namespace {

struct GenerateCommandOptions {
  std::string model, input, text_column, source_prefix, output_logits, device = "auto";
  bool bf16 = false, fp16 = false;
  std::vector<std::string> texts;
  size_t max_source_length = 1024;
  int64_t batch_size = 8;
  // Generation overrides: unset keeps the checkpoint's value.
  std::optional<int64_t> num_beams, max_length, max_new_tokens, min_length, min_new_tokens,
      no_repeat_ngram_size, num_return_sequences, top_k;
  std::optional<double> length_penalty, repetition_penalty, temperature, top_p;
  std::optional<std::string> early_stopping, bad_words_ids;
  std::optional<int32_t> forced_bos_token_id, forced_eos_token_id;
  bool do_sample = false;
  CLI::Option* do_sample_option = nullptr;  // given: --do_sample or --do_sample=false
  std::optional<uint64_t> seed;
  precis::cli::SummaryLengths lengths;  // run_summarization's names for max_length
};

nlohmann::json overrides(const GenerateCommandOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  auto set = [&](const char* key, const auto& value) {
    if (value) j[key] = *value;
  };
  set("num_beams", o.num_beams);
  set("max_length", o.max_length ? o.max_length : o.lengths.generation());
  set("max_new_tokens", o.max_new_tokens);
  set("min_length", o.min_length);
  set("min_new_tokens", o.min_new_tokens);
  set("no_repeat_ngram_size", o.no_repeat_ngram_size);
  set("num_return_sequences", o.num_return_sequences);
  set("top_k", o.top_k);
  set("length_penalty", o.length_penalty);
  set("repetition_penalty", o.repetition_penalty);
  set("temperature", o.temperature);
  set("top_p", o.top_p);
  set("forced_bos_token_id", o.forced_bos_token_id);
  set("forced_eos_token_id", o.forced_eos_token_id);
  if (o.do_sample_option && o.do_sample_option->count()) j["do_sample"] = o.do_sample;
  set("seed", o.seed);
  if (o.early_stopping) {
    switch (precis::generate::early_stopping_from_string(*o.early_stopping)) {
      case precis::generate::EarlyStopping::kTrue: j["early_stopping"] = true; break;
      case precis::generate::EarlyStopping::kFalse: j["early_stopping"] = false; break;
      case precis::generate::EarlyStopping::kNever: j["early_stopping"] = "never"; break;
    }
  }
  if (o.bad_words_ids) {
    try {
      j["bad_words_ids"] = nlohmann::json::parse(*o.bad_words_ids);
    } catch (const nlohmann::json::parse_error&) {
      throw precis::Error("--bad_words_ids must be a JSON list of lists of token ids, e.g. "
                          "[[5], [7, 8]]; found " + *o.bad_words_ids);
    }
  }
  return j;
}

std::vector<std::string> generation_inputs(const GenerateCommandOptions& o) {
  if (!o.texts.empty()) return o.texts;
  // Text only: the summary column is the text column, so no summary is required.
  precis::data::ReadOptions read = precis::data::columns_for("", o.text_column, "");
  read.summary_column = read.text_column;
  precis::data::Dataset dataset = precis::data::read_dataset(o.input, read);
  if (dataset.stats.dropped_empty)
    std::fprintf(stderr, "precis generate: skipped %zu record(s) with an empty or missing '%s'\n",
                 dataset.stats.dropped_empty, read.text_column.c_str());
  std::vector<std::string> texts;
  for (auto& r : dataset.records) texts.push_back(std::move(r.text));
  return texts;
}

// The body every family shares: `encode(texts)` gives the inputs' ids, `decode(ids)` the
// text of a generated row (skip_special_tokens).
template <class Model, class Encode, class Decode>
void generate_all(const GenerateCommandOptions& o, Model& loaded,
                  precis::generate::GenerationConfig config, Encode encode, Decode decode) {
  using namespace precis;
  config.update(overrides(o), "command line");
  // --bf16 / --fp16: the checkpoint's fp32 weights and a 16-bit copy of those the linear layers
  // multiply by, the decoder computing as under torch.autocast (kv_cached_decoder.h).
  std::unique_ptr<train::ComputeCopy<decltype(loaded.config)>> copy;
  Model mixed;
  if (o.bf16 || o.fp16) {
    check(!current_device().is_cpu(),
          std::string("precis generate: --") + (o.bf16 ? "bf16" : "fp16") +
              " runs on CUDA (--device cuda); on the CPU precis generates in fp32");
    copy = std::make_unique<train::ComputeCopy<decltype(loaded.config)>>(
        loaded.config, loaded.params, o.bf16 ? DType::BF16 : DType::F16);
    copy->refresh(loaded.params);
    mixed.config = loaded.config;
    mixed.params = copy->mixed(loaded.params);
  }
  const Model& model = copy ? mixed : loaded;
  std::vector<std::string> texts = generation_inputs(o);
  for (auto& t : texts) t = o.source_prefix + t;
  std::vector<std::vector<int32_t>> inputs = encode(texts);

  std::vector<NamedTensor> dumped;
  std::vector<std::vector<float>> dumped_logits;
  // One torch.manual_seed(seed) for the whole input, as run_summarization's predict sets the
  // seed once and generates batch after batch.
  TorchCpuGenerator generator(config.seed);
  // The weights hold still for the whole run: their packed (or int8) copies serve every batch.
  const ConstantWeightsScope constant(loaded.arena.base(), loaded.arena.capacity());
  for (size_t begin = 0; begin < inputs.size(); begin += size_t(o.batch_size)) {
    size_t end = std::min(inputs.size(), begin + size_t(o.batch_size));
    std::span<const std::vector<int32_t>> batch(inputs.data() + begin, end - begin);
    generate::GenerateOptions options;
    options.output_logits = !o.output_logits.empty();
    options.generator = &generator;
    generate::Generated out = generate::generate(model, batch, config, options);
    for (int64_t r = 0; r < out.rows; ++r) {
      auto ids = out.row(r);
      nlohmann::json line = {{"summary_text", decode(ids)},
                             {"ids", std::vector<int32_t>(ids.begin(), ids.end())}};
      std::printf("%s\n", line.dump().c_str());
    }
    if (options.output_logits) dumped_logits.push_back(std::move(out.logits));
    if (options.output_logits)
      dumped.push_back({"logits." + std::to_string(dumped.size()),
                        Tensor{nullptr, Shape({out.steps, out.running_rows, out.vocab})}});
  }
  std::fflush(stdout);
  if (!o.output_logits.empty()) {
    for (size_t i = 0; i < dumped.size(); ++i) dumped[i].tensor.ptr = dumped_logits[i].data();
    write_safetensors(o.output_logits, dumped);
  }
}

void run(const GenerateCommandOptions& o) {
  using namespace precis;
  check(o.texts.empty() != o.input.empty(), "precis generate: give either --text or --input");
  check(!(o.bf16 && o.fp16), "precis generate: --bf16 and --fp16 exclude each other");
  const Device device = choose_device(o.device, 0, 1);
  ScopedExecutionContext on(device);
  AnyModel any = load_any_model(o.model);
  // Inputs as tokenizer(texts, max_length=max_source_length, truncation=True) makes them; rows
  // decoded with skip_special_tokens=True and the tokenizer's own clean-up.
  const auto tokenizer = tokenize::load_text_tokenizer(o.model);
  auto encode = [&](const std::vector<std::string>& texts) {
    return tokenizer->encode_batch(texts, o.max_source_length);
  };
  auto decode = [&](std::span<const int32_t> ids) { return tokenizer->decode(ids); };
  std::visit(
      [&](auto& model) {
        auto config =
            generate::GenerationConfig::from_model_directory(o.model, special_tokens(model.config));
        generate_all(o, model, config, encode, decode);
      },
      any);
}

}  // namespace

PRECIS_COMMAND("generate", "Summaries of texts with a checkpoint (HF generate semantics), as JSON lines",
               [](CLI::App& app) {
                 auto o = std::make_shared<GenerateCommandOptions>();
                 app.add_option("--model,--model_name_or_path", o->model, "Model directory (HF checkpoint with tokenizer)")->required();
                 app.add_option("--text", o->texts, "Text to summarise (repeatable)");
                 app.add_option("--input", o->input, "File of texts: JSON, JSON lines, CSV or TSV with --text_column");
                 app.add_option("--text_column", o->text_column, "Column with the text to summarise (default: dialogue)");
                 app.add_option("--source_prefix", o->source_prefix, "Text put before every input (T5: \"summarize: \")");
                 app.add_option("--max_source_length", o->max_source_length, "Truncate inputs to this many tokens")->capture_default_str();
                 app.add_option("--per_device_eval_batch_size,--batch_size", o->batch_size, "Inputs per batch")->capture_default_str()->check(CLI::PositiveNumber);
                 app.add_option("--num_beams", o->num_beams, "Beams (1: greedy or sampling)");
                 app.add_option("--max_length", o->max_length, "Most decoder tokens, the start token included");
                 o->lengths.add_to(app);
                 app.add_option("--max_new_tokens", o->max_new_tokens, "Most generated tokens (wins over --max_length)");
                 app.add_option("--min_length", o->min_length, "Fewest decoder tokens before EOS, the start token included");
                 app.add_option("--min_new_tokens", o->min_new_tokens, "Fewest generated tokens before EOS");
                 app.add_option("--length_penalty", o->length_penalty, "Beam score = log-prob sum / length ** length_penalty");
                 app.add_option("--no_repeat_ngram_size", o->no_repeat_ngram_size, "Never repeat an n-gram of this size");
                 app.add_option("--early_stopping", o->early_stopping, "Beam search stop rule: true, false or never");
                 app.add_option("--num_return_sequences", o->num_return_sequences, "Sequences returned per input");
                 app.add_option("--repetition_penalty", o->repetition_penalty, "Penalty on tokens already generated (1: none)");
                 app.add_option("--bad_words_ids", o->bad_words_ids, "Token sequences never generated, JSON: [[5], [7, 8]]");
                 app.add_option("--forced_bos_token_id", o->forced_bos_token_id, "Token forced first after the start token");
                 app.add_option("--forced_eos_token_id", o->forced_eos_token_id, "Token forced last when max_length is reached");
                 o->do_sample_option = app.add_flag("--do_sample", o->do_sample, "Sample instead of greedy search (--do_sample=false to turn off)");
                 app.add_option("--temperature", o->temperature, "Sampling temperature");
                 app.add_option("--top_k", o->top_k, "Sample among the k most likely tokens (0: all)");
                 app.add_option("--top_p", o->top_p, "Sample among the most likely tokens of cumulative probability top_p");
                 app.add_option("--seed", o->seed, "Sampling seed: the draws of torch.manual_seed(seed) on the CPU");
                 app.add_option("--output_logits", o->output_logits, "Write every step's raw logits to this safetensors file (debugging)");
                 app.add_option(
                        "--device", o->device,
                        "Where the model generates: auto (a GPU when there is one), cpu or cuda")
                     ->capture_default_str();
                 app.add_flag("--bf16", o->bf16,
                              "On CUDA, mixed precision as under torch.autocast(bfloat16): bf16 "
                              "products, an fp32 residual stream and fp32 logits");
                 app.add_flag("--fp16", o->fp16, "The same in fp16");
                 precis::cli::add_hf_semantics_option(app);
                 precis::cli::add_quantization_option(app);
                 app.callback([o] { run(*o); });
               });
