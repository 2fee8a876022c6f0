// precis train's options: HF defaults, SageMaker strings, config files, overrides, messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/train/lr_schedule.h"
#include "precis/train/reporters.h"
#include "precis/train/training_arguments.h"

namespace {

using namespace precis::train;
using nlohmann::json;

std::string error_of(const std::vector<std::string>& argv) {
  try {
    parse_training_arguments(argv);
  } catch (const precis::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A config file in a fresh temporary directory; removed with the fixture.
class ConfigFile : public ::testing::Test {
 protected:
  std::filesystem::path dir_;
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("precis_args_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
};

TEST(TrainingArguments, DefaultsEqualHuggingFace) {
  std::ifstream in(std::string(PRECIS_SOURCE_DIR) +
                   "/tests/unit/data/training_arguments_defaults.json");
  ASSERT_TRUE(in) << "run scripts/gen_training_defaults.py";
  json expected = json::parse(in);
  json ours = to_json(parse_training_arguments({"--output_dir", "out"}));

  std::set<std::string> environment;
  for (const auto& key : expected["environment"]) environment.insert(key.get<std::string>());
  // run_summarization resolves these before building the trainer; HF's dataclass holds None.
  json resolved = {{"generation_max_length", 128}, {"generation_num_beams", 1}};
  size_t compared = 0;
  for (const char* group :
       {"model_arguments", "data_training_arguments", "seq2seq_training_arguments"}) {
    for (const auto& [key, value] : expected[group].items()) {
      if (environment.count(key)) continue;
      ASSERT_TRUE(ours.contains(key)) << "missing option " << key;
      if (key == "model_name_or_path") {  // required in HF, no default
        EXPECT_EQ(ours[key], "");
        continue;
      }
      json want = resolved.contains(key) ? resolved[key] : value;
      // Python writes 3.0 and 500 alike as numbers; compare numbers by value.
      if (want.is_number() && ours[key].is_number())
        EXPECT_DOUBLE_EQ(ours[key].get<double>(), want.get<double>()) << key;
      else
        EXPECT_EQ(ours[key], want) << key;
      ++compared;
    }
  }
  EXPECT_GT(compared, 150u);
}

TEST(TrainingArguments, StructDefaults) {
  TrainingArguments a = parse_training_arguments({});
  EXPECT_EQ(a.learning_rate, 5e-5);
  EXPECT_EQ(a.per_device_train_batch_size, 8);
  EXPECT_EQ(a.num_train_epochs, 3.0);
  EXPECT_EQ(a.max_steps, -1);
  EXPECT_EQ(a.lr_scheduler_type, SchedulerType::kLinear);
  EXPECT_EQ(a.eval_strategy, IntervalStrategy::kNo);
  EXPECT_EQ(a.save_strategy, IntervalStrategy::kSteps);
  EXPECT_EQ(a.val_max_target_length, 128);
  EXPECT_EQ(a.generation_max_length, 128);
  EXPECT_EQ(a.generation_num_beams, 1);
  EXPECT_EQ(a.ddp_timeout, 1800);
  EXPECT_EQ(a.max_tokens_per_batch, 0);
  EXPECT_EQ(a.device, "auto");
  EXPECT_FALSE(a.save_total_limit.has_value());
  EXPECT_TRUE(a.ignored_options.empty());
  EXPECT_EQ(ignored_options_warning(a), "");
}

TEST(TrainingArguments, CommandLineForms) {
  TrainingArguments a = parse_training_arguments({"--learning_rate",
                                                  "3e-4",
                                                  "--num_train_epochs=1.5",
                                                  "--do_train",
                                                  "--fp16",
                                                  "false",
                                                  "--max_steps",
                                                  "-1",
                                                  "--no_remove_unused_columns",
                                                  "--eval-strategy",
                                                  "epoch",
                                                  "--output_dir",
                                                  "o",
                                                  "--train_file",
                                                  "t.jsonl",
                                                  "--validation_file",
                                                  "v.csv",
                                                  "--model_name_or_path",
                                                  "m",
                                                  "--save_total_limit",
                                                  "2",
                                                  "--seed=7",
                                                  "--val_max_target_length",
                                                  "64"});
  EXPECT_EQ(a.learning_rate, 3e-4);
  EXPECT_EQ(a.num_train_epochs, 1.5);
  EXPECT_TRUE(a.do_train);
  EXPECT_FALSE(a.fp16);
  EXPECT_FALSE(a.remove_unused_columns);
  EXPECT_EQ(a.eval_strategy, IntervalStrategy::kEpoch);
  EXPECT_TRUE(a.do_eval);  // HF: eval_strategy != no turns do_eval on
  EXPECT_EQ(a.save_total_limit, 2);
  EXPECT_EQ(a.seed, 7);
  EXPECT_EQ(a.val_max_target_length, 64);
  EXPECT_EQ(a.generation_max_length, 64);  // run_summarization: val_max_target_length
  EXPECT_EQ(a.run_name, "o");
}

TEST(TrainingArguments, SageMakerStrings) {
  // SageMaker passes every hyperparameter as a string.
  TrainingArguments a = parse_training_arguments({"--learning_rate",
                                                  "5e-5",
                                                  "--do_train",
                                                  "True",
                                                  "--do_eval",
                                                  "False",
                                                  "--num_train_epochs",
                                                  "3",
                                                  "--per_device_train_batch_size",
                                                  "4",
                                                  "--fp16",
                                                  "1",
                                                  "--warmup_ratio",
                                                  "0.1",
                                                  "--model_name_or_path",
                                                  "m",
                                                  "--output_dir",
                                                  "o",
                                                  "--train_file",
                                                  "t.json",
                                                  "--device",
                                                  "cuda",
                                                  "--generation_num_beams",
                                                  "None",
                                                  "--num_beams",
                                                  "None"});
  EXPECT_EQ(a.learning_rate, 5e-5);
  EXPECT_TRUE(a.do_train);
  EXPECT_FALSE(a.do_eval);
  EXPECT_EQ(a.num_train_epochs, 3.0);
  EXPECT_EQ(a.per_device_train_batch_size, 4);
  EXPECT_TRUE(a.fp16);
  EXPECT_EQ(a.warmup_ratio, 0.1);
  EXPECT_FALSE(a.num_beams.has_value());
  EXPECT_FALSE(a.generation_num_beams.has_value());
}

TEST_F(ConfigFile, JsonWithStringsAndTypes) {
  std::string path = write("job.json", R"({
    "model_name_or_path": "facebook/bart-large-cnn",
    "do_train": "True",
    "do_predict": true,
    "train_file": "train.jsonl",
    "test_file": "test.csv",
    "output_dir": "/opt/ml/model",
    "per_device_train_batch_size": "4",
    "learning_rate": 5e-5,
    "num_train_epochs": 3,
    "fp16": "False",
    "seed": 7,
    "predict_with_generate": "true",
    "sagemaker_program": "run_summarization.py"
  })");
  TrainingArguments a = parse_training_arguments({"--config", path});
  EXPECT_EQ(a.model_name_or_path, "facebook/bart-large-cnn");
  EXPECT_TRUE(a.do_train);
  EXPECT_TRUE(a.do_predict);
  EXPECT_EQ(a.per_device_train_batch_size, 4);
  EXPECT_EQ(a.learning_rate, 5e-5);
  EXPECT_EQ(a.num_train_epochs, 3.0);
  EXPECT_FALSE(a.fp16);
  EXPECT_EQ(a.seed, 7);
  EXPECT_TRUE(a.predict_with_generate);
}

TEST_F(ConfigFile, YamlAndCommandLineOverrides) {
  std::string path = write("job.yaml",
                           "model_name_or_path: m\n"
                           "output_dir: out\n"
                           "do_train: true\n"
                           "train_file: train.jsonl\n"
                           "learning_rate: 1e-4\n"
                           "lr_scheduler_type: cosine\n"
                           "source_prefix: \"summarize: \"\n"
                           "save_total_limit: ~\n"
                           "report_to: [wandb]\n");
  TrainingArguments a =
      parse_training_arguments({"--config", path, "--learning_rate", "2e-5", "--seed=1"});
  EXPECT_EQ(a.learning_rate, 2e-5);  // the command line wins
  EXPECT_EQ(a.lr_scheduler_type, SchedulerType::kCosine);
  EXPECT_EQ(a.source_prefix, "summarize: ");
  EXPECT_FALSE(a.save_total_limit.has_value());
  EXPECT_EQ(a.seed, 1);
  EXPECT_EQ(a.ignored_options.at("report_to"), json::array({"wandb"}));

  // The order does not matter: --config after overrides still loses to them.
  TrainingArguments b = parse_training_arguments({"--learning_rate", "2e-5", "--config", path});
  EXPECT_EQ(b.learning_rate, 2e-5);
}

TEST_F(ConfigFile, ErrorsNameTheFileAndLine) {
  std::string json_path = write("job.json", "{\n  \"learning_rate\": \"fast\"\n}\n");
  EXPECT_EQ(error_of({"--config", json_path}),
            json_path + ":2: learning_rate: expected a number, found \"fast\"");

  std::string typo = write("typo.json", "{\n  \"seed\": 1,\n  \"learnig_rate\": 1e-4\n}\n");
  EXPECT_EQ(error_of({"--config", typo}),
            typo + ":3: unknown option \"learnig_rate\" (did you mean \"learning_rate\"?)");

  std::string broken = write("broken.json", "{\n  \"seed\": 1,\n  \"fp16\" true\n}\n");
  std::string message = error_of({"--config", broken});
  EXPECT_EQ(message.rfind(broken + ": invalid JSON: parse error at line 3", 0), 0u) << message;

  std::string yaml = write("job.yaml", "seed: 1\nwarmup_steps: many\n");
  EXPECT_EQ(error_of({"--config", yaml}),
            yaml + ":2: warmup_steps: expected an integer, found \"many\"");

  std::string bad_yaml = write("bad.yaml", "seed: 1\nfp16: [true\n");
  message = error_of({"--config", bad_yaml});
  EXPECT_NE(message.find(bad_yaml + ":"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid YAML"), std::string::npos) << message;

  std::string list = write("list.json", "[1, 2]");
  EXPECT_NE(error_of({"--config", list}).find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of({"--config", (dir_ / "missing.json").string()}).find("cannot open"),
            std::string::npos);
}

TEST(TrainingArguments, UnknownOptionSuggestion) {
  EXPECT_EQ(error_of({"--learnig_rate", "1e-4"}),
            "unknown option --learnig_rate (did you mean --learning_rate?)");
  EXPECT_EQ(error_of({"--per_device_batch_size", "4"}),
            "unknown option --per_device_batch_size (did you mean --per_device_eval_batch_size?)");
  EXPECT_EQ(error_of({"--frobnicate", "1"}),
            "unknown option --frobnicate (see precis train --help)");
  EXPECT_EQ(error_of({"stray"}), "unexpected argument \"stray\": options are written --name value");
}

TEST(TrainingArguments, BadValueMessages) {
  EXPECT_EQ(error_of({"--learning_rate", "fast"}),
            "--learning_rate: expected a number, found \"fast\"");
  EXPECT_EQ(error_of({"--per_device_train_batch_size", "4.5"}),
            "--per_device_train_batch_size: expected an integer, found \"4.5\"");
  EXPECT_EQ(error_of({"--do_train", "maybe"}),
            "--do_train: expected true or false, found \"maybe\"");
  EXPECT_EQ(error_of({"--eval_strategy", "sometimes"}),
            "--eval_strategy: expected one of no, steps, epoch, found \"sometimes\"");
  EXPECT_EQ(error_of({"--lr_scheduler_type", "polynomial"}),
            "--lr_scheduler_type: precis implements the schedules linear, cosine, constant and "
            "constant_with_warmup, not \"polynomial\"");
  EXPECT_EQ(error_of({"--lr_scheduler_type", "wavy"}),
            "--lr_scheduler_type: expected one of linear, cosine, constant, "
            "constant_with_warmup, found \"wavy\"");
  EXPECT_EQ(error_of({"--optim", "adafactor"}),
            "--optim: precis implements AdamW: adamw_torch, adamw_torch_fused or adamw_hf, not "
            "\"adafactor\"");
  EXPECT_EQ(error_of({"--learning_rate"}), "--learning_rate: expected a value");
  EXPECT_EQ(error_of({"--device", "tpu"}),
            "--device: expected one of auto, cpu, cuda, found \"tpu\"");
}

TEST(TrainingArguments, OptimAliasesAccepted) {
  for (const char* name : {"adamw_torch", "adamw_hf", "adamw_torch_fused"})
    EXPECT_EQ(parse_training_arguments({"--optim", name}).optim, name);
}

TEST(TrainingArguments, HuggingFaceValidation) {
  EXPECT_EQ(error_of({"--warmup_ratio", "1.5"}), "warmup_ratio must lie in range [0,1]");
  EXPECT_EQ(error_of({"--fp16", "--bf16"}),
            "At most one of fp16 and bf16 can be True, but not both");
  EXPECT_EQ(error_of({"--eval_strategy", "steps", "--logging_steps", "0"}),
            "evaluation strategy steps requires either non-zero --eval_steps or --logging_steps");
  EXPECT_EQ(error_of({"--logging_steps", "2.5"}),
            "--logging_steps must be an integer if bigger than 1: 2.5");
  EXPECT_EQ(error_of({"--load_best_model_at_end", "--eval_strategy", "epoch"}),
            "--load_best_model_at_end requires the save and eval strategy to match, but found "
            "evaluation strategy epoch and save strategy steps");
  EXPECT_EQ(error_of({"--load_best_model_at_end", "--eval_strategy", "steps", "--eval_steps", "300",
                      "--save_steps", "500"}),
            "--load_best_model_at_end requires the saving steps to be a round multiple of the "
            "evaluation steps, but found 500, which is not a round multiple of 300.");
  EXPECT_EQ(error_of({"--do_train", "--model_name_or_path", "m", "--train_file", "t.json"}),
            "--output_dir is required: where checkpoints and results are written");
  EXPECT_EQ(error_of({"--do_eval", "--model_name_or_path", "m", "--output_dir", "o", "--train_file",
                      "t.json"}),
            "--do_eval requires a validation dataset (--validation_file)");
  EXPECT_NE(error_of({"--train_file", "t.parquet"}).find(".jsonl"), std::string::npos);
  EXPECT_EQ(error_of({"--adafactor"}),
            "--adafactor: precis implements AdamW only (--optim adamw_torch)");
  EXPECT_EQ(error_of({"--zero_stage", "3"}),
            "--zero_stage: precis implements ZeRO stages 0 and 1, found 3");
  EXPECT_EQ(error_of({"--per_device_train_batch_size", "0"}),
            "--per_device_train_batch_size: expected a positive integer, found 0");
}

TEST(TrainingArguments, HuggingFaceDerivedDefaults) {
  // An eval strategy turns do_eval on, which needs a model, an output and a validation file.
  auto with_eval = [](std::vector<std::string> argv) {
    for (const char* s :
         {"--model_name_or_path", "m", "--output_dir", "o", "--validation_file", "v.jsonl"})
      argv.push_back(s);
    return parse_training_arguments(argv);
  };
  TrainingArguments a = with_eval({"--eval_strategy", "steps"});
  EXPECT_TRUE(a.do_eval);
  EXPECT_EQ(a.eval_steps, 500.0);  // falls back to logging_steps
  TrainingArguments b = with_eval({"--evaluation_strategy", "steps", "--eval_steps", "100",
                                   "--save_steps", "200", "--load_best_model_at_end", "True"});
  EXPECT_EQ(b.eval_strategy, IntervalStrategy::kSteps);
  EXPECT_EQ(b.metric_for_best_model, "loss");
  EXPECT_EQ(b.greater_is_better, false);
  TrainingArguments c = parse_training_arguments({"--metric_for_best_model", "rouge1"});
  EXPECT_EQ(c.greater_is_better, true);
  TrainingArguments d = parse_training_arguments({"--num_beams", "4"});
  EXPECT_EQ(d.generation_num_beams, 4);
  TrainingArguments e = parse_training_arguments({"--use_cpu"});
  EXPECT_EQ(e.device, "cpu");
  TrainingArguments f = parse_training_arguments({"--generation_config", "gen/generation_config.json"});
  EXPECT_EQ(f.generation_config, "gen/generation_config.json");
}

TEST(TrainingArguments, GenerationNumBeamsOverriddenByNumBeamsIsTold) {
  // run_summarization's num_beams (default 1) replaces generation_num_beams: a user who set
  // only generation_num_beams gets greedy search, as in HF, and a warning saying so.
  TrainingArguments a = parse_training_arguments({"--generation_num_beams", "4"});
  EXPECT_EQ(a.generation_num_beams, 1);
  EXPECT_EQ(ignored_options_warning(a),
            "generation_num_beams 4 is overridden by num_beams 1 (run_summarization's default): "
            "pass --num_beams to set the beams");
  TrainingArguments b = parse_training_arguments({"--generation_num_beams", "4", "--num_beams", "4"});
  EXPECT_EQ(b.generation_num_beams, 4);
  EXPECT_EQ(ignored_options_warning(b), "");
}

TEST(TrainingArguments, DatasetNameExplainsLocalFiles) {
  std::string message = error_of({"--dataset_name", "samsum"});
  EXPECT_NE(message.find("offline"), std::string::npos) << message;
  EXPECT_NE(message.find("--train_file"), std::string::npos) << message;
  EXPECT_NE(message.find("--text_column dialogue --summary_column summary"), std::string::npos)
      << message;
}

TEST(TrainingArguments, IgnoredOptionsWarning) {
  TrainingArguments a = parse_training_arguments(
      {"--report_to", "wandb", "tensorboard", "--dataloader_num_workers", "4", "--push_to_hub",
       "--tf32", "True", "--dataloader_num_workers", "2", "--overwrite_cache"});
  EXPECT_EQ(ignored_options_warning(a),
            "precis ignores these Hugging Face options: overwrite_cache, tf32, "
            "dataloader_num_workers, push_to_hub");
  json j = to_json(a);
  EXPECT_EQ(j["dataloader_num_workers"], 2);
  EXPECT_EQ(j["report_to"], json::array({"wandb", "tensorboard"}));
  EXPECT_EQ(j["tf32"], true);
  EXPECT_EQ(error_of({"--dataloader_num_workers", "many"}),
            "--dataloader_num_workers: expected an integer, found \"many\"");
}

TEST(TrainingArguments, ToJsonHoldsValuesAndMasksTokens) {
  TrainingArguments a = parse_training_arguments(
      {"--hub_token", "hf_secret", "--token", "hf_other", "--learning_rate", "1e-3",
       "--lr_scheduler_type", "constant_with_warmup", "--max_tokens_per_batch", "4096"});
  json j = to_json(a);
  EXPECT_EQ(j["learning_rate"], 1e-3);
  EXPECT_EQ(j["lr_scheduler_type"], "constant_with_warmup");
  EXPECT_EQ(j["max_tokens_per_batch"], 4096);
  EXPECT_EQ(j["hub_token"], "<HUB_TOKEN>");
  EXPECT_EQ(j["token"], "<TOKEN>");
  EXPECT_EQ(j.dump().find("hf_secret"), std::string::npos);
  EXPECT_EQ(j.dump().find("hf_other"), std::string::npos);
  EXPECT_EQ(a.hub_token, "hf_secret");  // the struct keeps it for use
}

TEST(TrainingArguments, HelpListsEveryOption) {
  try {
    parse_training_arguments({"--seed", "1", "--help"});
    FAIL() << "no HelpRequested";
  } catch (const HelpRequested& help) {
    std::string text = help.what();
    EXPECT_EQ(text, training_arguments_help());
    json all = to_json(TrainingArguments{});
    for (const auto& [key, value] : all.items())
      EXPECT_NE(text.find(key), std::string::npos) << key;
    EXPECT_NE(text.find("--learning_rate"), std::string::npos);
    EXPECT_NE(text.find("[default: 5e-05]"), std::string::npos);
  }
}

// A config of 4.44's era keeps working, each name 5 removed noted once with its replacement;
// 5's own names are accepted, the two that carry math read.
TEST(TrainingArguments, ArgumentsOfBothEras) {
  TrainingArguments a = parse_training_arguments(
      {"--output_dir", "out", "--evaluation_strategy", "no", "--no_cuda", "true", "--warmup_ratio",
       "0.1", "--project", "p", "--train_sampling_strategy", "group_by_length"});
  auto noted = [&](const std::string& name) {
    return std::count_if(a.warnings.begin(), a.warnings.end(), [&](const std::string& w) {
      return w.starts_with("--" + name + " is a transformers 4.44 argument that 5 removed");
    });
  };
  EXPECT_EQ(noted("evaluation_strategy"), 1);
  EXPECT_EQ(noted("no_cuda"), 1);
  EXPECT_EQ(noted("warmup_ratio"), 1);
  EXPECT_NE(a.warnings[0].find("eval_strategy"), std::string::npos);
  EXPECT_DOUBLE_EQ(a.warmup_ratio, 0.1);
  EXPECT_TRUE(a.group_by_length);
  EXPECT_EQ(a.device, "cpu");
  EXPECT_THROW(
      parse_training_arguments({"--output_dir", "o", "--train_sampling_strategy", "sequential"}),
      precis::Error);
  EXPECT_THROW(
      parse_training_arguments({"--output_dir", "o", "--average_tokens_across_devices", "false"}),
      precis::Error);
  try {
    parse_training_arguments({"--output_dir", "o", "--evalution_strategy", "no"});
    FAIL() << "a misspelling was accepted";
  } catch (const precis::Error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
}

TEST(TrainingArguments, TensorBoardByDefaultOnlyUnder444) {
  TrainingArguments a;
  a.hf_semantics = "4.44";
  EXPECT_TRUE(reports_to_tensorboard(a));  // "all"
  a.hf_semantics = "5";
  EXPECT_FALSE(reports_to_tensorboard(a));  // "none"
  a.ignored_options["report_to"] = nlohmann::json::array({"tensorboard"});
  EXPECT_TRUE(reports_to_tensorboard(a));
}

TEST(TrainingArguments, StepAccounting) {
  TrainingArguments a;
  a.gradient_accumulation_steps = 4;
  EXPECT_EQ(num_update_steps_per_epoch(10, a), 3);  // 5.x: ceil, the epoch's last group short
  a.hf_semantics = "4.44";
  EXPECT_EQ(num_update_steps_per_epoch(10, a), 2);  // floor in 4.44
  EXPECT_EQ(num_update_steps_per_epoch(3, a), 1);   // at least 1
  a.num_train_epochs = 2.5;
  EXPECT_EQ(total_train_steps(3, a), 8);  // ceil(7.5)
  EXPECT_EQ(num_train_epochs_to_run(3, a), 3);
  a.max_steps = 10;
  EXPECT_EQ(total_train_steps(3, a), 10);
  EXPECT_EQ(num_train_epochs_to_run(3, a), 4);
  a.warmup_ratio = 0.1;
  EXPECT_EQ(warmup_steps(a, 693), 70);  // ceil(69.3)
  a.warmup_steps = 5;
  EXPECT_EQ(warmup_steps(a, 693), 5);
  EXPECT_EQ(interval_steps(0.25, 693), 174);
  EXPECT_EQ(interval_steps(500, 693), 500);
}

TEST(TrainingArguments, ScheduleShapes) {
  TrainingArguments a;
  a.learning_rate = 1.0;
  // Linear with warmup 2 of 10: 0, 0.5, then (10 - k) / 8.
  EXPECT_EQ(learning_rate_at(a, 0, 10, 2), 0.0);
  EXPECT_EQ(learning_rate_at(a, 1, 10, 2), 0.5);
  EXPECT_EQ(learning_rate_at(a, 2, 10, 2), 1.0);
  EXPECT_EQ(learning_rate_at(a, 6, 10, 2), 0.5);
  EXPECT_EQ(learning_rate_at(a, 12, 10, 2), 0.0);
  a.lr_scheduler_type = SchedulerType::kConstant;  // ignores warmup, as HF's get_scheduler
  EXPECT_EQ(learning_rate_at(a, 0, 10, 2), 1.0);
  a.lr_scheduler_type = SchedulerType::kConstantWithWarmup;
  EXPECT_EQ(learning_rate_at(a, 1, 10, 2), 0.5);
  EXPECT_EQ(learning_rate_at(a, 9, 10, 2), 1.0);
  a.lr_scheduler_type = SchedulerType::kCosine;
  EXPECT_EQ(learning_rate_at(a, 2, 10, 2), 1.0);
  EXPECT_NEAR(learning_rate_at(a, 6, 10, 2), 0.5, 1e-15);
  EXPECT_NEAR(learning_rate_at(a, 10, 10, 2), 0.0, 1e-15);
}

TEST(TrainingArguments, TimeBudgetHorizon) {
  // 100 steps done, 0.1 s each, 60 s left: 600 more steps.
  EXPECT_EQ(time_budget_horizon(100, 0.1, 60.0, 100000), 700);
  EXPECT_EQ(time_budget_horizon(100, 0.1, 60.0, 500), 500);  // the epochs end first
  EXPECT_EQ(time_budget_horizon(100, 0.1, -5.0, 100000), 101);  // budget spent: one more step
  EXPECT_EQ(time_budget_horizon(100, 0.0, 60.0, 900), 900);     // no rate measured yet
}

}  // namespace
