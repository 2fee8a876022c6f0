// --hf_semantics for the commands that generate, evaluate, tokenize or serve: the transformers
// release (5 or 4.44) whose behaviour they follow where releases differ (core/hf_semantics.h).
// `precis train` takes it as a training argument instead (so --config and SageMaker have it).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "precis/core/hf_semantics.h"

namespace precis::cli {

inline void add_hf_semantics_option(CLI::App& app) {
  app.add_option_function<std::string>(
      "--hf_semantics",
      [](const std::string& v) { set_hf_semantics(parse_hf_semantics(v, "--hf_semantics")); },
      "The transformers release to follow where releases differ: 5 (5.23, the default) or 4.44 "
      "(4.44.2); PRECIS_HF_SEMANTICS sets the default; docs/hf-semantics.md lists the differences");
}

}  // namespace precis::cli
