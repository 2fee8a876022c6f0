// The emulator's stack switch: a CUDA thread's fiber starts on a stack of its own and switches
// to and from the launching thread's stack at each barrier. On x86-64 a switch saves and loads
// the callee-saved registers, the stack pointer and the SSE/x87 control words, in user space;
// elsewhere it is ucontext's swapcontext, whose signal-mask system call per switch made it
// three quarters of an emulated training step. Each switch tells the sanitizers: TSan which
// fiber runs (switched to without synchronizing: the emulator says what orders two fibers'
// accesses, with __tsan_release and __tsan_acquire), ASan which stack.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace precis::cuda_emulation {

struct FiberContext {
#if defined(__x86_64__)
  void* stack_pointer = nullptr;
#else
  ucontext_t context;
#endif
  void* tsan_fiber = nullptr;          // TSan's record of the fiber (created once, kept)
  const void* stack_bottom = nullptr;  // the stack, for ASan
  size_t stack_bytes = 0;
  void (*entry)(void*) = nullptr;  // a started fiber's work, its argument, and where it
  void* arg = nullptr;             // goes when that returns
  FiberContext* parent = nullptr;
};

// The calling thread's own context, to switch from and back to.
void adopt_current_thread(FiberContext& context);

// Makes `context` run entry(arg) on [bottom, bottom + bytes) from its next switch; when entry
// returns, the fiber switches to `parent` for the last time (until started again).
void start_fiber(FiberContext& context, char* bottom, size_t bytes, void (*entry)(void*), void* arg,
                 FiberContext& parent);

// Saves the running code's state in `from` and resumes `to`; returns when something switches
// back to `from`.
void switch_fiber(FiberContext& from, FiberContext& to);

}  // namespace precis::cuda_emulation
