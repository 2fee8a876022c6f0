// Prints precis's step accounting and learning-rate schedule as JSON, for the oracle test
// against transformers' Trainer and get_scheduler.
//
//   training_args_tool schedule [train options...] --total T --warmup_count W
//       {"lr": [lr at update 0, ..., lr at update T + 2]}
//   training_args_tool steps --num_examples N [train options...]
//       {"len_dataloader", "num_update_steps_per_epoch", "max_steps", "num_train_epochs",
//        "warmup_steps", "logging_steps", "save_steps"[, "eval_steps"]} (intervals resolved
//        against max_steps as the Trainer's state holds them)
// Train options are the `precis train` ones (--per_device_train_batch_size, --max_steps,
// --warmup_ratio, ...); the tool's own options are taken out before they are parsed.
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/train/lr_schedule.h"
#include "precis/train/training_arguments.h"

namespace {

// Removes `--name VALUE` from args and returns VALUE (or -1 when absent).
int64_t take(std::vector<std::string>& args, const std::string& name) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) {
      int64_t v = std::stoll(args[i + 1]);
      args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
      return v;
    }
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace precis::train;
  try {
    if (argc < 2) {
      std::fprintf(stderr, "usage: training_args_tool schedule|steps [options]\n");
      return 2;
    }
    std::string mode = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    nlohmann::json out;
    if (mode == "schedule") {
      int64_t total = take(args, "--total");
      int64_t warmup = take(args, "--warmup_count");
      TrainingArguments a = parse_training_arguments(args);
      nlohmann::json lr = nlohmann::json::array();
      for (int64_t step = 0; step < total + 3; ++step)
        lr.push_back(learning_rate_at(a, step, total, warmup));
      out["lr"] = lr;
    } else if (mode == "steps") {
      int64_t n = take(args, "--num_examples");
      TrainingArguments a = parse_training_arguments(args);
      // DataLoader length: ceil(N / batch), or floor with dataloader_drop_last.
      int64_t batch = a.per_device_train_batch_size;
      int64_t len = a.dataloader_drop_last ? n / batch : (n + batch - 1) / batch;
      int64_t per_epoch = num_update_steps_per_epoch(len, a);
      int64_t total = total_train_steps(per_epoch, a);
      out = {{"len_dataloader", len},
             {"num_update_steps_per_epoch", per_epoch},
             {"max_steps", total},
             {"num_train_epochs", num_train_epochs_to_run(per_epoch, a)},
             {"warmup_steps", warmup_steps(a, total)},
             {"logging_steps", interval_steps(a.logging_steps, total)},
             {"save_steps", interval_steps(a.save_steps, total)}};
      if (a.eval_steps) out["eval_steps"] = interval_steps(*a.eval_steps, total);
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
    std::printf("%s\n", out.dump().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
