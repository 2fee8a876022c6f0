// precis card: front matter, sections present or left out with their files, determinism,
// errors naming the file, Python/YAML number formatting, and a well-formed loss curve SVG.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/hub/card_formatting.h"
#include "precis/hub/loss_curve.h"
#include "precis/hub/model_card.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace precis::hub;

namespace {

class ModelDir {
 public:
  explicit ModelDir(const std::string& name = "bart-samsum") {
    std::string pattern = (fs::temp_directory_path() / "precis-card-XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    dir_ = root_ / name;
    fs::create_directories(dir_);
    write("config.json",
          R"({"architectures": ["BartForConditionalGeneration"], "model_type": "bart", "d_model": 16,
              "encoder_layers": 2, "decoder_layers": 2, "vocab_size": 600})");
  }
  ~ModelDir() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  const fs::path& path() const { return dir_; }

  // The files precis train writes for a run with evaluation and prediction.
  void write_training_run() const {
    write("training_args.json",
          R"({"model_name_or_path": "facebook/bart-large-cnn", "train_file": "data/samsum/train.json",
              "validation_file": "data/samsum/validation.json", "test_file": "data/samsum/test.json",
              "learning_rate": 5e-05, "per_device_train_batch_size": 4, "per_device_eval_batch_size": 8,
              "gradient_accumulation_steps": 2, "seed": 7, "adam_beta1": 0.9, "adam_beta2": 0.999,
              "adam_epsilon": 1e-08, "lr_scheduler_type": "linear", "warmup_ratio": 0.0, "warmup_steps": 10,
              "max_steps": -1, "num_train_epochs": 3.0, "fp16": false, "label_smoothing_factor": 0.1})");
    write("trainer_state.json", R"({"global_step": 20, "log_history": [
      {"epoch": 0.5, "grad_norm": 3.2, "learning_rate": 4e-05, "loss": 3.123456, "step": 5},
      {"epoch": 1.0, "grad_norm": 2.1, "learning_rate": 3e-05, "loss": 2.5, "step": 10},
      {"epoch": 1.0, "eval_loss": 2.4, "eval_rouge1": 30.5, "eval_rouge2": 10.25, "eval_rougeL": 25.0,
       "eval_rougeLsum": 27.75, "eval_gen_len": 18.5, "eval_runtime": 1.5, "eval_samples_per_second": 3.0,
       "eval_steps_per_second": 1.0, "step": 10},
      {"epoch": 2.0, "grad_norm": 1.5, "learning_rate": 1e-05, "loss": 2.0, "step": 20},
      {"epoch": 2.0, "step": 20, "total_flos": 0, "train_loss": 2.5, "train_runtime": 12.5}]})");
    write("eval_results.json",
          R"({"epoch": 2.0, "eval_gen_len": 18.25, "eval_loss": 2.3456789, "eval_rouge1": 42.6234,
              "eval_rouge2": 21.9812, "eval_rougeL": 33.0345, "eval_rougeLsum": 39.6789, "eval_runtime": 2.0,
              "eval_samples": 818, "eval_samples_per_second": 409.0, "eval_steps_per_second": 51.0})");
    write("predict_results.json",
          R"({"predict_gen_len": 17.5, "predict_loss": 2.5, "predict_rouge1": 41.32, "predict_rouge2": 20.87,
              "predict_rougeL": 32.13, "predict_rougeLsum": 38.41, "predict_runtime": 2.0, "predict_samples": 819})");
  }

 private:
  fs::path root_, dir_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Each of `parts` is in the card (a failure names the part missing).
void expect_card_contains(const std::string& card, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts) EXPECT_TRUE(contains(card, part)) << "missing: " << part;
}

using precis::testing::read_all;

// A small XML check: every tag closes in order, attributes are quoted, one root <svg>.
bool well_formed_xml(const std::string& s, std::string* why) {
  std::vector<std::string> open;
  size_t i = 0, roots = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    const size_t end = s.find('>', i);
    if (end == std::string::npos) return *why = "unclosed '<'", false;
    std::string tag = s.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.starts_with("?") || tag.starts_with("!")) continue;
    if (tag.starts_with("/")) {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return *why = "unexpected </" + name + ">", false;
      open.pop_back();
      continue;
    }
    const bool self_closing = tag.ends_with("/");
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find(' '));
    size_t quotes = 0;
    for (char ch : tag) quotes += ch == '"';
    if (quotes % 2) return *why = "odd quotes in <" + name + ">", false;
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return *why = "<" + open.back() + "> never closed", false;
  if (roots != 1) return *why = "expected one root element", false;
  return true;
}

}  // namespace

