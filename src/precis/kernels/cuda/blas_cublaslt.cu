// cuda/blas.h on cuBLASLt: fp32, bf16 or fp16 in, fp32 compute (CUBLAS_COMPUTE_32F, no TF32,
// fp32 alpha and beta), C in the inputs' type or fp32, one handle and one workspace per GPU,
// the algorithm from cuBLASLt's heuristic for each call.
#include "precis/kernels/cuda/blas.h"

#include <cublasLt.h>

#include <mutex>
#include <string>
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

}  // namespace

void gemm(Stream s, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, void* c, DType c_type, int64_t ldc) {
  const int64_t a_rows = a.transpose ? k : m, a_cols = a.transpose ? m : k;
  const int64_t b_rows = b.transpose ? n : k, b_cols = b.transpose ? k : n;
  check(a.ld >= a_rows && b.ld >= b_rows && ldc >= m,
        "gemm: leading dimensions " + std::to_string(a.ld) + ", " + std::to_string(b.ld) + ", " +
            std::to_string(ldc) + " for " + std::to_string(m) + "x" + std::to_string(n) + "x" +
            std::to_string(k));
  check_gemm_types(a.type, b.type, c_type);
  if (m == 0 || n == 0) return;
  use_device(s);
  PerDevice& d = per_device(s.device.index);

  Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy> op;
  ok(cublasLtMatmulDescCreate(&op.value, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul descriptor");
  const cublasOperation_t ta = a.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = b.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  ok(cublasLtMatmulDescSetAttribute(op.value, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)), "transa");
  ok(cublasLtMatmulDescSetAttribute(op.value, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)), "transb");

  Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy> la, lb, lc;
  ok(cublasLtMatrixLayoutCreate(&la.value, cuda_type(a.type), uint64_t(a_rows), uint64_t(a_cols),
                                a.ld),
     "layout A");
  ok(cublasLtMatrixLayoutCreate(&lb.value, cuda_type(b.type), uint64_t(b_rows), uint64_t(b_cols),
                                b.ld),
     "layout B");
  ok(cublasLtMatrixLayoutCreate(&lc.value, cuda_type(c_type), uint64_t(m), uint64_t(n), ldc),
     "layout C");

  Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref;
  ok(cublasLtMatmulPreferenceCreate(&pref.value), "preference");
  ok(cublasLtMatmulPreferenceSetAttribute(pref.value, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                          &kWorkspaceBytes, sizeof(kWorkspaceBytes)),
     "workspace preference");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  ok(cublasLtMatmulAlgoGetHeuristic(d.handle, op.value, la.value, lb.value, lc.value, lc.value,
                                    pref.value, 1, &heuristic, &found),
     "heuristic");
  check(found > 0, "cublasLt: no algorithm for a " + std::to_string(m) + "x" + std::to_string(n) +
                       "x" + std::to_string(k) + " GEMM of " + dtype_name(a.type) + " into " +
                       dtype_name(c_type));
  ok(cublasLtMatmul(d.handle, op.value, &alpha, a.data, la.value, b.data, lb.value, &beta, c,
                    lc.value, c, lc.value, &heuristic.algo, d.workspace, kWorkspaceBytes,
                    native(s)),
     "matmul");
}

}  // namespace precis::cuda
