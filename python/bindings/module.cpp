// precis._precis: the library under the Python package precis (python/precis/).
#include "bindings.h"

NB_MODULE(_precis, m) {
  m.doc() = "precis's C++ library; use the package precis, which wraps it in Hugging Face's shapes";
  precis::python::bind_errors(m);
  precis::python::bind_tokenizer(m);
  precis::python::bind_rouge(m);
  precis::python::bind_summarization_model(m);
  precis::python::bind_training(m);
  precis::python::bind_evaluation(m);
  precis::python::bind_hub(m);
  precis::python::bind_blas(m);
  precis::python::bind_hf_semantics(m);
}
