#include "precis/hub/model_card.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/hub/card_formatting.h"
#include "precis/hub/loss_curve.h"
#include "precis/hub/model_directory.h"
#include "precis/hub/training_data_example.h"

namespace precis::hub {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kDefaultLicense = "apache-2.0";
constexpr const char* kExampleText =
    "Amanda: I baked cookies. Do you want some?\n"
    "Jerry: Sure!\n"
    "Amanda: I'll bring you tomorrow :-)";

// Metric keys (prefix removed) in the order a reader expects them; unknown ones last, sorted.
int metric_rank(const std::string& key) {
  static const std::vector<std::string> order = {"loss", "rouge1", "rouge2", "rougeL", "rougeLsum", "gen_len"};
  auto it = std::find(order.begin(), order.end(), key);
  return it == order.end() ? int(order.size()) : int(it - order.begin());
}

bool is_timing_key(const std::string& key) {
  return key == "runtime" || key == "samples_per_second" || key == "steps_per_second" || key == "samples" ||
         key == "jit_compilation_time" || key == "epoch" || key == "step" || key == "total_flos";
}

// The scores of a results object with keys "<prefix>_<metric>", as (metric, value) in
// metric_rank order, timings left out.
std::vector<std::pair<std::string, json>> scores(const json& results, const std::string& prefix) {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& [key, value] : results.items()) {
    if (key.rfind(prefix + "_", 0) != 0 || !value.is_number()) continue;
    const std::string metric = key.substr(prefix.size() + 1);
    if (!is_timing_key(metric)) out.emplace_back(metric, value);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const int ra = metric_rank(a.first), rb = metric_rank(b.first);
    return ra != rb ? ra < rb : a.first < b.first;
  });
  return out;
}

// ---- what the card says ------------------------------------------------------------------

std::optional<std::string> string_arg(const json* args, const char* key) {
  if (!args || !args->contains(key) || (*args)[key].is_null()) return std::nullopt;
  std::string s = (*args)[key].get<std::string>();
  if (s.empty()) return std::nullopt;
  return s;
}

bool is_split_word(std::string s) {
  for (char& ch : s) ch = char(std::tolower((unsigned char)ch));
  static const std::set<std::string> words = {"train", "training", "validation", "valid", "val",
                                              "dev", "eval", "test", "testing", "predict"};
  return words.count(s) > 0;
}

// data/samsum/train.json -> "samsum"; cnn_train.jsonl -> "cnn_train".
std::string dataset_from_file(const std::string& file) {
  const fs::path p(file);
  std::string stem = p.stem().string();
  if (is_split_word(stem)) {
    const std::string folder = p.parent_path().filename().string();
    if (!folder.empty() && folder != "." && folder != "..") return folder;
  }
  return stem;
}

bool looks_like_hub_id(const std::string& s) {
  const size_t slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || s.find('/', slash + 1) != std::string::npos)
    return false;
  auto part_ok = [](std::string_view part) {
    if (!std::isalnum((unsigned char)part.front())) return false;
    for (char ch : part)
      if (!std::isalnum((unsigned char)ch) && ch != '-' && ch != '_' && ch != '.') return false;
    return part.size() < 97 && part.find("..") == std::string_view::npos;
  };
  const std::string_view sv(s);
  return part_ok(sv.substr(0, slash)) && part_ok(sv.substr(slash + 1)) && !s.ends_with(".json");
}

struct SplitResults {
  std::string split;    // Hub split name: validation, test
  std::string dataset;  // dataset id
  std::vector<std::pair<std::string, json>> metrics;
  std::optional<int64_t> samples;
};

struct CardFacts {
  std::string model_name;
  std::optional<std::string> widget_text;
  std::string license;
  std::vector<std::string> tags;
  std::vector<std::string> datasets;
  std::optional<std::string> dataset_config;
  std::optional<std::string> base_model;
  std::optional<std::string> scratch_config;  // config_name of a model trained from scratch
  std::vector<SplitResults> results;
};

std::string directory_name(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  const std::string name = p.filename().string();
  return name.empty() ? "model" : name;
}

