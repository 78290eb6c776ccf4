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
use crate::ir::{AtomicOp, BinaryOp, Builtin, CmpOp, Expr, Kernel, Memory, Stmt, Ty, VarId, VarInfo};

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
    if !wide && threads > 0 {
        let mut prologue = word_prologue(k, words, threads);
        prologue.push(Stmt::Barrier);
        prologue.append(&mut k.body.stmts);
        k.body.stmts = prologue;
        return;
    }
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

/// Most rounds of the word prologue written out one store each (larger arrays keep a loop).
const UNROLLED_ROUNDS: u32 = 8;

/// The zeroing of `words` shared words by `threads` threads, in a shape whose every store
/// index the value facts bound below `words` (`Kernel::index_in_range`: the backends store
/// without a check, and a launch-specialised variant keeps no deferred fault for them; issue
/// 11, transpose and reduce). The linear thread id `t` is a value in `[0, threads)`, so for
/// each full round `r` (`(r + 1)·threads <= words`) the index `t + r·threads` lies in
/// `[r·threads, (r + 1)·threads)`: stored plainly. What is left is less than one round:
/// `if (t + R·threads < words) { store(min(t + R·threads, words - 1)) }` (the `min` changes
/// nothing where the guard holds, and gives the facts their bound). Arrays of more than
/// [`UNROLLED_ROUNDS`] rounds keep the loop of `zero_shared_memory`, with the stored index
/// `min(i, words - 1)` under its `i < words` exit test. Each word is stored by exactly the
/// thread that stored it before (`t + r·threads`, every `r`), so the result is the same.
fn word_prologue(k: &mut Kernel, words: u32, threads: u32) -> Vec<Stmt> {
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let [bx, by, _] = k.workgroup_size;
    // The linear thread id as values (each assigned once): `((z·by) + y)·bx + x`.
    let ids: Vec<VarId> = (0..7).map(|_| new_var(Ty::U32, "zero_shared.tid")).collect();
    let mut out = vec![
        assign(ids[0], Expr::Builtin(Builtin::ThreadId(2))),
        assign(ids[1], bin(BinaryOp::Mul, Ty::U32, ids[0], c32(by))),
        assign(ids[2], Expr::Builtin(Builtin::ThreadId(1))),
        assign(ids[3], bin(BinaryOp::Add, Ty::U32, ids[1], ids[2])),
        assign(ids[4], bin(BinaryOp::Mul, Ty::U32, ids[3], c32(bx))),
        assign(ids[5], Expr::Builtin(Builtin::ThreadId(0))),
        assign(ids[6], bin(BinaryOp::Add, Ty::U32, ids[4], ids[5])),
    ];
    let t = ids[6];
    let full = words / threads;
    let last = c32(words - 1);
    if full > UNROLLED_ROUNDS {
        let (i, done, j) = (new_var(Ty::U32, "zero_shared.index"), new_var(Ty::Bool, "zero_shared.done"), new_var(Ty::U32, "zero_shared.word"));
        out.extend([
            copy(i, t),
            loop_(vec![
                assign(done, cmp(CmpOp::GeU, Ty::U32, i, c32(words))),
                if_(done, vec![Stmt::Break], vec![]),
                assign(j, bin(BinaryOp::MinU, Ty::U32, i, last)),
                store(Memory::Shared, j, c32(0)),
                assign(i, bin(BinaryOp::Add, Ty::U32, i, c32(threads))),
            ]),
        ]);
        return out;
    }
    for r in 0..full {
        let idx = if r == 0 {
            t
        } else {
            let idx = new_var(Ty::U32, "zero_shared.word");
            out.push(assign(idx, bin(BinaryOp::Add, Ty::U32, t, c32(r * threads))));
            idx
        };
        out.push(store(Memory::Shared, idx, c32(0)));
    }
    if !words.is_multiple_of(threads) {
        let (idx, inside, j) = (new_var(Ty::U32, "zero_shared.word"), new_var(Ty::Bool, "zero_shared.inside"), new_var(Ty::U32, "zero_shared.word"));
        out.extend([
            assign(idx, bin(BinaryOp::Add, Ty::U32, t, c32(full * threads))),
            assign(inside, cmp(CmpOp::LtU, Ty::U32, idx, c32(words))),
            if_(inside, vec![assign(j, bin(BinaryOp::MinU, Ty::U32, idx, last)), store(Memory::Shared, j, c32(0))], vec![]),
        ]);
    }
    out
}
