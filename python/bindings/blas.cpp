// precis.blas_report() and the import-time check of python/precis/_blas.py: the BLAS library this
// process runs, its core and who chose it, the CPU, and the cores the CPU could run, best first.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "precis/kernels/cpu/blas_core.h"

namespace precis::python {

void bind_blas(nb::module_& m) {
  m.def("blas_report", [] {
    const cpu::BlasReport r = cpu::blas_report();
    nb::dict d;
    d["library"] = r.library;
    d["core"] = r.core;
    d["chosen_by"] = r.chose;
    d["note"] = r.note;
    d["cpu"] = r.cpu.model;
    d["candidates"] = cpu::blas_cores_for(r.cpu);
    d["core_level"] = cpu::blas_core_level(r.core);
    std::vector<int> levels;
    for (const std::string& c : cpu::blas_cores_for(r.cpu)) levels.push_back(cpu::blas_core_level(c));
    d["candidate_levels"] = levels;
    return d;
  }, "The BLAS library, the core it runs, who chose it, the CPU, and the cores the CPU could run (best first)");
}

}  // namespace precis::python
