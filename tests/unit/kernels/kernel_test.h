// What the op tests (tests/unit/kernels/test_<op>.cpp) share: the fixture that puts tensors on
// the backend under test, and the double-precision side of the comparisons.
//
// Tensors for a backend come from an arena on its device and are filled and read back with the
// copy op, so the op under test is the only kernel that runs there; the expected values come
// from plain loops in double written in each test file, or from central differences of them.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "precis/core/arena.h"
#include "precis/core/dtype.h"
#include "precis/core/tensor.h"
#include "precis/kernels/copy.h"

#include "backends.h"

namespace precis::testing {

using RefVec = std::vector<double>;

// fp32 kernels against a double reference: 1e-5 relative to max(1, |reference|), the
// project's fp32 tolerance (fp32 rounds at 6e-8 relative; the reductions here are at most a
// few hundred terms long, so their error stays under 1e-6, and a change of 1e-5 fails).
constexpr double kFp32Tolerance = 1e-5;

// `values` rounded in place to the 16-bit type (nearest even, core/dtype.h's conversions).
inline void round_to(std::vector<float>& values, DType dtype) {
  for (float& v : values)
    v = dtype == DType::BF16 ? bf16_to_float(float_to_bf16(v)) : f16_to_float(float_to_f16(v));
}

// Tensors on one device for an op test: uploaded from host vectors by the copy op into an
// arena made on first use, and read back as floats (from fp32 or 16-bit tensors).
class DeviceTensors {
 protected:
  virtual ~DeviceTensors() = default;
  virtual Device tensors_device() const = 0;

  // A tensor on the backend holding `values`.
  Tensor on_device(const std::vector<float>& values, Shape shape) {
    return upload(values.data(), shape, DType::F32);
  }
  Tensor on_device(const std::vector<int32_t>& values, Shape shape) {
    return upload(values.data(), shape, DType::I32);
  }
  Tensor on_device(const std::vector<uint32_t>& values, Shape shape) {
    return upload(values.data(), shape, DType::I32);
  }
  Tensor on_device(const std::vector<double>& values, Shape shape) {
    return upload(values.data(), shape, DType::F64);
  }
  // A tensor on the backend with every element `value`.
  Tensor filled(Shape shape, float value = 0.0f) {
    return on_device(std::vector<float>(size_t(shape.numel()), value), shape);
  }
  // `values` on the backend as `dtype`: fp32 as they are; bf16 or fp16 rounded in place to that
  // type first, so that a reference computed from them reads the numbers the tensor holds.
  Tensor on_device_as(std::vector<float>& values, Shape shape, DType dtype) {
    if (dtype == DType::F32) return on_device(values, shape);
    round_to(values, dtype);
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      bits[i] = dtype == DType::BF16 ? float_to_bf16(values[i]) : float_to_f16(values[i]);
    return upload(bits.data(), shape, dtype);
  }
  // A tensor of `dtype` on the backend with every element `value` (exact in the 16-bit types).
  Tensor filled_as(Shape shape, DType dtype, float value = 0.0f) {
    std::vector<float> values(size_t(shape.numel()), value);
    return on_device_as(values, shape, dtype);
  }
  // The values of a tensor on the backend, fp32 or 16-bit.
  std::vector<float> to_host(const Tensor& t) {
    std::vector<float> out(size_t(t.numel()));
    if (t.dtype == DType::F32) {
      copy(t, Tensor{out.data(), t.shape, DType::F32, Device::cpu()});
      return out;
    }
    std::vector<uint16_t> bits(out.size());
    copy(t, Tensor{bits.data(), t.shape, t.dtype, Device::cpu()});
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = t.dtype == DType::BF16 ? bf16_to_float(bits[i]) : f16_to_float(bits[i]);
    return out;
  }

  Tensor upload(const void* values, Shape shape, DType dtype) {
    if (!arena_) arena_.emplace(kArenaBytes, tensors_device());
    Tensor t = arena_->alloc(shape, dtype);
    copy(Tensor{const_cast<void*>(values), shape, dtype, Device::cpu()}, t);
    return t;
  }

