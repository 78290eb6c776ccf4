//! Which barriers must order global memory (issue 11: `storageBarrier()` per `bar.sync` cost
//! lavapipe a fifth of reduce's time).
//!
//! PTX ISA 8.5 §9.7.14.1 (`bar`, `barrier`): "when the barrier completes, prior memory accesses
//! requested by this thread are performed relative to all threads participating in the
//! barrier" — every state space, global memory included, so a CTA may publish global data
//! through `bar.sync` and the heap must be ordered. But a barrier only has *prior* accesses to
//! order if some heap access can run between it and the thread's previous barrier: an access
//! before that previous barrier is ordered by it already. Precisely: let thread A access the heap
//! at X and thread B at Y, with X before barrier instance k in A and Y after instance k in B.
//! Let P be the first barrier A executes after X (an instance j ≤ k). On A's path a heap access
//! (X) runs between the previous barrier and P, so the pass below keeps P a full barrier; every
//! thread of the CTA executes the same static barrier as its j-th (barriers are reached in
//! workgroup-uniform control flow, `simt`), so P's release in A and acquire in B order X before
//! everything B does after instance j, Y included. Barriers with no heap access since the
//! previous one on any path become `Stmt::SharedBarrier` (shared memory only): the loop
//! barriers of a shared-memory reduction, the prologue's barrier after zeroing shared memory,
//! the warp emulation's barriers between shared-memory steps.
//!
//! The scratch buffer (`Memory::Scratch`) is storage memory too. A thread's local memory
//! there is its own, which program order orders; but the warp matrix exchange, where it lives
//! in the scratch buffer (`inst::warp`, `warp_exchange`), is read by the warp's other threads
//! across its barriers. In such a kernel every scratch access counts as a heap access here
//! (conservative for its local memory).

use crate::ir::{Block, Expr, Kernel, Memory, Stmt};

/// Rewrites the kernel's barriers that need not order heap memory as `Stmt::SharedBarrier`.
/// `scratch_exchange`: threads exchange data through the scratch buffer (see above).
pub(crate) fn narrow_barriers(kernel: &mut Kernel, scratch_exchange: bool) {
    // At the start no access of this launch precedes (earlier launches are ordered by the API).
    walk(&mut kernel.body, false, scratch_exchange);
}

/// Whether `s` (not looking inside compound statements) accesses memory other threads of the
/// CTA may access: the heap, or with `scratch` the scratch buffer.
fn heap_access(s: &Stmt, scratch: bool) -> bool {
    let counts = |m: Memory| m.is_heap() || (scratch && m == Memory::Scratch);
    match s {
        Stmt::Assign { expr: Expr::LoadWord { memory, .. } | Expr::AtomicWord { memory, .. } | Expr::AtomicDword { memory, .. }, .. }
        | Stmt::StoreWord { memory, .. } => counts(*memory),
        // A fence orders the heap too: treat it as an access (conservative).
        Stmt::Fence { .. } => true,
        _ => false,
    }
}

fn contains_heap_access(b: &Block, scratch: bool) -> bool {
    b.stmts.iter().any(|s| {
        heap_access(s, scratch)
            || match s {
                Stmt::If { then_body, else_body, .. } => contains_heap_access(then_body, scratch) || contains_heap_access(else_body, scratch),
                Stmt::Loop { body } => contains_heap_access(body, scratch),
                Stmt::Switch { cases, default, .. } => {
                    cases.iter().any(|c| contains_heap_access(&c.body, scratch)) || contains_heap_access(default, scratch)
                }
                _ => false,
            }
    })
}

