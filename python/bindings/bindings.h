// The parts of the extension module precis._precis, one file each: errors, JSON values, the
// tokenizer, ROUGE, the summarization model behind precis.pipeline, training, evaluation, and
// the model card and publishing. Each converts Python arguments to the library's types and
// its results back; the work, the option names and the messages are the library's.
#pragma once

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

namespace precis::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_tokenizer(nb::module_& m);
void bind_rouge(nb::module_& m);
void bind_summarization_model(nb::module_& m);
void bind_training(nb::module_& m);
void bind_evaluation(nb::module_& m);
void bind_hub(nb::module_& m);
void bind_blas(nb::module_& m);
void bind_hf_semantics(nb::module_& m);

// Python values (dict, list, str, int, float, bool, None) to JSON and back, through Python's
// json module: the library's settings are JSON, as a config file holds them. Values json
// cannot write (a Path, an enum) go as their str().
nlohmann::json to_json(nb::handle value);
nb::object from_json(const nlohmann::json& value);

}  // namespace precis::python