 private:
  static constexpr size_t kArenaBytes = size_t(64) << 20;  // the largest test holds ~12 MiB

  std::optional<Arena> arena_;
};

// A CPU tensor over `values`: the references' inputs and outputs, and the CPU's own tensors in
// the tests of its thread counts.
inline Tensor on_cpu(std::vector<float>& values, Shape shape) {
  return Tensor{values.data(), shape, DType::F32, Device::cpu()};
}
inline Tensor on_cpu(std::vector<int32_t>& values, Shape shape) {
  return Tensor{values.data(), shape, DType::I32, Device::cpu()};
}

class KernelTest : public ::testing::TestWithParam<Device>, protected DeviceTensors {
 protected:
  Device device() const { return GetParam(); }
  Device tensors_device() const override { return GetParam(); }
};

// Mixed precision's op tests (test_<op>.cpp's <Op>Kernel16): a CUDA backend's 16-bit twin
// (kernels_cuda.h's members that take a dtype) on BF16 or F16 tensors against the CPU's fp32
// kernel on the same values. Inputs are rounded to the 16-bit type first, so both sides see the
// same numbers, and the twin computes in fp32 and rounds each result once: its output must be
// the CPU's result rounded to the 16-bit type, within half an ulp of it (expect_rounded_from).
struct HalfCase {
  Device device;
  DType dtype;  // BF16 or F16
};

// Each non-CPU backend of kernel_backends(), in bf16 and in fp16.
inline std::vector<HalfCase> half_cases() {
  std::vector<HalfCase> cases;
  for (Device d : kernel_backends())
    if (d.kind != DeviceKind::CPU)
      for (DType t : {DType::BF16, DType::F16}) cases.push_back({d, t});
  return cases;
}

// "cuda0_BF16".
inline std::string half_test_name(const ::testing::TestParamInfo<HalfCase>& info) {
  std::string name;
  for (char c : info.param.device.name())
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  return name + "_" + dtype_name(info.param.dtype);
}

// The spacing of the 16-bit type's values at |x| (normal numbers; fp16's subnormal step below).
inline double ulp_16(double x, DType dtype) {
  int exponent = 0;
  std::frexp(x, &exponent);  // |x| = m · 2^exponent, m in [0.5, 1)
  if (dtype == DType::BF16) return std::ldexp(1.0, exponent - 8);  // 8 significant bits
  return std::max(std::ldexp(1.0, exponent - 11), std::ldexp(1.0, -24));  // 11 bits
}

// Every element of a 16-bit result against the CPU's fp32 `reference`: within half an ulp of
// the 16-bit type (one rounding to nearest) plus the fp32 tolerance relative to
// max(1, |reference|), for the fp32 rounding differences the twins' summation order makes
// (test_<op>.cpp's fp32 cases bound those). A kernel that truncates, rounds an intermediate
// to 16 bits, or sums in 16 bits leaves the half ulp.
inline void expect_rounded_from(const std::vector<float>& actual,
                                const std::vector<float>& reference, DType dtype,
                                const std::string& what) {
  ASSERT_EQ(actual.size(), reference.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double r = reference[i];
    const double bound = 0.5 * ulp_16(r, dtype) + kFp32Tolerance * std::max(1.0, std::abs(r));
    EXPECT_NEAR(double(actual[i]), r, bound) << what << " element " << i << " (" << dtype_name(dtype) << ")";
  }
}

// The fixture of the 16-bit op tests: tensors of the case's 16-bit type, or fp32 and ids
// (parameters, statistics, labels: DeviceTensors), on its device; the fp32 reference runs on
// CPU tensors over host vectors (on_cpu).
class HalfKernelTest : public ::testing::TestWithParam<HalfCase>, protected DeviceTensors {
 protected:
  Device device() const { return GetParam().device; }
  DType dtype() const { return GetParam().dtype; }
  // The other 16-bit type, whose reading of the same bits is other numbers: a tensor relabelled
  // to it is the mixed-dtype argument the twins must refuse.
  DType other_16() const { return dtype() == DType::BF16 ? DType::F16 : DType::BF16; }
  Device tensors_device() const override { return GetParam().device; }

