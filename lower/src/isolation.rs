//! Isolation between launches: a kernel must never see memory an earlier launch (of another
//! context, another process) left behind.
//!
//! - **Shared memory.** Vulkan leaves a `Workgroup` variable without initializer undefined and
//!   lavapipe really reuses the memory of an earlier dispatch (an initializer needs
//!   `VK_KHR_zero_initialize_workgroup_memory`, which wgpu-hal does not enable for passthrough
//!   SPIR-V). So every kernel with shared memory starts with a prologue that zeroes the array
//!   cooperatively — thread `t` clears words `t, t + T, t + 2T, …` for a CTA of `T` threads —
//!   followed by a barrier. It runs at the top of the body, where control flow is uniform, so
//!   the barrier is reached by every thread (the rule `simt` enforces for PTX barriers).
//!   CUDA leaves shared memory undefined, so zero is as good a value as any.
//! - **Local memory** needs nothing here: both backends declare the per-invocation array with a
//!   zero initializer (SPIR-V `OpConstantNull`, WGSL's zero-initialised `var<private>`); local
//!   memory in the scratch buffer (`local_scratch`) lives in a buffer each context owns, which
//!   wgpu creates zeroed (the host's `runtime/scratch.rs`).

use crate::build::*;
use crate::ir::{AtomicOp, BinaryOp, CmpOp, Expr, Kernel, Memory, Stmt, Ty, VarId, VarInfo};

/// Prepends the shared-memory zeroing prologue to `k` (nothing if it has no shared memory).
pub fn zero_shared_memory(k: &mut Kernel) {
    if k.shared_words == 0 {
        return;
    }
    let wide = k.shared_dwords();
    let words = k.shared_words;
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let (i, t, done) = (new_var(Ty::U32, "zero_shared.index"), new_var(Ty::U32, "zero_shared.tid"), new_var(Ty::Bool, "zero_shared.done"));
    // Shared memory as doublewords (`shared64`): they are reached through atomics only.
    let (count, clear) = if wide {
        let old = new_var(Ty::U64, "zero_shared.old");
        let clear = assign(old, Expr::AtomicDword { memory: Memory::Shared, op: AtomicOp::And, index: var(i), value: c64(0), comparand: None });
        (words.div_ceil(2), clear)
    } else {
        (words, store(Memory::Shared, i, c32(0)))
    };
    let threads = k.workgroup_size.iter().product::<u32>();
    let mut prologue = linear_thread_id(i, t, k.workgroup_size);
    prologue.extend([
        loop_(vec![
            assign(done, cmp(CmpOp::GeU, Ty::U32, i, c32(count))),
            if_(done, vec![Stmt::Break], vec![]),
            clear,
            assign(i, bin(BinaryOp::Add, Ty::U32, i, c32(threads))),
        ]),
        Stmt::Barrier,
    ]);
    prologue.append(&mut k.body.stmts);
    k.body.stmts = prologue;
}