TEST(ModelCard, PythonFloatRepr) {
  EXPECT_EQ(python_float_repr(5e-5), "5e-05");
  EXPECT_EQ(python_float_repr(1e-8), "1e-08");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(0.9), "0.9");
  EXPECT_EQ(python_float_repr(0.999), "0.999");
  EXPECT_EQ(python_float_repr(3.0), "3.0");
  EXPECT_EQ(python_float_repr(42.6234), "42.6234");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(python_float_repr(0.1 + 0.2), "0.30000000000000004");
}

TEST(ModelCard, YamlScalar) {
  EXPECT_EQ(yaml_scalar("apache-2.0"), "apache-2.0");
  EXPECT_EQ(yaml_scalar("facebook/bart-large-cnn"), "facebook/bart-large-cnn");
  EXPECT_EQ(yaml_scalar("no"), "\"no\"");
  EXPECT_EQ(yaml_scalar("123"), "\"123\"");
  EXPECT_EQ(yaml_scalar("a: b"), "\"a: b\"");
  EXPECT_EQ(yaml_scalar("line\n\"two\""), "\"line\\n\\\"two\\\"\"");
  EXPECT_EQ(yaml_scalar(""), "\"\"");
}

TEST(ModelCard, FullRunHasEverySection) {
  ModelDir d;
  d.write_training_run();
  ModelCardOptions o;
  o.widget_text = "Anna: Lunch?\nBen: Sure, 12:30.";
  const std::string card = model_card(d.path(), o);
  EXPECT_TRUE(card.starts_with("---\nlanguage:\n- en\nlicense: apache-2.0\n"));
  expect_card_contains(card, {
      "base_model: facebook/bart-large-cnn\n",
      "tags:\n- summarization\n- generated_from_trainer\n- precis\n",
      "datasets:\n- samsum\n",
      "widget:\n- text: \"Anna: Lunch?\\nBen: Sure, 12:30.\"\n",
      "model-index:\n- name: bart-samsum\n  results:\n  - task:\n      type: summarization\n",
      "      name: samsum\n      type: samsum\n      split: validation\n",
      "      split: test\n",
      "    - type: rouge\n      value: 42.6234\n      name: Rouge1\n",
      "    - type: rouge\n      value: 38.41\n      name: Rougelsum\n",
      "    - type: gen_len\n      value: 18.25\n      name: Gen Len\n",
      "    - type: loss\n      value: 2.3456789\n      name: Loss\n",
  });
  // HF's hyperparameter list.
  EXPECT_TRUE(contains(card, "- learning_rate: 5e-05\n- train_batch_size: 4\n- eval_batch_size: 8\n- seed: 7\n"
                             "- gradient_accumulation_steps: 2\n- total_train_batch_size: 8\n"
                             "- optimizer: Adam with betas=(0.9,0.999) and epsilon=1e-08\n"
                             "- lr_scheduler_type: linear\n- lr_scheduler_warmup_steps: 10\n- num_epochs: 3.0\n"
                             "- label_smoothing_factor: 0.1\n"));
  // HF's training results table: the training loss logged before each evaluation.
  EXPECT_TRUE(contains(card, "| Training Loss | Epoch | Step | Validation Loss | Rouge1 | Rouge2 | Rougel | Rougelsum "
                             "| Gen Len |\n"));
  EXPECT_TRUE(contains(card, "| 2.5           | 1.0   | 10   | 2.4             | 30.5   | 10.25  | 25.0   | 27.75     "
                             "| 18.5    |\n"));
  expect_card_contains(card, {
      "- Loss: 2.3457\n- Rouge1: 42.6234\n",
      "![Training loss, 3 logged steps: from 3.123 at step 5 to 2 at step 20; lowest 2 at step 20. "
      "Validation loss: 2.4 at step 10.](loss_curve.svg)",
      "## Evaluation results",
      "### test split of samsum (819 examples)",
      "precis generate --model bart-samsum --text \"Anna: Lunch?\nBen: Sure, 12:30.\"",
      "pipeline(\"summarization\", model=\"bart-samsum\")",
      "## Framework versions\n\n- precis ",
      "- Transformers 4.44.2",
  });
}

