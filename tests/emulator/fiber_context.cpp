#include "fiber_context.h"

#include <cstdint>
#include <cstdlib>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PRECIS_FIBER_TSAN 1
#include <sanitizer/tsan_interface.h>
#endif
#if __has_feature(address_sanitizer)
#define PRECIS_FIBER_ASAN 1
#include <sanitizer/common_interface_defs.h>
#endif
#endif

// Nothing here is instrumented, not even function entry and exit: a function that switches is
// entered on one fiber and left on another, and a fiber's first frame never returns.
#if defined(__clang__)
#define PRECIS_UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))
#else
#define PRECIS_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread")))
#endif

namespace precis::cuda_emulation {

namespace {

// The switch itself, and a new fiber's first frame.
PRECIS_UNINSTRUMENTED void raw_switch(FiberContext& from, FiberContext& to);
PRECIS_UNINSTRUMENTED void fiber_main(FiberContext* self);
// Makes the context's first switch enter fiber_main(&context) on the stack.
PRECIS_UNINSTRUMENTED void prepare_stack(FiberContext& context, char* bottom, size_t bytes);

}  // namespace

PRECIS_UNINSTRUMENTED void adopt_current_thread(FiberContext& context) {
#if PRECIS_FIBER_TSAN
  context.tsan_fiber = __tsan_get_current_fiber();
#else
  (void)context;
#endif
}

PRECIS_UNINSTRUMENTED void switch_fiber(FiberContext& from, FiberContext& to) {
#if PRECIS_FIBER_TSAN
  __tsan_switch_to_fiber(to.tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
#if PRECIS_FIBER_ASAN
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, to.stack_bottom, to.stack_bytes);
  raw_switch(from, to);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#else
  raw_switch(from, to);
#endif
}

namespace {

PRECIS_UNINSTRUMENTED void fiber_main(FiberContext* self) {
  FiberContext& parent = *self->parent;
#if PRECIS_FIBER_ASAN
  // The switch that started this fiber ends here; it tells the stack it came from.
  __sanitizer_finish_switch_fiber(nullptr, &parent.stack_bottom, &parent.stack_bytes);
#endif
  self->entry(self->arg);
#if PRECIS_FIBER_TSAN
  __tsan_switch_to_fiber(parent.tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
#if PRECIS_FIBER_ASAN
  __sanitizer_start_switch_fiber(nullptr, parent.stack_bottom,
                                 parent.stack_bytes);  // this stack is done
#endif
  FiberContext done;
  raw_switch(done, parent);
  std::abort();  // a finished fiber is never resumed
}

}  // namespace

#if defined(__x86_64__)

// precis_fiber_switch(void** save, void* load): pushes the System V callee-saved registers and
// the MXCSR and x87 control words, saves the stack pointer in *save, takes `load` as the stack
// pointer and pops the same frame from it. precis_fiber_trampoline is where a new fiber's
// first switch returns to: its function in r12, the argument in r13.
asm(R"(
  .text
  .globl precis_fiber_switch
  .type precis_fiber_switch, @function
precis_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size precis_fiber_switch, .-precis_fiber_switch

  .globl precis_fiber_trampoline
  .type precis_fiber_trampoline, @function
precis_fiber_trampoline:
  movq %r13, %rdi
  callq *%r12
  ud2
  .size precis_fiber_trampoline, .-precis_fiber_trampoline
  .section .note.GNU-stack, "", @progbits
  .text
)");

extern "C" void precis_fiber_switch(void** save, void* load);
extern "C" void precis_fiber_trampoline();

namespace {
void raw_switch(FiberContext& from, FiberContext& to) {
  precis_fiber_switch(&from.stack_pointer, to.stack_pointer);
}

// Below the 16-byte aligned top: the return address (the trampoline), then the six registers
// and the control words precis_fiber_switch pops. After its `ret` the stack pointer is 16-byte
// aligned, as the trampoline's call needs.
PRECIS_UNINSTRUMENTED void prepare_stack(FiberContext& context, char* bottom, size_t bytes) {
  auto* top =
      reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(bottom) + bytes) & ~uintptr_t(15));
  uint64_t* sp = top - 3;
  sp[0] = reinterpret_cast<uint64_t>(&precis_fiber_trampoline);
  const uint64_t popped[6] = {
      0, 0, reinterpret_cast<uint64_t>(&context), reinterpret_cast<uint64_t>(&fiber_main),
      0, 0};  // r15, r14, r13 (the argument), r12 (the function), rbx, rbp
  sp -= 6;
  for (int i = 0; i < 6; ++i) sp[i] = popped[i];
  sp -= 1;
  uint32_t mxcsr = 0;
  uint16_t x87 = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(x87));
  sp[0] = uint64_t(mxcsr) | (uint64_t(x87) << 32);
  context.stack_pointer = sp;
}
}  // namespace

#else

namespace {
void raw_switch(FiberContext& from, FiberContext& to) { swapcontext(&from.context, &to.context); }

// makecontext passes ints: the context's address as two halves.
PRECIS_UNINSTRUMENTED void trampoline(int high, int low) {
  fiber_main(reinterpret_cast<FiberContext*>((uintptr_t(uint32_t(high)) << 32) |
                                             uintptr_t(uint32_t(low))));
}

PRECIS_UNINSTRUMENTED void prepare_stack(FiberContext& context, char* bottom, size_t bytes) {
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = bottom;
  context.context.uc_stack.ss_size = bytes;
  context.context.uc_link = nullptr;
  const auto self = reinterpret_cast<uintptr_t>(&context);
  makecontext(&context.context, reinterpret_cast<void (*)()>(&trampoline), 2,
              int(uint32_t(self >> 32)), int(uint32_t(self)));
}
}  // namespace

#endif

PRECIS_UNINSTRUMENTED void start_fiber(FiberContext& context, char* bottom, size_t bytes,
                                       void (*entry)(void*), void* arg, FiberContext& parent) {
  context.entry = entry;
  context.arg = arg;
  context.parent = &parent;
  context.stack_bottom = bottom;
  context.stack_bytes = bytes;
#if PRECIS_FIBER_TSAN
  if (!context.tsan_fiber) context.tsan_fiber = __tsan_create_fiber(0);
#endif
  prepare_stack(context, bottom, bytes);
}

}  // namespace precis::cuda_emulation
