// What the model probes (bart_probe.cpp, t5_probe.cpp) share: the batch the oracle tests send
// as a safetensors file (input_ids, attention_mask, decoder_input_ids, optionally labels; any
// integer dtype, read as I32).
#pragma once

#include <string>

#include "precis/core/arena.h"
#include "precis/data/seq2seq_batch.h"
#include "precis/io/safetensors.h"

namespace precis::probe {

inline Tensor read_ids(const SafetensorsReader& file, const std::string& name, Arena& arena) {
  Tensor t = arena.alloc(file.shape(name), DType::I32);
  file.read(name, t);
  return t;
}

// The batch, with labels when the file has them.
inline Seq2SeqBatch read_batch(const SafetensorsReader& file, Arena& arena) {
  Seq2SeqBatch batch;
  batch.input_ids = read_ids(file, "input_ids", arena);
  batch.attention_mask = read_ids(file, "attention_mask", arena);
  batch.decoder_input_ids = read_ids(file, "decoder_input_ids", arena);
  if (file.contains("labels")) batch.labels = read_ids(file, "labels", arena);
  return batch;
}

// A batch file read into an arena of its own, with its sizes: B rows, S source and T target
// positions. need_labels: a file without labels is an error naming them.
struct ProbeBatch {
  Arena arena{64 << 20};
  Seq2SeqBatch batch;
  int64_t B = 0, S = 0, T = 0;
};

inline ProbeBatch read_probe_batch(const std::string& path, bool need_labels = false) {
  ProbeBatch in;
  SafetensorsReader file = SafetensorsReader::open(path);
  in.batch = read_batch(file, in.arena);
  if (need_labels && !in.batch.labels.ptr) in.batch.labels = read_ids(file, "labels", in.arena);
  in.B = in.batch.input_ids.size(0);
  in.S = in.batch.input_ids.size(1);
  in.T = in.batch.decoder_input_ids.size(1);
  return in;
}

}  // namespace precis::probe
