// cuda/blas.h on cuBLASLt: fp32, bf16 or fp16 in, fp32 compute (CUBLAS_COMPUTE_32F, no TF32,
// fp32 alpha and beta), C in the inputs' type or fp32, one handle and one workspace per GPU.
// Each distinct GEMM (shape, types, layouts, device and the operands' pointer alignments) gets
// its descriptors and the heuristic's algorithm once; the heuristic is told the alignments the
// pointers really have. k = 0 is cuBLAS's C = beta · C. Epilogues: the bias (forward) and
// the bias gradient (the weight gradient's GEMM).
#include "precis/kernels/cuda/blas.h"

#include <cublasLt.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/runtime.h"

namespace precis::cuda {

namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // what cuBLAS itself uses on Hopper

void ok(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cublasLt: ") + what + ": status " + std::to_string(int(status)));
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::F32:
      return CUDA_R_32F;
    case DType::BF16:
      return CUDA_R_16BF;
    case DType::F16:
      return CUDA_R_16F;
    default:
      break;
  }
  throw Error("cublasLt: no GEMM in " + dtype_name(t));
}

struct PerDevice {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
};

PerDevice& per_device(int device) {
  static std::mutex mu;
  static std::vector<PerDevice> all;
  std::lock_guard<std::mutex> lock(mu);
  if (all.size() <= size_t(device)) all.resize(size_t(device) + 1);
  PerDevice& d = all[size_t(device)];
  if (!d.handle) {
    ok(cublasLtCreate(&d.handle), "cublasLtCreate");
    d.workspace = device_malloc(device, kWorkspaceBytes);
  }
  return d;
}

// A descriptor freed at the end of the scope.
template <class T, cublasStatus_t (*Destroy)(T)>
struct Owned {
  T value = nullptr;
  ~Owned() {
    if (value) Destroy(value);
  }
};

// The largest power of two up to 256 that divides a pointer: what cuBLASLt may assume of it
// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*). Without the preference the heuristic may pick a
// kernel that needs more than a pointer has; with it, vectorised kernels where it has that.
uint32_t alignment(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  const uintptr_t lowest = address & (~address + 1);  // the lowest set bit; 0 for null
  return lowest == 0 || lowest >= 256 ? 256u : uint32_t(lowest);
}

// The epilogues precis asks of cuBLASLt: none, the forward's bias (CUBLASLT_EPILOGUE_BIAS) and
// the weight gradient's bias gradient (CUBLASLT_EPILOGUE_BGRADB).
enum class Epilogue : uint8_t { none, bias, bias_gradient };

// Everything a GEMM's descriptors and algorithm depend on.
struct GemmKey {
  int device;
  int64_t m, n, k, lda, ldb, ldc;
  DType a, b, c;
  bool transpose_a, transpose_b;
  uint32_t align_a, align_b, align_c;
  Epilogue epilogue;  // the heuristic picks among kernels that have it
  bool operator==(const GemmKey&) const = default;
};

struct GemmKeyHash {
  size_t operator()(const GemmKey& key) const {
    size_t h = 0;
    auto mix = [&h](uint64_t v) {
      h ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    };
    for (int64_t v : {key.m, key.n, key.k, key.lda, key.ldb, key.ldc}) mix(uint64_t(v));
    mix(uint64_t(key.device) | uint64_t(key.a) << 8 | uint64_t(key.b) << 16 |
        uint64_t(key.c) << 24 | uint64_t(key.transpose_a) << 32 | uint64_t(key.transpose_b) << 33 |
        uint64_t(key.epilogue) << 34);
    mix(uint64_t(key.align_a) | uint64_t(key.align_b) << 16 | uint64_t(key.align_c) << 32);
    return h;
  }
};

// A GEMM's descriptors and the heuristic's algorithm, made once per key and kept for the
// process: a training step issues about 580 GEMMs of a few dozen shapes a length bucket, and
// creating six descriptors and asking the heuristic costs more host time than launching.
struct GemmPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool found = false;  // the heuristic had an algorithm (a bias-gradient GEMM may have none)
};

