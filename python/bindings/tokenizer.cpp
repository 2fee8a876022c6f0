// precis.AutoTokenizer's methods over CheckpointTokenizer.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "checkpoint_tokenizer.h"

namespace precis::python {

void bind_tokenizer(nb::module_& m) {
  nb::class_<CheckpointTokenizer>(m, "Tokenizer")
      .def(nb::init<const std::string&>(), nb::arg("directory"))
      .def("call", &CheckpointTokenizer::call, nb::arg("texts"), nb::arg("add_special_tokens"),
           nb::arg("truncation").none(), nb::arg("max_length").none(), nb::arg("padding"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("decode", &CheckpointTokenizer::decode, nb::arg("ids"), nb::arg("skip_special_tokens"),
           nb::arg("clean_up_tokenization_spaces").none())
      .def_prop_ro("pad_token_id", &CheckpointTokenizer::pad_token_id)
      .def_prop_ro("model_max_length", &CheckpointTokenizer::model_max_length)
      .def("__len__", &CheckpointTokenizer::size)
      .def("save", &CheckpointTokenizer::save, nb::arg("directory"));
}

}  // namespace precis::python
