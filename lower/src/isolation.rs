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
//!   WGSL needs no prologue: its `var<workgroup>` variables start at zero (the WGSL spec's "zero
//!   value"; wgpu zeroes them, natively or with its own prologue, unless a pipeline turns
//!   `zero_initialize_workgroup_memory` off, which the host never does), so that backend
//!   leaves out the statements [`zeroing_prologue`] names (issue 11: transpose paid a second
//!   zeroing and a barrier).
//! - **Local memory** needs nothing here: both backends declare the per-invocation array with a
//!   zero initializer (SPIR-V `OpConstantNull`, WGSL's zero-initialised `var<private>`); local
//!   memory in the scratch buffer (`local_scratch`) lives in a buffer each context owns, which
//!   wgpu creates zeroed (the host's `runtime/scratch.rs`).

use crate::build::*;
use crate::ir::{AtomicOp, BinaryOp, Block, Builtin, CmpOp, Expr, Kernel, Memory, Operand, Stmt, Ty, VarId, VarInfo};

/// Names of the prologue's variables: PTX names cannot hold a dot, so no kernel variable
/// shares them ([`zeroing_prologue`] recognises the prologue by them).
const PROLOGUE_PREFIX: &str = "zero_shared.";

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

/// The top-level statements of `k` (indices, ascending) that only zero its shared memory:
/// the stores of [`zero_shared_memory`]'s word prologue (plain, under their remainder `if`, or
/// in their loop) and the barrier after them; empty when `k` has no such prologue, or when
/// anything before its first barrier is not the prologue's (then nothing may go). Whatever
/// else lies before that barrier stays: the other passes' assignments (parameter loads, the
/// thread id the kernel reuses). A target whose workgroup memory starts at zero (WGSL) leaves
/// these statements out; nothing of the kernel's own runs before that barrier, so the kernel
/// reads the same zeros. Doubleword (atomic) shared memory and native-warp kernels (whose
/// layout check precedes the prologue) keep theirs.
pub fn zeroing_prologue(k: &Kernel) -> Vec<usize> {
    if k.shared_words == 0 || k.features.native_warps || k.shared_dwords() {
        return Vec::new();
    }
    let own = |v: VarId| k.vars.get(v.index()).is_some_and(|i| i.name.starts_with(PROLOGUE_PREFIX));
    let zero_store = |s: &Stmt| matches!(s, Stmt::StoreWord { memory: Memory::Shared, index: Operand::Var(i), .. } if own(*i));
    // A remainder `if` or the zeroing loop: zero stores, `break`s, and pure assignments of the
    // prologue's own variables (so nothing after reads what they computed).
    fn only(b: &Block, ok: &dyn Fn(&Stmt) -> bool) -> bool {
        b.stmts.iter().all(|s| match s {
            Stmt::If { then_body, else_body, .. } => only(then_body, ok) && only(else_body, ok),
            s => ok(s),
        })
    }
    let inner = |s: &Stmt| {
        zero_store(s) || matches!(s, Stmt::Break) || matches!(s, Stmt::Assign { dst, expr } if own(*dst) && expr.is_pure())
    };
    let mut skip = Vec::new();
    for (i, s) in k.body.stmts.iter().enumerate() {
        match s {
            Stmt::Barrier | Stmt::SharedBarrier => {
                if skip.is_empty() {
                    return Vec::new();
                }
                skip.push(i);
                return skip;
            }
            Stmt::Assign { expr, .. } if !matches!(expr, Expr::AtomicWord { .. } | Expr::AtomicDword { .. }) => {}
            s if zero_store(s) => skip.push(i),
            Stmt::If { then_body, else_body, .. } if only(then_body, &inner) && only(else_body, &inner) => skip.push(i),
            Stmt::Loop { body } if only(body, &inner) => skip.push(i),
            _ => return Vec::new(),
        }
    }
    Vec::new()
}