CardFacts card_facts(const ModelDirectory& m, const ModelCardOptions& o) {
  CardFacts f;
  // As Trainer.push_to_hub names the model: hub_model_id's last part, else output_dir's name.
  std::optional<std::string> hub_model_id = string_arg(m.args ? &*m.args : nullptr, "hub_model_id");
  if (hub_model_id) hub_model_id = hub_model_id->substr(hub_model_id->rfind('/') + 1);
  f.model_name = o.model_name.value_or(hub_model_id.value_or(directory_name(m.dir)));
  // The inference widget's example, as the tutorial's card carries one of its SAMSum dialogues.
  if (o.widget_text)
    f.widget_text = o.widget_text;
  else if (m.args)
    f.widget_text = training_data_example(*m.args, m.dir / "training_args.json");
  f.license = o.license.value_or(kDefaultLicense);
  f.tags = o.tags.empty() ? std::vector<std::string>{"summarization", "generated_from_trainer", "precis"} : o.tags;

  const json* args = m.args ? &*m.args : nullptr;
  std::optional<std::string> train_ds, validation_ds, test_ds;
  from_file(m.dir / "training_args.json", [&] {
    if (auto name = string_arg(args, "dataset_name")) {
      train_ds = validation_ds = test_ds = *name;
      f.dataset_config = string_arg(args, "dataset_config_name");
    } else {
      if (auto file = string_arg(args, "train_file")) train_ds = dataset_from_file(*file);
      if (auto file = string_arg(args, "validation_file")) validation_ds = dataset_from_file(*file);
      if (auto file = string_arg(args, "test_file")) test_ds = dataset_from_file(*file);
    }
    const std::optional<std::string> model_path = string_arg(args, "model_name_or_path");
    if (o.base_model) {
      if (!o.base_model->empty()) f.base_model = *o.base_model;
    } else if (model_path && looks_like_hub_id(*model_path)) {
      f.base_model = *model_path;
    }
    if (!model_path) f.scratch_config = string_arg(args, "config_name");
    return 0;
  });
  if (!o.datasets.empty()) {
    f.datasets = o.datasets;
    f.dataset_config.reset();
    train_ds = validation_ds = test_ds = o.datasets.front();
  } else {
    for (const auto& ds : {train_ds, validation_ds, test_ds})
      if (ds && std::find(f.datasets.begin(), f.datasets.end(), *ds) == f.datasets.end()) f.datasets.push_back(*ds);
  }
  const std::string fallback = f.datasets.empty() ? "unknown" : f.datasets.front();

  auto add_split = [&](const std::optional<json>& results, const char* file, const char* prefix, const char* split,
                       const std::optional<std::string>& dataset) {
    if (!results) return;
    from_file(m.dir / file, [&] {
      SplitResults r{split, dataset.value_or(fallback), scores(*results, prefix), std::nullopt};
      // The scores first (the Hub shows a model-index's first metrics), the loss last.
      std::stable_partition(r.metrics.begin(), r.metrics.end(), [](const auto& m) { return m.first != "loss"; });
      if (auto n = results->find(std::string(prefix) + "_samples"); n != results->end()) {
        check(n->is_number_integer() && n->get<int64_t>() >= 0,
              (m.dir / file).string() + ": \"" + prefix + "_samples\" should be a count, found " + n->dump());
        r.samples = n->get<int64_t>();
      }
      if (!r.metrics.empty()) f.results.push_back(std::move(r));
      return 0;
    });
  };
  add_split(m.eval, "eval_results.json", "eval", "validation", validation_ds);
  add_split(m.predict, "predict_results.json", "predict", "test", test_ds);
  return f;
}

