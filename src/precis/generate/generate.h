// generate(): transformers 4.44's generate() for BART and T5 (generation/utils.py,
// GenerationMixin.generate, _sample and _beam_search): greedy search, multinomial
// sampling and beam search (BeamSearchScorer), with the logits processors of the resolved
// GenerationConfig. Tokenizer-independent: inputs are token ids; outputs are the id rows HF
// returns (decoder start token first, right-padded with pad_token_id).
//
// Used by `precis generate`, the trainer's predict_with_generate and the server.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/core/tensor.h"
#include "precis/core/torch_cpu_generator.h"
#include "precis/generate/generation_config.h"
#include "precis/model/families.h"

namespace precis::generate {

struct GenerateOptions {
  // Keep every step's raw logits (HF's output_logits): steps x running rows x V floats.
  bool output_logits = false;
  // What sampling draws from. HF's generate() draws from torch's global CPU generator, which
  // goes on from one call to the next: a caller that generates batch after batch after one
  // torch.manual_seed (the pipeline over a list, run_summarization's predict) passes one
  // generator to every call. Null: a fresh one seeded with the config's `seed`.
  TorchCpuGenerator* generator = nullptr;
};

struct Generated {
  int64_t rows = 0;                     // inputs * num_return_sequences, input-major (HF's order)
  int64_t width = 0;                    // tokens per row, start token included
  std::vector<int32_t> sequences;       // rows * width
  std::vector<double> sequence_scores;  // beam search: each row's length-normalised score
  // With output_logits: step s, running row r at logits[(s * running_rows + r) * V ...].
  int64_t steps = 0, running_rows = 0, vocab = 0;
  std::vector<float> logits;

  std::span<const int32_t> row(int64_t r) const {
    return {sequences.data() + r * width, size_t(width)};
  }
};

// Model: a family's (model/families.h), decoding with its IncrementalDecoder from its
// decoder_start_token_id (T5's is pad). Explicitly instantiated for every family.
// input_ids (B, S) I32 right-padded; attention_mask (B, S) I32, 1 = token.
template <class Model>
Generated generate(const Model& model, const Tensor& input_ids, const Tensor& attention_mask,
                   const GenerationConfig& config, const GenerateOptions& options = {});

// Already-tokenized inputs of any lengths: padded here with the model's pad_token_id.
template <class Model>
Generated generate(const Model& model, std::span<const std::vector<int32_t>> inputs,
                   const GenerationConfig& config, const GenerateOptions& options = {});

}  // namespace precis::generate
