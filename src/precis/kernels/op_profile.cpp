#include "precis/kernels/op_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace precis {

namespace {

struct ProfileState {
  bool enabled = false;
  std::string phase;
  std::map<std::pair<std::string, std::string>, OpProfileRow> rows;
  std::mutex mutex;  // ops on several host threads (the server's workers) file rows together
  ProfileState() {
    const char* env = std::getenv("PRECIS_OP_PROFILE");
    enabled = env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  }
};

ProfileState& profile_state() {
  static ProfileState state;
  return state;
}

thread_local int op_depth = 0;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

OpTimer::OpTimer(const char* op, double flop) {
  if (!profile_state().enabled) return;
  counted_ = true;
  if (op_depth++ > 0) return;
  op_ = op;
  flop_ = flop;
  start_ = now_seconds();
}

OpTimer::~OpTimer() {
  if (!counted_) return;
  --op_depth;
  if (op_ == nullptr) return;
  const double seconds = now_seconds() - start_;
  ProfileState& state = profile_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  OpProfileRow& row = state.rows[{state.phase, op_}];
  if (row.calls == 0) row.phase = state.phase, row.op = op_;
  row.calls += 1;
  row.seconds += seconds;
  row.flop += flop_;
}

bool op_profile_enabled() { return profile_state().enabled; }

void op_profile_enable(bool on) { profile_state().enabled = on; }

void op_profile_phase(const std::string& phase) {
  ProfileState& state = profile_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.phase = phase;
}

void op_profile_reset() {
  ProfileState& state = profile_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.rows.clear();
}

std::vector<OpProfileRow> op_profile_rows() {
  ProfileState& state = profile_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  std::vector<OpProfileRow> rows;
  for (const auto& entry : state.rows) rows.push_back(entry.second);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const OpProfileRow& a, const OpProfileRow& b) { return a.seconds > b.seconds; });
  return rows;
}

std::string op_profile_table(int steps, double total_seconds, double gemm_gflops) {
  const std::vector<OpProfileRow> rows = op_profile_rows();
  const double per = 1.0 / double(std::max(steps, 1));
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-34s %8s %10s %7s %9s %9s %8s\n", "phase", "op",
                "calls", "ms/step", "share", "GFLOP", "GFLOP/s", "of sgemm");
  out += line;
  double in_ops = 0.0, flop = 0.0;
  for (const OpProfileRow& row : rows) {
    const double ms = row.seconds * per * 1e3;
    in_ops += row.seconds * per;
    flop += row.flop * per;
    const double rate = row.seconds > 0 ? row.flop / row.seconds / 1e9 : 0.0;
    std::snprintf(line, sizeof line, "%-10s %-34s %8.0f %10.2f %6.1f%% ", row.phase.c_str(),
                  row.op.c_str(), double(row.calls) * per, ms,
                  total_seconds > 0 ? 100.0 * row.seconds * per / total_seconds : 0.0);
    out += line;
    if (row.flop > 0)
      std::snprintf(line, sizeof line, "%9.2f %9.1f %7.0f%%\n", row.flop * per / 1e9, rate,
                    gemm_gflops > 0 ? 100.0 * rate / gemm_gflops : 0.0);
    else
      std::snprintf(line, sizeof line, "%9s %9s %8s\n", "-", "-", "-");
    out += line;
  }
  if (total_seconds > 0) {
    std::snprintf(line, sizeof line, "%-10s %-34s %8s %10.2f %6.1f%%\n", "", "(outside ops)", "",
                  (total_seconds - in_ops) * 1e3, 100.0 * (total_seconds - in_ops) / total_seconds);
    out += line;
    std::snprintf(line, sizeof line,
                  "step %.1f ms: %.2f GFLOP in ops, %.1f GFLOP/s over the step = %.0f%% of sgemm's "
                  "%.1f GFLOP/s\n",
                  total_seconds * 1e3, flop / 1e9, flop / total_seconds / 1e9,
                  gemm_gflops > 0 ? 100.0 * flop / total_seconds / 1e9 / gemm_gflops : 0.0,
                  gemm_gflops);
    out += line;
  }
  return out;
}

}  // namespace precis
