// Training-mode dropout for both model families: masks are a pure function of (seed, step,
// micro-batch, layer, site) through Philox (core/rng.h), so a step is reproducible on any
// device and thread count, and the backward regenerates them. The layer numbering and the
// sites are shared; each family says where it applies dropout (bart_dropout.h, t5_dropout.h).
#pragma once

#include <cstdint>

#include "precis/core/rng.h"
#include "precis/kernels/dropout.h"

namespace precis {

struct DropoutContext {
  bool training = false;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint32_t micro_batch = 0;
  // Data parallelism: this process holds rows first_row .. first_row + rows - 1 of the
  // global batch, and draws those rows' masks (rows = 0: the whole batch).
  uint64_t first_row = 0, rows = 0;
};

namespace dropout_sites {

// Layer ids in the stream: encoder layers 0.., decoder layers kDecoder + j, each stack's
// embeddings (and T5's final norms) last.
constexpr uint32_t kDecoder = 1u << 16;
constexpr uint32_t kEncoderEmbedding = kDecoder - 1;
constexpr uint32_t kDecoderEmbedding = 2 * kDecoder - 1;
enum Site : uint32_t {
  kSelfProbs,
  kSelfResidual,
  kActivation,
  kFfnResidual,
  kCrossProbs,
  kCrossResidual
};

// The spec of one site with drop probability p (none outside training or with p = 0).
inline DropoutSpec spec(const DropoutContext& ctx, double p, uint32_t layer, uint32_t site) {
  if (!ctx.training || p == 0.0) return {};
  return {float(p), ctx.seed, dropout_stream(ctx.step, ctx.micro_batch, layer, site), ctx.first_row,
          ctx.rows};
}

}  // namespace dropout_sites
}  // namespace precis
