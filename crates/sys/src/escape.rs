// SPDX-License-Identifier: MIT OR Apache-2.0
//! Leaving application code back to a known point of the same thread (STOP_SELF).
//!
//! An APEX process that calls STOP_SELF in the middle of its body never returns to it: it
//! becomes DORMANT and begins again at its entry point when it is next started. Its thread
//! is deep in application code (C frames the runtime cannot unwind). Parking that thread for
//! good costs a kernel task and a stack at every STOP_SELF: an error handler that ends with
//! STOP_SELF (the standard's usual pattern) used up the partition's task limit after about 124
//! errors. Instead the runtime calls each entry point through [`call_escapable`], and STOP_SELF
//! returns the thread to that call with [`escape`], discarding the frames in between like
//! `longjmp`: the thread is back at the top of its loop and is reused.
//!
//! x86-64 only (System V ABI): the call saves the callee-saved registers, MXCSR and the x87
//! control word, and the stack pointer; the escape restores them and returns from the call a
//! second way. The frames discarded are never unwound, so they must hold nothing that needs
//! dropping (see [`escape`]'s contract).

use std::any::Any;
use std::cell::Cell;
use std::ffi::c_void;
use std::panic::AssertUnwindSafe;

/// What [`call_escapable`] saved: the stack pointer after the registers were pushed.
#[repr(C)]
struct Context {
    sp: usize,
}

// The call and the escape. `partita_sys_escape_call(function, argument, context)` pushes the
// callee-saved registers, stores MXCSR and the x87 control word below them, records the
// stack pointer in the context and calls `function(argument)`; returning from it returns 0.
// `partita_sys_escape_jump(context)` reloads the recorded stack pointer and leaves through
// the same epilogue with 1, as if the call had returned. The stack stays 16-byte aligned at
// the call: 8 (return address) + 6 * 8 (pushes) + 24 = 80.
std::arch::global_asm!(
    ".text",
    ".globl partita_sys_escape_call",
    ".type partita_sys_escape_call,@function",
    "partita_sys_escape_call:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 24",
    "stmxcsr [rsp]",
    "fnstcw [rsp + 8]",
    "mov [rdx], rsp",
    "mov rax, rdi",
    "mov rdi, rsi",
    "call rax",
    "xor eax, eax",
    "2:",
    "ldmxcsr [rsp]",
    "fldcw [rsp + 8]",
    "add rsp, 24",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".size partita_sys_escape_call, . - partita_sys_escape_call",
    ".globl partita_sys_escape_jump",
    ".type partita_sys_escape_jump,@function",
    "partita_sys_escape_jump:",
    "mov rsp, [rdi]",
    "mov eax, 1",
    "jmp 2b",
    ".size partita_sys_escape_jump, . - partita_sys_escape_jump",
);

extern "C" {
    fn partita_sys_escape_call(
        function: extern "C" fn(*mut c_void),
        argument: *mut c_void,
        context: *mut Context,
    ) -> u32;
    fn partita_sys_escape_jump(context: *const Context) -> !;
}

thread_local! {
    /// The innermost live [`call_escapable`] of this thread (null: none).
    static CURRENT: Cell<*const Context> = const { Cell::new(std::ptr::null()) };
}

/// How a [`call_escapable`] call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The function returned.
    Returned,
    /// [`escape`] was called inside it.
    Escaped,
}

/// The function and what its call produced, passed through the assembly as one pointer.
struct Call<'a> {
    function: &'a mut dyn FnMut(),
    panic: Option<Box<dyn Any + Send>>,
}

extern "C" fn trampoline(argument: *mut c_void) {
    // SAFETY: `argument` is the `&mut Call` that `call_escapable` passed for this call; it
    // lives in `call_escapable`'s frame, which is below this one on the stack, and nothing
    // else uses it until the call ends.
    let call = unsafe { &mut *argument.cast::<Call>() };
    // A panic must not unwind through the assembly frame (it has no unwind information): it
    // is caught here and resumed by `call_escapable` once the call is over.
    if let Err(p) = std::panic::catch_unwind(AssertUnwindSafe(|| (call.function)())) {
        call.panic = Some(p);
    }
}

