#include "precis/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>
#include <unistd.h>

#include "precis/core/atomic_file.h"
#include "precis/core/progress.h"
#include "precis/data/collator.h"
#include "precis/data/dataset.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/dist/host_threads.h"
#include "precis/dist/launch_environment.h"
#include "precis/eval/generation_evaluation.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/generate/generate.h"
#include "precis/generate/generation_config.h"
#include "precis/hub/model_card.h"
#include "precis/model/bart_init.h"
#include "precis/model/seq2seq_family.h"
#include "precis/model/t5_init.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/train/batch_sampler.h"
#include "precis/train/checkpoints.h"
#include "precis/train/interrupt.h"
#include "precis/train/job_summary.h"
#include "precis/train/lr_schedule.h"
#include "precis/train/optimizer.h"
#include "precis/train/sharded_adamw.h"
#include "precis/train/sharded_evaluation.h"
#include "precis/train/tensorboard_writer.h"
#include "precis/train/test_stop.h"
#include "precis/train/trainer_state.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double round_to(double v, int digits) {
  double s = std::pow(10.0, digits);
  return std::round(v * s) / s;
}

void write_json(const fs::path& file, const nlohmann::json& j) {
  write_file_atomic(file, j.dump(4) + "\n");
}

std::vector<data::SummarizationExample> load_split(const TrainingArguments& a, const std::string& file,
                                                   std::optional<int64_t> max_samples,
                                                   int64_t max_target_length,
                                                   const tokenize::TextTokenizer& tokenizer, bool verbose) {
  data::ReadOptions read = data::columns_for("", a.text_column.value_or(""), a.summary_column.value_or(""));
  read.skip_bad_records = a.skip_bad_records;
  read.max_record_bytes = size_t(a.max_record_bytes);
  if (max_samples) read.max_samples = size_t(*max_samples);
  data::Dataset ds = data::read_dataset(file, read);
  if (verbose && (ds.stats.dropped_empty || ds.stats.skipped_bad))
    std::fprintf(stderr, "precis: %s: %zu records dropped (empty text or summary), %zu skipped as malformed\n",
                 file.c_str(), ds.stats.dropped_empty, ds.stats.skipped_bad);
  check(!ds.records.empty(), file + ": no usable records");
  return data::preprocess(ds.records, tokenizer,
                          {a.source_prefix.value_or(""), size_t(a.max_source_length),
                           size_t(max_target_length), a.pad_to_max_length});
}

// Seq2SeqTrainingArguments.generation_config: a generation_config.json, or a directory with one.
fs::path generation_config_file(const std::string& path) {
  fs::path p(path);
  if (fs::is_directory(p)) p /= "generation_config.json";
  check(fs::is_regular_file(p), "--generation_config " + path + ": no such file (expected a generation_config.json or a directory holding one)");
  return p;
}

// report_to: HF 4.44's default ("all") and "tensorboard" write event files; "none" or a
// list of other integrations does not.
bool reports_to_tensorboard(const TrainingArguments& a) {
  auto it = a.ignored_options.find("report_to");
  if (it == a.ignored_options.end() || it->second.is_null()) return true;
  nlohmann::json names = it->second.is_array() ? it->second : nlohmann::json::array({it->second});
  for (const auto& n : names)
    if (n == "all" || n == "tensorboard") return true;
  return false;
}

// The special tokens generate() reads, in the form GenerationConfig takes them.
BartConfig generation_tokens_of(const BartConfig& c) { return c; }
BartConfig generation_tokens_of(const T5Config& c) { return generate::generation_tokens(c); }

// The generation_config.json save_pretrained writes when the model came with none
// (GenerationConfig.from_model_config: the config's token ids).
nlohmann::json default_generation_config(const BartConfig& c) {
  nlohmann::json j = {{"_from_model_config", true}, {"bos_token_id", c.bos_token_id},
                      {"decoder_start_token_id", c.decoder_start_token_id}, {"eos_token_id", c.eos_token_id},
                      {"pad_token_id", c.pad_token_id}, {"transformers_version", "4.44.2"}};
  if (c.forced_eos_token_id) j["forced_eos_token_id"] = *c.forced_eos_token_id;
  if (c.forced_bos_token_id) j["forced_bos_token_id"] = *c.forced_bos_token_id;
  return j;
}
nlohmann::json default_generation_config(const T5Config& c) {
  return {{"_from_model_config", true}, {"decoder_start_token_id", c.decoder_start_token_id},
          {"eos_token_id", c.eos_token_id}, {"pad_token_id", c.pad_token_id}, {"transformers_version", "4.44.2"}};
}

AdamWSettings adamw_settings(const TrainingArguments& a) {
  return {a.learning_rate, a.adam_beta1, a.adam_beta2, a.adam_epsilon, a.weight_decay};
}

// Everything one training run holds. With several ranks every rank holds the model, the
// gradients and (unless ZeRO-1 shards it) the optimizer; only rank 0 writes files.
template <class Model>
struct TrainingRun {
  using Config = decltype(Model::config);
  const TrainingArguments& args;
  dist::Communicator& comm;
  Model model;
  std::unique_ptr<tokenize::TextTokenizer> tokenizer;
  ParamsOf<Config> grads;
  Arena grad_arena;
  std::unique_ptr<AdamW<Config>> optimizer;          // zero_stage 0
  std::unique_ptr<ShardedAdamW<Config>> sharded;     // zero_stage 1
  TrainerState state;
  data::CollatorOptions collator;

