// precis rouge: ROUGE-1/2/L/Lsum of predictions against references, as rouge_score computes
// them (use_stemmer=True unless --no_stemmer). Prints one JSON object: the mean F-measure
// of each type on a 0-1 scale, rouge_score's bootstrap aggregate, run_summarization's
// rounded percentages, and with --per_example every pair's scores.
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "precis/core/error.h"
#include "precis/eval/rouge_aggregate.h"
#include "precis/eval/rouge_scorer.h"
#include "precis/eval/sentence_split.h"
#include "precis/eval/text_file.h"

namespace {

struct RougeOptions {
  std::string predictions;
  std::string references;
  bool per_example = false;
  bool no_stemmer = false;
  bool split_sentences = false;
  uint32_t bootstrap_seed = 0;
};

// Which sentence splitter --split_sentences and rouge_sentences use.
struct SplitterOptions {
  std::string punkt_dir;
  bool rule_based = false;
};

void add_splitter_options(CLI::App& app, SplitterOptions& o) {
  auto* dir = app.add_option("--punkt_dir", o.punkt_dir,
                             "NLTK's Punkt tables to split with (a punkt_tab language directory, e.g. "
                             "~/nltk_data/tokenizers/punkt_tab/english); default: where NLTK finds "
                             "tokenizers/punkt_tab/english ($NLTK_DATA, ~/nltk_data, ...), else precis's "
                             "rule-based splitter");
  app.add_flag("--rule_based_splitter", o.rule_based,
               "Split with precis's rule-based splitter even where NLTK's Punkt tables are found")
      ->excludes(dir);
}

precis::eval::SentenceSplitter splitter_for(const SplitterOptions& o) {
  using precis::eval::SentenceSplitter;
  if (!o.punkt_dir.empty()) return SentenceSplitter::punkt(o.punkt_dir);
  if (o.rule_based) return SentenceSplitter::rule_based();
  return precis::eval::default_sentence_splitter();
}

nlohmann::json score_json(const precis::eval::Score& s) {
  return {{"precision", s.precision}, {"recall", s.recall}, {"fmeasure", s.fmeasure}};
}

void run_rouge(const RougeOptions& o, const SplitterOptions& splitter_options) {
  using namespace precis::eval;
  std::vector<std::string> predictions = read_texts(o.predictions);
  std::vector<std::string> references = read_texts(o.references);
  precis::check(predictions.size() == references.size(),
                "'" + o.predictions + "' holds " + std::to_string(predictions.size()) + " predictions but '" +
                    o.references + "' holds " + std::to_string(references.size()) +
                    " references; they must pair up line by line");
  precis::check(!predictions.empty(), "'" + o.predictions + "' and '" + o.references + "' hold no text to score");
  std::optional<SentenceSplitter> splitter;
  if (o.split_sentences) {
    splitter = splitter_for(splitter_options);
    for (std::string& t : predictions) t = splitter->on_lines(t);
    for (std::string& t : references) t = splitter->on_lines(t);
  }

  RougeScorer scorer(!o.no_stemmer);
  std::vector<PairScores> pairs;
  pairs.reserve(predictions.size());
  for (size_t i = 0; i < predictions.size(); ++i) pairs.push_back(scorer.score(references[i], predictions[i]));

  const PairScores mean = mean_scores(pairs);
  BootstrapOptions bootstrap_options;
  bootstrap_options.seed = o.bootstrap_seed;
  const auto bootstrap = bootstrap_scores(pairs, bootstrap_options);

  nlohmann::ordered_json out;
  for (int t = 0; t < kNumRougeTypes; ++t) out[std::string(kRougeTypeNames[t])] = mean[t].fmeasure;
  out["num_examples"] = pairs.size();
  out["use_stemmer"] = !o.no_stemmer;
  out["split_sentences"] = o.split_sentences;
  if (splitter) out["sentence_splitter"] = splitter->description();
  nlohmann::ordered_json boot;
  boot["seed"] = bootstrap_options.seed;
  boot["n_samples"] = bootstrap_options.n_samples;
  boot["confidence_interval"] = bootstrap_options.confidence_interval;
  nlohmann::ordered_json percent;
  for (int t = 0; t < kNumRougeTypes; ++t) {
    const std::string name(kRougeTypeNames[t]);
    boot[name] = {{"low", score_json(bootstrap[t].low)},
                  {"mid", score_json(bootstrap[t].mid)},
                  {"high", score_json(bootstrap[t].high)}};
    percent[name] = round_percent(bootstrap[t].mid.fmeasure);
  }
  out["bootstrap"] = boot;
  out["run_summarization_percent"] = percent;
  if (o.per_example) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const PairScores& p : pairs) {
      nlohmann::ordered_json row;
      for (int t = 0; t < kNumRougeTypes; ++t) row[std::string(kRougeTypeNames[t])] = score_json(p[t]);
      rows.push_back(row);
    }
    out["per_example"] = rows;
  }
  std::printf("%s\n", out.dump(2).c_str());
}

