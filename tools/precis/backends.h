// The CLI's compute backends, registered by main before any job runs (backends.cpp).
#pragma once

namespace precis::cli {

void register_backends();

}  // namespace precis::cli
