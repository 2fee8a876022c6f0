#include "precis/kernels/embedding.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void embedding_forward(const Tensor& ids, const Tensor& table, float scale, const Tensor& out) {
  int64_t dim = table.size(1), vocab = table.size(0);
  check(out.numel() == ids.numel() * dim && out.shape[-1] == dim,
        "embedding: ids " + ids.describe() + ", table " + table.describe() + ", out " + out.describe());
  const int32_t* id = ids.i32();
  for (int64_t i = 0; i < ids.numel(); ++i)
    check(id[i] >= 0 && id[i] < vocab, "token id " + std::to_string(id[i]) +
                                           " is outside the embedding table of " +
                                           std::to_string(vocab) + " rows");
  cpu::embedding_forward(id, table.f32(), out.f32(), ids.numel(), dim, vocab, scale);
}

void add_position_embeddings(const Tensor& x, const Tensor& positions, int64_t first_row) {
  check(x.rank() == 3 && x.size(2) == positions.size(1), "positions: x " + x.describe() +
                                                             ", table " + positions.describe());
  check(first_row + x.size(1) <= positions.size(0),
        "sequence of " + std::to_string(x.size(1)) + " tokens is longer than the " +
            std::to_string(positions.size(0) - first_row) + " positions the model has");
  cpu::add_position_embeddings(x.f32(), positions.f32(), x.size(0), x.size(1), x.size(2), first_row);
}

void embedding_backward(const Tensor& dout, const Tensor& ids, float scale, int64_t padding_idx,
                        const Tensor& dtable) {
  int64_t dim = dtable.size(1), vocab = dtable.size(0);
  check(dtable.rank() == 2 && dout.numel() == ids.numel() * dim && dout.shape[-1] == dim,
        "embedding backward: dout " + dout.describe() + ", ids " + ids.describe() + ", dtable " +
            dtable.describe());
  const int32_t* id = ids.i32();
  for (int64_t i = 0; i < ids.numel(); ++i)
    check(id[i] >= 0 && id[i] < vocab, "token id " + std::to_string(id[i]) +
                                           " is outside the embedding table of " +
                                           std::to_string(vocab) + " rows");
  cpu::embedding_backward(dout.f32(), id, dtable.f32(), ids.numel(), dim, scale, padding_idx);
}

void position_embeddings_backward(const Tensor& dx, int64_t first_row, const Tensor& dpositions) {
  check(dx.rank() == 3 && dpositions.rank() == 2 && dx.size(2) == dpositions.size(1),
        "positions backward: dx " + dx.describe() + ", table " + dpositions.describe());
  check(first_row >= 0 && first_row + dx.size(1) <= dpositions.size(0),
        "positions backward: rows " + std::to_string(first_row) + ".." +
            std::to_string(first_row + dx.size(1)) + " outside the table " +
            dpositions.describe());
  cpu::position_embeddings_backward(dx.f32(), dpositions.f32(), dx.size(0), dx.size(1),
                                    dx.size(2), first_row);
}

}  // namespace precis
