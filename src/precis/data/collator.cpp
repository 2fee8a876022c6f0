#include "precis/data/collator.h"

#include <algorithm>
#include <string>

#include "precis/core/error.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/cross_entropy.h"

namespace precis::data {

namespace {
int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }
}  // namespace

std::pair<int64_t, int64_t> padded_lengths(std::span<const SummarizationExample* const> examples,
                                           const CollatorOptions& options) {
  int64_t source = 0, target = 0;
  for (const auto* e : examples) {
    source = std::max<int64_t>(source, int64_t(e->input_ids.size()));
    target = std::max<int64_t>(target, int64_t(e->labels.size()));
  }
  int64_t m = std::max<int64_t>(1, options.pad_to_multiple_of);
  return {round_up(source, m), round_up(target, m)};
}

void shift_tokens_right(const Tensor& labels, int32_t pad, int32_t start, const Tensor& out) {
  check(labels.shape == out.shape && labels.rank() == 2,
        "shift_tokens_right: labels " + labels.describe() + ", out " + out.describe());
  const int64_t B = labels.size(0), T = labels.size(1);
  const int32_t* y = labels.i32();
  int32_t* d = out.i32();
  for (int64_t b = 0; b < B; ++b) {
    if (T == 0) continue;
    d[b * T] = start;
    for (int64_t t = 1; t < T; ++t) {
      int32_t previous = y[b * T + t - 1];
      d[b * T + t] = previous == kIgnoreIndex ? pad : previous;
    }
  }
}

namespace {

// `batch` (host memory) in tensors of the same shapes from `arena`.
Seq2SeqBatch upload(const Seq2SeqBatch& batch, Arena& arena) {
  auto moved = [&](const Tensor& t) {
    Tensor out = arena.alloc(t.shape, t.dtype);
    copy(t, out);
    return out;
  };
  return {moved(batch.input_ids), moved(batch.attention_mask), moved(batch.decoder_input_ids),
          moved(batch.labels), batch.ids_checked};
}

// Every id of the host batch below `vocab` (labels: or -100), first the sources, then the
// labels, then the decoder's inputs (the pad and start ids the shift brought in).
void check_ids(const Seq2SeqBatch& batch, int64_t vocab) {
  const auto check_tensor = [&](const Tensor& t, const char* what, bool labels) {
    const int64_t width = t.size(1);
    const int32_t* ids = t.i32();
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int32_t id = ids[i];
      if ((id >= 0 && id < vocab) || (labels && id == kIgnoreIndex)) continue;
      throw Error(std::string(what) + " of the batch's example " + std::to_string(i / width) +
                  " (position " + std::to_string(i % width) + ") holds token id " +
                  std::to_string(id) + ", outside the model's vocabulary of " +
                  std::to_string(vocab) + " tokens" + (labels ? " (and not -100)" : "") +
                  ": were the examples tokenized with this model's tokenizer?");
    }
  };
  check_tensor(batch.input_ids, "input_ids", false);
  check_tensor(batch.labels, "labels", true);
  check_tensor(batch.decoder_input_ids, "decoder_input_ids", false);
}

}  // namespace

Seq2SeqBatch collate(std::span<const SummarizationExample* const> examples,
                     const CollatorOptions& options, Arena& arena) {
  check(!examples.empty(), "collate: empty batch");
  auto [S, T] = padded_lengths(examples, options);
  const int64_t B = int64_t(examples.size());
  if (!arena.device().is_cpu()) {
    Arena host(size_t(2 * B * (S + T)) * sizeof(int32_t) + 4 * Arena::kAlignment, Device::cpu());
    return upload(collate(examples, options, host), arena);
  }
  Seq2SeqBatch batch{arena.alloc({B, S}, DType::I32), arena.alloc({B, S}, DType::I32),
                     arena.alloc({B, T}, DType::I32), arena.alloc({B, T}, DType::I32)};
  for (int64_t b = 0; b < B; ++b) {
    const auto& e = *examples[size_t(b)];
    int32_t* ids = batch.input_ids.i32() + b * S;
    int32_t* mask = batch.attention_mask.i32() + b * S;
    int32_t* labels = batch.labels.i32() + b * T;
    for (int64_t s = 0; s < S; ++s) {
      ids[s] = s < int64_t(e.input_ids.size()) ? e.input_ids[size_t(s)] : options.pad_token_id;
      mask[s] = s < int64_t(e.source_tokens) ? 1 : 0;
    }
    for (int64_t t = 0; t < T; ++t)
      labels[t] = t < int64_t(e.labels.size()) ? e.labels[size_t(t)] : kIgnoreIndex;
  }
  shift_tokens_right(batch.labels, options.pad_token_id, options.decoder_start_token_id,
                     batch.decoder_input_ids);
  if (options.vocab_size > 0) {
    check_ids(batch, options.vocab_size);
    batch.ids_checked = CheckedIds{options.vocab_size};
  }
  return batch;
}

}  // namespace precis::data
