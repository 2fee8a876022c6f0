// The logits processors and sampling warpers of a resolved GenerationConfig, as the decoding
// ops' parameters (kernels/decoding.h): what transformers 4.44's
// GenerationMixin._get_logits_processor and _get_logits_warper build (generation/utils.py).
#pragma once

#include <cstdint>

#include "precis/generate/generation_config.h"
#include "precis/kernels/decoding.h"

namespace precis::generate {

// Repetition penalty, no-repeat n-gram, bad words (without the words equal to [eos]), min
// length, min new tokens, forced BOS, forced EOS.
LogitsProcessing logits_processing(const ResolvedGeneration& generation);

// Temperature, top-k, top-p; min_keep is 1 without beams.
LogitsWarping logits_warping(const ResolvedGeneration& generation, int64_t min_keep = 1);

}  // namespace precis::generate
