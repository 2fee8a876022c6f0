// Test tool for the T5 oracle tests: runs precis's T5 on tensors given in a safetensors
// file and writes what it computed to another, so Python can compare with transformers.
//
//   t5_probe forward MODEL_DIR BATCH.safetensors OUT.safetensors
//       BATCH: input_ids, attention_mask, decoder_input_ids (any int dtype), optional labels;
//       OUT: logits, encoder_output and (with labels) loss.
//   t5_probe grad MODEL_DIR BATCH.safetensors OUT.safetensors [LABEL_SMOOTHING]
//       the gradient of the mean loss for every parameter (by HF name) and the loss.
//   t5_probe resave MODEL_DIR OUT_DIR
//   t5_probe generate MODEL_DIR BATCH.safetensors SETTINGS.json OUT.safetensors
//       generate() on input_ids/attention_mask with the checkpoint's generation config
//       updated by SETTINGS (HF's generate(**kwargs)); OUT: sequences (rows, width) I32.
#include <cstdio>
#include <string>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "precis/generate/generate.h"
#include "precis/io/safetensors.h"
#include "probe_batch.h"
#include "probe_model.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_model.h"

using namespace precis;
using precis::probe::read_ids;

namespace {

int generate_ids(const std::string& model_dir, const std::string& batch_path,
                 const std::string& settings_path, const std::string& out_path) {
  T5Model model = T5Model::load(model_dir);
  SafetensorsReader file = SafetensorsReader::open(batch_path);
  Arena inputs(64 << 20);
  Tensor ids = read_ids(file, "input_ids", inputs), mask = read_ids(file, "attention_mask", inputs);
  std::ifstream in(settings_path);
  std::stringstream text;
  text << in.rdbuf();
  generate::GenerationConfig config = generate::GenerationConfig::from_model_directory(
      model_dir, special_tokens(model.config));
  config.update(nlohmann::json::parse(text.str()), settings_path);
  generate::Generated out = generate::generate(model, ids, mask, config);
  Tensor sequences{out.sequences.data(), Shape({out.rows, out.width}), DType::I32, Device::cpu()};
  write_safetensors(out_path, {{"sequences", sequences}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "forward" && argc == 5) return probe::run_model<T5Model>(argv[2], argv[3], argv[4], false, 0.0f);
    if (cmd == "grad" && (argc == 5 || argc == 6))
      return probe::run_model<T5Model>(argv[2], argv[3], argv[4], true,
                                       argc == 6 ? std::stof(argv[5]) : 0.0f);
    if (cmd == "generate" && argc == 6) return generate_ids(argv[2], argv[3], argv[4], argv[5]);
    if (cmd == "resave" && argc == 4) {
      T5Model::load(argv[2]).save(argv[3]);
      return 0;
    }
    std::fprintf(stderr,
                 "usage: t5_probe forward MODEL BATCH OUT | grad MODEL BATCH OUT [EPS] | resave MODEL OUT\n");
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "t5_probe: error: %s\n", e.what());
    return 1;
  }
}
