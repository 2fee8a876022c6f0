#include "precis/train/seq2seq_trainer.h"

#include <cstdio>
#include <vector>

#include "precis/hub/model_card.h"
#include "precis/model/families.h"
#include "precis/train/arena_sizing.h"
#include "precis/train/checkpointer.h"
#include "precis/train/model_setup.h"
#include "precis/train/results_files.h"
#include "precis/train/training_data.h"
#include "precis/train/training_loop.h"
#include "precis/train/training_plan.h"

namespace precis::train {

namespace fs = std::filesystem;

template <class Model>
Seq2SeqTrainer<Model>::Seq2SeqTrainer(const TrainingArguments& a, dist::Communicator& comm,
                                      JobClock::time_point job_start)
    : args_(a),
      comm_(comm),
      job_start_(job_start),
      resume_(find_resume_point(a, comm)),
      run_(a, comm, load_model_and_tokenizer<Model>(a, comm.is_main())),
      evaluator_(a, comm, run_) {}

template <class Model>
void Seq2SeqTrainer<Model>::run() {
  nlohmann::json all_results = nlohmann::json::object();
  if (args_.do_train) {
    std::optional<nlohmann::json> train_results = train();
    // Interrupted, the run is not finished: no final model, evaluation or card; a rerun resumes.
    if (!train_results) return;
    all_results.update(*train_results);
  }
  if (args_.do_eval) all_results.update(evaluator_.evaluate_and_report());
  if (args_.do_predict) all_results.update(evaluator_.predict_and_report());
  if (!comm_.is_main()) return;
  const fs::path output_dir = args_.output_dir;
  if (!output_dir.empty() && !all_results.empty())
    write_results_file(output_dir / "all_results.json", all_results);
  // The model card, as Trainer.create_model_card at the end of run_summarization.
  if (args_.do_train) {
    fs::path card = hub::write_model_card(output_dir, {});
    std::fprintf(stderr, "precis: model card %s\n", card.string().c_str());
  }
}

template <class Model>
std::optional<nlohmann::json> Seq2SeqTrainer<Model>::train() {
  const bool main_rank = comm_.is_main();
  const TrainingData data =
      load_training_data(args_, comm_.world_size(), *run_.tokenizer, main_rank);
  const std::vector<GlobalBatch> first_epoch = data.global_batches(0);
  const TrainingPlan plan = plan_training(args_, int64_t(first_epoch.size()));
  record_plan(run_.state, plan, args_);
  Checkpointer<Model> checkpointer(args_, comm_, run_);
  if (resume_) checkpointer.resume(*resume_, explicit_resume_checkpoint(args_));
  Arena arena(training_arena_bytes(run_.model.config, data, first_epoch, run_.collator, args_));
  if (main_rank) print_training_plan(plan, data.examples.size(), args_, comm_.world_size());
  TrainingLoop<Model> loop(args_, comm_, job_start_, run_, evaluator_, checkpointer, data, plan,
                           arena);
  return loop.run();
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class Seq2SeqTrainer<Model>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
