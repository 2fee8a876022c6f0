// What bart_probe and t5_probe compute for the oracle tests, written once over the model
// family (model/common/seq2seq_family.h):
//   forward: OUT gets logits, encoder_output and (with labels in BATCH) the mean loss;
//   grad:    OUT gets the gradient of the mean loss for every parameter (by HF name, buffers
//            left out) and the loss.
#pragma once

#include <string>
#include <vector>

#include "precis/io/safetensors.h"
#include "precis/model/common/seq2seq_family.h"
#include "probe_batch.h"

namespace precis::probe {

// A stack's output: T5 gives the tensor, BART its last norm (whose out is the stream).
inline const Tensor& output_tensor(const Tensor& t) { return t; }
inline const Tensor& output_tensor(const LayerNormActivations& norm) { return norm.out; }

template <class Model>
int run_model(const std::string& model_dir, const std::string& batch_path,
              const std::string& out_path, bool gradients, float label_smoothing) {
  Model model = Model::load(model_dir);
  const ProbeBatch in = read_probe_batch(batch_path, /*need_labels=*/gradients);
  const Seq2SeqBatch& batch = in.batch;
  const int64_t B = in.B, S = in.S, T = in.T;
  Arena measure = Arena::measuring();
  allocate_activations(model.config, measure, B, S, T, gradients);
  if (gradients) allocate_grad_scratch(model.config, measure, B, S, T);
  Arena arena(measure.used());
  auto acts = allocate_activations(model.config, arena, B, S, T, gradients);
  model_forward(model.config, model.params, batch, acts);
  float loss_value = 0.0f;
  const Tensor loss{&loss_value, Shape{}, DType::F32, Device::cpu()};
  std::vector<NamedTensor> out;
  if (!gradients) {
    out = {{"logits", acts.logits}, {"encoder_output", output_tensor(acts.encoder_output())}};
    if (batch.labels.ptr) {
      loss_value = float(model_loss(batch, acts).mean());
      out.push_back({"loss", loss});
    }
    write_safetensors(out_path, out);
    return 0;
  }
  auto scratch = allocate_grad_scratch(model.config, arena, B, S, T);
  Model grads = Model::allocate(model.config);
  const CrossEntropyResult ce = model_loss(batch, acts, label_smoothing);
  loss_value = float(ce.mean());
  model_backward(model.config, model.params, batch, acts, {}, label_smoothing,
                 float(1.0 / double(ce.counted)), grads.params, scratch);
  visit_parameters(grads.config, grads.params,
                   [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
                     if (role != ParamRole::Buffer) out.push_back({name, t});
                   });
  out.push_back({"loss", loss});
  write_safetensors(out_path, out);
  return 0;
}

}  // namespace precis::probe
