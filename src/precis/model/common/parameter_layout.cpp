// Both families' allocate_parameters, parameter_bytes and parameter_count (declared in
// bart_params.h and t5_params.h): the templates of parameter_layout.h over each family's
// config and parameter types, so that a family's own file holds only its visit_parameters.
#include "precis/model/common/parameter_layout.h"

#include "precis/model/bart/bart_params.h"
#include "precis/model/t5/t5_params.h"

namespace precis {

void allocate_parameters(const BartConfig& c, BartParams& p, Arena& arena) {
  lay_out_parameters(c, p, arena);
}
void allocate_parameters(const T5Config& c, T5Params& p, Arena& arena) {
  lay_out_parameters(c, p, arena);
}

size_t parameter_bytes(const BartConfig& c) { return measure_parameter_bytes<BartParams>(c); }
size_t parameter_bytes(const T5Config& c) { return measure_parameter_bytes<T5Params>(c); }

int64_t parameter_count(const BartConfig& c) { return count_trainable_parameters<BartParams>(c); }
int64_t parameter_count(const T5Config& c) { return count_trainable_parameters<T5Params>(c); }

}  // namespace precis
