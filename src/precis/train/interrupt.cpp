#include "precis/train/interrupt.h"

#include <csignal>

namespace precis::train {

namespace {

// What a signal handler may touch: a lock-free flag.
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int signal) {
  g_signal = signal;
  // The next one takes the default action: a user who presses Ctrl-C twice means it.
  std::signal(signal, SIG_DFL);
}

}  // namespace

void InterruptRequest::install() {
  std::signal(SIGTERM, on_interrupt);
  std::signal(SIGINT, on_interrupt);
}

bool InterruptRequest::requested() { return g_signal != 0; }

void InterruptRequest::clear() { g_signal = 0; }

const char* InterruptRequest::signal_name() { return g_signal == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace precis::train
