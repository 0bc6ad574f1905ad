#include "sim/exec/fiber_switch.hpp"

#include <type_traits>
#include <utility>

namespace lockstep::sim {

#if LOCKSTEP_RETURNING_FIBER_SWITCH

using boost::context::detail::fcontext_t;
using boost::context::detail::transfer_t;

extern "C" transfer_t lockstep_switch_fcontext(fcontext_t to, void* data);

// jump_fcontext's frame, as Boost 1.74's jump_x86_64_sysv_elf_gas.S lays it out below the
// stack pointer of a suspended context: MXCSR and the x87 control word, then r12-r15, rbx
// and rbp, then the address the context resumes at; the context pointer is that frame's
// address. This routine saves the same frame and restores one the same way (so Boost's
// jumps, its ontop_fcontext that unwinds a suspended fiber, and this one can each resume
// what another suspended), then returns to the saved address with `ret`: the call that
// entered it pushed a return-stack entry, and the `ret` consumes it. The result is
// jump_fcontext's transfer_t: the context just left (rax) and `data` (rdx).
asm(R"(
    .text
    .globl lockstep_switch_fcontext
    .hidden lockstep_switch_fcontext
    .type lockstep_switch_fcontext, @function
    .p2align 4
lockstep_switch_fcontext:
    leaq -0x38(%rsp), %rsp
    stmxcsr (%rsp)
    fnstcw 0x4(%rsp)
    movq %r12, 0x8(%rsp)
    movq %r13, 0x10(%rsp)
    movq %r14, 0x18(%rsp)
    movq %r15, 0x20(%rsp)
    movq %rbx, 0x28(%rsp)
    movq %rbp, 0x30(%rsp)
    movq %rsp, %rax
    movq %rdi, %rsp
    ldmxcsr (%rsp)
    fldcw 0x4(%rsp)
    movq 0x8(%rsp), %r12
    movq 0x10(%rsp), %r13
    movq 0x18(%rsp), %r14
    movq 0x20(%rsp), %r15
    movq 0x28(%rsp), %rbx
    movq 0x30(%rsp), %rbp
    leaq 0x38(%rsp), %rsp
    movq %rsi, %rdx
    movq %rax, %rdi
    ret
    .size lockstep_switch_fcontext, .-lockstep_switch_fcontext
    .section .note.GNU-stack, "", @progbits
    .text
)");

namespace {
// A fiber is its context pointer and nothing else (fiber_fcontext.hpp); a standard-layout
// class shares its address with its first member, so that member is reached without
// touching the class's private interface otherwise.
using boost::context::fiber;
static_assert(std::is_standard_layout_v<fiber> && sizeof(fiber) == sizeof(fcontext_t));
fcontext_t& context_of(fiber& f) { return *reinterpret_cast<fcontext_t*>(&f); }
}  // namespace

fiber switch_fiber(fiber&& to) {
  fiber from;
  context_of(from) = lockstep_switch_fcontext(std::exchange(context_of(to), nullptr), nullptr).fctx;
  return from;
}

#else

boost::context::fiber switch_fiber(boost::context::fiber&& to) { return std::move(to).resume(); }

#endif

}  // namespace lockstep::sim
