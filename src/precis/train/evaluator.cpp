#include "precis/train/evaluator.h"

#include <cstdio>

#include "precis/core/atomic_file.h"
#include "precis/generate/generate.h"
#include "precis/model/families.h"
#include "precis/train/model_setup.h"
#include "precis/train/results_files.h"
#include "precis/train/sharded_evaluation.h"
#include "precis/train/training_data.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

// Seq2SeqTrainer's generation settings: the model's generation config (or
// --generation_config's), with max_length and num_beams from generation_max_length /
// generation_num_beams when given.
template <class Config>
generate::GenerationConfig evaluation_generation_config(const TrainingArguments& a,
                                                        const Config& config) {
  const SpecialTokens tokens = special_tokens(config);
  generate::GenerationConfig generation =
      a.generation_config
          ? generate::GenerationConfig::from_file(generation_config_file(*a.generation_config),
                                                  config.to_json(), tokens)
      : a.model_name_or_path.empty()
          ? generate::GenerationConfig::from_model_config(config.to_json(), tokens, "config")
          : generate::GenerationConfig::from_model_directory(a.model_name_or_path, tokens);
  if (a.generation_max_length) generation.max_length = *a.generation_max_length;
  if (a.generation_num_beams) generation.num_beams = *a.generation_num_beams;
  return generation;
}

// The validation file, when there will be evaluations.
std::vector<data::SummarizationExample> validation_examples(
    const TrainingArguments& a, const tokenize::TextTokenizer& tokenizer, bool verbose) {
  if (!a.do_eval && a.eval_strategy == IntervalStrategy::kNo) return {};
  return load_split(a, a.validation_file.value(), a.max_eval_samples, a.val_max_target_length,
                    tokenizer, verbose);
}

}  // namespace

template <class Model>
Evaluator<Model>::Evaluator(const TrainingArguments& a, dist::Communicator& comm,
                            const TrainingRun<Model>& run)
    : args_(a),
      comm_(comm),
      run_(run),
      eval_examples_(validation_examples(a, *run.tokenizer, comm.is_main())),
      generation_(evaluation_generation_config(a, run.model.config)) {}

template <class Model>
nlohmann::json Evaluator<Model>::metrics(const std::string& prefix,
                                         const std::vector<data::SummarizationExample>& examples,
                                         std::vector<std::string>* predictions) const {
  nlohmann::json m;
  double runtime = 0;
  int64_t samples = 0, steps = 0;
  if (args_.predict_with_generate) {
    eval::GenerationEvaluation r = sharded_evaluate_with_generation(
        comm_, run_.model, *run_.tokenizer, examples, args_.per_device_eval_batch_size,
        run_.collator, generation_, uint32_t(args_.seed));
    m = r.scores.metrics(prefix);
    m[prefix + "_loss"] = r.loss;
    runtime = r.runtime_s, samples = r.samples, steps = r.steps;
    if (predictions) *predictions = r.scores.predictions;
  } else {
    eval::LossEvaluation r = sharded_evaluate_loss(comm_, run_.model, examples,
                                                   args_.per_device_eval_batch_size, run_.collator);
    m[prefix + "_loss"] = r.eval_loss;
    runtime = r.runtime_s, samples = r.samples, steps = r.steps;
  }
  m[prefix + "_runtime"] = round_to(runtime, 4);
  m[prefix + "_samples_per_second"] = round_to(double(samples) / runtime, 3);
  m[prefix + "_steps_per_second"] = round_to(double(steps) / runtime, 3);
  m[prefix + "_samples"] = samples;
  return m;
}

template <class Model>
nlohmann::json Evaluator<Model>::evaluate() const {
  return metrics("eval", eval_examples_, nullptr);
}

template <class Model>
nlohmann::json Evaluator<Model>::evaluate_and_report() const {
  nlohmann::json m = evaluate();
  if (args_.do_train) m["epoch"] = run_.state.epoch;
  const fs::path output_dir = args_.output_dir;
  if (!output_dir.empty() && comm_.is_main()) {
    fs::create_directories(output_dir);
    write_results_file(output_dir / "eval_results.json", m);
  }
  if (comm_.is_main()) std::printf("%s\n", m.dump(2).c_str());
  return m;
}

template <class Model>
nlohmann::json Evaluator<Model>::predict_and_report() const {
  const auto test = load_split(args_, args_.test_file.value(), args_.max_predict_samples,
                               args_.val_max_target_length, *run_.tokenizer, comm_.is_main());
  std::vector<std::string> predictions;
  nlohmann::json m = metrics("predict", test, &predictions);
  if (!comm_.is_main()) return m;
  const fs::path output_dir = args_.output_dir;
  fs::create_directories(output_dir);
  write_results_file(output_dir / "predict_results.json", m);
  if (args_.predict_with_generate) {
    std::string text;
    for (size_t i = 0; i < predictions.size(); ++i) text += (i ? "\n" : "") + predictions[i];
    write_file_atomic(output_dir / "generated_predictions.txt", text);
  }
  std::printf("%s\n", m.dump(2).c_str());
  return m;
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class Evaluator<Model>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
