// precis::Error becomes precis.Error, a ValueError, with the library's message: the line the
// CLI prints after "precis: error:". Nothing the library throws aborts the interpreter.
#include "bindings.h"
#include "precis/core/error.h"

namespace precis::python {

void bind_errors(nb::module_& m) {
  nb::exception<precis::Error>(m, "Error", PyExc_ValueError);
}

}  // namespace precis::python