std::string front_matter(const CardFacts& f, const ModelCardOptions& o) {
  std::string y = "---\n";
  y += "language:\n- " + yaml_scalar(o.language) + "\n";
  y += "license: " + yaml_scalar(f.license) + "\n";
  y += "library_name: transformers\n";
  if (f.base_model) y += "base_model: " + yaml_scalar(*f.base_model) + "\n";
  if (!f.tags.empty()) {
    y += "tags:\n";
    for (const auto& t : f.tags) y += "- " + yaml_scalar(t) + "\n";
  }
  if (!f.datasets.empty()) {
    y += "datasets:\n";
    for (const auto& d : f.datasets) y += "- " + yaml_scalar(d) + "\n";
  }
  bool rouge = false;
  for (const auto& r : f.results)
    for (const auto& [metric, value] : r.metrics) rouge = rouge || metric.rfind("rouge", 0) == 0;
  if (rouge) y += "metrics:\n- rouge\n";
  y += "pipeline_tag: summarization\n";
  if (f.widget_text) y += "widget:\n- text: " + yaml_scalar(*f.widget_text) + "\n";
  y += "model-index:\n- name: " + yaml_scalar(f.model_name) + "\n";
  if (f.results.empty()) {
    y += "  results: []\n";
  } else {
    y += "  results:\n";
    for (const auto& r : f.results) {
      y += "  - task:\n      type: summarization\n      name: Summarization\n";
      y += "    dataset:\n      name: " + yaml_scalar(r.dataset) + "\n      type: " + yaml_scalar(r.dataset) + "\n";
      if (f.dataset_config) y += "      config: " + yaml_scalar(*f.dataset_config) + "\n";
      y += "      split: " + r.split + "\n";
      y += "    metrics:\n";
      for (const auto& [metric, value] : r.metrics) {
        const std::string type = metric.rfind("rouge", 0) == 0 ? "rouge" : metric;
        y += "    - type: " + yaml_scalar(type) + "\n      value: " + yaml_number(value) +
             "\n      name: " + yaml_scalar(metric_display_name(metric)) + "\n";
      }
    }
  }
  return y + "---\n";
}

std::string description(const ModelDirectory& m, const CardFacts& f) {
  std::string s;
  if (f.base_model)
    s += "This model is a fine-tuned version of [" + *f.base_model + "](https://huggingface.co/" + *f.base_model +
         ") on ";
  else if (f.scratch_config)
    s += "This model was trained from scratch (architecture `" + *f.scratch_config + "`) on ";
  else
    s += "This model was fine-tuned with precis on ";
  if (f.datasets.empty()) {
    s += "an unknown dataset.";
  } else if (f.datasets.size() == 1) {
    s += "the " + f.datasets[0] + " dataset.";
  } else {
    for (size_t i = 0; i + 1 < f.datasets.size(); ++i) s += (i ? ", the " : "the ") + f.datasets[i];
    s += " and the " + f.datasets.back() + " datasets.";
  }
  // HF's summary of the evaluation set: eval_results.json, else the last evaluation logged.
  std::vector<std::pair<std::string, json>> eval;
  if (m.eval) eval = from_file(m.dir / "eval_results.json", [&] { return scores(*m.eval, "eval"); });
  if (eval.empty() && m.state)
    eval = from_file(m.dir / "trainer_state.json", [&] {
      std::vector<std::pair<std::string, json>> last;
      for (const json& entry : m.state->value("log_history", json::array()))
        if (entry.contains("eval_loss")) last = scores(entry, "eval");
      return last;
    });
  if (!eval.empty()) {
    s += "\nIt achieves the following results on the evaluation set:\n";
    for (const auto& [metric, value] : eval) s += "- " + metric_display_name(metric) + ": " + maybe_round(value) + "\n";
  } else {
    s += "\n";
  }
  // One line on the architecture, from config.json.
  from_file(m.dir / "config.json", [&] {
    const json& c = m.config;
    std::string arch = c.contains("architectures") && c["architectures"].is_array() && !c["architectures"].empty()
                           ? c["architectures"][0].get<std::string>()
                           : c.value("model_type", std::string("seq2seq"));
    s += "\nArchitecture: `" + arch + "`";
    if (c.contains("encoder_layers") && c.contains("decoder_layers"))
      s += ", " + c["encoder_layers"].dump() + " encoder and " + c["decoder_layers"].dump() + " decoder layers";
    if (c.contains("d_model")) s += ", d_model " + c["d_model"].dump();
    if (c.contains("vocab_size")) s += ", vocabulary of " + c["vocab_size"].dump() + " tokens";
    s += ".\n";
    return 0;
  });
  return s;
}

