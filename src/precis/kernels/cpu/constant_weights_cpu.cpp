#include "precis/kernels/cpu/constant_weights_cpu.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "precis/core/error.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/matmul_precision.h"

namespace precis {

namespace {

std::atomic<WeightQuantization> process_quantization{WeightQuantization::kNone};
thread_local ConstantWeightsScope* innermost_scope = nullptr;

}  // namespace

void set_weight_quantization(WeightQuantization quantization) {
  process_quantization = quantization;
}

WeightQuantization weight_quantization() { return process_quantization; }

WeightQuantization parse_weight_quantization(const std::string& value, const std::string& what) {
  if (value == "int8") return WeightQuantization::kInt8;
  if (value == "bf16") return WeightQuantization::kBf16;
  if (value == "none") return WeightQuantization::kNone;
  throw Error(what + ": '" + value + "' is not a quantization; expected int8, bf16 or none");
}

std::string weight_quantization_description() {
  if (weight_quantization() == WeightQuantization::kNone) return "fp32 weights";
  if (weight_quantization() == WeightQuantization::kBf16)
    return cpu::bf16_path() == cpu::Bf16Path::kAmx
               ? "bf16 linear layers (weights packed once for AMX tiles, fp32 sums); attention, "
                 "LayerNorm and softmax in fp32"
               : "bf16 asked for, but this CPU has no usable AMX-BF16: fp32 weights";
  if (cpu::int8_linear_runs())
    return std::string(
               "int8 weights (per output channel) and activations (per row), int32 sums "
               "on ") +
           cpu::int8_kernel_name(cpu::int8_kernel()) +
           "; LayerNorm, softmax and the scores in fp32";
  return "int8 asked for, but this CPU has neither AVX512-VNNI nor AVX2: fp32 weights";
}

struct ConstantWeightPacks {
  using Key = std::tuple<const float*, int64_t, int64_t>;
  const char* base;
  size_t bytes;
  WeightQuantization quantization;
  std::mutex mutex;  // a server's scopes may share these across threads
  std::map<Key, cpu::PackedWeight> fp32;
  std::map<Key, cpu::Int8Weight> int8;
  std::map<Key, cpu::Bf16Weight> bf16;

  ConstantWeightPacks(const void* b, size_t n)
      : base(static_cast<const char*>(b)), bytes(n), quantization(weight_quantization()) {}

  bool holds(const void* p, size_t n) const {
    const char* c = static_cast<const char*>(p);
    return c >= base && c + n <= base + bytes;
  }
};

ConstantWeights::ConstantWeights(const void* base, size_t bytes)
    : packs_(std::make_shared<ConstantWeightPacks>(base, bytes)) {}

ConstantWeights::~ConstantWeights() = default;

ConstantWeightsScope::ConstantWeightsScope(const void* base, size_t bytes)
    : outer_(innermost_scope) {
  ConstantWeightPacks* around = innermost();
  if (around && around->holds(base, bytes) && around->quantization == weight_quantization())
    packs_ = outer_->packs_;
  else
    packs_ = std::make_shared<ConstantWeightPacks>(base, bytes);
  innermost_scope = this;
}

ConstantWeightsScope::ConstantWeightsScope(const ConstantWeights& kept)
    : packs_(kept.packs_), outer_(innermost_scope) {
  innermost_scope = this;
}

ConstantWeightsScope::~ConstantWeightsScope() { innermost_scope = outer_; }

ConstantWeightPacks* ConstantWeightsScope::innermost() {
  return innermost_scope ? innermost_scope->packs_.get() : nullptr;
}

namespace cpu {

namespace {

// The copy of w in `copies`, made by `make` on first use.
template <class Copy, class Make>
const Copy* kept(ConstantWeightPacks& packs, std::map<ConstantWeightPacks::Key, Copy>& copies,
                 const float* w, int64_t in, int64_t out, Make make) {
  const std::lock_guard<std::mutex> lock(packs.mutex);
  const auto key = std::make_tuple(w, in, out);
  auto it = copies.find(key);
  if (it == copies.end()) it = copies.emplace(key, make(w, in, out)).first;
  return &it->second;
}

}  // namespace

const PackedWeight* constant_packed_weight(const float* w, int64_t in, int64_t out) {
  ConstantWeightPacks* packs = ConstantWeightsScope::innermost();
  if (!packs || packs->quantization != WeightQuantization::kNone || !packed_linear_runs() ||
      !packs->holds(w, size_t(in * out) * sizeof(float)))
    return nullptr;
  return kept(*packs, packs->fp32, w, in, out, pack_weight);
}

const Int8Weight* constant_int8_weight(const float* w, int64_t in, int64_t out) {
  ConstantWeightPacks* packs = ConstantWeightsScope::innermost();
  if (!packs || packs->quantization != WeightQuantization::kInt8 || !int8_linear_runs() ||
      !packs->holds(w, size_t(in * out) * sizeof(float)))
    return nullptr;
  return kept(*packs, packs->int8, w, in, out, quantize_weight);
}

const Bf16Weight* constant_bf16_weight(const float* w, int64_t in, int64_t out) {
  ConstantWeightPacks* packs = ConstantWeightsScope::innermost();
  if (!packs || bf16_path() != Bf16Path::kAmx || !packs->holds(w, size_t(in * out) * sizeof(float)))
    return nullptr;
  const bool bf16 = packs->quantization == WeightQuantization::kBf16 ||
                    (packs->quantization == WeightQuantization::kNone &&
                     cpu_matmul_precision() == MatmulPrecision::kBf16);
  return bf16 ? kept(*packs, packs->bf16, w, in, out, pack_bf16_weight) : nullptr;
}

}  // namespace cpu
}  // namespace precis