TEST(ModelCard, DataParallelRunListsDevicesAndTotalBatches) {
  // As Trainer.create_model_card with world_size 2: num_devices and the total batch sizes.
  ModelDir m;
  m.write_training_run();
  m.write("job_summary.json", R"({"world_size": 2, "hosts": 1})");
  std::string args = read_all(m.path() / "training_args.json");
  args.insert(args.rfind('}'), R"(, "max_train_time_s": 900.0)");
  m.write("training_args.json", args);
  const std::string card = model_card(m.path(), {});
  EXPECT_TRUE(contains(card, "- seed: 7\n- distributed_type: multi-CPU\n- num_devices: 2\n"
                             "- gradient_accumulation_steps: 2\n- total_train_batch_size: 16\n"
                             "- total_eval_batch_size: 16\n- optimizer:"))
      << card;
  EXPECT_TRUE(contains(card, "- num_epochs: 3.0\n- max_train_time_s: 900.0\n")) << card;
}

TEST(ModelCard, WritesDeterministicFiles) {
  ModelDir d;
  d.write_training_run();
  const fs::path readme = write_model_card(d.path());
  EXPECT_EQ(readme, d.path() / "README.md");
  const std::string first = read_all(readme), first_svg = read_all(d.path() / "loss_curve.svg");
  write_model_card(d.path());
  EXPECT_EQ(read_all(readme), first);
  EXPECT_EQ(read_all(d.path() / "loss_curve.svg"), first_svg);
  std::string why;
  EXPECT_TRUE(well_formed_xml(first_svg, &why)) << why;
  EXPECT_TRUE(contains(first_svg, "<polyline"));
  EXPECT_TRUE(contains(first_svg, "<circle"));  // the validation loss point
}

TEST(ModelCard, BareDirectoryGetsAValidCard) {
  ModelDir d("tiny");
  const ModelCardFiles files = render_model_card(d.path());
  const std::string& card = files.readme;
  EXPECT_TRUE(files.loss_curve_svg.empty());
  EXPECT_TRUE(contains(card, "model-index:\n- name: tiny\n  results: []\n---\n"));
  EXPECT_FALSE(contains(card, "base_model:"));
  EXPECT_FALSE(contains(card, "datasets:"));
  EXPECT_FALSE(contains(card, "## Training procedure"));
  EXPECT_FALSE(contains(card, "### Training results"));
  EXPECT_FALSE(contains(card, "## Evaluation results"));
  EXPECT_FALSE(contains(card, "loss_curve.svg"));
  EXPECT_FALSE(contains(card, "widget:"));
  EXPECT_TRUE(contains(card, "## Usage"));
  EXPECT_TRUE(contains(card, "an unknown dataset."));
  write_model_card(d.path());
  EXPECT_FALSE(fs::exists(d.path() / "loss_curve.svg"));
}

TEST(ModelCard, OptionsOverrideDerivedValues) {
  ModelDir d;
  d.write_training_run();
  d.write("eval_results.json", "{}");  // no scores: no validation entry
  ModelCardOptions o;
  o.language = "de";
  o.license = "mit";
  o.datasets = {"knkarthick/samsum", "extra"};
  o.base_model = "";  // none, although model_name_or_path is a Hub id
  o.model_name = "my-model";
  o.tags = {"a"};
  const std::string card = model_card(d.path(), o);
  EXPECT_TRUE(card.starts_with("---\nlanguage:\n- de\nlicense: mit\n"));
  EXPECT_FALSE(contains(card, "base_model:"));
  EXPECT_TRUE(contains(card, "tags:\n- a\ndatasets:\n- knkarthick/samsum\n- extra\n"));
  EXPECT_TRUE(contains(card, "- name: my-model\n"));
  EXPECT_FALSE(contains(card, "split: validation"));
  EXPECT_TRUE(contains(card, "      name: knkarthick/samsum\n      type: knkarthick/samsum\n      split: test\n"));
}

