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
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "precis/core/arena.h"
#include "precis/core/tensor.h"
#include "precis/kernels/copy.h"

#include "backends.h"

namespace precis::testing {

using RefVec = std::vector<double>;

// fp32 kernels against a double reference: 1e-5 relative to max(1, |reference|), the
// project's fp32 tolerance (fp32 rounds at 6e-8 relative; the reductions here are at most a
// few hundred terms long, so their error stays under 1e-6, and a change of 1e-5 fails).
constexpr double kFp32Tolerance = 1e-5;

class KernelTest : public ::testing::TestWithParam<Device> {
 protected:
  Device device() const { return GetParam(); }

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
  // A tensor on the backend with every element `value`.
  Tensor filled(Shape shape, float value = 0.0f) {
    return on_device(std::vector<float>(size_t(shape.numel()), value), shape);
  }
  // The values of a tensor on the backend.
  std::vector<float> to_host(const Tensor& t) {
    std::vector<float> out(size_t(t.numel()));
    copy(t, Tensor{out.data(), t.shape, DType::F32, Device::cpu()});
    return out;
  }

 private:
  static constexpr size_t kArenaBytes = size_t(64) << 20;  // the largest test holds ~12 MiB

  Tensor upload(const void* values, Shape shape, DType dtype) {
    if (!arena_) arena_.emplace(kArenaBytes, device());
    Tensor t = arena_->alloc(shape, dtype);
    copy(Tensor{const_cast<void*>(values), shape, dtype, Device::cpu()}, t);
    return t;
  }

  std::optional<Arena> arena_;
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

// The odd shapes every op is checked on: row widths that are not multiples of 8, 16 or 32
// (a vectorised or tiled kernel's remainder paths), and a single row.
struct OddShape {
  int64_t rows, cols;
};
inline const std::vector<OddShape>& odd_shapes() {
  static const std::vector<OddShape> shapes{{3, 37}, {5, 129}, {1, 7}};
  return shapes;
}

}  // namespace precis::testing
