// A training step's activations and backward scratch for a B x S -> T batch, in an arena on the
// current device of the size those same allocations take on a measuring arena first, as the
// trainer sizes its own (train/arena_sizing.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "precis/core/arena.h"
#include "precis/model/common/seq2seq_family.h"

namespace precis::testing {

template <class Config>
struct TrainingStepBuffers {
  Arena arena;
  typename ModelFamily<Config>::Activations acts;
  typename ModelFamily<Config>::GradScratch scratch;

  TrainingStepBuffers(const Config& c, int64_t B, int64_t S, int64_t T)
      : arena(measured_bytes(c, B, S, T)),
        acts(allocate_activations(c, arena, B, S, T, true)),
        scratch(allocate_grad_scratch(c, arena, B, S, T)) {}

 private:
  static size_t measured_bytes(const Config& c, int64_t B, int64_t S, int64_t T) {
    Arena measure = Arena::measuring();
    allocate_activations(c, measure, B, S, T, true);
    allocate_grad_scratch(c, measure, B, S, T);
    return measure.used();
  }
};

}  // namespace precis::testing
