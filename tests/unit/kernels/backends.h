// The backends this build has kernels for. Every op test in tests/unit/kernels/ is a TEST_P
// instantiated over this list (INSTANTIATE_KERNEL_TEST), so a backend joins every op test by
// adding its device here, under the macro its build defines. The unit tests run the CUDA twins
// in the kernel emulator (tests/emulator/) as cuda:0; precis_gpu_op_tests, the same op
// tests on a real GPU (scripts/gpu-check.sh). An op whose CUDA twin has not
// landed yet says so with INSTANTIATE_CPU_KERNEL_TEST.
#pragma once

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "precis/core/device.h"

#ifdef PRECIS_EMULATED_CUDA_BACKEND
#include "emulator/install.h"
#endif
#ifdef PRECIS_REAL_CUDA_BACKEND
#include "precis/kernels/cuda/twins.h"
#endif

namespace precis::testing {

inline std::vector<Device> kernel_backends() {
  std::vector<Device> devices{Device::cpu()};
#ifdef PRECIS_EMULATED_CUDA_BACKEND  // the CUDA twins (kernels/cuda/) on the emulator
  cuda_emulation::install();
  devices.push_back(Device::cuda(0));
#endif
#ifdef PRECIS_REAL_CUDA_BACKEND  // the CUDA twins on a GPU (precis_gpu_op_tests), when one is here
  if (cuda::install_if_gpu_present() > 0) devices.push_back(Device::cuda(0));
#endif
  return devices;
}

// "cpu", "cuda0": the device's name as a test name may spell it (letters, digits, '_').
inline std::string backend_test_name(const ::testing::TestParamInfo<Device>& info) {
  std::string name;
  for (char c : info.param.name())
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  return name;
}

}  // namespace precis::testing

namespace precis {
// GoogleTest names the backend of a failed test by this ("GetParam() = cpu").
inline void PrintTo(const Device& device, std::ostream* os) { *os << device.name(); }
}  // namespace precis

// Runs the TEST_Ps of `Fixture` (a KernelTest) once per backend: Backends/Fixture.Name/cpu.
#define INSTANTIATE_KERNEL_TEST(Fixture)                                            \
  INSTANTIATE_TEST_SUITE_P(Backends, Fixture,                                       \
                           ::testing::ValuesIn(precis::testing::kernel_backends()), \
                           precis::testing::backend_test_name)

// The same for an op with no CUDA twin yet: the CPU only.
#define INSTANTIATE_CPU_KERNEL_TEST(Fixture)                                    \
  INSTANTIATE_TEST_SUITE_P(Backends, Fixture, ::testing::Values(precis::Device::cpu()), \
                           precis::testing::backend_test_name)