  // `values` rounded in place to the 16-bit type, on the device in that type.
  Tensor on_device_16(std::vector<float>& values, Shape shape) {
    return on_device_as(values, shape, dtype());
  }
  // A 16-bit tensor on the device with every element `value` (exact in both types).
  Tensor filled_16(Shape shape, float value = 0.0f) { return filled_as(shape, dtype(), value); }
};

inline std::vector<float> random_floats(int64_t n, std::mt19937& rng, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

inline RefVec to_double(const std::vector<float>& v) { return RefVec(v.begin(), v.end()); }

inline double dot_product(const RefVec& a, const RefVec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Central differences of f at x, step h, for every coordinate. In double the error is about
// h² · f''' + 1e-16 · |f| / h, far under the fp32 tolerance for the sums tested here.
inline RefVec finite_difference_gradient(const std::function<double(const RefVec&)>& f, RefVec x,
                                         double h = 1e-6) {
  RefVec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = f(x);
    x[i] = keep - h;
    const double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

// Every element of `actual` (minus `offset`, what it held before a += op) against `expected`,
// within `tolerance` relative to max(1, |expected|).
inline void expect_near_reference(const std::vector<float>& actual, const RefVec& expected,
                                  const std::string& what, double offset = 0.0,
                                  double tolerance = kFp32Tolerance) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double bound = tolerance * std::max(1.0, std::abs(expected[i]));
    EXPECT_NEAR(double(actual[i]) - offset, expected[i], bound) << what << " element " << i;
  }
}

// f() run with `threads` OpenMP threads (the CPU backend's determinism tests).
template <class F>
auto with_omp_threads(int threads, F&& f) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto result = f();
  omp_set_num_threads(saved);
  return result;
}

// The CPU backend gives the same result, to the bit, for any thread count (a resumed run would
// drift otherwise): `run` returns with each of `threads` OpenMP threads what it returns with one.
template <class F>
void expect_same_for_thread_counts(F&& run, std::initializer_list<int> threads) {
  const auto one = with_omp_threads(1, run);
  for (int t : threads) EXPECT_EQ(with_omp_threads(t, run), one) << t << " threads";
}

// The odd shapes every op is checked on: row widths that are not multiples of 8, 16 or 32
// (a vectorised or tiled kernel's remainder paths), and a single row.
struct OddShape {
  int64_t rows, cols;
};
inline const std::vector<OddShape>& odd_shapes() {
  static const std::vector<OddShape> shapes{{3, 37}, {5, 129}, {1, 7}};
  return shapes;
}

// f(shape, rng) on each of odd_shapes(), its failures traced by the shape ("3x37"), the inputs
// drawn in turn from one generator seeded with `seed`.
template <class F>
void for_each_odd_shape(uint32_t seed, F&& f) {
  std::mt19937 rng(seed);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    f(Shape{s.rows, s.cols}, rng);
  }
}

}  // namespace precis::testing

namespace precis::testing {
inline void PrintTo(const HalfCase& c, std::ostream* os) {
  *os << c.device.name() << " " << dtype_name(c.dtype);
}
}  // namespace precis::testing

// Runs the TEST_Ps of `Fixture` (a HalfKernelTest) on each CUDA backend in bf16 and fp16:
// Halves/Fixture.Name/cuda0_BF16. A build whose only backend is the CPU has none to run
// (precis_gpu_op_tests on a machine without a GPU).
#define INSTANTIATE_HALF_KERNEL_TEST(Fixture)                                                \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture);                                    \
  INSTANTIATE_TEST_SUITE_P(Halves, Fixture, ::testing::ValuesIn(precis::testing::half_cases()), \
                           precis::testing::half_test_name)