// The tokens ROUGE compares for each text (after stemming unless --no_stemmer): what a user
// reads to see why two texts match or not, and what the oracle checks token by token.
void run_rouge_tokens(const std::string& input, bool no_stemmer) {
  precis::eval::CachedStemmer stemmer;
  for (const std::string& text : precis::eval::read_texts(input)) {
    const nlohmann::json tokens = precis::eval::rouge_tokenize(text, no_stemmer ? nullptr : &stemmer);
    std::printf("%s\n", tokens.dump().c_str());
  }
}

PRECIS_COMMAND("rouge_tokens", "Print the ROUGE tokens of each text as JSON lines (rouge_score's DefaultTokenizer)",
               [](CLI::App& app) {
                 auto input = std::make_shared<std::string>();
                 auto no_stemmer = std::make_shared<bool>(false);
                 app.add_option("--input", *input, "Texts: JSON lines or plain text, as for precis rouge")->required();
                 app.add_flag("--no_stemmer", *no_stemmer, "Do not Porter-stem tokens");
                 app.callback([input, no_stemmer] { run_rouge_tokens(*input, *no_stemmer); });
               });

// What --split_sentences makes of each text: its sentences, one per line (JSON lines).
PRECIS_COMMAND("rouge_sentences", "Print each text with one sentence per line, as precis rouge --split_sentences sees it",
               [](CLI::App& app) {
                 auto input = std::make_shared<std::string>();
                 auto splitter = std::make_shared<SplitterOptions>();
                 app.add_option("--input", *input, "Texts: JSON lines or plain text, as for precis rouge")->required();
                 add_splitter_options(app, *splitter);
                 app.callback([input, splitter] {
                   const precis::eval::SentenceSplitter s = splitter_for(*splitter);
                   for (const std::string& text : precis::eval::read_texts(*input))
                     std::printf("%s\n", nlohmann::json(s.on_lines(text)).dump().c_str());
                 });
               });

PRECIS_COMMAND("rouge", "ROUGE-1/2/L/Lsum of predictions against references, identical to rouge_score",
               [](CLI::App& app) {
                 auto o = std::make_shared<RougeOptions>();
                 auto splitter = std::make_shared<SplitterOptions>();
                 app.add_option("--predictions", o->predictions,
                                "Predictions: JSON lines (one JSON string per line) or plain text (one per line)")
                     ->required();
                 app.add_option("--references", o->references, "References, in the same order and format rules")
                     ->required();
                 app.add_flag("--per_example", o->per_example, "Also print each pair's precision/recall/fmeasure");
                 app.add_flag("--no_stemmer", o->no_stemmer,
                              "Do not Porter-stem tokens (run_summarization stems: use_stemmer=True)");
                 app.add_flag("--split_sentences", o->split_sentences,
                              "Put one sentence per line first, as run_summarization's postprocess_text does with "
                              "nltk.sent_tokenize (NLTK's Punkt where its English tables are found, see "
                              "--punkt_dir; affects rougeLsum only)");
                 add_splitter_options(app, *splitter);
                 app.add_option("--bootstrap_seed", o->bootstrap_seed,
                                "Seed of the bootstrap resampling; equals rouge_score's numbers after "
                                "numpy.random.seed(N)")
                     ->default_val(0);
                 app.callback([o, splitter] { run_rouge(*o, *splitter); });
               });

}  // namespace