  TrainingRun(const TrainingArguments& a, dist::Communicator& c, Model m, std::unique_ptr<tokenize::TextTokenizer> t)
      : args(a),
        comm(c),
        model(std::move(m)),
        tokenizer(std::move(t)),
        grad_arena(parameter_bytes(model.config)),
        collator{model.config.pad_token_id, model.config.decoder_start_token_id, 1} {
    allocate_parameters(model.config, grads, grad_arena);
    const AdamWSettings settings = adamw_settings(a);
    if (a.zero_stage == 1)
      sharded = std::make_unique<ShardedAdamW<Config>>(model.config, settings, model.params, comm);
    else
      optimizer = std::make_unique<AdamW<Config>>(model.config, settings);
  }

  size_t optimizer_state_bytes() const { return sharded ? sharded->state_bytes() : optimizer->state_bytes(); }

  void save_model(const fs::path& dir) const {
    model.save(dir);
    write_generation_config(dir);
    tokenizer->save(dir);
    write_json(dir / "training_args.json", to_json(args));
  }

  // generation_config.json as save_pretrained writes it: the source checkpoint's, or the one
  // GenerationConfig.from_model_config derives from config.json.
  void write_generation_config(const fs::path& dir) const {
    fs::path source = args.generation_config ? generation_config_file(*args.generation_config)
                                             : fs::path(args.model_name_or_path) / "generation_config.json";
    if (args.generation_config || (!args.model_name_or_path.empty() && fs::exists(source))) {
      std::ifstream in(source, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      write_file_atomic(dir / "generation_config.json", bytes);
      return;
    }
    write_file_atomic(dir / "generation_config.json", default_generation_config(model.config).dump(2) + "\n");
  }

  // Collective with ZeRO-1 (the optimizer state is gathered); rank 0 writes.
  void save_checkpoint(const fs::path& output_dir) {
    fs::path final_dir = output_dir / (kCheckpointPrefix + std::to_string(state.global_step));
    if (!comm.is_main()) {
      if (sharded) sharded->save(fs::path());
      return;
    }
    try {
      AtomicDirectory dir(final_dir);
      save_model(dir.staging());
      if (sharded)
        sharded->save(dir.staging() / "optimizer.safetensors");
      else
        optimizer->save(dir.staging() / "optimizer.safetensors");
      stop_here_for_test("save", state.global_step);  // a test hook; see test_stop.h
      state.save(dir.staging() / "trainer_state.json");
      dir.commit();
    } catch (const Error& e) {
      // A full disk, say: the staging folder is gone, every earlier checkpoint untouched.
      std::optional<fs::path> last = last_checkpoint(output_dir);
      throw Error("cannot save " + final_dir.string() + ": " + e.what() +
                  (last ? "; the last complete checkpoint, " + last->string() + ", is intact and a rerun resumes from it"
                        : "; there is no earlier checkpoint"));
    }
    rotate_checkpoints(output_dir, args.save_total_limit.value_or(0),
                       state.best_model_checkpoint ? std::optional<fs::path>(*state.best_model_checkpoint)
                                                   : std::nullopt);
  }

  // Everything is read before anything is replaced: a checkpoint that fails to load leaves
  // the run as it was, so the caller can try an older one.
  void resume_from(const fs::path& checkpoint) {
    Model loaded = Model::load(checkpoint);
    check(loaded.config.d_model == model.config.d_model && loaded.config.vocab_size == model.config.vocab_size,
          checkpoint.string() + ": the checkpoint's model differs from " + args.model_name_or_path);
    TrainerState loaded_state = TrainerState::load(checkpoint / "trainer_state.json");
    const AdamWSettings settings = adamw_settings(args);
    if (sharded) {
      auto loaded_optimizer = std::make_unique<ShardedAdamW<Config>>(loaded.config, settings, loaded.params, comm);
      loaded_optimizer->load(checkpoint / "optimizer.safetensors");
      sharded = std::move(loaded_optimizer);
    } else {
      optimizer.reset();  // a fresh run's zeros: freed before the loaded state is allocated
      try {
        auto loaded_optimizer = std::make_unique<AdamW<Config>>(loaded.config, settings);
        loaded_optimizer->load(checkpoint / "optimizer.safetensors");
        optimizer = std::move(loaded_optimizer);
      } catch (...) {
        optimizer = std::make_unique<AdamW<Config>>(model.config, settings);
        throw;
      }
    }
    model = std::move(loaded);
    state = std::move(loaded_state);
    if (comm.is_main()) std::fprintf(stderr, "precis: resuming from %s\n", checkpoint.string().c_str());
  }
};

// run_summarization's model set-up: weights from model_name_or_path (with config_name's
// config when given), or a fresh model from config_name (a preset or config.json) with HF's
// initialisation; then resize_token_embeddings when the tokenizer has more tokens.
std::unique_ptr<tokenize::TextTokenizer> load_tokenizer(const TrainingArguments& a) {
  return tokenize::load_text_tokenizer(a.tokenizer_name.value_or(a.model_name_or_path));
}

std::pair<BartModel, std::unique_ptr<tokenize::TextTokenizer>> load_model_and_tokenizer(
    const TrainingArguments& a, bool verbose, BartModel*) {
  auto tokenizer = load_tokenizer(a);
  BartModel model;
  if (!a.model_name_or_path.empty()) {
    model = BartModel::load(a.model_name_or_path);
  } else {
    const tokenize::Tokenizer bpe = tokenize::Tokenizer::from_directory(*a.tokenizer_name);
    BartConfig config = bart_config_from(*a.config_name);
    config.vocab_size = int64_t(bpe.size());
    config.pad_token_id = bpe.pad_token_id();
    config.bos_token_id = bpe.bos_token_id();
    config.eos_token_id = config.decoder_start_token_id = bpe.eos_token_id();
    config.forced_eos_token_id = bpe.eos_token_id();
    model = BartModel::allocate(config);
    initialize_bart(model, uint64_t(a.seed));
    if (verbose)
      std::fprintf(stderr, "precis: new %s model (%lld parameters), initialised with seed %lld\n",
                 a.config_name->c_str(), (long long)parameter_count(config), (long long)a.seed);
  }
  if (int64_t(tokenizer->size()) > model.config.vocab_size) {
    if (verbose)
      std::fprintf(stderr, "precis: resizing the embeddings from %lld to %zu rows to fit the tokenizer\n",
                 (long long)model.config.vocab_size, tokenizer->size());
    model = resize_token_embeddings(model, int64_t(tokenizer->size()), uint64_t(a.seed));
  }
  return {std::move(model), std::move(tokenizer)};
}

std::pair<T5Model, std::unique_ptr<tokenize::TextTokenizer>> load_model_and_tokenizer(
    const TrainingArguments& a, bool verbose, T5Model*) {
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
    if (verbose)
      std::fprintf(stderr, "precis: new %s model (%lld parameters), initialised with seed %lld\n",
                 a.config_name->c_str(), (long long)parameter_count(config), (long long)a.seed);
  }
  check(int64_t(tokenizer->size()) <= model.config.vocab_size,
        "the tokenizer has " + std::to_string(tokenizer->size()) + " tokens but the T5 model only " +
            std::to_string(model.config.vocab_size) + " embedding rows (precis resizes BART's embeddings, not T5's)");
  return {std::move(model), std::move(tokenizer)};
}

