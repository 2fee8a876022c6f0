// T5 (and T5 v1.1, FLAN-T5) as the family-neutral code sees it (model/families.h lists it):
// its types, its forward and backward, its stages and its size presets.
#pragma once

#include "precis/model/common/family_types.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_incremental.h"
#include "precis/model/t5/t5_init.h"
#include "precis/model/t5/t5_model.h"
#include "precis/model/t5/t5_stages.h"

namespace precis {

template <>
struct ModelFamily<T5Config>
    : FamilyTypes<T5Model, T5Activations, T5GradScratch, T5IncrementalDecoder> {
  static constexpr auto forward = &t5_forward;
  static constexpr auto backward = &t5_backward;
  static constexpr const char* fp16_refusal =
      "T5 overflows in float16 (its feed-forward activations exceed 65504, as HF warns); train T5 "
      "in fp32 or, on CUDA, with --bf16";
};

}  // namespace precis
