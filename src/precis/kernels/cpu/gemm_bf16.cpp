// bf16 products on the CPU: the operands packed (rounded to bf16 as convert does) for the AMX
// kernel, or rounded in place of fp32 copies for the emulated path.
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cpu/gemm.h"

namespace precis::cpu {

namespace {

constexpr int64_t kAmxBlock = 32;  // AMX's C block: two 16-row tiles by two 16-column tiles

int64_t padded(int64_t x) { return (x + kAmxBlock - 1) / kAmxBlock * kAmxBlock; }

// op(M)[i][j] of a row-major M with leading dimension ld.
inline float op_element(const float* m, int64_t ld, bool trans, int64_t i, int64_t j) {
  return trans ? m[j * ld + i] : m[i * ld + j];
}

// The packed operands live as long as the thread: a training step packs the same sizes again
// and again, and the LM head's are tens of MB (allocating them each time costs page faults).
struct PackScratch {
  std::vector<uint16_t> a, b;
  std::vector<float> fa, fb;
};
thread_local PackScratch pack_scratch;

// The packers fill the AMX layout (gemm.h) one tile at a time: 16 rows of 64 bytes, a
// kilobyte that stays in L1. Each first converts the source block it needs with contiguous
// reads (convert_run: convert_math::to_bf16 vectorises), then moves the bf16 values to the tile's order in L1.
// Every tile of the padded operand is written, zeros included, so nothing needs clearing.

// dst[0, width) = bf16 of src[0, count), zero after.
inline void convert_run(const float* src, int64_t count, uint16_t* dst, int64_t width) {
  for (int64_t j = 0; j < count; ++j) dst[j] = convert_math::to_bf16(src[j]);
  for (int64_t j = count; j < width; ++j) dst[j] = 0;
}

// A tile: rows i0.. (16) of op(A) by k0.. (32). Untransposed, a tile row is a run of an A row;
// transposed (A = dyᵀ), each of dy's 32 rows k0.. gives 16 values that go down a tile column.
void pack_a_tile(const float* a, int64_t lda, bool trans, int64_t m, int64_t k, int64_t i0,
                 int64_t k0, uint16_t* tile) {
  const int64_t rows = std::min<int64_t>(16, std::max<int64_t>(0, m - i0));
  const int64_t cols = std::min<int64_t>(32, std::max<int64_t>(0, k - k0));
  if (!trans) {
    for (int64_t r = 0; r < 16; ++r) convert_run(a + (i0 + r) * lda + k0, r < rows ? cols : 0, tile + r * 32, 32);
    return;
  }
  alignas(64) uint16_t block[32][16];
  for (int64_t c = 0; c < 32; ++c) convert_run(a + (k0 + c) * lda + i0, c < cols ? rows : 0, block[c], 16);
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 32; ++c) tile[r * 32 + c] = block[c][r];
}

// B tile: k0.. (32, as 16 pairs) by columns j0.. (16). Transposed (B = a weightᵀ), each of the
// weight's rows j0.. gives 16 pairs of k that go down a tile column (a 16 x 16 transpose of
// 32-bit pairs); untransposed, rows k0 + 2p and k0 + 2p + 1 interleave into tile row p.
void pack_b_tile(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n, int64_t k0,
                 int64_t j0, uint16_t* tile) {
  const int64_t depth = std::min<int64_t>(32, std::max<int64_t>(0, k - k0));
  const int64_t cols = std::min<int64_t>(16, std::max<int64_t>(0, n - j0));
  if (trans) {
    alignas(64) uint16_t block[16][32];
    for (int64_t c = 0; c < 16; ++c) convert_run(b + (j0 + c) * ldb + k0, c < cols ? depth : 0, block[c], 32);
    for (int64_t p = 0; p < 16; ++p)
      for (int64_t c = 0; c < 16; ++c) {
        tile[p * 32 + c * 2] = block[c][2 * p];
        tile[p * 32 + c * 2 + 1] = block[c][2 * p + 1];
      }
    return;
  }
  alignas(64) uint16_t block[32][16];
  for (int64_t r = 0; r < 32; ++r) convert_run(b + (k0 + r) * ldb + j0, r < depth ? cols : 0, block[r], 16);
  for (int64_t p = 0; p < 16; ++p)
    for (int64_t c = 0; c < 16; ++c) {
      tile[p * 32 + c * 2] = block[2 * p][c];
      tile[p * 32 + c * 2 + 1] = block[2 * p + 1][c];
    }
}

// tile(strip, block) for every tile of a packed operand, across the threads, strips outer or
// k blocks outer: whichever reads the source along its rows. Down the k blocks of a strip
// where the source's rows are the strip's (A as stored, a weight transposed); across the
// strips of a k block where they are k (dy for dW, a weight or x as stored).
template <class Tile>
void for_each_tile(int64_t strips, int64_t blocks, bool strips_outer, Tile tile) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t outer = 0; outer < (strips_outer ? strips : blocks); ++outer)
    for (int64_t inner = 0; inner < (strips_outer ? blocks : strips); ++inner)
      tile(strips_outer ? outer : inner, strips_outer ? inner : outer);
}

