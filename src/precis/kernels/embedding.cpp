#include "precis/kernels/embedding.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/token_ids.h"

namespace precis {

namespace {

void check_token_ids(const Tensor& ids, int64_t vocab, CheckedIds known) {
  if (known.covers(vocab)) return;
  InvalidId bad = first_invalid_id(ids, vocab);
  check(bad.index < 0, "token id " + std::to_string(bad.id) +
                           " is outside the embedding table of " + std::to_string(vocab) + " rows");
}

// The tables and their gradients are fp32 (the master weights); the activations are fp32, or
// bf16/fp16 on CUDA (mixed precision).
void check_dtypes(const char* op, const char* table_name, const Tensor& table,
                  const char* activation_name, const Tensor& activation) {
  const DType t = activation.dtype;
  check(table.dtype == DType::F32 && (t == DType::F32 || is_16_bit(t)),
        std::string(op) + ": " + table_name + " " + table.describe() + ", " + activation_name +
            " " + activation.describe() + " (" + table_name + " is F32, " + activation_name +
            " F32, BF16 or F16)");
}

// What a lookup and its backward both check: `table` (V, dim) F32, `rows` one row of dim per
// id in the table's or an activation dtype, and every id below V.
void check_lookup(const char* op, const Tensor& ids, const char* table_name, const Tensor& table,
                  const char* rows_name, const Tensor& rows, CheckedIds known) {
  const int64_t dim = table.rank() == 2 ? table.size(1) : -1;
  check(dim >= 0 && rows.numel() == ids.numel() * dim && rows.shape[-1] == dim,
        std::string(op) + ": ids " + ids.describe() + ", " + table_name + " " + table.describe() +
            ", " + rows_name + " " + rows.describe());
  check_dtypes(op, table_name, table, rows_name, rows);
  check_token_ids(ids, table.size(0), known);
}

}  // namespace

void embedding_forward(const Tensor& ids, const Tensor& table, float scale, const Tensor& out,
                       CheckedIds known) {
  check_lookup("embedding", ids, "table", table, "out", out, known);
  const int64_t dim = table.size(1), vocab = table.size(0);
  return dispatch_op(
      "embedding", {&ids, &table, &out},
      [&] {
        return cpu::embedding_forward(ids.i32(), table.f32(), out.f32(), ids.numel(), dim, vocab,
                                      scale);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::embedding_forward, out.dtype, ids.i32(), table.f32(),
                       out.ptr, ids.numel(), dim, vocab, scale);
      });
}

void add_position_embeddings(const Tensor& x, const Tensor& positions, int64_t first_row) {
  check(x.rank() == 3 && x.size(2) == positions.size(1),
        "positions: x " + x.describe() + ", table " + positions.describe());
  check_dtypes("positions", "table", positions, "x", x);
  check(first_row + x.size(1) <= positions.size(0),
        "sequence of " + std::to_string(x.size(1)) + " tokens is longer than the " +
            std::to_string(positions.size(0) - first_row) + " positions the model has");
  return dispatch_op(
      "position embeddings", {&x, &positions},
      [&] {
        return cpu::add_position_embeddings(x.f32(), positions.f32(), x.size(0), x.size(1),
                                            x.size(2), first_row);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::add_position_embeddings, x.dtype, x.ptr, positions.f32(),
                       x.size(0), x.size(1), x.size(2), first_row);
      });
}

void embedding_backward(const Tensor& dout, const Tensor& ids, float scale, int64_t padding_idx,
                        const Tensor& dtable, CheckedIds known) {
  check_lookup("embedding backward", ids, "dtable", dtable, "dout", dout, known);
  const int64_t dim = dtable.size(1);
  return dispatch_op(
      "embedding backward", {&dout, &ids, &dtable},
      [&] {
        return cpu::embedding_backward(dout.f32(), ids.i32(), dtable.f32(), ids.numel(), dim, scale,
                                       padding_idx);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::embedding_backward, dout.dtype, dout.ptr, ids.i32(),
                       dtable.f32(), ids.numel(), dim, scale, padding_idx);
      });
}

void position_embeddings_backward(const Tensor& dx, int64_t first_row, const Tensor& dpositions) {
  check(dx.rank() == 3 && dpositions.rank() == 2 && dx.size(2) == dpositions.size(1),
        "positions backward: dx " + dx.describe() + ", table " + dpositions.describe());
  check_dtypes("positions backward", "table", dpositions, "dx", dx);
  check(first_row >= 0 && first_row + dx.size(1) <= dpositions.size(0),
        "positions backward: rows " + std::to_string(first_row) + ".." +
            std::to_string(first_row + dx.size(1)) + " outside the table " + dpositions.describe());
  return dispatch_op(
      "position embeddings backward", {&dx, &dpositions},
      [&] {
        return cpu::position_embeddings_backward(dx.f32(), dpositions.f32(), dx.size(0), dx.size(1),
                                                 dx.size(2), first_row);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::position_embeddings_backward, dx.dtype, dx.ptr,
                       dpositions.f32(), dx.size(0), dx.size(1), dx.size(2), first_row);
      });
}

}  // namespace precis
