// precis.evaluate: `precis eval`'s job (eval::evaluate_checkpoint) on its options struct, whose
// fields are the command's long option names; the metrics come back as the dict
// eval_results.json holds.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <initializer_list>
#include <utility>

#include "bindings.h"
#include "precis/eval/checkpoint_evaluation.h"

namespace precis::python {

namespace {

using eval::EvaluationOptions;

// The options' fields of one type, by name.
template <class T>
using Fields = std::initializer_list<std::pair<const char*, T EvaluationOptions::*>>;

// run_summarization's summary lengths read as flat options, as the command line has them.
template <std::optional<int64_t> eval::SummaryLengths::*field>
void bind_length(nb::class_<EvaluationOptions>& c, const char* name) {
  c.def_prop_rw(
      name, [](const EvaluationOptions& o) { return o.lengths.*field; },
      [](EvaluationOptions& o, std::optional<int64_t> v) { o.lengths.*field = v; },
      nb::arg("value").none());
}

}  // namespace

void bind_evaluation(nb::module_& m) {
  nb::class_<EvaluationOptions> options(m, "EvaluationOptions");
  options.def(nb::init<>());
  using O = EvaluationOptions;
  for (auto [name, field] : Fields<std::string>{{"model", &O::model},
                                                {"data", &O::data},
                                                {"text_column", &O::text_column},
                                                {"summary_column", &O::summary_column},
                                                {"source_prefix", &O::source_prefix},
                                                {"dataset_name", &O::dataset_name},
                                                {"output_dir", &O::output_dir}})
    options.def_rw(name, field);
  for (auto [name, field] : Fields<size_t>{{"max_source_length", &O::max_source_length},
                                           {"max_eval_samples", &O::max_eval_samples}})
    options.def_rw(name, field);
  for (auto [name, field] :
       Fields<int64_t>{{"per_device_eval_batch_size", &O::per_device_eval_batch_size},
                       {"num_beams", &O::num_beams}})
    options.def_rw(name, field);
  for (auto [name, field] : Fields<bool>{{"pad_to_max_length", &O::pad_to_max_length},
                                         {"predict_with_generate", &O::predict_with_generate}})
    options.def_rw(name, field);
  options.def_rw("seed", &O::seed);
  bind_length<&eval::SummaryLengths::max_target_length>(options, "max_target_length");
  bind_length<&eval::SummaryLengths::val_max_target_length>(options, "val_max_target_length");
  bind_length<&eval::SummaryLengths::generation_max_length>(options, "generation_max_length");
  m.def("evaluate", [](const EvaluationOptions& options) {
    nlohmann::json metrics;
    {
      nb::gil_scoped_release released;
      metrics = eval::evaluate_checkpoint(options);
    }
    return from_json(metrics);
  });
}

}  // namespace precis::python