// Trainer.create_model_card's "Training hyperparameters" list.
// world_size: the data-parallel ranks of the run (job_summary.json), as trainer.args.world_size.
std::string hyperparameters(const json& a, const fs::path& file, int64_t world_size) {
  std::string s = "\nThe following hyperparameters were used during training:\n";
  auto add = [&s](const std::string& name, const std::string& value) { s += "- " + name + ": " + value + "\n"; };
  auto num = [&](const char* key, double fallback) {
    if (!a.contains(key)) return fallback;
    check(a[key].is_number(), file.string() + ": \"" + key + "\" should be a number, found " + a[key].dump());
    return a[key].get<double>();
  };
  auto str = [&](const char* key, double fallback) {
    num(key, fallback);
    return a.contains(key) ? python_str(a[key]) : python_float_repr(fallback);
  };
  // Counts: integers of a sane size (their products below must not overflow).
  auto count = [&](const char* key, int64_t fallback) {
    if (!a.contains(key) || a[key].is_null()) return fallback;
    check(a[key].is_number_integer() && a[key].get<int64_t>() >= -1 && a[key].get<int64_t>() <= (int64_t(1) << 40),
          file.string() + ": \"" + key + "\" should be an integer in [-1, 2^40], found " + a[key].dump());
    return a[key].get<int64_t>();
  };
  const int64_t train_batch = count("per_device_train_batch_size", 8);
  const int64_t accumulation = count("gradient_accumulation_steps", 1);
  add("learning_rate", str("learning_rate", 5e-5));
  add("train_batch_size", std::to_string(train_batch));
  add("eval_batch_size", std::to_string(count("per_device_eval_batch_size", 8)));
  if (a.contains("seed") && !a["seed"].is_null()) {
    check(a["seed"].is_number_integer(), file.string() + ": \"seed\" should be an integer, found " + a["seed"].dump());
    add("seed", a["seed"].dump());
  } else {
    add("seed", "42");
  }
  if (world_size > 1) {
    // HF writes "multi-GPU" for every torch.distributed run; precis says which devices ran.
    add("distributed_type", a.value("device", std::string("cpu")) == "cuda" ? "multi-GPU" : "multi-CPU");
    add("num_devices", std::to_string(world_size));
  }
  if (accumulation > 1) add("gradient_accumulation_steps", std::to_string(accumulation));
  const int64_t total_train = train_batch * world_size * accumulation;
  if (total_train != train_batch) add("total_train_batch_size", std::to_string(total_train));
  const int64_t eval_batch = count("per_device_eval_batch_size", 8);
  if (eval_batch * world_size != eval_batch) add("total_eval_batch_size", std::to_string(eval_batch * world_size));
  add("optimizer", "Adam with betas=(" + str("adam_beta1", 0.9) + "," + str("adam_beta2", 0.999) +
                                  ") and epsilon=" + str("adam_epsilon", 1e-8));
  add("lr_scheduler_type", a.value("lr_scheduler_type", std::string("linear")));
  if (num("warmup_ratio", 0) != 0) add("lr_scheduler_warmup_ratio", str("warmup_ratio", 0));
  if (num("warmup_steps", 0) != 0) add("lr_scheduler_warmup_steps", str("warmup_steps", 0));
  if (count("max_steps", -1) != -1)
    add("training_steps", std::to_string(count("max_steps", -1)));
  else
    add("num_epochs", str("num_train_epochs", 3.0));
  // precis's time budget ends training before the epochs or steps above when it runs out.
  if (num("max_train_time_s", 0) > 0) add("max_train_time_s", str("max_train_time_s", 0));
  if (a.value("fp16", false)) add("mixed_precision_training", "Native AMP");
  if (num("label_smoothing_factor", 0) != 0) add("label_smoothing_factor", str("label_smoothing_factor", 0));
  return s;
}

