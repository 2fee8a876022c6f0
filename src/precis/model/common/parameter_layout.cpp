// Every family's allocate_parameters, parameter_bytes and parameter_count (declared in its
// <family>_params.h): the templates of parameter_layout.h over the family's config and
// parameter types, so that a family's own file holds only its visit_parameters.
#include "precis/model/common/parameter_layout.h"

#include "precis/model/families.h"

namespace precis {

#define PRECIS_PARAMETER_LAYOUT(Model, Config, family)                                             \
  void allocate_parameters(const Config& c, ParamsOf<Config>& p, Arena& arena) {                   \
    lay_out_parameters(c, p, arena);                                                               \
  }                                                                                                \
  size_t parameter_bytes(const Config& c) { return measure_parameter_bytes<ParamsOf<Config>>(c); } \
  int64_t parameter_count(const Config& c) {                                                       \
    return count_trainable_parameters<ParamsOf<Config>>(c);                                        \
  }
PRECIS_MODEL_FAMILIES(PRECIS_PARAMETER_LAYOUT)
#undef PRECIS_PARAMETER_LAYOUT

}  // namespace precis