struct LossSum {
  double sum = 0.0;
  int64_t steps = 0;
};

// Label tokens of the examples (what the loss averages over).
int64_t label_tokens(const std::vector<data::SummarizationExample>& data, const Batch& rows) {
  int64_t n = 0;
  for (int64_t i : rows)
    for (int32_t id : data[size_t(i)].labels) n += id != -100;
  return n;
}

// A blocking all-reduce of the whole gradient buffer (zeros), the median of a few: what the
// bucketed all-reduce would cost if nothing hid it.
double blocking_allreduce_seconds(dist::Communicator& comm, std::span<float> flat) {
  std::vector<float> zeros(flat.size(), 0.0f);
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    comm.barrier();
    auto start = Clock::now();
    comm.all_reduce(std::span<float>(zeros), dist::ReduceOp::Sum);
    t.push_back(seconds_since(start));
  }
  std::sort(t.begin(), t.end());
  double median = t[t.size() / 2];
  comm.broadcast_value(median, 0);
  return median;
}

// Where to resume from: an explicit checkpoint, or the last one in output_dir (HF's
// get_last_checkpoint), unless overwrite_output_dir. Decided by rank 0 alone (ranks may not
// look at a directory that rank 0 is writing) and told to the others.
std::optional<fs::path> find_resume_point(const TrainingArguments& a, dist::Communicator& comm) {
  std::optional<fs::path> resume;
  const fs::path output_dir = a.output_dir;
  if (a.do_train && comm.is_main()) {
    if (int n = remove_abandoned_staging(output_dir))
      std::fprintf(stderr, "precis: removed %d unfinished checkpoint folder%s a stopped run left in %s\n", n,
                   n == 1 ? "" : "s", output_dir.string().c_str());
    if (a.resume_from_checkpoint && *a.resume_from_checkpoint != "false" && *a.resume_from_checkpoint != "False") {
      std::string r = *a.resume_from_checkpoint;
      if (r == "true" || r == "True") {
        resume = last_checkpoint(output_dir);
        check(resume.has_value(), "resume_from_checkpoint: no valid checkpoint found in " + output_dir.string());
      } else {
        resume = fs::path(r);
        check(fs::is_directory(*resume), "resume_from_checkpoint: " + r + " is not a directory");
      }
    } else if (!a.overwrite_output_dir && fs::is_directory(output_dir)) {
      resume = last_checkpoint(output_dir);
      if (!resume && !fs::is_empty(output_dir) && !list_checkpoints(output_dir).empty())
        throw Error("Output directory (" + output_dir.string() +
                    ") holds only incomplete checkpoints. Use --overwrite_output_dir to start again.");
      if (!resume && !fs::is_empty(output_dir) && fs::exists(output_dir / "trainer_state.json"))
        throw Error("Output directory (" + output_dir.string() +
                    ") already exists and is not empty. Use --overwrite_output_dir to overcome.");
    }
  }
  if (comm.world_size() > 1) {
    std::string path = comm.all_gather_bytes(resume ? resume->string() : std::string())[0];
    resume = path.empty() ? std::nullopt : std::optional<fs::path>(path);
  }
  return resume;
}

// An explicit resume_from_checkpoint path (not "true" and not found in output_dir).
bool explicit_resume_checkpoint(const TrainingArguments& a) {
  if (!a.resume_from_checkpoint) return false;
  const std::string& r = *a.resume_from_checkpoint;
  return r != "false" && r != "False" && r != "true" && r != "True";
}