// op(A) (m, k) and op(B) (k, n) packed.
void pack_a(const float* a, int64_t lda, bool trans, int64_t m, int64_t k, int64_t mpad,
            int64_t kpad, uint16_t* ap) {
  for_each_tile(mpad / 16, kpad / 32, !trans, [&](int64_t s, int64_t kb) {
    pack_a_tile(a, lda, trans, m, k, s * 16, kb * 32, ap + amx_a_index(s * 16, kb * 32, kpad));
  });
}

void pack_b(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n, int64_t kpad,
            int64_t npad, uint16_t* bp) {
  for_each_tile(npad / 16, kpad / 32, trans, [&](int64_t s, int64_t kb) {
    pack_b_tile(b, ldb, trans, k, n, kb * 32, s * 16, bp + amx_b_index(kb * 32, s * 16, kpad));
  });
}

// op(M) (rows, cols) rounded to bf16 and kept in fp32, row-major (no transpose left).
void round_copy(const float* m, int64_t ld, bool trans, int64_t rows, int64_t cols,
                std::vector<float>& out) {
  out.resize(size_t(rows * cols));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[size_t(i * cols + j)] =
          convert_math::from_bf16(convert_math::to_bf16(op_element(m, ld, trans, i, j)));
}

bool detect_amx_bf16() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool tile = edx & (1u << 24), bf16 = edx & (1u << 22);
  return tile && bf16 && amx_tiles_granted();
}

}  // namespace

bool amx_tiles_granted() {
  // Linux hands out the 8 KB tile data state only on request (arch_prctl
  // ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA = 18); a kernel that refuses leaves AMX unusable.
  static const bool granted = [] {
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
}

bool amx_bf16_usable() {
  static const bool usable = detect_amx_bf16();
  return usable;
}

Bf16Path bf16_path() {
  static const Bf16Path path = [] {
    const char* env = std::getenv("PRECIS_CPU_BF16");
    const bool emulate = env != nullptr && std::string(env) == "emulate";
    return amx_bf16_usable() && !emulate ? Bf16Path::kAmx : Bf16Path::kEmulated;
  }();
  return path;
}

void gemm_bf16(Bf16Path path, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
               float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
               float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (path == Bf16Path::kEmulated) {
    round_copy(a, lda, trans_a, m, k, pack_scratch.fa);
    round_copy(b, ldb, trans_b, k, n, pack_scratch.fb);
    return gemm_tiled(false, false, m, n, k, alpha, pack_scratch.fa.data(), k, pack_scratch.fb.data(), n,
                      beta, c, ldc);
  }
  // The tile instructions fault until the process has asked for the tile state (and on a CPU
  // without them): amx_bf16_usable() asks, once.
  check(amx_bf16_usable(), "gemm_bf16: AMX-BF16 is not usable on this CPU");
  const int64_t mpad = padded(m), npad = padded(n), kpad = padded(k);
  pack_scratch.a.resize(size_t(mpad * kpad));
  pack_scratch.b.resize(size_t(kpad * npad));
  pack_a(a, lda, trans_a, m, k, mpad, kpad, pack_scratch.a.data());
  pack_b(b, ldb, trans_b, k, n, kpad, npad, pack_scratch.b.data());
  gemm_bf16_amx_packed(pack_scratch.a.data(), pack_scratch.b.data(), mpad, npad, kpad, m, n, alpha, beta, c,
                       ldc);
}

Bf16Weight pack_bf16_weight(const float* w, int64_t in, int64_t out) {
  check(amx_bf16_usable(), "pack_bf16_weight: AMX-BF16 is not usable on this CPU");
  Bf16Weight packed{in, out, padded(in), padded(out), {}};
  packed.packed.resize(size_t(packed.kpad * packed.npad));
  pack_b(w, in, true, in, out, packed.kpad, packed.npad, packed.packed.data());
  return packed;
}

void linear_bf16_packed(const Bf16Weight& w, const float* x, const float* b, int64_t rows,
                        float* y) {
  check(amx_bf16_usable(), "linear_bf16_packed: AMX-BF16 is not usable on this CPU");
  if (rows == 0 || w.out == 0) return;
  const int64_t mpad = padded(rows);
  pack_scratch.a.resize(size_t(mpad * w.kpad));
  pack_a(x, w.in, false, rows, w.in, mpad, w.kpad, pack_scratch.a.data());
  gemm_bf16_amx_packed(pack_scratch.a.data(), w.packed.data(), mpad, w.npad, w.kpad, rows, w.out,
                       1.0f, 0.0f, y, w.out, b);
}

}  // namespace precis::cpu
