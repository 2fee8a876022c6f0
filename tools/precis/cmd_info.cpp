// precis info: the version, the BLAS library with its version and the core in use (and who
// chose it), the CPU with the instruction sets precis and OpenBLAS look for, the OpenMP threads
// and the GPU backend. `precis --version` prints the same.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends.h"
#include "command.h"
#include "info.h"
#include "precis/kernels/cpu/blas_core.h"

namespace precis::cli {

namespace {

std::string isa_text(const cpu::CpuIsa& isa) {
  std::string s;
  const auto add = [&](bool has, const char* name) { s += std::string(s.empty() ? "" : ", ") + (has ? "" : "no ") + name; };
  add(isa.avx2_fma, "AVX2+FMA");
  add(isa.avx512, "AVX-512 (F, BW, VL, DQ)");
  add(isa.avx512_bf16, "AVX512-BF16");
  add(isa.amx_bf16, "AMX-BF16");
  return s;
}

// The first rank's, or the only process's: a job of 16 ranks logs the choice once.
bool first_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* rank = std::getenv(name);
    if (rank) return std::strcmp(rank, "0") == 0;
  }
  return true;
}

}  // namespace

std::string info_text() {
  const cpu::BlasReport blas = cpu::blas_report();
  std::string s = "precis " PRECIS_VERSION "\n";
  s += "BLAS: " + blas.library + "\n";
  s += "BLAS core: " + blas.core + " (chosen by " + blas.chose + ")\n";
  if (!blas.note.empty()) s += blas.note + "\n";
  s += "CPU: " + blas.cpu.model + ": " + isa_text(blas.cpu) + "\n";
  s += "OpenMP threads: " + std::to_string(omp_get_max_threads()) + "\n";
  s += "GPU backend: " + backends_description();
  return s;
}

void log_blas_choice(const char* command) {
  static const char* jobs[] = {"train", "eval", "generate", "serve"};
  bool job = false;
  for (const char* j : jobs) job = job || (command && std::strcmp(command, j) == 0);
  if (!job || !first_rank()) return;
  const cpu::BlasReport blas = cpu::blas_report();
  if (!blas.note.empty()) std::fprintf(stderr, "%s\n", blas.note.c_str());
}

}  // namespace precis::cli

PRECIS_COMMAND("info", "the version, the BLAS library and its core, the CPU, the GPU backend", [](CLI::App& app) {
  app.callback([] { std::printf("%s\n", precis::cli::info_text().c_str()); });
});