TEST(ModelCard, ScratchRunWithoutEvaluationListsTrainingLosses) {
  ModelDir d;
  d.write("training_args.json", R"({"model_name_or_path": "", "config_name": "bart-tiny", "train_file": "dialogs.jsonl",
                                    "max_steps": 2, "learning_rate": 0.001})");
  d.write("trainer_state.json", R"({"log_history": [{"epoch": 1.0, "loss": 9.87654, "step": 1},
      {"epoch": 2.0, "loss": 9.1, "step": 2}, {"epoch": 2.0, "step": 2, "train_loss": 9.5, "train_runtime": 1.0}]})");
  const ModelCardFiles files = render_model_card(d.path());
  EXPECT_FALSE(contains(files.readme, "base_model:"));
  EXPECT_TRUE(contains(files.readme, "trained from scratch (architecture `bart-tiny`) on the dialogs dataset."));
  EXPECT_TRUE(contains(files.readme, "- learning_rate: 0.001\n"));
  EXPECT_TRUE(contains(files.readme, "- training_steps: 2\n"));
  EXPECT_TRUE(contains(files.readme, "| Training Loss | Epoch | Step |\n"));
  EXPECT_TRUE(contains(files.readme, "| 9.8765        | 1.0   | 1    |\n"));
  EXPECT_FALSE(contains(files.readme, "Validation Loss"));
  std::string why;
  EXPECT_TRUE(well_formed_xml(files.loss_curve_svg, &why)) << why;
  EXPECT_FALSE(contains(files.loss_curve_svg, "<circle"));
}

// A trainer_state.json logging a loss every `every` steps up to `last`, without evaluation.
std::string training_log_without_evaluation(int every, int last) {
  std::string log = R"({"global_step": )" + std::to_string(last) + R"(, "log_history": [)";
  for (int step = every; step <= last; step += every)
    log += R"({"epoch": 0.5, "grad_norm": 1.5, "learning_rate": 0.001, "loss": )" + std::to_string(10000 - step) +
           ".5, \"step\": " + std::to_string(step) + "}, ";
  return log + R"({"epoch": 1.0, "step": )" + std::to_string(last) + R"(, "train_loss": 9.5, "train_runtime": 1.0}]})";
}

// The steps of the training results table's rows ("| loss | epoch | step |"), in order.
std::vector<int> table_steps(const std::string& card) {
  std::vector<int> steps;
  const size_t table = card.find("| Training Loss | Epoch | Step |\n");
  if (table == std::string::npos) return steps;
  size_t line = card.find('\n', card.find('\n', table) + 1) + 1;  // past the separator line
  while (line < card.size() && card[line] == '|') {
    const size_t end = card.find('\n', line);
    std::vector<std::string> cells;
    for (size_t bar = line; bar < end;) {
      const size_t next = card.find('|', bar + 1);
      if (next >= end) break;
      cells.push_back(card.substr(bar + 1, next - bar - 1));
      bar = next;
    }
    steps.push_back(cells.size() == 3 ? std::stoi(cells[2]) : -1);
    line = end + 1;
  }
  return steps;
}

TEST(ModelCard, WithoutEvaluationTheTableShowsAtMost20EvenlySpacedLosses) {
  ModelDir d("scratch");
  // The demo's log: a loss every 25 steps, 200 of them. Every 10th, ending at the last.
  d.write("trainer_state.json", training_log_without_evaluation(25, 5000));
  std::vector<int> expected;
  for (int step = 250; step <= 5000; step += 250) expected.push_back(step);
  const std::string card = model_card(d.path());
  EXPECT_EQ(table_steps(card), expected) << card;
  EXPECT_TRUE(contains(card, "| 5000.5        | 0.5   | 5000 |\n")) << card;  // the last loss, as logged
  // 45 losses: every 3rd (15 rows); 20 or fewer: all of them; one: itself.
  d.write("trainer_state.json", training_log_without_evaluation(1, 45));
  expected.clear();
  for (int step = 3; step <= 45; step += 3) expected.push_back(step);
  EXPECT_EQ(table_steps(model_card(d.path())), expected);
  d.write("trainer_state.json", training_log_without_evaluation(2, 40));
  expected.clear();
  for (int step = 2; step <= 40; step += 2) expected.push_back(step);
  EXPECT_EQ(table_steps(model_card(d.path())), expected);
  d.write("trainer_state.json", training_log_without_evaluation(7, 7));
  EXPECT_EQ(table_steps(model_card(d.path())), std::vector<int>{7});
}

