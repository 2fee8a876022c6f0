#include "precis/kernels/cpu/blas_core.h"

#include <cblas.h>
#include <cpuid.h>
#include <strings.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace precis::cpu {

namespace {

// The marker a restarted process reads: "Prescott>Cooperlake", the core OpenBLAS chose, then
// every OPENBLAS_CORETYPE precis tried, the last one in force.
constexpr const char* kTried = "PRECIS_BLAS_TRIED";

std::string blas_env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::vector<std::string> split_cores(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

std::string brand_and_model() {
  unsigned regs[12] = {};
  unsigned eax, ebx, ecx, edx;
  std::string brand;
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) && eax >= 0x80000004) {
    for (unsigned leaf = 0; leaf < 3; ++leaf)
      __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2],
                  &regs[4 * leaf + 3]);
    brand.assign(reinterpret_cast<const char*>(regs), sizeof regs);
    brand = brand.substr(0, brand.find('\0'));
    brand.erase(0, brand.find_first_not_of(' '));
  }
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return brand;
  // The displayed family and model (Intel's SDM, CPUID leaf 1): extended fields added for
  // families 6 and 15.
  unsigned family = (eax >> 8) & 0xF, model = (eax >> 4) & 0xF;
  if (family == 0xF) family += (eax >> 20) & 0xFF;
  if (family == 0x6 || family >= 0xF) model |= ((eax >> 16) & 0xF) << 4;
  return (brand.empty() ? "x86-64" : brand) + " (family " + std::to_string(family) + " model " +
         std::to_string(model) + ")";
}

}  // namespace

CpuIsa detect_cpu_isa() {
  CpuIsa isa;
  isa.model = brand_and_model();
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return isa;
  const bool fma = ecx & (1u << 12), osxsave = ecx & (1u << 27), avx = ecx & (1u << 28);
  if (!osxsave || !avx) return isa;
  // The registers the kernel saves on a context switch (XCR0): a CPU's AVX-512 or AMX is
  // usable only where the OS keeps their state.
  uint32_t xcr0_low, xcr0_high;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  const uint64_t xcr0 = (uint64_t(xcr0_high) << 32) | xcr0_low;
  const bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xE6) == 0xE6, tiles = (xcr0 & 0x60000) == 0x60000;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return isa;
  const bool avx2 = ebx & (1u << 5), f = ebx & (1u << 16), dq = ebx & (1u << 17),
             bw = ebx & (1u << 30), vl = ebx & (1u << 31);
  const bool amx_bf16 = (edx & (1u << 22)) && (edx & (1u << 24));
  isa.avx2_fma = ymm && avx2 && fma;
  isa.avx512 = isa.avx2_fma && zmm && f && dq && bw && vl;
  unsigned eax1 = 0, ebx1, ecx1, edx1;
  if (__get_cpuid_count(7, 1, &eax1, &ebx1, &ecx1, &edx1)) isa.avx512_bf16 = isa.avx512 && (eax1 & (1u << 5));
  isa.amx_bf16 = isa.avx512_bf16 && tiles && amx_bf16;
  return isa;
}

std::vector<std::string> blas_cores_for(const CpuIsa& isa) {
  std::vector<std::string> cores;
  if (isa.amx_bf16) cores.push_back("SapphireRapids");
  if (isa.avx512_bf16) cores.push_back("Cooperlake");
  if (isa.avx512) cores.push_back("SkylakeX");
  if (isa.avx2_fma) cores.push_back("Haswell");
  return cores;
}

int blas_core_level(const std::string& core) {
  static const struct {
    const char* name;
    int level;
  } levels[] = {{"Sandybridge", 1}, {"Bulldozer", 1}, {"Piledriver", 1}, {"Steamroller", 1},
                {"Excavator", 1},   {"Haswell", 2},   {"Zen", 2},         {"SkylakeX", 3},
                {"Cooperlake", 4},  {"SapphireRapids", 5}};
  for (const auto& l : levels)
    if (strcasecmp(core.c_str(), l.name) == 0) return l.level;
  return 0;
}

std::string BlasReport::text() const {
  return library.substr(0, library.find(' ', library.find(' ') + 1)) + ", core " + core + " (chosen by " + chose +
         "), CPU " + cpu.model;
}

BlasReport blas_report() {
  BlasReport r;
  r.library = openblas_get_config();
  r.core = openblas_get_corename();
  r.cpu = detect_cpu_isa();
  const std::vector<std::string> cores = blas_cores_for(r.cpu);
  const std::string best = cores.empty() ? "" : cores.front();
  const std::vector<std::string> tried = split_cores(blas_env(kTried), '>');
  if (tried.size() >= 2) {
    r.chose = "precis";
    r.note = "precis: OpenBLAS chose its " + tried.front() + " kernels on this CPU (" + r.cpu.model +
             "); restarted with OPENBLAS_CORETYPE=" + tried.back() + ": " + r.core + " kernels" +
             (blas_core_level(r.core) > blas_core_level(tried.front())
                  ? " (PRECIS_BLAS_CHECK=off keeps OpenBLAS's choice)"
                  : ", no better: this OpenBLAS may not be a DYNAMIC_ARCH build");
  } else if (!blas_env("OPENBLAS_CORETYPE").empty()) {
    r.chose = "OPENBLAS_CORETYPE";
  } else {
    r.chose = "OpenBLAS";
    if (!best.empty() && blas_core_level(r.core) < blas_core_level(best))
      r.note = "precis: OpenBLAS runs its " + r.core + " kernels on this CPU (" + r.cpu.model +
               "), which can run " + best + "'s: OPENBLAS_CORETYPE=" + best + " would be faster";
  }
  return r;
}

void choose_blas_core(char** argv) {
  const std::string check = blas_env("PRECIS_BLAS_CHECK");
  if (check == "off") return;
  const std::string tried_env = blas_env(kTried);
  // The user's own OPENBLAS_CORETYPE stands, unless it is precis's or a test fakes an old
  // library with it.
  if (!blas_env("OPENBLAS_CORETYPE").empty() && tried_env.empty() && check != "force") return;
  const std::string core = openblas_get_corename();
  std::vector<std::string> tried = tried_env.empty() ? std::vector<std::string>{core} : split_cores(tried_env, '>');
  for (const std::string& candidate : blas_cores_for(detect_cpu_isa())) {
    if (blas_core_level(core) >= blas_core_level(candidate)) return;  // nothing better left
    bool seen = false;
    for (const std::string& t : tried) seen = seen || strcasecmp(t.c_str(), candidate.c_str()) == 0;
    if (seen) continue;
    std::string marker;
    for (const std::string& t : tried) marker += t + ">";
    const std::string user = blas_env("OPENBLAS_CORETYPE");
    setenv("OPENBLAS_CORETYPE", candidate.c_str(), 1);
    setenv(kTried, (marker + candidate).c_str(), 1);
    // The executable's own path, not /proc/self/exe: the kernel names the process after the
    // file exec'd ("exe" would replace "precis" in ps and in launchers that find ranks by name).
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = '\0';
      execv(self, argv);
    }
    // No exec (no /proc, or the file is gone): carry on with the core in use, the environment as it was.
    if (user.empty()) unsetenv("OPENBLAS_CORETYPE");
    else setenv("OPENBLAS_CORETYPE", user.c_str(), 1);
    if (tried_env.empty()) unsetenv(kTried);
    else setenv(kTried, tried_env.c_str(), 1);
    return;
  }
}

}  // namespace precis::cpu
