// precis.rouge: evaluate.load("rouge").compute's result from the library's rouge_score twin:
// each pair scored by RougeScorer; with use_aggregator, BootstrapAggregator's mid fmeasure
// with NumPy's draws after numpy.random.seed(bootstrap_seed) (as precis rouge
// --bootstrap_seed); without, each pair's fmeasure.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "precis/core/error.h"
#include "precis/eval/rouge_aggregate.h"
#include "precis/eval/rouge_scorer.h"

namespace precis::python {

namespace {

nlohmann::json rouge(const std::vector<std::string>& predictions, const std::vector<std::string>& references,
                     const std::optional<std::vector<std::string>>& rouge_types, bool use_aggregator,
                     bool use_stemmer, uint32_t bootstrap_seed) {
  using namespace precis::eval;
  check(predictions.size() == references.size(),
        "rouge: " + std::to_string(predictions.size()) + " predictions but " + std::to_string(references.size()) +
            " references; they must pair up");
  check(!predictions.empty(), "rouge: no predictions to score");
  std::vector<int> types;
  for (const std::string& name : rouge_types.value_or(std::vector<std::string>(kRougeTypeNames.begin(),
                                                                               kRougeTypeNames.end()))) {
    auto at = std::find(kRougeTypeNames.begin(), kRougeTypeNames.end(), name);
    check(at != kRougeTypeNames.end(), "rouge: unknown rouge type \"" + name +
                                           "\" (precis scores rouge1, rouge2, rougeL and rougeLsum)");
    types.push_back(int(at - kRougeTypeNames.begin()));
  }
  RougeScorer scorer(use_stemmer);
  std::vector<PairScores> pairs;
  pairs.reserve(predictions.size());
  for (size_t i = 0; i < predictions.size(); ++i) pairs.push_back(scorer.score(references[i], predictions[i]));

  nlohmann::json out = nlohmann::json::object();
  if (use_aggregator) {
    BootstrapOptions options;
    options.seed = bootstrap_seed;
    const auto bootstrap = bootstrap_scores(pairs, options);
    for (int t : types) out[std::string(kRougeTypeNames[size_t(t)])] = bootstrap[size_t(t)].mid.fmeasure;
  } else {
    for (int t : types) {
      nlohmann::json scores = nlohmann::json::array();
      for (const PairScores& p : pairs) scores.push_back(p[size_t(t)].fmeasure);
      out[std::string(kRougeTypeNames[size_t(t)])] = scores;
    }
  }
  return out;
}

}  // namespace

void bind_rouge(nb::module_& m) {
  m.def(
      "rouge",
      [](const std::vector<std::string>& predictions, const std::vector<std::string>& references,
         const std::optional<std::vector<std::string>>& rouge_types, bool use_aggregator, bool use_stemmer,
         uint32_t bootstrap_seed) {
        nlohmann::json result;
        {
          nb::gil_scoped_release released;
          result = rouge(predictions, references, rouge_types, use_aggregator, use_stemmer, bootstrap_seed);
        }
        return from_json(result);
      },
      nb::arg("predictions"), nb::arg("references"), nb::arg("rouge_types").none(), nb::arg("use_aggregator"),
      nb::arg("use_stemmer"), nb::arg("bootstrap_seed"));
}

}  // namespace precis::python