/// Walks `b` in program order; `dirty`: a heap access may have run since the last barrier on
/// some path reaching here. Returns the state after `b` (for paths that fall through; the
/// states at `break`s are covered by the loop rule).
fn walk(b: &mut Block, mut dirty: bool, scratch: bool) -> bool {
    for s in &mut b.stmts {
        if heap_access(s, scratch) {
            dirty = true;
            continue;
        }
        match s {
            Stmt::Barrier => {
                if !dirty {
                    *s = Stmt::SharedBarrier;
                }
                dirty = false;
            }
            Stmt::If { then_body, else_body, .. } => {
                let t = walk(then_body, dirty, scratch);
                let e = walk(else_body, dirty, scratch);
                dirty = t || e;
            }
            Stmt::Switch { cases, default, .. } => {
                let mut out = walk(default, dirty, scratch);
                for c in cases {
                    out |= walk(&mut c.body, dirty, scratch);
                }
                dirty = out;
            }
            Stmt::Loop { body } => {
                // An access anywhere in the body may precede the next iteration's barriers (and
                // the loop's exits): the head's state joins the entry's and the body's accesses.
                let any = contains_heap_access(body, scratch);
                walk(body, dirty || any, scratch);
                dirty = dirty || any;
            }
            _ => {}
        }
    }
    dirty
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Const, Operand, VarId};

    fn load(m: Memory) -> Stmt {
        Stmt::Assign { dst: VarId(0), expr: Expr::LoadWord { memory: m, index: Operand::Const(Const::U32(70)) } }
    }
    fn block(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
    fn barriers(b: &Block, out: &mut Vec<bool>) {
        for s in &b.stmts {
            match s {
                Stmt::Barrier => out.push(true),
                Stmt::SharedBarrier => out.push(false),
                Stmt::If { then_body, else_body, .. } => {
                    barriers(then_body, out);
                    barriers(else_body, out);
                }
                Stmt::Loop { body } => barriers(body, out),
                _ => {}
            }
        }
    }
    fn run(stmts: Vec<Stmt>) -> Vec<bool> {
        run_with(stmts, false)
    }
    fn run_with(stmts: Vec<Stmt>, scratch: bool) -> Vec<bool> {
        let mut b = block(stmts);
        walk(&mut b, false, scratch);
        let mut out = Vec::new();
        barriers(&b, &mut out);
        out
    }
    fn cond() -> Operand {
        Operand::Var(VarId(1))
    }

    #[test]
    fn a_barrier_after_a_heap_access_orders_the_heap() {
        // reduce: heap load, barrier, loop { shared; barrier }, heap store.
        let got = run(vec![
            Stmt::Barrier,
            load(Memory::Heap),
            load(Memory::Shared),
            Stmt::Barrier,
            Stmt::Loop { body: block(vec![load(Memory::Shared), Stmt::Barrier, Stmt::If { cond: cond(), then_body: block(vec![Stmt::Break]), else_body: Block::new() }]) },
            Stmt::StoreWord { memory: Memory::Heap, index: Operand::Const(Const::U32(70)), value: Operand::Const(Const::U32(1)) },
            Stmt::Barrier,
        ]);
        assert_eq!(got, [false, true, false, true]);
    }

    #[test]
    fn accesses_in_a_loop_reach_its_next_iteration_and_either_branch_counts() {
        // matmul: loop { heap loads; barrier; shared; barrier }: the first barrier follows
        // the loads, the second only shared accesses since the first.
        let got = run(vec![Stmt::Loop {
            body: block(vec![
                load(Memory::Heap),
                Stmt::Barrier,
                load(Memory::Shared),
                Stmt::Barrier,
                Stmt::If { cond: cond(), then_body: block(vec![Stmt::Break]), else_body: Block::new() },
            ]),
        }]);
        assert_eq!(got, [true, false]);
        // A heap access in one branch only.
        let got = run(vec![
            Stmt::If { cond: cond(), then_body: block(vec![load(Memory::Heap)]), else_body: Block::new() },
            Stmt::Barrier,
            Stmt::Barrier,
        ]);
        assert_eq!(got, [true, false]);
        // A loop whose body touches the heap after its barrier: the barrier orders the previous
        // iteration's access.
        let got = run(vec![Stmt::Loop {
            body: block(vec![
                Stmt::Barrier,
                Stmt::If { cond: cond(), then_body: block(vec![Stmt::Break]), else_body: Block::new() },
                load(Memory::Heap),
            ]),
        }]);
        assert_eq!(got, [true]);
    }

    #[test]
    fn scratch_accesses_count_only_where_threads_exchange_through_the_scratch_buffer() {
        // The warp matrix exchange: store, barrier, loads of other lanes' words, barrier.
        let exchange = || {
            vec![
                Stmt::StoreWord { memory: Memory::Scratch, index: Operand::Const(Const::U32(3)), value: Operand::Const(Const::U32(1)) },
                Stmt::Barrier,
                load(Memory::Scratch),
                Stmt::Barrier,
            ]
        };
        assert_eq!(run_with(exchange(), true), [true, true]);
        // Local memory in the scratch buffer (no exchange there): the thread's own words.
        assert_eq!(run_with(exchange(), false), [false, false]);
    }
}
