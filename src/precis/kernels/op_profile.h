// Where a step's time goes, op by op: wall time, calls and FLOP per (phase, op), for the
// benchmarks' per-op tables (bench/ --profile) and PRECIS_OP_PROFILE=1. Each op.cpp opens an
// OpTimer before it dispatches; off, a timer costs one branch. Times are exact on the CPU,
// whose kernels return when done; a CUDA op is timed at its launch only.
#pragma once

#include <string>
#include <vector>

namespace precis {

// Times one op call from construction to destruction. A call inside another op's timer (an op
// built from ops) counts toward the outer one only, so the rows add up to the time in ops.
class OpTimer {
 public:
  explicit OpTimer(const char* op, double flop = 0.0);
  ~OpTimer();
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  const char* op_ = nullptr;  // null when profiling is off or the call is nested
  double flop_ = 0.0;
  double start_ = 0.0;
  bool counted_ = false;  // this timer raised the nesting depth
};

struct OpProfileRow {
  std::string phase, op;
  long long calls = 0;
  double seconds = 0.0, flop = 0.0;
};

// On when PRECIS_OP_PROFILE is set to anything but "" or "0", or after op_profile_enable(true).
bool op_profile_enabled();
void op_profile_enable(bool on);
// The label later calls are filed under ("forward", "backward", "optimizer", ...); "" by default.
void op_profile_phase(const std::string& phase);
void op_profile_reset();
// The rows so far, the most time first.
std::vector<OpProfileRow> op_profile_rows();
// The rows as a text table, times and FLOP divided by `steps`; `total_seconds` (per step) adds
// the share of each row and a row for the time outside ops, `gemm_gflops` (the machine's sgemm
// rate, measured beside) each row's fraction of it.
std::string op_profile_table(int steps, double total_seconds, double gemm_gflops);

}  // namespace precis
