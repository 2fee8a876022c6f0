// The JSON files a run leaves in output_dir for people and scripts (train_results.json,
// eval_results.json, predict_results.json, all_results.json, job_summary.json,
// training_args.json) as Trainer.save_metrics writes them: indented by 4, and written
// atomically, so that a reader never sees half a file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace precis::train {

void write_results_file(const std::filesystem::path& file, const nlohmann::json& results);

// `v` rounded to `digits` decimals, as HF's speed_metrics rounds runtimes (4) and speeds (3)
// and Trainer rounds the logged loss (4).
double round_to(double v, int digits);

}  // namespace precis::train
