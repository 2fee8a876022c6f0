// The CLI's compute backends, registered by main before any job runs (backends.cpp).
#pragma once

#include <string>

namespace precis::cli {

void register_backends();

// "CUDA (this build has it; GPUs are found at run time)" or "none (built without CUDA)".
std::string backends_description();

}  // namespace precis::cli
