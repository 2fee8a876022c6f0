// BART as the family-neutral code sees it (model/families.h lists it): its types, its forward
// and backward, its stages and its size presets.
#pragma once

#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_incremental.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/bart/bart_model.h"
#include "precis/model/bart/bart_stages.h"
#include "precis/model/common/family_types.h"

namespace precis {

template <>
struct ModelFamily<BartConfig>
    : FamilyTypes<BartModel, BartActivations, BartGradScratch, BartIncrementalDecoder> {
  static constexpr auto forward = &bart_forward;
  static constexpr auto backward = &bart_backward;
};

}  // namespace precis
