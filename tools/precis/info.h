// What `precis info` and `precis --version` print: the version, the BLAS library and the core
// it runs, the CPU and what it can run, the GPU backend of this build.
#pragma once

#include <string>

namespace precis::cli {

std::string info_text();

// The BLAS line of the job log (train, eval, generate, serve): what precis chose at start and
// why, or that OpenBLAS runs kernels below the CPU's; empty when OpenBLAS chose well.
void log_blas_choice(const char* command);

}  // namespace precis::cli
