// precis.set_hf_semantics / precis.hf_semantics: the transformers release (5 or 4.44) the
// package follows where releases differ, for every call after it (as --hf_semantics does for a
// command; precis.train also takes hf_semantics as a training argument).
#include "precis/core/hf_semantics.h"

#include <nanobind/stl/string.h>

#include "bindings.h"

namespace precis::python {

void bind_hf_semantics(nb::module_& m) {
  m.def(
      "set_hf_semantics",
      [](const std::string& release) {
        set_hf_semantics(parse_hf_semantics(release, "precis.set_hf_semantics"));
      },
      nb::arg("release"),
      "Follow transformers 5 (\"5\", the default) or 4.44 (\"4.44\") where the releases differ "
      "(docs/hf-semantics.md)");
  m.def(
      "hf_semantics", [] { return std::string(hf_semantics_name(precis::hf_semantics())); },
      "The release followed: \"5\" or \"4.44\" (set_hf_semantics, else PRECIS_HF_SEMANTICS, "
      "else \"5\")");
}

}  // namespace precis::python