// Resumes from `checkpoint`; when it cannot be loaded (a corrupt or truncated file) and it
// was found rather than named, from the next older complete checkpoint, with a warning.
// Every rank tries the same checkpoints and they agree on each outcome.
template <class Model>
void resume_with_fallback(TrainingRun<Model>& run, const fs::path& checkpoint, bool explicit_path,
                          dist::Communicator& comm) {
  std::vector<fs::path> candidates = {checkpoint};
  if (!explicit_path) {
    std::vector<fs::path> all = list_checkpoints(checkpoint.parent_path());
    for (auto it = all.rbegin(); it != all.rend(); ++it)
      if (*it != checkpoint && checkpoint_step_of(*it) < checkpoint_step_of(checkpoint) && is_complete_checkpoint(*it))
        candidates.push_back(*it);
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::string error;
    try {
      run.resume_from(candidates[i]);
    } catch (const Error& e) {
      error = e.what();
    }
    double failed = error.empty() ? 0.0 : 1.0;
    if (comm.world_size() > 1) comm.all_reduce(std::span<double>(&failed, 1), dist::ReduceOp::Sum);
    if (failed == 0) return;
    if (explicit_path || i + 1 == candidates.size())
      throw Error(error.empty() ? candidates[i].string() + ": another rank could not load it" : error);
    if (comm.is_main())
      std::fprintf(stderr, "precis: warning: cannot resume from %s (%s); resuming from the older %s instead\n",
                   candidates[i].string().c_str(), error.empty() ? "another rank could not load it" : error.c_str(),
                   candidates[i + 1].filename().string().c_str());
  }
}

