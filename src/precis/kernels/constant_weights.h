// Weights that hold still: while a ConstantWeightsScope lives on a thread, the CPU's
// linear_forward on that thread may keep, for each weight it is given from inside the scope's
// memory, a copy laid out for its kernel (kernels/cpu/linear_packed.h), made on first use and
// used on every later call: a decoding step multiplies its few rows by the same weights every
// step, and packing them on every call (OpenBLAS's sgemm does) cost as much as the products of
// a small model. generate() opens one over its model's parameters for its whole run, in which
// nothing writes them; a weight outside the memory (a training copy, a temporary) is never
// kept. With int8 (or bf16) quantization set, the copies are int8 (or AMX-packed bf16) and
// every linear layer's product inside the scope runs on them, the encoder's too. Scopes nest;
// the innermost counts, and one opened within a scope over the same memory uses that scope's
// copies. Device-neutral to its callers: on CUDA it changes nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace precis {

// What the CPU multiplies such weights in: fp32 (the default, HF's products; bf16 where the
// matmul precision says so, kernels/matmul_precision.h), int8 (`--quantization int8`:
// per-output-channel symmetric int8 weights, each row of activations quantized to int8 at run
// time, int32 sums; kernels/cpu/linear_int8.h), or bf16 (`--quantization bf16`: the linear
// layers' products in bf16 with fp32 sums on AMX, attention in fp32). Process-wide, set by the
// commands that generate before they do; a scope takes the setting it opens with.
enum class WeightQuantization { kNone, kInt8, kBf16 };

void set_weight_quantization(WeightQuantization quantization);
WeightQuantization weight_quantization();
// "int8", "bf16" or "none" (anything else refused, naming `what`).
WeightQuantization parse_weight_quantization(const std::string& value, const std::string& what);
// What the setting runs on this CPU, for the job's log.
std::string weight_quantization_description();

struct ConstantWeightPacks;  // the copies, and the quantization
                             // (kernels/cpu/constant_weights_cpu.cpp)

// A model's copies kept beyond one scope: whoever holds the model for many generate() calls
// (the server's summarizer, a command's batch loop) makes one and opens scopes with it, and
// generate()'s own scope over the same memory then uses its copies instead of making new ones.
class ConstantWeights {
 public:
  // [base, base + bytes): memory nothing writes while scopes with this are open. The
  // quantization is the one in force now.
  ConstantWeights(const void* base, size_t bytes);
  ~ConstantWeights();

 private:
  friend class ConstantWeightsScope;
  std::shared_ptr<ConstantWeightPacks> packs_;
};

class ConstantWeightsScope {
 public:
  // [base, base + bytes): memory nothing writes while this lives. Within an open scope that
  // holds all of it, with the same quantization, this one uses that one's copies.
  ConstantWeightsScope(const void* base, size_t bytes);
  explicit ConstantWeightsScope(const ConstantWeights& kept);
  ~ConstantWeightsScope();
  ConstantWeightsScope(const ConstantWeightsScope&) = delete;
  ConstantWeightsScope& operator=(const ConstantWeightsScope&) = delete;

  // The innermost scope's copies on this thread; null when none is open.
  static ConstantWeightPacks* innermost();

 private:
  std::shared_ptr<ConstantWeightPacks> packs_;
  ConstantWeightsScope* outer_;
};

}  // namespace precis
