#include "precis/kernels/grad_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

double sum_of_squares(const Tensor& x) { return cpu::sum_of_squares(x.f32(), x.numel()); }

}  // namespace precis
