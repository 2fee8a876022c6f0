#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

const Kernels& twins() {
  static const Kernels table = [] {
    Kernels k;
    add_memory_twins(k);
    add_elementwise_twins(k);
    add_linear_twins(k);
    add_optimizer_twins(k);
    add_grad_norm_twins(k);
    add_attention_twins(k);
    add_embedding_twins(k);
    add_cross_entropy_twins(k);
    add_token_ids_twins(k);
    add_relative_position_twins(k);
    add_layernorm_twins(k);
    add_rms_norm_twins(k);
    add_activation_twins(k);
    add_dropout_twins(k);
    add_convert_twins(k);
    add_decoding_twins(k);
    return k;
  }();
  return table;
}

}  // namespace precis::cuda
