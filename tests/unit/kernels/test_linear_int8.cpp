// The int8 linear layer (kernels/cpu/linear_int8.h) and `--quantization int8`'s scope: a row's
// quantization is the symmetric one the header states (scale, rounding ties to even, zeros);
// each kernel this CPU runs (AMX-INT8, AVX512-VNNI, AVX2) writes a row's bytes as quantize_row's q
// and gives bit for bit the same float expression over the exact integer sums (for every row-block
// size, `in` off its groups of four and off AMX's 64-byte tiles, and output widths off its
// panels, so the VNNI shift, AVX2's sign trick, the panel layout, AMX's padded tiles and the
// edge masks are all checked); every thread count gives the
// same bits; and linear_forward runs it inside a scope opened with int8 set.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/core/error.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/cpu/constant_weights_cpu.h"
#include "precis/kernels/cpu/linear_int8.h"
#include "precis/kernels/cpu/linear_int8_kernels.h"
#include "precis/kernels/linear.h"

namespace precis {
namespace {

struct Int8Product {
  int64_t rows, in, out;
};

const Int8Product kInt8Products[] = {{1, 64, 12}, {13, 129, 25}, {40, 768, 100}, {31, 1, 7},
                                     {9, 300, 1}, {12, 128, 32}, {7, 17, 48},    {256, 128, 130},
                                     {2, 5, 17},  {11, 4, 64},   {33, 1000, 70}};

constexpr const char* kNoInt8Kernel =
    "the int8 kernels need AVX2 or AVX512-VNNI, so they cannot run on this CPU (int8 runs fp32 "
    "there: oracle.test_generate checks that the log says so)";

// The kernels this CPU runs, each with its part (linear_int8_kernels.h).
std::vector<std::pair<cpu::Int8Kernel, const cpu::Int8RowsKernel*>> runnable_int8_kernels() {
  std::vector<std::pair<cpu::Int8Kernel, const cpu::Int8RowsKernel*>> kernels;
  if (cpu::int8_kernel_runs(cpu::Int8Kernel::kAmx))
    kernels.emplace_back(cpu::Int8Kernel::kAmx, cpu::int8_amx_rows());
  if (cpu::int8_kernel_runs(cpu::Int8Kernel::kAvx512Vnni))
    kernels.emplace_back(cpu::Int8Kernel::kAvx512Vnni, cpu::int8_avx512_vnni_rows());
  if (cpu::int8_kernel_runs(cpu::Int8Kernel::kAvx2))
    kernels.emplace_back(cpu::Int8Kernel::kAvx2, cpu::int8_avx2_rows());
  return kernels;
}

struct Int8Operands {
  std::vector<float> x, w, b;
  Int8Operands(const Int8Product& p, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    x.resize(size_t(p.rows * p.in));
    w.resize(size_t(p.out * p.in));
    b.resize(size_t(p.out));
    for (std::vector<float>* v : {&x, &w, &b})
      for (float& e : *v) e = normal(gen);
  }
};

// The header's expression from quantize_row's integers: float(Σ q_x · q_w) · (t · s) + b.
std::vector<float> int8_reference(const Int8Operands& o, const Int8Product& p, bool bias) {
  std::vector<int8_t> qx(size_t(p.rows * p.in)), qw(size_t(p.out * p.in));
  std::vector<float> t(size_t(p.rows)), s(size_t(p.out));
  for (int64_t r = 0; r < p.rows; ++r)
    t[size_t(r)] = cpu::quantize_row(o.x.data() + r * p.in, p.in, qx.data() + r * p.in);
  for (int64_t n = 0; n < p.out; ++n)
    s[size_t(n)] = cpu::quantize_row(o.w.data() + n * p.in, p.in, qw.data() + n * p.in);
  std::vector<float> y(size_t(p.rows * p.out));
  for (int64_t r = 0; r < p.rows; ++r)
    for (int64_t n = 0; n < p.out; ++n) {
      int32_t sum = 0;
      for (int64_t c = 0; c < p.in; ++c)
        sum += int32_t(qx[size_t(r * p.in + c)]) * int32_t(qw[size_t(n * p.in + c)]);
      const float scaled = float(sum) * (t[size_t(r)] * s[size_t(n)]);
      y[size_t(r * p.out + n)] = bias ? scaled + o.b[size_t(n)] : scaled;
    }
  return y;
}

std::vector<float> int8_product(const Int8Operands& o, const Int8Product& p, bool bias,
                                cpu::Int8Kernel kernel = cpu::int8_kernel()) {
  const cpu::Int8Weight w = cpu::quantize_weight(o.w.data(), p.in, p.out);
  std::vector<float> y(size_t(p.rows * p.out), -1.0f);
  cpu::linear_int8(kernel, w, o.x.data(), bias ? o.b.data() : nullptr, y.data(), p.rows);
  return y;
}

std::string describe_int8(const Int8Product& p) {
  return std::to_string(p.rows) + " rows, in " + std::to_string(p.in) + ", out " +
         std::to_string(p.out);
}

TEST(QuantizeRow, SymmetricPerRowWithTiesToEven) {
  // max 2.54: scale 0.02, x · 127 / 2.54 = x · 50; 0.05 · 50 = 2.5 -> 2, 0.07 · 50 = 3.5 -> 4.
  const std::vector<float> x = {2.54f, -2.54f, 0.05f, 0.07f, -0.05f, 0.0f, 1.27f};
  std::vector<int8_t> q(x.size());
  const float scale = cpu::quantize_row(x.data(), int64_t(x.size()), q.data());
  EXPECT_FLOAT_EQ(scale, 2.54f / 127.0f);
  const std::vector<int8_t> expected = {127, -127, 2, 4, -2, 0, 64};
  // 1.27 · (127 / 2.54) rounds to 63.5 in float, which rounds to 64.
  EXPECT_EQ(q, expected);
  std::vector<float> zeros(5, 0.0f);
  std::vector<int8_t> qz(5, 9);
  EXPECT_EQ(cpu::quantize_row(zeros.data(), 5, qz.data()), 0.0f);
  EXPECT_EQ(qz, std::vector<int8_t>(5, 0));
}

// Each kernel's bytes for a row are quantize_row's q (+ 128 where it shifts), its scale the
// same, for lengths off every vector width (the tails).
TEST(LinearInt8, EachKernelsRowBytesAreQuantizeRows) {
  if (!cpu::int8_linear_runs()) GTEST_SKIP() << kNoInt8Kernel;
  std::mt19937 gen(5);
  std::normal_distribution<float> normal;
  for (const auto& [kernel, rows] : runnable_int8_kernels())
    for (int64_t n : {1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 768}) {
      SCOPED_TRACE(std::string(cpu::int8_kernel_name(kernel)) + ", " + std::to_string(n));
      std::vector<float> x(static_cast<size_t>(n));
      for (float& e : x) e = normal(gen);
      std::vector<int8_t> q(static_cast<size_t>(n));
      const float t = cpu::quantize_row(x.data(), n, q.data());
      std::vector<uint8_t> bytes(static_cast<size_t>(n), 99), expected(static_cast<size_t>(n));
      for (int64_t c = 0; c < n; ++c)
        expected[size_t(c)] = uint8_t(rows->shifted ? int(q[size_t(c)]) + 128 : int(q[size_t(c)]));
      EXPECT_EQ(rows->quantize_row(x.data(), n, bytes.data()), t);
      EXPECT_EQ(bytes, expected);
    }
}

TEST(LinearInt8, IsTheExpressionOverTheExactIntegerSums) {
  if (!cpu::int8_linear_runs()) GTEST_SKIP() << kNoInt8Kernel;
  for (const auto& kernel : runnable_int8_kernels())
    for (const Int8Product& p : kInt8Products)
      for (bool bias : {true, false}) {
        SCOPED_TRACE(std::string(cpu::int8_kernel_name(kernel.first)) + ", " + describe_int8(p) +
                     (bias ? ", bias" : ", no bias"));
        Int8Operands o(p, uint32_t(p.rows * 17 + p.out));
        EXPECT_EQ(int8_product(o, p, bias, kernel.first), int8_reference(o, p, bias));
      }
}

// The CPU's best kernel is the first of AMX-INT8, AVX512-VNNI and AVX2 it has; a kernel it
// lacks is refused by name.
TEST(LinearInt8, RunsTheBestKernelAndRefusesOnesTheCpuLacks) {
  const auto kernels = runnable_int8_kernels();
  EXPECT_EQ(cpu::int8_kernel(), kernels.empty() ? cpu::Int8Kernel::kNone : kernels[0].first);
  for (cpu::Int8Kernel k : {cpu::Int8Kernel::kAmx, cpu::Int8Kernel::kAvx512Vnni,
                            cpu::Int8Kernel::kAvx2, cpu::Int8Kernel::kNone})
    if (!cpu::int8_kernel_runs(k)) {
      const Int8Product p{1, 4, 1};
      Int8Operands o(p, 1);
      try {
        int8_product(o, p, true, k);
        FAIL() << cpu::int8_kernel_name(k) << " ran";
      } catch (const Error& e) {
        EXPECT_NE(
            std::string(e.what()).find(std::string("cannot run the ") + cpu::int8_kernel_name(k)),
            std::string::npos)
            << e.what();
      }
    }
}

// A row of zeros (activations) or a channel of zeros (weights) gives exactly the bias.
TEST(LinearInt8, ZeroRowsAndChannelsGiveTheBias) {
  if (!cpu::int8_linear_runs()) GTEST_SKIP() << kNoInt8Kernel;
  const Int8Product p{3, 20, 40};
  Int8Operands o(p, 4);
  std::fill(o.x.begin() + p.in, o.x.begin() + 2 * p.in, 0.0f);      // row 1
  std::fill(o.w.begin() + 5 * p.in, o.w.begin() + 6 * p.in, 0.0f);  // channel 5
  const std::vector<float> y = int8_product(o, p, true);
  for (int64_t n = 0; n < p.out; ++n) EXPECT_EQ(y[size_t(p.out + n)], o.b[size_t(n)]);
  for (int64_t r = 0; r < p.rows; ++r) EXPECT_EQ(y[size_t(r * p.out + 5)], o.b[5]);
  EXPECT_EQ(y, int8_reference(o, p, true));
}

TEST(LinearInt8, SameBitsForAnyThreadCount) {
  if (!cpu::int8_linear_runs()) GTEST_SKIP() << kNoInt8Kernel;
  const Int8Product p{100, 300, 1000};
  Int8Operands o(p, 3);
  for (const auto& kernel : runnable_int8_kernels())
    testing::expect_same_for_thread_counts([&] { return int8_product(o, p, true, kernel.first); },
                                           {2, 3, 7});
}

// The quantization in force when a scope opens is the scope's: with int8, linear_forward runs
// the int8 kernel for any row count (the encoder's too); the fp32 packs are not made.
TEST(LinearInt8, LinearForwardRunsItInAnInt8Scope) {
  if (!cpu::int8_linear_runs()) GTEST_SKIP() << kNoInt8Kernel;
  struct ResetQuantization {
    ~ResetQuantization() { set_weight_quantization(WeightQuantization::kNone); }
  } reset;
  for (const Int8Product& p : {Int8Product{4, 40, 50}, Int8Product{700, 40, 50}}) {
    SCOPED_TRACE(describe_int8(p));
    Int8Operands o(p, 8);
    std::vector<float> y(size_t(p.rows * p.out));
    const auto forward = [&] {
      linear_forward(testing::on_cpu(o.x, {p.rows, p.in}), testing::on_cpu(o.w, {p.out, p.in}),
                     testing::on_cpu(o.b, {p.out}), testing::on_cpu(y, {p.rows, p.out}));
      return y;
    };
    const std::vector<float> fp32 = forward();
    set_weight_quantization(WeightQuantization::kInt8);
    EXPECT_EQ(forward(), fp32) << "no scope: fp32";
    const ConstantWeightsScope scope(o.w.data(), o.w.size() * sizeof(float));
    EXPECT_EQ(cpu::constant_packed_weight(o.w.data(), p.in, p.out), nullptr);
    EXPECT_EQ(forward(), int8_product(o, p, true));
    EXPECT_NE(forward(), fp32);
    set_weight_quantization(WeightQuantization::kNone);
    EXPECT_EQ(forward(), int8_product(o, p, true)) << "the scope keeps what it opened with";
  }
}

TEST(WeightQuantization, ParsesItsNamesAndRefusesOthers) {
  EXPECT_EQ(parse_weight_quantization("int8", "--quantization"), WeightQuantization::kInt8);
  EXPECT_EQ(parse_weight_quantization("bf16", "--quantization"), WeightQuantization::kBf16);
  EXPECT_EQ(parse_weight_quantization("none", "--quantization"), WeightQuantization::kNone);
  try {
    parse_weight_quantization("int4", "--quantization");
    FAIL() << "int4 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "--quantization: 'int4' is not a quantization; expected int8, bf16 or none");
  }
}

}  // namespace
}  // namespace precis
