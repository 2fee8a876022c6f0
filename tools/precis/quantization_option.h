// --quantization for the commands that generate (generate, eval, serve): the weights the CPU
// multiplies by, fp32 (none, the default), int8 or bf16 (kernels/constant_weights.h). The job's log
// says which path runs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "precis/kernels/constant_weights.h"

namespace precis::cli {

inline void add_quantization_option(CLI::App& app) {
  app.add_option_function<std::string>(
      "--quantization",
      [](const std::string& v) {
        set_weight_quantization(parse_weight_quantization(v, "--quantization"));
        std::fprintf(stderr, "precis: %s\n", weight_quantization_description().c_str());
      },
      "Weights on the CPU: none (fp32, HF's products), int8 (per-channel int8 weights, "
      "activations quantized per row as the products run; on AMX-INT8, AVX512-VNNI or AVX2) or bf16 "
      "(the linear layers in bf16 with fp32 sums, weights packed once; needs AMX-BF16)");
}

}  // namespace precis::cli
