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

// convert_math::to_bf16 without its branch, so the packing loops vectorise: a NaN keeps its
// top bits and is made quiet, anything else rounds to nearest even (the same bits).
inline uint16_t bf16_bits(float value) {
  const uint32_t u = convert_math::bits_of(value);
  const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
  return uint16_t(nan ? (u >> 16) | 0x40u : (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// op(A) (m, k) packed for the AMX kernel (gemm.h's layout), zero beyond m and k. Untransposed,
// threads take 16-row strips, whose runs of 32 are contiguous on both sides. Transposed
// (A = dyᵀ: op(A)[i][j] = dy[j][i]), threads take 32 rows of dy (one tile column of k) and
// read each row straight through: its scattered writes stay within m x 32 values (L2), where
// walking a strip down dy's columns would touch a new page per row.
void pack_a(const float* a, int64_t lda, bool trans, int64_t m, int64_t k, int64_t mpad,
            int64_t kpad, uint16_t* ap) {
  if (m < mpad || k < kpad) std::memset(ap, 0, sizeof(uint16_t) * size_t(mpad * kpad));
  if (trans) {
#pragma omp parallel for schedule(static)
    for (int64_t j0 = 0; j0 < k; j0 += 32)
      for (int64_t j = j0; j < std::min(k, j0 + 32); ++j) {
        const float* row = a + j * lda;
        for (int64_t i = 0; i < m; ++i) ap[amx_a_index(i, j, kpad)] = bf16_bits(row[i]);
      }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j0 = 0; j0 < k; j0 += 32) {
      uint16_t* out = ap + amx_a_index(i, j0, kpad);
      const float* in = a + i * lda + j0;
      const int64_t width = std::min<int64_t>(32, k - j0);
      for (int64_t j = 0; j < width; ++j) out[j] = bf16_bits(in[j]);
    }
}

// op(B) (k, n) packed for the AMX kernel (gemm.h's pair layout), zero beyond k and n.
// Untransposed (B = dy, x or a weight as stored), threads take 32 rows (one tile's k) and read
// each straight through; the writes stay within n x 32 values. Transposed (B = a weightᵀ:
// column j is the weight's row j), threads take 16-column strips and fill one tile (32 of k by
// 16 columns, a kilobyte) at a time, so the scattered pair writes stay in L1.
void pack_b(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n, int64_t kpad,
            int64_t npad, uint16_t* bp) {
  if (k < kpad || n < npad) std::memset(bp, 0, sizeof(uint16_t) * size_t(kpad * npad));
  if (!trans) {
#pragma omp parallel for schedule(static)
    for (int64_t r0 = 0; r0 < k; r0 += 32)
      for (int64_t row = r0; row < std::min(k, r0 + 32); ++row) {
        const float* in = b + row * ldb;
        for (int64_t j = 0; j < n; ++j) bp[amx_b_index(row, j, kpad)] = bf16_bits(in[j]);
      }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t j0 = 0; j0 < n; j0 += 16)
    for (int64_t r0 = 0; r0 < k; r0 += 32)
      for (int64_t j = j0; j < std::min(n, j0 + 16); ++j) {
        const float* column = b + j * ldb;
        for (int64_t row = r0; row < std::min(k, r0 + 32); ++row)
          bp[amx_b_index(row, j, kpad)] = bf16_bits(column[row]);
      }
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
  if (!tile || !bf16) return false;
  // Linux hands out the 8 KB tile data state only on request (arch_prctl
  // ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA = 18); a kernel that refuses leaves AMX unusable.
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
}

}  // namespace

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

}  // namespace precis::cpu