/// Calls `function` so that [`escape`] inside it (on this thread) ends the call at once. A
/// panic in `function` is resumed after the call, as if it had been called directly.
pub fn call_escapable(function: &mut dyn FnMut()) -> Ended {
    let mut context = Context { sp: 0 };
    // One raw pointer for both the assembly (which writes it) and `escape` (which reads it).
    let context_ptr = std::ptr::addr_of_mut!(context);
    let mut call = Call {
        function,
        panic: None,
    };
    let previous = CURRENT.with(|c| c.replace(context_ptr));
    // SAFETY: the assembly follows the System V ABI for both ways out (callee-saved
    // registers, stack pointer, MXCSR and x87 control word as at the call); `context` and
    // `call` outlive the call (they are locals of this frame, which the call does not
    // leave); `trampoline` matches the signature it is called with.
    let r = unsafe {
        partita_sys_escape_call(
            trampoline,
            std::ptr::from_mut(&mut call).cast::<c_void>(),
            context_ptr,
        )
    };
    CURRENT.with(|c| c.set(previous));
    if let Some(p) = call.panic.take() {
        std::panic::resume_unwind(p);
    }
    if r == 0 {
        Ended::Returned
    } else {
        Ended::Escaped
    }
}

/// Whether this thread is inside a [`call_escapable`] call ([`escape`] would not abort).
pub fn available() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

/// Ends the innermost [`call_escapable`] call of this thread at once: it returns
/// [`Ended::Escaped`]. Aborts the process when there is none ([`available`] says).
///
/// # Safety
/// Every frame between that call and this one is discarded without being unwound, like
/// `longjmp`: none may hold anything that must be dropped (a lock guard, an allocation one
/// cares about) or that something outside those frames still borrows. C frames and Rust
/// frames whose values were all dropped (or are plain data) qualify. It must not be called
/// from a signal handler (the handler's signal mask would stay in force).
pub unsafe fn escape() -> ! {
    let context = CURRENT.with(Cell::get);
    if context.is_null() {
        std::process::abort();
    }
    // SAFETY: `context` is the innermost live `call_escapable` of this thread (it is set
    // before the call and restored after it), so its frame is below this one on this
    // thread's stack and the saved stack pointer is valid; the caller guarantees that the
    // frames in between may be discarded.
    unsafe { partita_sys_escape_jump(context) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_returning_function_returns() {
        let mut ran = 0;
        assert_eq!(call_escapable(&mut || ran += 1), Ended::Returned);
        assert_eq!(ran, 1);
        assert!(!available());
    }

    extern "C" fn deep(n: u32, out: *mut u32) {
        // Plain frames, as C code would have.
        if n == 0 {
            // SAFETY: the test's frames between its call_escapable and here are plain data.
            unsafe { escape() }
        }
        // SAFETY: `out` points to the test's counter, alive for the whole call.
        unsafe { *out += 1 };
        deep(n - 1, out);
        // SAFETY: as above; never reached.
        unsafe { *out += 1000 };
    }

    #[test]
    fn escape_discards_the_frames_in_between() {
        let mut count = 0u32;
        let out = std::ptr::from_mut(&mut count);
        for round in 0..1000u32 {
            assert!(!available());
            let ended = call_escapable(&mut || {
                assert!(available());
                deep(10, out);
            });
            assert_eq!(ended, Ended::Escaped, "round {round}");
        }
        assert_eq!(count, 10 * 1000);
        assert!(!available());
    }

    #[test]
    fn nested_calls_escape_to_the_innermost() {
        let mut inner_ended = None;
        let outer = call_escapable(&mut || {
            inner_ended = Some(call_escapable(&mut || {
                // SAFETY: the frames in between are the closure's, holding nothing to drop.
                unsafe { escape() }
            }));
            assert!(available());
        });
        assert_eq!(outer, Ended::Returned);
        assert_eq!(inner_ended, Some(Ended::Escaped));
    }

    #[test]
    fn a_panic_goes_through_as_if_called_directly() {
        let r = std::panic::catch_unwind(|| call_escapable(&mut || panic!("the body's panic")));
        let p = r.expect_err("the panic must come through");
        assert_eq!(p.downcast_ref::<&str>(), Some(&"the body's panic"));
        assert!(!available());
    }
}
