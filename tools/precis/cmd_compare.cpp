// precis compare: score a model's predictions and the lead baseline (the text's first
// sentence) against the references of a dataset file, side by side, and show samples.
// The main job (scripts/demo.sh) ends with it.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "command.h"
#include "precis/core/error.h"
#include "precis/data/dataset.h"
#include "precis/eval/sentence_split.h"
#include "precis/eval/summarization_metrics.h"

namespace {

struct CompareOptions {
  std::string data, predictions, text_column, summary_column;
  size_t max_samples = 0, show = 5;
  uint32_t seed = 42;
};

std::string shorten(const std::string& s, size_t n) {
  std::string one_line;
  for (char c : s) one_line += c == '\n' ? ' ' : c;
  if (one_line.size() <= n) return one_line;
  size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(one_line[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return one_line.substr(0, cut) + "...";
}

// generated_predictions.txt as run_summarization writes it: "\n".join(predictions), so N
// predictions are N lines even when the last one is empty.
std::vector<std::string> read_prediction_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  precis::check(bool(in), path + ": cannot open");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

void run(const CompareOptions& o) {
  using namespace precis;
  data::ReadOptions read = data::columns_for("", o.text_column, o.summary_column);
  if (o.max_samples) read.max_samples = o.max_samples;
  data::Dataset ds = data::read_dataset(o.data, read);
  std::vector<std::string> predictions = read_prediction_lines(o.predictions);
  precis::check(predictions.size() == ds.records.size(),
        o.predictions + " holds " + std::to_string(predictions.size()) + " predictions but " + o.data +
            " gives " + std::to_string(ds.records.size()) + " records (same max_samples as the prediction run?)");
  std::vector<std::string> references, lead;
  for (const auto& r : ds.records) {
    references.push_back(r.summary);
    auto sentences = eval::split_sentences(r.text);
    lead.push_back(sentences.empty() ? std::string() : std::string(sentences.front()));
  }
  eval::SummarizationScores model = eval::score_texts(predictions, references, o.seed);
  eval::SummarizationScores baseline = eval::score_texts(lead, references, o.seed);
  std::printf("ROUGE (mean F1 x100) on %zu examples of %s\n", references.size(), o.data.c_str());
  std::printf("  %-24s %8s %8s %8s %9s\n", "", "rouge1", "rouge2", "rougeL", "rougeLsum");
  auto row = [](const char* name, const eval::SummarizationScores& s) {
    std::printf("  %-24s %8.2f %8.2f %8.2f %9.2f\n", name, 100 * s.rouge1_mean, 100 * s.rouge2_mean,
                100 * s.rougeL_mean, 100 * s.rougeLsum_mean);
  };
  row("model", model);
  row("lead (first sentence)", baseline);
  std::printf("  model - lead, rougeL: %+.2f\n\n", 100 * (model.rougeL_mean - baseline.rougeL_mean));
  for (size_t i = 0; i < std::min(o.show, references.size()); ++i) {
    std::printf("[%zu] text:      %s\n", i + 1, shorten(ds.records[i].text, 200).c_str());
    std::printf("    reference: %s\n", references[i].c_str());
    std::printf("    model:     %s\n", predictions[i].c_str());
    std::printf("    lead:      %s\n\n", shorten(lead[i], 200).c_str());
  }
  nlohmann::json j = {{"examples", references.size()},
                      {"model", {{"rouge1", model.rouge1_mean}, {"rouge2", model.rouge2_mean},
                                 {"rougeL", model.rougeL_mean}, {"rougeLsum", model.rougeLsum_mean}}},
                      {"lead", {{"rouge1", baseline.rouge1_mean}, {"rouge2", baseline.rouge2_mean},
                                {"rougeL", baseline.rougeL_mean}, {"rougeLsum", baseline.rougeLsum_mean}}}};
  std::printf("%s\n", j.dump().c_str());
}

}  // namespace

PRECIS_COMMAND("compare", "Score predictions and the lead baseline against a dataset's references; show samples",
               [](CLI::App& app) {
                 auto o = std::make_shared<CompareOptions>();
                 app.add_option("--data", o->data, "Dataset file with texts and reference summaries")->required();
                 app.add_option("--predictions", o->predictions, "Predictions, one per line (e.g. generated_predictions.txt)")->required();
                 app.add_option("--text_column", o->text_column, "Column with the text (default: dialogue)");
                 app.add_option("--summary_column", o->summary_column, "Column with the reference (default: summary)");
                 app.add_option("--max_samples", o->max_samples, "Use the first N records (as the prediction run did)");
                 app.add_option("--show", o->show, "Samples to print")->capture_default_str();
                 app.add_option("--seed", o->seed, "Bootstrap seed")->capture_default_str();
                 app.callback([o] { run(*o); });
               });