GemmPlan make_plan(const GemmKey& key, cublasLtHandle_t handle) {
  GemmPlan plan;
  ok(cublasLtMatmulDescCreate(&plan.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul descriptor");
  const cublasOperation_t ta = key.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = key.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  ok(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)), "transa");
  ok(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)), "transb");
  // The bias (m long) and the bias gradient (n long) are of C's type, the default
  // CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE.
  if (key.epilogue != Epilogue::none) {
    const cublasLtEpilogue_t epilogue =
        key.epilogue == Epilogue::bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_BGRADB;
    ok(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                      sizeof(epilogue)),
       "epilogue");
  }
  const int64_t a_rows = key.transpose_a ? key.k : key.m, a_cols = key.transpose_a ? key.m : key.k;
  const int64_t b_rows = key.transpose_b ? key.n : key.k, b_cols = key.transpose_b ? key.k : key.n;
  ok(cublasLtMatrixLayoutCreate(&plan.a, cuda_type(key.a), uint64_t(a_rows), uint64_t(a_cols), key.lda),
     "layout A");
  ok(cublasLtMatrixLayoutCreate(&plan.b, cuda_type(key.b), uint64_t(b_rows), uint64_t(b_cols), key.ldb),
     "layout B");
  ok(cublasLtMatrixLayoutCreate(&plan.c, cuda_type(key.c), uint64_t(key.m), uint64_t(key.n), key.ldc),
     "layout C");

  Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref;
  ok(cublasLtMatmulPreferenceCreate(&pref.value), "preference");
  ok(cublasLtMatmulPreferenceSetAttribute(pref.value, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                          &kWorkspaceBytes, sizeof(kWorkspaceBytes)),
     "workspace preference");
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_a},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_b},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_c},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_c}};
  for (const auto& [attribute, bytes] : alignments)
    ok(cublasLtMatmulPreferenceSetAttribute(pref.value, attribute, &bytes, sizeof(bytes)),
       "alignment preference");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, plan.op, plan.a, plan.b, plan.c, plan.c, pref.value, 1, &heuristic, &found);
  // cuBLASLt documents no layout or type limits for BGRADB; where it has no kernel for one, the
  // caller sums the columns itself.
  if (key.epilogue == Epilogue::bias_gradient &&
      (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0)))
    return plan;
  ok(status, "heuristic");
  check(found > 0, "cublasLt: no algorithm for a " + std::to_string(key.m) + "x" + std::to_string(key.n) +
                       "x" + std::to_string(key.k) + " GEMM of " + dtype_name(key.a) + " into " +
                       dtype_name(key.c));
  plan.algo = heuristic.algo;
  plan.found = true;
  return plan;
}

// The plan of a key, made on first use. Plans are never freed: their number is the distinct
// shapes a process multiplies, and a descriptor is a few hundred bytes.
const GemmPlan& plan_for(const GemmKey& key, cublasLtHandle_t handle) {
  static std::mutex mu;
  static std::unordered_map<GemmKey, GemmPlan, GemmKeyHash> plans;
  std::lock_guard<std::mutex> lock(mu);
  auto it = plans.find(key);
  if (it == plans.end()) it = plans.emplace(key, make_plan(key, handle)).first;
  return it->second;
}

// C = beta · C when op(A)·op(B) has no terms (k = 0), as cuBLAS defines it: unchanged for
// beta 1, zeros for beta 0.
void scale_without_terms(Stream s, int64_t m, int64_t n, float beta, void* c, DType c_type, int64_t ldc) {
  if (beta == 1.0f) return;
  check(beta == 0.0f, "gemm: k = 0 with beta " + std::to_string(beta) + " (only 0 and 1 are supported)");
  const size_t element = dtype_size(c_type);
  if (ldc == m) return memset_async(c, 0, size_t(m * n) * element, s);
  for (int64_t column = 0; column < n; ++column)
    memset_async(static_cast<char*>(c) + size_t(column * ldc) * element, 0, size_t(m) * element, s);
}

// One cublasLtMatmul with an epilogue whose vector (the bias, or the bias gradient) is `vector`;
// false, running nothing, where the plan has no algorithm.
bool run(Stream s, int64_t m, int64_t n, int64_t k, float alpha, const GemmOperand& a,
         const GemmOperand& b, float beta, void* c, DType c_type, int64_t ldc, Epilogue epilogue,
         const void* vector) {
  PerDevice& d = per_device(s.device.index);
  const GemmKey key{s.device.index, m, n, k, a.ld, b.ld, ldc, a.type, b.type, c_type,
                    a.transpose, b.transpose, alignment(a.data), alignment(b.data),
                    alignment(c), epilogue};
  const GemmPlan& plan = plan_for(key, d.handle);
  if (!plan.found) return false;
  // The vector's pointer is an attribute of the shared descriptor: set and used under one lock.
  static std::mutex vector_mu;
  std::unique_lock<std::mutex> vector_lock(vector_mu, std::defer_lock);
  if (epilogue != Epilogue::none) {
    vector_lock.lock();
    ok(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &vector,
                                      sizeof(vector)),
       "bias pointer");
  }
  ok(cublasLtMatmul(d.handle, plan.op, &alpha, a.data, plan.a, b.data, plan.b, &beta, c, plan.c, c,
                    plan.c, &plan.algo, d.workspace, kWorkspaceBytes, native(s)),
     "matmul");
  return true;
}

}  // namespace

void gemm(Stream s, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, void* c, DType c_type, int64_t ldc, const void* bias) {
  check_gemm_leading_dimensions(m, n, k, a, b, ldc);
  check_gemm_types(a.type, b.type, c_type);
  check_gemm_bias(bias, beta);
  if (m == 0 || n == 0) return;
  use_device(s);
  check(k > 0 || !bias, "gemm: a bias epilogue with k = 0");
  if (k == 0) return scale_without_terms(s, m, n, beta, c, c_type, ldc);
  run(s, m, n, k, alpha, a, b, beta, c, c_type, ldc, bias ? Epilogue::bias : Epilogue::none, bias);
}

bool gemm_with_bias_gradient(Stream s, int64_t m, int64_t n, int64_t k, GemmOperand a,
                             GemmOperand b, float beta, void* c, DType c_type, int64_t ldc,
                             void* bias_gradient) {
  if (!gemm_with_bias_gradient_runs(m, n, k, a, b, c_type, ldc, bias_gradient)) return false;
  use_device(s);
  return run(s, m, n, k, 1.0f, a, b, beta, c, c_type, ldc, Epilogue::bias_gradient, bias_gradient);
}

}  // namespace precis::cuda
