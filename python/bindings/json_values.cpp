// JSON across the boundary through Python's own json module: exact for floats both ways
// (repr's shortest round trip in, 17 significant digits out), and the library sees the
// same values a config file would give it.
#include "bindings.h"

#include <nanobind/stl/string.h>

namespace precis::python {

nlohmann::json to_json(nb::handle value) {
  nb::module_ json = nb::module_::import_("json");
  nb::object builtins_str = nb::module_::import_("builtins").attr("str");
  const std::string text =
      nb::cast<std::string>(json.attr("dumps")(value, nb::arg("default") = builtins_str,
                                               nb::arg("ensure_ascii") = false));
  return nlohmann::json::parse(text);
}

nb::object from_json(const nlohmann::json& value) {
  return nb::module_::import_("json").attr("loads")(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace precis::python