// log_history up to (not including) the final summary entry, as HF's parse_log_history reads it.
std::vector<json> training_logs(const json& state) {
  std::vector<json> out;
  for (const json& entry : state.value("log_history", json::array())) {
    if (entry.contains("train_runtime")) break;
    out.push_back(entry);
  }
  return out;
}

// Rows of the results table without evaluation: a run logging every 25 steps for 5000 steps
// would give 200 rows, which dwarf the card; the loss curve carries the detail.
constexpr size_t kMostTrainingLossRows = 20;

// Which of `n` logged losses the table shows: every m-th counted back from the last, m the
// smallest stride leaving at most `most` rows, so the rows sit at evenly spaced steps (for a
// run logging every k steps) and end at the last loss. In order.
std::vector<size_t> evenly_spaced_logs(size_t n, size_t most) {
  std::vector<size_t> picked;
  if (n == 0) return picked;
  const size_t stride = (n + most - 1) / most;
  for (size_t back = 0; back < n; back += stride) picked.push_back(n - 1 - back);
  std::reverse(picked.begin(), picked.end());
  return picked;
}

// "### Training results": one row per evaluation (HF's table). HF writes no rows without
// evaluation; precis shows the training loss at up to kMostTrainingLossRows evenly spaced steps.
std::string training_results(const std::vector<json>& logs) {
  std::vector<std::string> metric_keys;  // eval metrics other than loss, in rank order
  bool any_eval = false;
  for (const json& e : logs) {
    if (!e.contains("eval_loss")) continue;
    any_eval = true;
    for (const auto& [metric, value] : scores(e, "eval"))
      if (metric != "loss" && std::find(metric_keys.begin(), metric_keys.end(), metric) == metric_keys.end())
        metric_keys.push_back(metric);
  }
  std::stable_sort(metric_keys.begin(), metric_keys.end(), [](const std::string& a, const std::string& b) {
    const int ra = metric_rank(a), rb = metric_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  std::vector<std::string> header = {"Training Loss", "Epoch", "Step"};
  std::vector<std::vector<std::string>> rows;
  auto cell = [](const json& e, const std::string& key) { return e.contains(key) ? maybe_round(e[key]) : "-"; };
  if (any_eval) {
    header.push_back("Validation Loss");
    for (const auto& k : metric_keys) header.push_back(metric_display_name(k));
    std::string training_loss = "No log";
    for (const json& e : logs) {
      if (e.contains("loss")) training_loss = maybe_round(e["loss"]);
      if (!e.contains("eval_loss")) continue;
      std::vector<std::string> row = {training_loss, cell(e, "epoch"), cell(e, "step"), cell(e, "eval_loss")};
      for (const auto& k : metric_keys) row.push_back(cell(e, "eval_" + k));
      rows.push_back(std::move(row));
    }
  } else {
    std::vector<const json*> losses;
    for (const json& e : logs)
      if (e.contains("loss")) losses.push_back(&e);
    for (size_t i : evenly_spaced_logs(losses.size(), kMostTrainingLossRows)) {
      const json& e = *losses[i];
      rows.push_back({maybe_round(e["loss"]), cell(e, "epoch"), cell(e, "step")});
    }
  }
  if (rows.empty()) return "";
  return "\n### Training results\n\n" + markdown_table(header, rows);
}

std::pair<std::vector<CurvePoint>, std::vector<CurvePoint>> loss_points(const std::vector<json>& logs) {
  std::vector<CurvePoint> training, validation;
  for (const json& e : logs) {
    if (!e.contains("step")) continue;
    const double step = e["step"].get<double>();
    if (e.contains("loss") && e["loss"].is_number()) training.push_back({step, e["loss"].get<double>()});
    if (e.contains("eval_loss") && e["eval_loss"].is_number()) validation.push_back({step, e["eval_loss"].get<double>()});
  }
  return {training, validation};
}

std::string evaluation_results(const CardFacts& f) {
  if (f.results.empty()) return "";
  std::string s = "\n## Evaluation results\n";
  auto metric_label = [](const std::string& metric) -> std::string {
    static const std::map<std::string, std::string> labels = {
        {"loss", "Loss"},       {"rouge1", "ROUGE-1"},       {"rouge2", "ROUGE-2"},
        {"rougeL", "ROUGE-L"},  {"rougeLsum", "ROUGE-Lsum"}, {"gen_len", "Generation length (tokens)"}};
    auto it = labels.find(metric);
    return it == labels.end() ? metric_display_name(metric) : it->second;
  };
  for (const auto& r : f.results) {
    s += "\n### " + r.split + " split of " + r.dataset;
    if (r.samples) s += " (" + std::to_string(*r.samples) + " examples)";
    s += "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& [metric, value] : r.metrics) rows.push_back({metric_label(metric), maybe_round(value)});
    s += markdown_table({"Metric", "Value"}, rows);
  }
  s += "\nROUGE scores are F-measures x 100 (rouge_score with stemming, ROUGE-Lsum on sentences split by line), "
       "as run_summarization.py reports them.\n";
  return s;
}

// A bash double-quoted argument.
std::string shell_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\' || ch == '$' || ch == '`') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string usage(const CardFacts& f) {
  const std::string text = f.widget_text.value_or(kExampleText);
  std::string s = "\n## Usage\n\nWith precis, from a clone of this repository:\n\n```bash\n";
  s += "precis generate --model " + f.model_name + " --text " + shell_quote(text) + "\n```\n";
  s += "\nWith transformers:\n\n```python\nfrom transformers import pipeline\n\n";
  s += "summarizer = pipeline(\"summarization\", model=" + json(f.model_name).dump() + ")\n";
  s += "print(summarizer(" + json(text).dump() + "))\n```\n";
  return s;
}

}  // namespace

