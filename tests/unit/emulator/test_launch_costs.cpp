// Every CUDA twin's launches declare what they cost (kernels/cuda/launch_cost.h), and the GPU
// cost model prices those declarations at bart-large's shapes without running anything. Here
// the kernel emulator runs each twin once, on guarded device memory where every operand is an
// allocation of its own (page-aligned), catches the first read and the first write of every
// page each launch touches, and holds each declaration to them: a launch declares what it reads
// and writes to within the pages' rounding (a page at each end of each operand), so a launcher
// that changes what its kernel moves without changing its declaration fails here.
//
// FLOPs cannot be measured this way; they are reviewed with the kernels (each declaration says
// how it counts them).
#include "emulator/emulator.h"  // first: it defines what the kernel bodies use

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "emulator/device_memory.h"
#include "emulator/install.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/cuda/runtime.h"

using namespace precis;

namespace {

constexpr size_t kPage = 4096;

// Device memory of its own for each operand, filled from the host.
class Operands {
 public:
  ~Operands() {
    for (void* p : owned_) cuda_emulation::device_release(p);
  }
  template <class T>
  T* make(size_t count, std::vector<T> values = {}) {
    void* p = cuda_emulation::device_allocate(count * sizeof(T));
    owned_.push_back(p);
    if (values.empty()) {
      values.resize(count);
      for (size_t i = 0; i < count; ++i) values[i] = T(float(rng_() % 1000) / 997.0f - 0.5f);
    }
    cuda::copy_async(p, values.data(), count * sizeof(T), stream());
    return static_cast<T*>(p);
  }
  uint16_t* make16(size_t count) {
    std::vector<uint16_t> bits(count);
    for (auto& b : bits) b = uint16_t(0x3c00 + rng_() % 256);  // bf16/fp16 values near 1
    return make<uint16_t>(count, bits);
  }
  static Stream stream() { return Stream{Device::cuda(0), nullptr}; }

