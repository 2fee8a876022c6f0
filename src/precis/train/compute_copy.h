// The 16-bit weights a device computes with under --bf16 / --fp16 (HF's mixed precision:
// autocast over fp32 parameters). The fp32 master, the gradients and AdamW's state stay as they
// are; this copy holds every tensor of the master in bf16 or fp16, the trainable ones as views
// into one flat 16-bit buffer at the master's element offsets (flat_layout), so that one
// conversion over the flat range refreshes them after each optimizer step (plus one per
// buffer). The CUDA backend computes from it; the CPU computes in fp32 and keeps none.
#pragma once

#include "precis/core/arena.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/model/common/seq2seq_family.h"

namespace precis::train {

template <class Config>
class ComputeCopy {
 public:
  using Params = ParamsOf<Config>;
  // On the master's device; dtype BF16 or F16. Call refresh before the first use.
  ComputeCopy(const Config& config, Params& master, DType dtype);
  ComputeCopy(const ComputeCopy&) = delete;
  ComputeCopy& operator=(const ComputeCopy&) = delete;

  // Every tensor = the master's, rounded to the 16-bit type (nearest even).
  void refresh(Params& master);
  // The buffers alone (outside the flat range), where an optimizer step wrote flat() as it
  // updated the master (GradientRead::compute_copy).
  void refresh_buffers(Params& master);

  Params& params() { return params_; }

  // What the model computes with under mixed precision: the master's tensors, but the weights
  // it multiplies activations by (the linear layers' and the LM head's) and the linear layers'
  // biases from this copy, as autocast casts F.linear's inputs. The embeddings (looked up, not
  // multiplied), norms and buffers (BART's final_logits_bias, added after the LM head) stay the
  // fp32 master's, as the 16-bit kernels take them (kernels/cuda/kernels_cuda.h). Do not
  // visit_parameters the result: visiting a tied struct ties its LM head to its (fp32) shared
  // embedding again.
  Params mixed(const Params& master);
  const Tensor& flat() const { return flat_; }  // the trainable range, 16-bit

 private:
  Config config_;
  Arena arena_;
  Tensor flat_;
  Params params_;
};

}  // namespace precis::train