template <class Model>
void run_job(const TrainingArguments& a, dist::Communicator& comm, Clock::time_point job_start) {
  constexpr bool kT5 = std::is_same_v<Model, T5Model>;
  const fs::path output_dir = a.output_dir;
  const bool main_rank = comm.is_main();
  const int world = comm.world_size(), rank = comm.rank();
  std::string warning = ignored_options_warning(a);
  if (!warning.empty() && main_rank) std::fprintf(stderr, "precis: warning: %s\n", warning.c_str());
  std::optional<fs::path> resume = find_resume_point(a, comm);

  // run_summarization warns the same way for the t5-* checkpoints it knows by name.
  if (kT5 && !a.source_prefix && main_rank)
    std::fprintf(stderr, "precis: warning: You're running a t5 model but didn't provide a source prefix, which is "
                         "expected, e.g. with `--source_prefix 'summarize: '`\n");
  auto [model, tokenizer] = load_model_and_tokenizer(a, main_rank, static_cast<Model*>(nullptr));
  TrainingRun<Model> run(a, comm, std::move(model), std::move(tokenizer));
  const auto& config = run.model.config;
  const BartConfig tokens = generation_tokens_of(config);
  nlohmann::json all_results = nlohmann::json::object();

  std::vector<data::SummarizationExample> eval_examples;
  if (a.do_eval || a.eval_strategy != IntervalStrategy::kNo) {
    eval_examples = load_split(a, *a.validation_file, a.max_eval_samples, a.val_max_target_length, *run.tokenizer, main_rank);
  }
  // Seq2SeqTrainer's generation settings: the model's generation config, with max_length and
  // num_beams from generation_max_length / generation_num_beams when given.
  generate::GenerationConfig generation =
      a.generation_config
          ? generate::GenerationConfig::from_file(generation_config_file(*a.generation_config), config.to_json(), tokens)
      : a.model_name_or_path.empty()
          ? generate::GenerationConfig::from_model_config(config.to_json(), tokens, "config")
          : generate::GenerationConfig::from_model_directory(a.model_name_or_path, tokens);
  if (a.generation_max_length) generation.max_length = *a.generation_max_length;
  if (a.generation_num_beams) generation.num_beams = *a.generation_num_beams;
  // Returns the metrics (HF's names with `prefix`) and, with predict_with_generate, the
  // decoded predictions.
  auto evaluate = [&](const std::string& prefix, const std::vector<data::SummarizationExample>& examples,
                      std::vector<std::string>* predictions) {
    nlohmann::json m;
    double runtime = 0;
    int64_t samples = 0, steps = 0;
    if (a.predict_with_generate) {
      eval::GenerationEvaluation r = sharded_evaluate_with_generation(
          comm, run.model, *run.tokenizer, examples, a.per_device_eval_batch_size, run.collator, generation,
          uint32_t(a.seed));
      m = r.scores.metrics(prefix);
      m[prefix + "_loss"] = r.loss;
      runtime = r.runtime_s, samples = r.samples, steps = r.steps;
      if (predictions) *predictions = r.scores.predictions;
    } else {
      eval::LossEvaluation r = sharded_evaluate_loss(comm, run.model, examples, a.per_device_eval_batch_size, run.collator);
      m[prefix + "_loss"] = r.eval_loss;
      runtime = r.runtime_s, samples = r.samples, steps = r.steps;
    }
    m[prefix + "_runtime"] = round_to(runtime, 4);
    m[prefix + "_samples_per_second"] = round_to(double(samples) / runtime, 3);
    m[prefix + "_steps_per_second"] = round_to(double(steps) / runtime, 3);
    m[prefix + "_samples"] = samples;
    return m;
  };

  if (a.do_train) {
    auto train = load_split(a, *a.train_file, a.max_train_samples, a.max_target_length, *run.tokenizer, main_rank);
    std::vector<int64_t> lengths;
    for (const auto& e : train) lengths.push_back(int64_t(std::max(e.input_ids.size(), e.labels.size())));
    SamplerOptions sampler{a.per_device_train_batch_size, a.group_by_length, a.max_tokens_per_batch,
                           a.dataloader_drop_last, uint64_t(a.data_seed.value_or(a.seed))};
    // A step's micro-batch is one global batch: per_device_train_batch_size x world examples
    // (or, with a token budget, world token-budget batches), each rank computing its shard.
    auto global_batches = [&](int64_t epoch) { return epoch_global_batches(lengths, sampler, epoch, world); };
    const std::vector<GlobalBatch> first_epoch = global_batches(0);
    const int64_t batches_per_epoch = int64_t(first_epoch.size());
    check(batches_per_epoch > 0, "the training data makes no batch (dataloader_drop_last with too few examples?)");
    const int64_t updates_per_epoch = num_update_steps_per_epoch(batches_per_epoch, a);
    int64_t total_steps = total_train_steps(updates_per_epoch, a);
    const int64_t epoch_total_steps = total_steps;
    const int64_t epochs = num_train_epochs_to_run(updates_per_epoch, a);
    const int64_t warmup = warmup_steps(a, total_steps);
    const int64_t GA = a.gradient_accumulation_steps;
    run.state.max_steps = total_steps;
    run.state.num_train_epochs = epochs;
    run.state.train_batch_size = a.per_device_train_batch_size;
    run.state.logging_steps = interval_steps(a.logging_steps, total_steps);
    run.state.save_steps = interval_steps(a.save_steps, total_steps);
    run.state.eval_steps = interval_steps(a.eval_steps.value_or(a.logging_steps), total_steps);
    if (resume) resume_with_fallback(run, *resume, explicit_resume_checkpoint(a), comm);

    // One arena for the largest batch of any epoch. Fixed-size batches: the longest source
    // and target bound every batch's shape, whatever the order (with several ranks the arena
    // also holds the global batch's token ids, of which the shard is a row range). Token-budget
    // batches are the same groups every epoch (only their order changes): the largest, measured.
    auto batch_bytes = [&](int64_t B, int64_t S, int64_t T, int64_t collated_rows) {
      Arena measure = Arena::measuring();
      allocate_activations(config, measure, B, S, T, true);
      allocate_grad_scratch(config, measure, B, S, T);
      return measure.used() + size_t(16 * collated_rows * (S + T)) + 8 * Arena::kAlignment;
    };
    size_t per_batch_bytes = 0;
    if (a.max_tokens_per_batch > 0) {
      for (const GlobalBatch& g : first_epoch)
        for (const Batch& b : g.shards) {
          if (b.empty()) continue;
          std::vector<const data::SummarizationExample*> chunk;
          for (int64_t i : b) chunk.push_back(&train[size_t(i)]);
          auto [S, T] = data::padded_lengths(chunk, run.collator);
          per_batch_bytes = std::max(per_batch_bytes, batch_bytes(int64_t(b.size()), S, T, int64_t(b.size())));
        }
    } else {
      int64_t max_source = 1, max_target = 1;
      for (const auto& e : train) {
        max_source = std::max<int64_t>(max_source, int64_t(e.input_ids.size()));
        max_target = std::max<int64_t>(max_target, int64_t(e.labels.size()));
      }
      per_batch_bytes = batch_bytes(a.per_device_train_batch_size, max_source, max_target,
                                    a.per_device_train_batch_size * world);
    }
    Arena arena(per_batch_bytes);

    if (main_rank)
      std::fprintf(stderr,
                   "precis: %zu training examples, %lld batches per epoch, %lld optimizer steps (%lld epochs, "
                   "batch %lld x %d rank%s x accumulation %lld), warmup %lld%s\n",
                   train.size(), (long long)batches_per_epoch, (long long)total_steps, (long long)epochs,
                   (long long)a.per_device_train_batch_size, world, world == 1 ? "" : "s", (long long)GA,
                   (long long)warmup, a.zero_stage == 1 ? ", ZeRO-1" : "");
    const int64_t first_step = run.state.global_step;
    const int64_t epochs_done = first_step / updates_per_epoch;
    const int64_t micro_batches_to_skip = (first_step % updates_per_epoch) * GA;

    // Data parallelism: the gradient all-reduce in buckets, started as the backward finishes
    // layers (plain DP), or the reduce-scatter of ZeRO-1 inside its optimizer step.
    std::unique_ptr<dist::GradientAllReduce> grad_sync;
    JobSummary job;
    job.world_size = world;
    job.hosts = comm.hosts();
    job.zero_stage = int(a.zero_stage);
    job.price_per_hour = a.price_per_hour;
    job.optimizer_state_bytes_per_rank = run.optimizer_state_bytes();
    if (world > 1 && !run.sharded) {
      const int64_t bucket_mib = a.ddp_bucket_cap_mb.value_or(25);
      grad_sync = std::make_unique<dist::GradientAllReduce>(config, run.grads, comm, bucket_mib << 20);
      job.allreduce_blocking_s = blocking_allreduce_seconds(comm, grad_sync->flat());
      job.gradient_buckets = int64_t(grad_sync->buckets().size());
    }
    double exposed_allreduce_s = 0;

    LossSum logged;
    int64_t last_logged_step = first_step, samples_seen = 0, tokens_seen = 0;
    double step_loss = 0.0, run_loss_sum = 0.0;
    int64_t micro_in_step = 0;
    int64_t total_batched = epochs_done * batches_per_epoch + micro_batches_to_skip;
    const auto train_start = Clock::now();
    std::optional<Progress> progress;
    if (main_rank) progress.emplace("train", total_steps - first_step, "steps");
    // With a time budget and no max_steps, the schedule ends where the budget does: the
    // horizon is estimated from the measured step rate after 100 steps, then refined every
    // tenth of the way. With several ranks, rank 0 decides (horizon and stop) for all.
    const bool time_horizon = a.max_train_time_s > 0 && a.max_steps <= 0;
    int64_t next_horizon_estimate = 100;
    std::ofstream train_log;
    if (main_rank) {
      fs::create_directories(output_dir);
      train_log.open(output_dir / "train_log.jsonl", std::ios::app);
      check(bool(train_log), (output_dir / "train_log.jsonl").string() + ": cannot open for writing");
    }
    // TensorBoard event files as HF's TensorBoardCallback writes them (report_to's 4.44 default
    // "all" includes it), so the Hub shows the training-metrics tab.
    std::optional<TensorBoardWriter> tensorboard;
    if (main_rank && reports_to_tensorboard(a)) {
      tensorboard.emplace(a.logging_dir ? fs::path(*a.logging_dir) : default_logging_dir(output_dir));
      tensorboard->add_text("args", to_json(a).dump(2));
      tensorboard->add_text("model_config", config.to_json().dump(2));
    }
    bool stop = false, interrupted = false;
    std::optional<fs::path> last_saved;
    if (a.save_on_interrupt) InterruptRequest::install();
    zero_grads(config, run.grads);
    for (int64_t epoch = epochs_done; epoch < epochs && !stop; ++epoch) {
      std::vector<GlobalBatch> batches = global_batches(epoch);
      const int64_t steps_in_epoch = int64_t(batches.size());
      int64_t start_batch = epoch == epochs_done ? micro_batches_to_skip : 0;
      for (int64_t b = start_batch; b < steps_in_epoch && !stop; ++b) {
        ++total_batched;
        const bool update = total_batched % GA == 0 || (steps_in_epoch <= GA && b + 1 == steps_in_epoch);
        arena.reset();
        const GlobalBatch& global = batches[size_t(b)];
        const Batch& mine = global.shards[size_t(rank)];
        // The loss is the mean over the global micro-batch's label tokens (1 rank x 2b and
        // 2 ranks x b give the same gradient); HF 4.44 averages per-rank means instead.
        int64_t global_tokens = 0;
        for (const Batch& shard : global.shards) global_tokens += label_tokens(train, shard);
        if (!mine.empty()) {
          Seq2SeqBatch batch;
          BartDropoutContext dropout{true, uint64_t(a.seed), uint64_t(run.state.global_step), uint32_t(micro_in_step)};
          std::vector<const data::SummarizationExample*> chunk;
          if (world > 1 && global.shared_padding) {
            // The shard is rows of the global batch: padded as the global batch, with the
            // global batch's dropout masks for those rows.
            for (const Batch& shard : global.shards)
              for (int64_t i : shard) chunk.push_back(&train[size_t(i)]);
            Seq2SeqBatch all = data::collate(chunk, run.collator, arena);
            const int64_t first = global.first_row(rank), rows = int64_t(mine.size());
            batch = {all.input_ids.slice(first, first + rows), all.attention_mask.slice(first, first + rows),
                     all.decoder_input_ids.slice(first, first + rows), all.labels.slice(first, first + rows)};
            dropout.first_row = uint64_t(first);
            dropout.rows = uint64_t(rows);
            chunk.assign(chunk.begin() + first, chunk.begin() + first + rows);
          } else {
            for (int64_t i : mine) chunk.push_back(&train[size_t(i)]);
            batch = data::collate(chunk, run.collator, arena);
            // Token-budget shards are micro-batches of their own: distinct masks per rank.
            dropout.micro_batch = uint32_t(micro_in_step * world + rank);
          }
          const int64_t B = batch.batch_size(), S = batch.input_ids.size(1), T = batch.labels.size(1);
          auto acts = allocate_activations(config, arena, B, S, T, true);
          auto scratch = allocate_grad_scratch(config, arena, B, S, T);
          if (grad_sync && update) scratch.stage_done = [&](int stage) { grad_sync->stage_done(stage); };
          model_forward(config, run.model.params, batch, acts, dropout);
          // The micro-batch loss: LabelSmoother or the model's mean cross-entropy, divided by
          // the accumulation steps (accelerator.backward in HF 4.44).
          CrossEntropyResult ce = model_loss(batch, acts, float(a.label_smoothing_factor));
          check(ce.counted > 0 || world > 1, "a training batch has no label tokens (all -100)");
          check(ce.counted == label_tokens(train, mine), "internal: label tokens counted differently");
          step_loss += ce.loss_sum / double(global_tokens) / double(GA);
          model_backward(config, run.model.params, batch, acts, dropout, float(a.label_smoothing_factor),
                        float(1.0 / (double(global_tokens) * double(GA))), run.grads, scratch);
          samples_seen += B;
          for (const auto* e : chunk) tokens_seen += int64_t(e->input_ids.size() + e->labels.size());
        }
        check(global_tokens > 0, "a training batch has no label tokens (all -100)");
        stop_here_for_test("micro", run.state.global_step, micro_in_step);  // a test hook; see test_stop.h
        ++micro_in_step;
        if (!update) continue;

        const double lr = learning_rate_at(a, run.state.global_step, total_steps, warmup);
        double grad_norm = 0;
        if (run.sharded) {
          grad_norm = run.sharded->step(run.model.params, run.grads, lr, a.max_grad_norm);
        } else {
          if (grad_sync) exposed_allreduce_s += grad_sync->finish();
          grad_norm = clip_grad_norm(config, run.grads, a.max_grad_norm);
          run.optimizer->step(run.model.params, run.grads, lr);
        }
        zero_grads(config, run.grads);
        if (world > 1) comm.all_reduce(std::span<double>(&step_loss, 1), dist::ReduceOp::Sum);
        run.state.global_step += 1;
        run.state.epoch = double(epoch) + double(b + 1) / double(steps_in_epoch);
        logged.sum += step_loss;
        logged.steps += 1;
        run_loss_sum += step_loss;
        const double logged_step_loss = step_loss;
        if (!std::isfinite(step_loss) && main_rank)
          std::fprintf(stderr, "precis: warning: step %lld has a non-finite loss\n", (long long)run.state.global_step);
        char note[96];
        std::snprintf(note, sizeof note, "loss %.4f lr %.3g", step_loss, lr);
        if (progress) progress->advance(1, note);
        step_loss = 0.0;
        micro_in_step = 0;

        const int64_t step = run.state.global_step;
        std::optional<double> evaluated_metric;  // metric_for_best_model, when this step evaluated
        if (time_horizon && step - first_step >= next_horizon_estimate) {
          const double per_step = seconds_since(train_start) / double(step - first_step);
          const double left = a.max_train_time_s - seconds_since(job_start);
          int64_t horizon = time_budget_horizon(step, per_step, left, epoch_total_steps);
          if (world > 1) comm.broadcast_value(horizon, 0);
          if (next_horizon_estimate == 100 && main_rank)
            std::fprintf(stderr, "precis: at %.1f ms per step the time budget allows %lld steps; the lr schedule ends there\n",
                         per_step * 1e3, (long long)horizon);
          total_steps = run.state.max_steps = horizon;
          if (progress) progress->set_total(total_steps - first_step);
          next_horizon_estimate = step - first_step + std::max<int64_t>(100, (total_steps - first_step) / 10);
        }
        // Log point: every step, unrounded, in output_dir/train_log.jsonl (rank 0).
        if (main_rank) {
          nlohmann::json line = {{"step", step}, {"epoch", run.state.epoch}, {"loss", logged_step_loss},
                                 {"grad_norm", grad_norm}, {"learning_rate", lr},
                                 {"elapsed_s", seconds_since(train_start)}};
          train_log << line.dump() << "\n" << std::flush;
        }
        const bool log_now = (a.logging_strategy == IntervalStrategy::kSteps && step % run.state.logging_steps == 0) ||
                             (a.logging_first_step && step == 1);
        if (log_now) {
          // Log point: HF's logging_steps entries (every rank keeps the history; rank 0 prints).
          nlohmann::json entry;
          entry["loss"] = round_to(logged.sum / double(step - last_logged_step), 4);
          entry["grad_norm"] = grad_norm;
          entry["learning_rate"] = learning_rate_at(a, step, total_steps, warmup);
          entry["epoch"] = run.state.epoch;
          entry["step"] = step;
          run.state.log_history.push_back(entry);
          if (tensorboard) tensorboard->log(entry, step);
          if (!isatty(2) && main_rank) std::fprintf(stderr, "%s\n", entry.dump().c_str());
          logged = {};
          last_logged_step = step;
        }
        if (a.eval_strategy == IntervalStrategy::kSteps && step % run.state.eval_steps == 0) {
          // Log point: evaluation metrics (collective: every rank evaluates its shard).
          nlohmann::json metrics = evaluate("eval", eval_examples, nullptr);
          metrics.erase("eval_samples");
          metrics["epoch"] = run.state.epoch;
          metrics["step"] = step;
          run.state.log_history.push_back(metrics);
          if (tensorboard) tensorboard->log(metrics, step);
          if (a.metric_for_best_model) {
            std::string key = *a.metric_for_best_model;
            if (!key.starts_with("eval_")) key = "eval_" + key;
            check(metrics.contains(key), "metric_for_best_model: evaluation reports no \"" + key + "\"");
            evaluated_metric = metrics[key].get<double>();
          }
        }
        stop = step >= total_steps ||
               (a.max_train_time_s > 0 && seconds_since(job_start) >= a.max_train_time_s);
        if (world > 1 && a.max_train_time_s > 0) {
          int64_t agreed = stop;
          comm.broadcast_value(agreed, 0);
          stop = agreed != 0;
        }
        if (a.save_on_interrupt) {
          // Every rank stops at the same step: a signal any rank has seen counts for all.
          double seen = InterruptRequest::requested() ? 1.0 : 0.0;
          if (world > 1) comm.all_reduce(std::span<double>(&seen, 1), dist::ReduceOp::Sum);
          interrupted = seen > 0;
          stop = stop || interrupted;
        }
        if ((a.save_strategy == IntervalStrategy::kSteps && step % run.state.save_steps == 0) || interrupted ||
            (stop && a.save_strategy != IntervalStrategy::kNo && a.max_train_time_s > 0)) {
          // As HF 4.44's _save_checkpoint: the best model is chosen when a checkpoint is saved at
          // a step that also evaluated, among those checkpoints only.
          if (evaluated_metric) {
            const bool greater = a.greater_is_better.value_or(false);
            const double value = *evaluated_metric;
            if (!run.state.best_metric || (greater ? value > *run.state.best_metric : value < *run.state.best_metric)) {
              run.state.best_metric = value;
              run.state.best_model_checkpoint = (output_dir / (kCheckpointPrefix + std::to_string(step))).string();
            }
          }
          run.save_checkpoint(output_dir);
          last_saved = output_dir / (kCheckpointPrefix + std::to_string(step));
        }
      }
      if (a.save_strategy == IntervalStrategy::kEpoch && !stop) run.save_checkpoint(output_dir);
    }
    if (progress) progress->finish();
    if (interrupted) {
      // The run is not finished: no final model, evaluation or card; a rerun resumes.
      if (main_rank)
        std::fprintf(stderr, "precis: %s: stopped at step %lld and saved %s; run the same command again to resume\n",
                     InterruptRequest::signal_name(), (long long)run.state.global_step,
                     last_saved->string().c_str());
      return;
    }
    const double train_runtime = seconds_since(train_start);
    if (world > 1) {
      double counts[2] = {double(samples_seen), double(tokens_seen)};
      comm.all_reduce(std::span<double>(counts, 2), dist::ReduceOp::Sum);
      samples_seen = int64_t(counts[0]);
      tokens_seen = int64_t(counts[1]);
    }
    if (main_rank && run.state.best_model_checkpoint && a.save_total_limit.value_or(0) == 1)
      keep_only_best_checkpoint(output_dir, *run.state.best_model_checkpoint);
    if (a.load_best_model_at_end && run.state.best_model_checkpoint) {
      if (main_rank) std::fprintf(stderr, "precis: loading the best model from %s\n", run.state.best_model_checkpoint->c_str());
      if (world > 1) comm.barrier();  // rank 0 has written it
      run.model = Model::load(*run.state.best_model_checkpoint);
    }
    nlohmann::json summary;
    summary["epoch"] = run.state.epoch;
    summary["step"] = run.state.global_step;
    summary["train_runtime"] = round_to(train_runtime, 4);
    summary["train_samples_per_second"] = round_to(double(samples_seen) / train_runtime, 3);
    summary["train_steps_per_second"] = round_to(double(run.state.global_step - first_step) / train_runtime, 3);
    summary["train_tokens_per_second"] = round_to(double(tokens_seen) / train_runtime, 3);
    summary["total_flos"] = 0;
    // As HF: the sum of this run's step losses over global_step (which counts resumed steps).
    summary["train_loss"] = run_loss_sum / double(std::max<int64_t>(1, run.state.global_step));
    run.state.log_history.push_back(summary);
    if (tensorboard) tensorboard->log(summary, run.state.global_step);

    job.wall_s = seconds_since(job_start);
    job.train_s = train_runtime;
    job.steps = run.state.global_step - first_step;
    job.samples = samples_seen;
    job.tokens = tokens_seen;
    job.allreduce_exposed_s = job.steps > 0 ? exposed_allreduce_s / double(job.steps) : 0.0;
    if (world > 1) {
      // The slowest rank's wait is what the step paid.
      comm.all_reduce(std::span<double>(&job.allreduce_exposed_s, 1), dist::ReduceOp::Average);
    }
    if (main_rank) {
      fs::create_directories(output_dir);
      run.save_model(output_dir);
      run.state.save(output_dir / "trainer_state.json");
      nlohmann::json train_results = summary;
      train_results.erase("step");
      train_results["train_samples"] = int64_t(train.size());
      write_json(output_dir / "train_results.json", train_results);
      all_results.update(train_results);
      write_json(output_dir / "job_summary.json", job.to_json());
      std::fprintf(stderr, "%s\n", job.text().c_str());
    }
  }

  if (a.do_eval) {
    nlohmann::json metrics = evaluate("eval", eval_examples, nullptr);
    if (a.do_train) metrics["epoch"] = run.state.epoch;
    if (!output_dir.empty() && main_rank) {
      fs::create_directories(output_dir);
      write_json(output_dir / "eval_results.json", metrics);
    }
    all_results.update(metrics);
    if (main_rank) std::printf("%s\n", metrics.dump(2).c_str());
  }
  if (a.do_predict) {
    auto test = load_split(a, *a.test_file, a.max_predict_samples, a.val_max_target_length, *run.tokenizer, main_rank);
    std::vector<std::string> predictions;
    nlohmann::json metrics = evaluate("predict", test, &predictions);
    if (main_rank) {
      fs::create_directories(output_dir);
      write_json(output_dir / "predict_results.json", metrics);
      if (a.predict_with_generate) {
        std::string text;
        for (size_t i = 0; i < predictions.size(); ++i) text += (i ? "\n" : "") + predictions[i];
        write_file_atomic(output_dir / "generated_predictions.txt", text);
      }
      std::printf("%s\n", metrics.dump(2).c_str());
    }
    all_results.update(metrics);
  }
  if (!main_rank) return;
  if (!output_dir.empty() && !all_results.empty()) write_json(output_dir / "all_results.json", all_results);
  // The model card, as Trainer.create_model_card at the end of run_summarization.
  if (a.do_train) {
    fs::path card = hub::write_model_card(output_dir, {});
    std::fprintf(stderr, "precis: model card %s\n", card.string().c_str());
  }
}