 private:
  std::vector<void*> owned_;
  std::mt19937 rng_{11};
};

// Runs `work` with every launch measured; checks each launch's declaration against the pages
// it touched. `operands` bounds the rounding: each read or written operand may add one page
// at its end.
template <class F>
void expect_declared(const char* what, int operands, F work) {
  cuda_emulation::take_measured_launches();
  cuda_emulation::measure_launches(true);
  work();
  cuda_emulation::measure_launches(false);
  const auto launches = cuda_emulation::take_measured_launches();
  ASSERT_FALSE(launches.empty()) << what << ": no launch";
  const double slack = double(kPage) * operands;
  for (const auto& l : launches) {
    SCOPED_TRACE(std::string(what) + ": " + l.kernel);
    ASSERT_TRUE(l.declared) << "launched without declare_cost";
    const double read = double(l.read_page_bytes), written = double(l.written_page_bytes);
    std::printf("  %-48s read %9.0f declared, %9.0f in pages; written %9.0f declared, %9.0f in pages\n",
                l.kernel.c_str(), l.cost.read_bytes, read, l.cost.written_bytes, written);
    // Declared bytes fit in the pages touched, and the pages exceed them by their rounding only.
    EXPECT_LE(l.cost.read_bytes, read + 1) << "declares more than it reads";
    EXPECT_GE(l.cost.read_bytes + slack, read) << "reads more than it declares";
    EXPECT_LE(l.cost.written_bytes, written + 1) << "declares more than it writes";
    EXPECT_GE(l.cost.written_bytes + slack, written) << "writes more than it declares";
  }
}

class LaunchCosts : public ::testing::Test {
 protected:
  void SetUp() override {
    cuda_emulation::install();
    cuda_emulation::guard_device_memory(true);
  }
  void TearDown() override { cuda_emulation::guard_device_memory(false); }
  const cuda::Kernels& k = *[] {
    cuda_emulation::install();
    return cuda::installed();
  }();
  Stream s = Operands::stream();
};

TEST_F(LaunchCosts, ElementwiseConvertDropoutActivation) {
  Operands o;
  const int64_t n = 40000;  // 160 KB of fp32
  float* a = o.make<float>(n);
  float* b = o.make<float>(n);
  float* out = o.make<float>(n);
  uint16_t* h = o.make16(n);
  uint16_t* h2 = o.make16(n);
  expect_declared("fill", 1, [&] { k.fill(out, n, 1.5f, s); });
  expect_declared("fill_normal", 1, [&] { k.fill_normal(out, 0, n, 0.02, 7, 1, s); });
  expect_declared("add", 3, [&] { k.add(DType::F32, a, b, out, n, s); });
  expect_declared("add_into", 2, [&] { k.add_into(DType::F32, a, out, n, s); });
  expect_declared("add_to_fp32", 3, [&] { k.add_to_fp32(DType::BF16, a, h, out, n, s); });
  expect_declared("scale_in_place", 1, [&] { k.scale_in_place(DType::BF16, h, 0.5f, n, s); });
  expect_declared("multiply", 3, [&] { k.multiply(DType::F16, h, h2, h, n, s); });
  expect_declared("convert_to_16", 2, [&] { k.convert_to_16(a, h, n, true, s); });
  expect_declared("convert_from_16", 2, [&] { k.convert_from_16(h, out, n, true, s); });
  expect_declared("dropout", 2, [&] { k.dropout(DType::F32, a, out, n, uint64_t(1) << 31, 2.0f, 3, 4, 0, s); });
  expect_declared("gelu", 2, [&] { k.activation_forward(DType::BF16, Activation::GeluExact, h, h2, n, s); });
  expect_declared("gelu backward", 3,
                  [&] { k.activation_backward(DType::F32, Activation::GeluExact, a, b, out, n, s); });
}

TEST_F(LaunchCosts, LinearBiasOptimizerNorm) {
  Operands o;
  const int64_t n = 64, in = 256, out = 512;
  float* x = o.make<float>(size_t(n * in));
  float* w = o.make<float>(size_t(in * out));
  float* bias = o.make<float>(size_t(out) * 8);  // 16 KB: more than a page
  float* y = o.make<float>(size_t(n * out));
  uint16_t* x16 = o.make16(size_t(n * in));
  uint16_t* w16 = o.make16(size_t(in * out));
  uint16_t* y16 = o.make16(size_t(n * out));
  float* db = o.make<float>(size_t(out) * 8);
  // The GEMMs are cuBLAS's (priced from m, n, k by the model); the bias kernels around them.
  expect_declared("linear forward fp32", 2,
                  [&] { k.linear_forward(DType::F32, x, w, bias, DType::F32, y, n, in, out, s); });
  expect_declared("linear forward bf16, fp32 bias", 4, [&] {
    k.linear_forward(DType::BF16, x16, w16, bias, DType::F32, y16, n, in, out, s);
  });
  // A 16-bit bias the GEMM's epilogue cannot read (not 16-byte aligned): the same kernel.
  uint16_t* bias16 = o.make16(size_t(out) * 16);
  expect_declared("linear forward bf16, unaligned bf16 bias", 4, [&] {
    k.linear_forward(DType::BF16, x16, w16, bias16 + 1, DType::BF16, y16, n, in, out, s);
  });
  expect_declared("linear backward bf16", 3, [&] {
    k.linear_backward(DType::BF16, y16, x16, w16, nullptr, nullptr, db, n, in, out, s);
  });
  const int64_t p = 50000;
  float* params = o.make<float>(size_t(p));
  float* grads = o.make<float>(size_t(p));
  float* m = o.make<float>(size_t(p));
  float* v = o.make<float>(size_t(p));
  std::vector<uint32_t> every(size_t(p + 31) / 32, 0x55555555u);  // a bit per element
  uint32_t* mask = o.make<uint32_t>(every.size(), every);
  const AdamWScalars scalars{0.99f, 0.9f, 0.1f, 0.999f, 0.001f, -0.001f, 0.03f, 1e-8f};
  expect_declared("adamw", 5, [&] { k.adamw_update(params, grads, m, v, mask, p, scalars, s); });
  expect_declared("adamw unmasked", 4, [&] { k.adamw_update(params, grads, m, v, nullptr, p, scalars, s); });
  expect_declared("sum_of_squares", 2, [&] { k.sum_of_squares(grads, p, s); });
}

TEST_F(LaunchCosts, LayerNormAndRmsNorm) {
  Operands o;
  const int64_t rows = 64, cols = 1024;
  float* x = o.make<float>(size_t(rows * cols));
  float* dy = o.make<float>(size_t(rows * cols));
  float* y = o.make<float>(size_t(rows * cols));
  float* weight = o.make<float>(size_t(cols));
  float* bias = o.make<float>(size_t(cols));
  float* mean = o.make<float>(size_t(rows) * 16);
  float* rstd = o.make<float>(size_t(rows) * 16);
  float* dweight = o.make<float>(size_t(cols));
  float* dbias = o.make<float>(size_t(cols));
  uint16_t* rounded = o.make<uint16_t>(size_t(rows * cols));
  expect_declared("layernorm forward", 6, [&] {
    k.layernorm_forward(DType::F32, x, weight, bias, y, mean, rstd, rows, cols, 1e-5f, nullptr,
                        true, s);
  });
  expect_declared("layernorm forward, rounded", 7, [&] {
    k.layernorm_forward(DType::F32, x, weight, bias, y, mean, rstd, rows, cols, 1e-5f, rounded,
                        true, s);
  });
  expect_declared("layernorm backward", 8, [&] {
    k.layernorm_backward(DType::F32, dy, x, weight, mean, rstd, y, dweight, dbias, rows, cols,
                         nullptr, true, s);
  });
  expect_declared("layernorm backward, rounded", 9, [&] {
    k.layernorm_backward(DType::F32, dy, x, weight, mean, rstd, y, dweight, dbias, rows, cols,
                         rounded, false, s);
  });
  expect_declared("rms_norm forward", 4, [&] {
    k.rms_norm_forward(DType::F32, x, weight, y, rstd, rows, cols, 1e-6f, nullptr, true, s);
  });
  expect_declared("rms_norm forward, rounded", 5, [&] {
    k.rms_norm_forward(DType::F32, x, weight, y, rstd, rows, cols, 1e-6f, rounded, false, s);
  });
  expect_declared("rms_norm backward", 6,
                  [&] { k.rms_norm_backward(DType::F32, dy, x, weight, rstd, y, dweight, rows, cols, s); });
}

TEST_F(LaunchCosts, EmbeddingCrossEntropyTokenIds) {
  Operands o;
  const int64_t n = 64, dim = 256, vocab = 512;
  // Consecutive ids: the gather's n rows lie together, so its pages are its bytes (scattered
  // rows would each touch a page of their own, rounding that says nothing of the declaration).
  std::vector<int32_t> distinct(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) distinct[size_t(i)] = int32_t(3 + i);
  int32_t* ids = o.make<int32_t>(size_t(n), distinct);
  float* table = o.make<float>(size_t(vocab * dim));
  float* out = o.make<float>(size_t(n * dim));
  float* positions = o.make<float>(size_t(n * dim));
  expect_declared("embedding forward", 3,
                  [&] { k.embedding_forward(DType::F32, ids, table, out, n, dim, vocab, 1.0f, s); });
  expect_declared("position embeddings", 2,
                  [&] { k.add_position_embeddings(DType::F32, out, positions, 1, n, dim, 0, s); });
  expect_declared("embedding backward", 3,
                  [&] { k.embedding_backward(DType::F32, out, ids, table, n, dim, 1.0f, -1, s); });
  expect_declared("position embeddings backward", 2,
                  [&] { k.position_embeddings_backward(DType::F32, out, positions, 1, n, dim, 0, s); });
  std::vector<int32_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[size_t(i)] = int32_t((i * 37) % vocab);
  int32_t* label_ids = o.make<int32_t>(size_t(n), labels);
  float* logits = o.make<float>(size_t(n * vocab));
  float* losses = o.make<float>(size_t(n));
  float* dlogits = o.make<float>(size_t(n * vocab));
  double* total = o.make<double>(1, {0.0});
  int64_t counted = 0;
  expect_declared("cross_entropy forward", 5,
                  [&] { k.cross_entropy_forward(DType::F32, logits, label_ids, losses, n, vocab, 0.1f, &counted, s); });
  expect_declared("cross_entropy into", 6, [&] {
    k.cross_entropy_forward_into(DType::F32, logits, label_ids, losses, n, vocab, 0.0f, 64.0, 1.0, total, s);
  });
  expect_declared("cross_entropy backward", 3,
                  [&] { k.cross_entropy_backward(DType::F32, logits, label_ids, dlogits, n, vocab, 0.1f, 1.0f, s); });
  expect_declared("first_invalid_id", 2, [&] { k.first_invalid_id(label_ids, n, vocab, false, 0, s); });
}

TEST_F(LaunchCosts, AttentionAndRelativePosition) {
  Operands o;
  const AttentionShape shape{2, 4, 64, 64, 32, 4 * 32, 4 * 32, 4 * 32, 4 * 32};
  const size_t qkv = size_t(2 * 64 * 4 * 32), scores = size_t(2 * 4 * 64 * 64);
  float* q = o.make<float>(qkv);
  float* kk = o.make<float>(qkv);
  float* v = o.make<float>(qkv);
  float* out = o.make<float>(qkv);
  float* dq = o.make<float>(qkv);
  float* dk = o.make<float>(qkv);
  float* dv = o.make<float>(qkv);
  float* lse = o.make<float>(size_t(2 * 4 * 64) * 8);
  float* probs = o.make<float>(scores);
  float* d_scores = o.make<float>(scores);
  std::vector<int32_t> attend(size_t(2 * 64) * 8, 1);
  int32_t* mask = o.make<int32_t>(attend.size(), attend);
  float* bias = o.make<float>(size_t(4 * 64 * 64));
  const DropoutRange none{};
  DropoutRange dropout{true, uint64_t(1) << 30, 1.25f, 5, 6, 0};
  expect_declared("attention forward", 6, [&] {
    k.attention_forward(DType::F32, shape, q, kk, v, mask, false, 0, nullptr, 0.125f, out, nullptr, lse, none, s);
  });
  expect_declared("attention forward, probs and bias", 7, [&] {
    k.attention_forward(DType::F32, shape, q, kk, v, nullptr, true, 0, bias, 1.0f, out, probs, lse, dropout, s);
  });
  expect_declared("attention backward", 10, [&] {
    k.attention_backward(DType::F32, shape, out, q, kk, v, nullptr, lse, mask, true, 0, nullptr, 0.125f, none, dq,
                         dk, dv, nullptr, s);
  });
  expect_declared("attention backward, probs, bias and d_scores", 12, [&] {
    k.attention_backward(DType::F32, shape, out, q, kk, v, probs, lse, nullptr, false, 0, bias, 1.0f, dropout, dq,
                         dk, dv, d_scores, s);
  });
  // The tensor-core forward (16-bit heads 32 wide) over three 64-query and 64-key tiles: with the
  // padding mask and the bias every tile is walked; causal, the first query tiles skip the last
  // key tiles, which the last query tile reads.
  const AttentionShape wide{2, 4, 130, 130, 32, 4 * 32, 4 * 32, 4 * 32, 4 * 32};
  const size_t wide_qkv = size_t(2 * 130 * 4 * 32);
  uint16_t* q16 = o.make16(wide_qkv);
  uint16_t* k16 = o.make16(wide_qkv);
  uint16_t* v16 = o.make16(wide_qkv);
  uint16_t* out16 = o.make16(wide_qkv);
  float* wide_lse = o.make<float>(size_t(2 * 4 * 130));
  std::vector<int32_t> wide_attend(size_t(2 * 130), 1);
  int32_t* wide_mask = o.make<int32_t>(wide_attend.size(), wide_attend);
  float* wide_bias = o.make<float>(size_t(4 * 130 * 130));
  expect_declared("attention forward on tensor cores, mask and bias", 7, [&] {
    k.attention_forward(DType::BF16, wide, q16, k16, v16, wide_mask, false, 0, wide_bias, 0.125f, out16, nullptr,
                        wide_lse, none, s);
  });
  expect_declared("attention forward on tensor cores, causal", 5, [&] {
    k.attention_forward(DType::F16, wide, q16, k16, v16, nullptr, true, 0, nullptr, 0.125f, out16, nullptr,
                        wide_lse, dropout, s);
  });
  // A decoding step's query over 300 keys: the keys split over three blocks, whose partials (in
  // scratch) a second launch merges.
  const AttentionShape step{2, 4, 1, 300, 32, 4 * 32, 4 * 32, 4 * 32, 4 * 32};
  uint16_t* step_q = o.make16(size_t(2 * 4 * 32));
  uint16_t* step_k = o.make16(size_t(2 * 300 * 4 * 32));
  uint16_t* step_v = o.make16(size_t(2 * 300 * 4 * 32));
  uint16_t* step_out = o.make16(size_t(2 * 4 * 32));
  float* step_lse = o.make<float>(size_t(2 * 4));
  std::vector<int32_t> step_attend(size_t(2 * 300), 1);
  int32_t* step_mask = o.make<int32_t>(step_attend.size(), step_attend);
  float* step_bias = o.make<float>(size_t(4 * 300));
  expect_declared("attention forward split over the keys, mask and bias", 8, [&] {
    k.attention_forward(DType::BF16, step, step_q, step_k, step_v, step_mask, false, 0, step_bias,
                        0.125f, step_out, nullptr, step_lse, none, s);
  });
  uint16_t* dq16 = o.make16(wide_qkv);
  uint16_t* dk16 = o.make16(wide_qkv);
  uint16_t* dv16 = o.make16(wide_qkv);
  float* wide_d_scores = o.make<float>(size_t(2 * 4 * 130 * 130));
  expect_declared("attention backward on tensor cores, mask, bias and d_scores", 12, [&] {
    k.attention_backward(DType::BF16, wide, out16, q16, k16, v16, nullptr, wide_lse, wide_mask, false, 0, wide_bias,
                         0.125f, none, dq16, dk16, dv16, wide_d_scores, s);
  });
  expect_declared("attention backward on tensor cores, causal", 10, [&] {
    k.attention_backward(DType::F16, wide, out16, q16, k16, v16, nullptr, wide_lse, nullptr, true, 0, nullptr,
                         0.125f, dropout, dq16, dk16, dv16, nullptr, s);
  });
  const RelativePositionBuckets buckets{true, 32, 128};
  float* rp_table = o.make<float>(size_t(32 * 4) * 8);
  expect_declared("relative position bias", 2,
                  [&] { k.relative_position_bias_forward(rp_table, buckets, 0, bias, 4, 64, 64, s); });
  expect_declared("relative position backward", 2,
                  [&] { k.relative_position_bias_backward(d_scores, buckets, 0, rp_table, 2, 4, 64, 64, s); });
}

TEST_F(LaunchCosts, KvCacheRowMoves) {
  Operands o;
  // Rows of a page each (4 KB of fp32): strided writes touch exactly their own pages.
  const int64_t rows = 32, width = 1024;
  float* cache = o.make<float>(size_t(rows * width * 3));
  float* next = o.make<float>(size_t(rows * width * 3));
  float* values = o.make<float>(size_t(rows * width));
  std::vector<int32_t> order(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) order[size_t(r)] = int32_t(rows - 1 - r);
  const size_t row = size_t(width) * sizeof(float);
  // The host's indices go up in a copy, then one launch moves every row.
  expect_declared("gather_rows", 3, [&] {
    k.gather_rows(reinterpret_cast<const char*>(cache), order.data(), reinterpret_cast<char*>(next), rows, row,
                  3 * row, s);
  });
  expect_declared("append_rows", 2, [&] {
    k.append_rows(reinterpret_cast<const char*>(values), reinterpret_cast<char*>(cache), rows, row, 3 * row, row, s);
  });
}

TEST_F(LaunchCosts, Decoding) {
  Operands o;
  const int64_t rows = 8, vocab = 4096, capacity = 64, length = 20;
  float* scores = o.make<float>(size_t(rows * vocab));
  std::vector<int32_t> history(size_t(rows * capacity) * 8);
  for (size_t i = 0; i < history.size(); ++i) history[i] = int32_t(3 + i % 50);
  int32_t* hist = o.make<int32_t>(history.size(), history);
  float* beam_scores = o.make<float>(size_t(rows) * 128);
  LogitsProcessing p;
  p.no_repeat_ngram_size = 3;
  p.eos_token_ids = {2};
  p.min_length = 30;
  expect_declared("next_token_scores", 4,
                  [&] { k.next_token_scores(scores, rows, vocab, hist, capacity, length, p, beam_scores, s); });
  int32_t* tokens = o.make<int32_t>(size_t(rows) * 128);
  expect_declared("greedy", 2, [&] { k.choose_tokens(scores, rows, vocab, nullptr, 1, 0, tokens, s); });
  float* values = o.make<float>(size_t(rows) * 128);
  int32_t* indices = o.make<int32_t>(size_t(rows) * 128);
  expect_declared("top_candidates", 3, [&] { k.top_candidates(scores, rows, vocab, 8, values, indices, s); });
}

}  // namespace
