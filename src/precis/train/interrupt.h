// --save_on_interrupt: SIGTERM (a scheduler's preemption, mpirun passing one on) or SIGINT
// (Ctrl-C) no longer kills the run at once; the trainer sees the request at the end of the
// step, saves a checkpoint and exits 0. A second signal kills as before.
#pragma once

namespace precis::train {

class InterruptRequest {
 public:
  // Installs the handlers (for the life of the process).
  static void install();
  // Whether a SIGTERM or SIGINT arrived since install(); the signal's name in `signal_name`.
  static bool requested();
  static const char* signal_name();
  // Forgets a signal seen, for a program that runs several jobs (the Python package, which
  // turns the stop into KeyboardInterrupt).
  static void clear();
};

}  // namespace precis::train