TEST(LossCurve, DescriptionIsTheTextAlternative) {
  EXPECT_EQ(loss_curve_description({{25, 10.523456}, {50, 3.1}, {75, 3.2145}}, {}),
            "Training loss, 3 logged steps: from 10.52 at step 25 to 3.215 at step 75; lowest 3.1 at step 50.");
  EXPECT_EQ(loss_curve_description({{1, 2.5}}, {{10, 2.25}, {20, 2.0}}),
            "Training loss: 2.5 at step 1. Validation loss, 2 evaluations: from 2.25 at step 10 to 2 at step 20; "
            "lowest 2 at step 20.");
  EXPECT_EQ(loss_curve_description({}, {}), "Training loss: no losses logged.");
  EXPECT_EQ(loss_curve_description({{1, std::nan("")}}, {}), "Training loss: no losses logged.");
  const std::string svg = loss_curve_svg({{25, 10.523456}, {50, 3.1}, {75, 3.2145}}, {});
  EXPECT_TRUE(contains(svg, "role=\"img\" aria-labelledby=\"loss-title\" aria-describedby=\"loss-description\""));
  EXPECT_TRUE(contains(svg, "<title id=\"loss-title\">Training loss</title>\n  <desc id=\"loss-description\">"
                            "Training loss, 3 logged steps: from 10.52 at step 25 to 3.215 at step 75; lowest 3.1 "
                            "at step 50.</desc>\n"));
}

TEST(ModelCard, MalformedFilesAreNamed) {
  ModelDir d;
  d.write("trainer_state.json", "{\"log_history\": [");
  try {
    model_card(d.path());
    FAIL() << "expected an error";
  } catch (const precis::Error& e) {
    EXPECT_TRUE(contains(e.what(), "trainer_state.json")) << e.what();
  }
  d.write("trainer_state.json", "{}");
  d.write("training_args.json", R"({"learning_rate": "fast"})");
  try {
    model_card(d.path());
    FAIL() << "expected an error";
  } catch (const precis::Error& e) {
    EXPECT_TRUE(contains(e.what(), "training_args.json")) << e.what();
  }
  // Counts past int64 (or whose product would overflow) are refused, not converted.
  for (const char* bad : {R"({"per_device_train_batch_size": 1e30})", R"({"gradient_accumulation_steps": 4611686018427387904})",
                          R"({"max_steps": 2.5})", R"({"seed": 1e300})"}) {
    d.write("training_args.json", bad);
    try {
      model_card(d.path());
      ADD_FAILURE() << "expected an error for " << bad;
    } catch (const precis::Error& e) {
      EXPECT_TRUE(contains(e.what(), "training_args.json: \"")) << e.what();
    }
  }
  d.write("training_args.json", "[1, 2]");
  EXPECT_THROW(model_card(d.path()), precis::Error);
  fs::remove(d.path() / "config.json");
  fs::remove(d.path() / "training_args.json");
  try {
    model_card(d.path());
    FAIL() << "expected an error";
  } catch (const precis::Error& e) {
    EXPECT_TRUE(contains(e.what(), "config.json")) << e.what();
  }
}

TEST(LossCurve, NiceTicksCoverTheRange) {
  const std::vector<double> t = nice_ticks(0.0, 693.0);
  ASSERT_GE(t.size(), 3u);
  EXPECT_LE(t.front(), 0.0);
  EXPECT_GE(t.back(), 693.0);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 200.0);
  const std::vector<double> flat = nice_ticks(2.0, 2.0);
  EXPECT_LT(flat.front(), 2.0);
  EXPECT_GT(flat.back(), 2.0);
}

TEST(LossCurve, EmptyAndNonFiniteInputsStayWellFormed) {
  std::string why;
  const std::string empty = loss_curve_svg({}, {});
  EXPECT_TRUE(well_formed_xml(empty, &why)) << why;
  EXPECT_TRUE(contains(empty, "no losses logged"));
  const std::string one = loss_curve_svg({{1, 2.5}, {2, std::nan("")}}, {});
  EXPECT_TRUE(well_formed_xml(one, &why)) << why;
  EXPECT_FALSE(contains(one, "nan"));
  EXPECT_EQ(one, loss_curve_svg({{1, 2.5}, {2, std::nan("")}}, {}));
}