// The model family: model_name_or_path's config.json, or config_name, says T5 or BART.
void run_job(const TrainingArguments& a, dist::Communicator& comm, Clock::time_point job_start) {
  const bool t5 = a.model_name_or_path.empty() ? a.config_name && names_t5_config(*a.config_name)
                                               : model_type_of(a.model_name_or_path) == "t5";
  validate_job(a, t5 ? "t5" : "bart");
  if (t5) return run_job<T5Model>(a, comm, job_start);
  return run_job<BartModel>(a, comm, job_start);
}

}  // namespace

void run_training_job(const TrainingArguments& a) {
  const auto job_start = Clock::now();
  // Under mpirun / srun with more than one process: data parallelism over MPI.
  std::unique_ptr<dist::Communicator> comm = dist::make_communicator(double(a.ddp_timeout.value_or(1800)));
  if (comm->world_size() == 1) return run_job(a, *comm, job_start);
  if (int threads = dist::share_host_cores(comm->local_size()); threads > 0 && comm->local_rank() == 0)
    std::fprintf(stderr, "precis: %d ranks share this host: %d OpenMP thread%s each (OMP_NUM_THREADS overrides)\n",
                 comm->local_size(), threads, threads == 1 ? "" : "s");
  // Every rank's error reaches the user, named by its rank; then the whole job ends, so no
  // rank waits forever in a collective for one that has given up.
  try {
    run_job(a, *comm, job_start);
    // Wait for rank 0's last writes here, polling gently, rather than in MPI_Finalize, whose
    // busy polling would take the core rank 0 is saving with.
    comm->barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: rank %d: error: %s\n", comm->rank(), e.what());
    std::fflush(stderr);
    // Ranks usually fail at the same point (a missing file, a bad option): a moment lets the
    // others print their own error before the abort ends them all.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    comm->abort(1);
  }
}

}  // namespace precis::train
