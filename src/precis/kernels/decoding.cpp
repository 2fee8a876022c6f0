#include "precis/kernels/decoding.h"

#include <string>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

namespace {

void check_scores(const char* op, const Tensor& scores) {
  check(scores.rank() == 2 && scores.dtype == DType::F32 && scores.size(1) > 0,
        std::string(op) + ": scores must be (rows, vocabulary) F32, found " + scores.describe());
}

}  // namespace

void next_token_scores(const Tensor& scores, const Tensor& history, int64_t length,
                       const LogitsProcessing& processing, const Tensor& beam_scores) {
  check_scores("next_token_scores", scores);
  check(history.rank() == 3 && history.dtype == DType::I32 && history.size(0) == scores.size(0) &&
            history.size(2) == 1 && length >= 1 && length <= history.size(1),
        "next_token_scores: history " + history.describe() + " with length " +
            std::to_string(length) + " for scores " + scores.describe());
  const bool beam = beam_scores.ptr != nullptr;
  check(!beam || (beam_scores.dtype == DType::F32 && beam_scores.numel() == scores.size(0)),
        "next_token_scores: beam scores " + beam_scores.describe() + " for " + scores.describe());
  float* beams = beam ? beam_scores.f32() : nullptr;
  // Without beams, beam_scores has no memory and does not count toward the device.
  dispatch_op(
      "next_token_scores", {&scores, &history, &beam_scores},
      [&] {
        cpu::next_token_scores(scores.f32(), scores.size(0), scores.size(1), history.i32(),
                               history.size(1), length, processing, beams);
      },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::next_token_scores, scores.f32(), scores.size(0), scores.size(1),
                history.i32(), history.size(1), length, processing, beams);
      });
}

void choose_tokens(const Tensor& scores, const LogitsWarping* sampling,
                   TorchCpuGenerator& generator, uint64_t counter, const Tensor& tokens) {
  check_scores("choose_tokens", scores);
  check(tokens.dtype == DType::I32 && tokens.numel() == scores.size(0),
        "choose_tokens: tokens " + tokens.describe() + " for scores " + scores.describe());
  return dispatch_op(
      "choose_tokens", {&scores, &tokens},
      [&] {
        return cpu::choose_tokens(scores.f32(), scores.size(0), scores.size(1), sampling, generator,
                                  tokens.i32());
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::choose_tokens, scores.f32(), scores.size(0), scores.size(1),
                       sampling, generator.seed(), counter, tokens.i32());
      });
}

void top_candidates(const Tensor& scores, int64_t group, int64_t n, const Tensor& values,
                    const Tensor& indices) {
  check_scores("top_candidates", scores);
  check(group >= 1 && scores.size(0) % group == 0 && n >= 1 && n <= group * scores.size(1),
        "top_candidates: " + std::to_string(n) + " of groups of " + std::to_string(group) +
            " rows of " + scores.describe());
  const int64_t inputs = scores.size(0) / group;
  check(values.dtype == DType::F32 && values.numel() == inputs * n && indices.dtype == DType::I32 &&
            indices.numel() == inputs * n,
        "top_candidates: values " + values.describe() + " and indices " + indices.describe() +
            " for " + std::to_string(inputs) + " x " + std::to_string(n));
  return dispatch_op(
      "top_candidates", {&scores, &values, &indices},
      [&] {
        return cpu::top_candidates(scores.f32(), inputs, group * scores.size(1), n, values.f32(),
                                   indices.i32());
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::top_candidates, scores.f32(), inputs, group * scores.size(1),
                       n, values.f32(), indices.i32());
      });
}

}  // namespace precis
