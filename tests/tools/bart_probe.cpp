// Test tool for the oracle tests: runs precis's BART on tensors given in a safetensors
// file and writes what it computed to another, so Python can compare with transformers.
//
//   bart_probe forward MODEL_DIR BATCH.safetensors OUT.safetensors
//       BATCH holds input_ids, attention_mask, decoder_input_ids (any int dtype) and
//       optionally labels; OUT gets logits, encoder_output and (with labels) loss.
//   bart_probe grad MODEL_DIR BATCH.safetensors OUT.safetensors [LABEL_SMOOTHING]
//       the gradient of the mean loss for every parameter (by HF name) and the loss.
//   bart_probe resave MODEL_DIR OUT_DIR [MAX_SHARD_BYTES]
//       loads the model and saves it again (config.json + safetensors).
#include <cstdio>
#include <string>

#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_model.h"
#include "precis/io/safetensors.h"
#include "probe_batch.h"

using namespace precis;

namespace {

int forward(const std::string& model_dir, const std::string& batch_path, const std::string& out_path) {
  BartModel model = BartModel::load(model_dir);
  const probe::ProbeBatch in = probe::read_probe_batch(batch_path);
  const Seq2SeqBatch& batch = in.batch;
  const int64_t B = in.B, S = in.S, T = in.T;
  Arena measure = Arena::measuring();
  allocate_activations(model.config, measure, B, S, T, false);
  Arena arena(measure.used());
  BartActivations acts = allocate_activations(model.config, arena, B, S, T, false);
  bart_forward(model.config, model.params, batch, acts);
  std::vector<NamedTensor> out{{"logits", acts.logits}, {"encoder_output", acts.encoder_output()}};
  float loss_value = 0.0f;
  if (batch.labels.ptr) {
    loss_value = float(bart_loss(batch, acts).mean());
    Tensor loss{&loss_value, Shape{}, DType::F32, Device::cpu()};
    out.push_back({"loss", loss});
  }
  write_safetensors(out_path, out);
  return 0;
}

int grad(const std::string& model_dir, const std::string& batch_path, const std::string& out_path,
         float label_smoothing) {
  BartModel model = BartModel::load(model_dir);
  const probe::ProbeBatch in = probe::read_probe_batch(batch_path, /*need_labels=*/true);
  const Seq2SeqBatch& batch = in.batch;
  const int64_t B = in.B, S = in.S, T = in.T;
  Arena measure = Arena::measuring();
  allocate_activations(model.config, measure, B, S, T, true);
  allocate_grad_scratch(model.config, measure, B, S, T);
  Arena arena(measure.used());
  BartActivations acts = allocate_activations(model.config, arena, B, S, T, true);
  BartGradScratch scratch = allocate_grad_scratch(model.config, arena, B, S, T);
  BartModel grads = BartModel::allocate(model.config);
  bart_forward(model.config, model.params, batch, acts);
  CrossEntropyResult ce = bart_loss(batch, acts, label_smoothing);
  float loss_value = float(ce.mean());
  bart_backward(model.config, model.params, batch, acts, {}, label_smoothing, float(1.0 / double(ce.counted)),
                grads.params, scratch);
  std::vector<NamedTensor> out;
  visit_parameters(grads.config, grads.params, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) out.push_back({name, t});
  });
  out.push_back({"loss", Tensor{&loss_value, Shape{}, DType::F32, Device::cpu()}});
  write_safetensors(out_path, out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "forward" && argc == 5) return forward(argv[2], argv[3], argv[4]);
    if (cmd == "grad" && (argc == 5 || argc == 6))
      return grad(argv[2], argv[3], argv[4], argc == 6 ? std::stof(argv[5]) : 0.0f);
    if (cmd == "resave" && (argc == 4 || argc == 5)) {
      BartModel model = BartModel::load(argv[2]);
      model.save(argv[3], argc == 5 ? std::stoull(argv[4]) : 5'000'000'000ull);
      return 0;
    }
    std::fprintf(stderr, "usage: bart_probe forward MODEL BATCH OUT | resave MODEL OUT [MAX_SHARD]\n");
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "bart_probe: error: %s\n", e.what());
    return 1;
  }
}