ModelCardFiles render_model_card(const fs::path& dir, const ModelCardOptions& options) {
  const ModelDirectory m = read_model_directory(dir);
  const CardFacts f = card_facts(m, options);
  std::vector<json> logs;
  if (m.state) logs = from_file(dir / "trainer_state.json", [&] { return training_logs(*m.state); });

  ModelCardFiles out;
  std::string& s = out.readme;
  s += front_matter(f, options);
  s += "\n<!-- This model card was written by `precis card` from the files in the model directory. -->\n";
  s += "\n# " + f.model_name + "\n\n";
  s += description(m, f);

  if (m.args || !logs.empty()) {
    s += "\n## Training procedure\n";
    if (m.args) {
      s += "\n### Training hyperparameters\n";
      s += from_file(dir / "training_args.json", [&] { 
        int64_t world = 1;
        if (m.job && m.job->contains("world_size") && (*m.job)["world_size"].is_number_integer())
          world = std::clamp<int64_t>((*m.job)["world_size"].get<int64_t>(), 1, int64_t(1) << 20);
        return hyperparameters(*m.args, dir / "training_args.json", world);
      });
    }
    if (!logs.empty()) {
      s += from_file(dir / "trainer_state.json", [&] { return training_results(logs); });
      const auto [training, validation] = from_file(dir / "trainer_state.json", [&] { return loss_points(logs); });
      if (!training.empty() || !validation.empty()) {
        out.loss_curve_svg = loss_curve_svg(training, validation);
        s += "\n![" + loss_curve_description(training, validation) + "](loss_curve.svg)\n";
      }
    }
  }
  s += evaluation_results(f);
  s += usage(f);
  s += "\n## Framework versions\n\n";
  s += "- precis " + std::string(kPrecisVersion) + "\n";
  s += "- Transformers " + std::string(kTransformersFormatVersion) + " (checkpoint format)\n";
  return out;
}

std::string model_card(const fs::path& dir, const ModelCardOptions& options) {
  return render_model_card(dir, options).readme;
}

fs::path write_model_card(const fs::path& dir, const ModelCardOptions& options) {
  const ModelCardFiles files = render_model_card(dir, options);
  if (!files.loss_curve_svg.empty()) write_file_atomic(dir / "loss_curve.svg", files.loss_curve_svg);
  write_file_atomic(dir / "README.md", files.readme);
  return dir / "README.md";
}

}  // namespace precis::hub
