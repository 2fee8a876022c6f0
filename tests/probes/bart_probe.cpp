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

#include "precis/model/bart/bart_model.h"
#include "probe_model.h"

using namespace precis;

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "forward" && argc == 5)
      return probe::run_model<BartModel>(argv[2], argv[3], argv[4], false, 0.0f);
    if (cmd == "grad" && (argc == 5 || argc == 6))
      return probe::run_model<BartModel>(argv[2], argv[3], argv[4], true,
                                         argc == 6 ? std::stof(argv[5]) : 0.0f);
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
