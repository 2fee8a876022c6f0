// The counting backend (counting.h): cuda/runtime.h, cuda/blas.h and the launch hook of
// cuda/launch.h, recording instead of running.
#include "counting.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/kernels/cuda/blas.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::counting {

namespace {

struct State {
  std::mutex mu;
  bool recording = false;
  // Reserved device ranges: start -> bytes.
  std::map<const char*, size_t> device;
  size_t reserved = 0, peak = 0;
  bool has_cost = false;
  cuda::LaunchCost cost;
  // One record (a JSON object without its count) -> how many times.
  std::map<std::string, int64_t> records;
};

State& state() {
  static auto* s = new State;  // never destroyed: arenas may free at exit
  return *s;
}

bool on_device(State& s, const void* p) {
  const char* c = static_cast<const char*>(p);
  auto it = s.device.upper_bound(c);
  if (it == s.device.begin()) return false;
  --it;
  return c < it->first + it->second;
}

void add(State& s, const nlohmann::json& record) { ++s.records[record.dump()]; }

}  // namespace

void install() { cuda::install(&cuda::twins()); }

void start_recording() {
  std::lock_guard<std::mutex> lock(state().mu);
  state().recording = true;
  state().records.clear();
}

void stop_recording() {
  std::lock_guard<std::mutex> lock(state().mu);
  state().recording = false;
}

void write_records(const std::string& path, const std::string& label) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  std::ofstream out(path, std::ios::app);
  check(bool(out), path + ": cannot write the launch records");
  for (const auto& [text, count] : s.records) {
    nlohmann::json record = nlohmann::json::parse(text);
    record["case"] = label;
    record["count"] = count;
    out << record.dump() << "\n";
  }
  out << nlohmann::json{{"case", label}, {"kind", "memory"}, {"peak_bytes", s.peak}}.dump() << "\n";
}

void record_launch(const char* kernel, dim3 grid, dim3 block, Stream) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  check(s.has_cost, std::string("counting backend: ") + kernel +
                        " was launched without declare_cost (kernels/cuda/launch_cost.h)");
  s.has_cost = false;
  if (!s.recording) return;
  add(s, {{"kind", "kernel"},
          {"name", kernel},
          {"grid", {grid.x, grid.y, grid.z}},
          {"block", {block.x, block.y, block.z}},
          {"read", s.cost.read_bytes},
          {"written", s.cost.written_bytes},
          {"flops", s.cost.flops},
          {"tensor_flops", s.cost.tensor_flops}});
}

}  // namespace precis::counting

namespace precis::cuda {

using counting::State;

void declare_cost(const LaunchCost& cost) {
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.cost = cost;
  s.has_cost = true;
}

// Address space only: PROT_NONE and no reserve, so 20 GB of activations cost nothing, and a
// host read of device memory (a bug on a GPU) stops with SIGSEGV.
void* device_malloc(int, size_t bytes) {
  const size_t mapped = (bytes + 4095) / 4096 * 4096 + 4096;
  void* p = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  check(p != MAP_FAILED, "counting backend: cannot reserve " + std::to_string(bytes) + " bytes");
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.device[static_cast<const char*>(p)] = mapped;
  s.reserved += bytes;
  s.peak = std::max(s.peak, s.reserved);
  return p;
}

void device_free(int, void* p) {
  if (!p) return;
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.device.find(static_cast<const char*>(p));
  if (it == s.device.end()) return;
  s.reserved -= std::min(s.reserved, it->second - 4096);
  munmap(p, it->second);
  s.device.erase(it);
}

void copy_async(void* dst, const void* src, size_t bytes, Stream) {
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  const bool from = counting::on_device(s, src), to = counting::on_device(s, dst);
  // What the host reads back is zeros: nothing ran.
  if (from && !to) std::memset(dst, 0, bytes);
  if (!s.recording) return;
  counting::add(s, {{"kind", "copy"},
                    {"direction", from ? (to ? "d2d" : "d2h") : (to ? "h2d" : "h2h")},
                    {"bytes", bytes}});
}

void memset_async(void*, int, size_t bytes, Stream) {
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.recording) counting::add(s, {{"kind", "memset"}, {"bytes", bytes}});
}

void synchronize(Stream) {
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.recording) counting::add(s, {{"kind", "sync"}});
}

void* scratch(Stream, size_t bytes) {
  static void* buffer = nullptr;
  static size_t size = 0;
  if (size < bytes) {
    device_free(0, buffer);
    buffer = device_malloc(0, bytes);
    size = bytes;
  }
  return buffer;
}

namespace {

void record_gemm(int64_t m, int64_t n, int64_t k, DType ab, float beta, DType c_type, bool bias,
                 bool bias_gradient) {
  State& s = counting::state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.recording) return;
  counting::add(s, {{"kind", "gemm"},
                    {"m", m},
                    {"n", n},
                    {"k", k},
                    {"ab", dtype_name(ab)},
                    {"c", dtype_name(c_type)},
                    {"accumulate", beta != 0.0f},
                    {"bias", bias},
                    {"bias_gradient", bias_gradient}});
}

}  // namespace

void gemm(Stream, int64_t m, int64_t n, int64_t k, float, GemmOperand a, GemmOperand b, float beta,
          void*, DType c_type, int64_t, const void* bias) {
  check_gemm_types(a.type, b.type, c_type);
  check_gemm_bias(bias, beta);
  record_gemm(m, n, k, a.type, beta, c_type, bias != nullptr, false);
}

// Priced as cuBLASLt's BGRADB kernels run: on the GPU the heuristic may have none for a shape, and
// the launcher then sums the columns itself; the model assumes it has one (the first GPU run's
// calibration says whether it does).
bool gemm_with_bias_gradient(Stream, int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b,
                             float beta, void*, DType c_type, int64_t ldc, void* bias_gradient) {
  if (!gemm_with_bias_gradient_runs(m, n, k, a, b, c_type, ldc, bias_gradient)) return false;
  record_gemm(m, n, k, a.type, beta, c_type, false, true);
  return true;
}

}  // namespace precis::cuda
