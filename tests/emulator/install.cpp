#include "install.h"

#include "precis/kernels/cuda/twins.h"

namespace precis::cuda_emulation {

void install() { cuda::install(&cuda::twins()); }

}  // namespace precis::cuda_emulation
