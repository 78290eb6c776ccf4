//! Detects loops that the driver cut short.
//!
//! llvmpipe (lavapipe) guards against endless shaders with one counter per shader invocation,
//! set to 65,535 at entry and decremented on every loop back-edge of *any* loop; at zero, the
//! loop it is in exits as if every lane broke out, silently, and so does every later loop
//! after its first iteration. Measured on Mesa 22.3: a 1,000 × 1,000 loop nest counts to
//! 65,470 (65,535 minus the 65 outer back-edges), a flat loop of 100,000 to 65,535. Because
//! the counter is shared by all loops and never reset, no restructuring of the loops
//! (splitting, nesting) raises the total, so the kernel cannot compute the right result there;
//! what we guarantee instead is that a cut loop never passes as a successful launch.
//!
//! The check: before every `Return` and at the end of the kernel, a tiny loop that must run
//! eight times (the trip count comes from the parameter header's 1.0 word, which no compiler
//! can know, so it cannot unroll the loop). Once the driver's counter is spent, that loop
//! stops after its first back-edge (NIR may peel one more iteration off the front), and the
//! kernel records `abi::FAULT_LOOP_CUT`. (A thread that comes within 8 back-edges of the limit
//! without a cut is reported too: a false alarm in that narrow case, never a false pass.)
//!
//! A loop without any `break` (an endless loop) gets one that is never taken but that no
//! compiler can prove dead (a test of the header's 1.0 word against zero): otherwise the code
//! after the loop, the check included, is unreachable and deleted, and the cut passes unseen.
//!
//! The counter belongs to a SIMD vector of 8 lanes, not to a thread, and a loop runs while any
//! lane of the vector has not left it, lanes without a thread included: in a CTA whose size is
//! not a multiple of 8, llvmpipe fills the last vector with such lanes, masks their memory
//! accesses (their loads read 0) but not their loop exits (measured on Mesa 22.3: `loop { i++;
//! if (one == 1) { if (i >= 3) { break } } }`, with `one` loaded as 1, spent the whole counter
//! at CTA sizes 1, 2 and 7 and took 3 back-edges at 8 and 16). A loop whose exit waits for a value loaded
//! from memory, as the call stack's return dispatch does (`call.rs`: the return id, which such
//! a lane reads as 0 forever), therefore runs in them until the counter is spent, and every
//! later loop of the vector's real threads is cut (differential seed 0x5ca10000 and
//! `b128 hand_written_b128_forms_through_the_call_stack…` at inlining budget 0, issue 10). So
//! such lanes leave at the kernel's start: the parameter header's 1.0 word reads 0 only in them
//! (a test a compiler cannot fold, and uniform for WGSL's uniformity analysis: `px_params` is
//! read-only), read per lane (`Kernel::direct_param_loads`: a load at a constant offset, read
//! once for the vector, gives them the real word). [`strip_checks`] keeps this exit.
//!
//! A flag set at each `break` of each loop does not work: NIR, which optimizes before llvmpipe
//! adds its limiter, knows the loop ends only through its breaks and folds the flag away.
//!
//! The host enables the check only on devices where its probe (`host/src/runtime/probe.rs`)
//! saw a loop cut. A launch-specialised variant leaves it out ([`strip_checks`]) when the
//! launch precondition bounds every thread's back-edges far below the limit
//! (`launch_proof::NestLoop`).

use crate::abi;
use crate::build::*;
use crate::ir::{BinaryOp, Block, CmpOp, Kernel, Memory, Stmt, Ty, VarId, VarInfo};

/// The check's own variables (only this module names variables so).
const TRIPS: &str = "loop_cut.trips";
const COUNT: &str = "loop_cut.n";
const DONE: &str = "loop_cut.done";
const FAR: &str = "loop_cut.far";
/// The parameter word that tells lanes without a thread apart (module comment).
const LANE_WORD: &str = "loop_cut.lane_word";

/// Whether `v` must be loaded per lane, never as one load for the whole SIMD vector (as a
/// driver may read a parameter word at a constant offset, `Kernel::direct_param_loads`): the
/// word that tells lanes without a thread apart, which reads 0 only when loaded per lane.
pub(crate) fn is_per_lane_load(v: &VarInfo) -> bool {
    v.name == LANE_WORD
}

fn check_vars(k: &Kernel) -> Vec<bool> {
    k.vars.iter().map(|v| is_check_var(v)).collect()
}

/// Whether `v` is one of the check's own variables (passes that rewrite loops leave them
/// alone, so that [`strip_checks`] still finds the check's loop).
pub(crate) fn is_check_var(v: &VarInfo) -> bool {
    matches!(v.name.as_str(), TRIPS | COUNT | DONE | FAR)
}

fn is_check_fault(s: &Stmt) -> bool {
    matches!(s, Stmt::If { then_body, else_body, .. }
        if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { code }] if *code == abi::FAULT_LOOP_CUT))
}

/// Whether `k` has the check (its fault statement, anywhere).
pub fn has_check(k: &Kernel) -> bool {
    fn block(b: &Block) -> bool {
        b.stmts.iter().any(|s| is_check_fault(s) || s.bodies().any(block))
    }
    block(&k.body)
}

/// Whether the loop with body `body` is the check's own eight-trip loop: it assigns only the
/// check's variables and leaves through tests of them.
pub fn is_check_loop(k: &Kernel, body: &Block) -> bool {
    let vars = check_vars(k);
    !body.stmts.is_empty() && body.stmts.iter().all(|s| check_stmt(s, &vars))
}

/// A statement of the check: an assignment to one of its variables, or `if (done) { break }`.
fn check_stmt(s: &Stmt, vars: &[bool]) -> bool {
    let ours = |v: &VarId| vars.get(v.index()).copied().unwrap_or(false);
    match s {
        Stmt::Assign { dst, .. } => ours(dst),
        Stmt::If { cond: crate::ir::Operand::Var(c), then_body, else_body } => {
            ours(c) && else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Break])
        }
        _ => false,
    }
}

/// Removes every check from `k` (its statements and loops, and its fault): for a
/// launch-specialised variant whose launches keep every thread's loop back-edges far below
/// the driver's limit (`launch_proof::NestLoop`), where the check could never fire. The
/// escapes of endless loops stay (a never-taken `break`). Returns whether a check was removed.
pub fn strip_checks(k: &mut Kernel) -> bool {
    let vars = check_vars(k);
    fn block(b: &mut Block, vars: &[bool], removed: &mut bool) {
        b.stmts.retain(|s| {
            let check = is_check_fault(s)
                || check_stmt(s, vars)
                || matches!(s, Stmt::Loop { body } if !body.stmts.is_empty() && body.stmts.iter().all(|s| check_stmt(s, vars)));
            *removed |= is_check_fault(s);
            !check
        });
        for s in &mut b.stmts {
            for body in s.bodies_mut() {
                block(body, vars, removed);
            }
        }
    }
    let mut removed = false;
    block(&mut k.body, &vars, &mut removed);
    removed
}

/// Adds the check before every `Return` of `k` and at its end, and the exit of lanes without a
/// thread at its start.
///
/// A kernel without loops gets none: the driver's counter only counts loop back-edges, and
/// the loops added after this pass are bounded far below 65,535 back-edges (the shared-memory
/// prologue's, at most one per word of shared memory per thread: 8,192 with lavapipe's
/// 32 KiB; the backends' helpers', at most 64). The check is not free in a short kernel (an
/// eight-trip loop per thread cost saxpy a fifth of its time on lavapipe, issue 11).
pub fn check_cut_loops(k: &mut Kernel) {
    if !needs_check(k) {
        return;
    }
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let (trips, n, done) = (new_var(Ty::U32, TRIPS), new_var(Ty::U32, COUNT), new_var(Ty::Bool, DONE));
    let far = new_var(Ty::U32, FAR);
    // (0x3f800000 >> 23) - 119 = 8. No masking: a compiler that can bound the trip count
    // unrolls the loop (NIR does, on the SPIR-V path), and an unrolled loop never sees the
    // driver's counter.
    let check = vec![
        assign(trips, load(Memory::Param, c32(abi::PARAM_ONE_F32_WORD))),
        assign(trips, bin(BinaryOp::ShrU, Ty::U32, trips, c32(23))),
        assign(trips, bin(BinaryOp::Sub, Ty::U32, trips, c32(119))),
        assign(far, bin(BinaryOp::Shl, Ty::U32, trips, c32(8))),
        copy(n, c32(0)),
        loop_(vec![
            assign(n, bin(BinaryOp::Add, Ty::U32, n, c32(1))),
            assign(done, cmp(CmpOp::GeU, Ty::U32, n, trips)),
            if_(done, vec![Stmt::Break], vec![]),
            // Never taken; a second exit keeps lavapipe's SPIR-V path from miscompiling the
            // read of `n` after a single-exit loop (design.md).
            assign(done, cmp(CmpOp::GtU, Ty::U32, n, far)),
            if_(done, vec![Stmt::Break], vec![]),
        ]),
        assign(done, cmp(CmpOp::LtU, Ty::U32, n, trips)),
        if_(done, vec![Stmt::Fault { code: abi::FAULT_LOOP_CUT }], vec![]),
    ];
    let (word, never) = (new_var(Ty::U32, "loop_cut.one"), new_var(Ty::Bool, "loop_cut.never"));
    let escape = vec![
        assign(word, load(Memory::Param, c32(abi::PARAM_ONE_F32_WORD))),
        assign(never, cmp(CmpOp::Eq, Ty::U32, word, c32(0))),
        if_(never, vec![Stmt::Break], vec![]),
    ];
    // Lanes without a thread leave first (see the module comment): the header's 1.0 word
    // reads 0 only in them. After the checks are placed: they need none.
    let (lane_word, no_thread) = (new_var(Ty::U32, LANE_WORD), new_var(Ty::Bool, "loop_cut.no_thread"));
    let lanes_without_thread_leave = vec![
        assign(lane_word, load(Memory::Param, c32(abi::PARAM_ONE_F32_WORD))),
        assign(no_thread, cmp(CmpOp::Eq, Ty::U32, lane_word, c32(0))),
        if_(no_thread, vec![Stmt::Return], vec![]),
    ];
    let mut body = std::mem::take(&mut k.body);
    insert_before_returns(&mut body, &check);
    give_endless_loops_an_exit(&mut body, &escape);
    body.stmts.extend(check);
    body.stmts.splice(0..0, lanes_without_thread_leave);
    k.body = body;
}

fn insert_before_returns(block: &mut Block, check: &[Stmt]) {
    let stmts = std::mem::take(&mut block.stmts);
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::Return => {
                out.extend_from_slice(check);
                out.push(Stmt::Return);
            }
            Stmt::If { cond, mut then_body, mut else_body } => {
                insert_before_returns(&mut then_body, check);
                insert_before_returns(&mut else_body, check);
                out.push(Stmt::If { cond, then_body, else_body });
            }
            Stmt::Loop { mut body } => {
                insert_before_returns(&mut body, check);
                out.push(Stmt::Loop { body });
            }
            Stmt::Switch { selector, mut cases, mut default } => {
                cases.iter_mut().for_each(|c| insert_before_returns(&mut c.body, check));
                insert_before_returns(&mut default, check);
                out.push(Stmt::Switch { selector, cases, default });
            }
            other => out.push(other),
        }
    }
    block.stmts = out;
}

/// Prepends `escape` (a break never taken) to the body of every loop without a `Break` of its own.
fn give_endless_loops_an_exit(block: &mut Block, escape: &[Stmt]) {
    for s in &mut block.stmts {
        match s {
            Stmt::If { then_body, else_body, .. } => {
                give_endless_loops_an_exit(then_body, escape);
                give_endless_loops_an_exit(else_body, escape);
            }
            Stmt::Switch { cases, default, .. } => {
                cases.iter_mut().for_each(|c| give_endless_loops_an_exit(&mut c.body, escape));
                give_endless_loops_an_exit(default, escape);
            }
            Stmt::Loop { body } => {
                give_endless_loops_an_exit(body, escape);
                if !breaks_out(body) {
                    let mut stmts = escape.to_vec();
                    stmts.append(&mut body.stmts);
                    body.stmts = stmts;
                }
            }
            _ => {}
        }
    }
}

/// Whether `block` has a loop (at any depth).
/// Whether [`check_cut_loops`] gives `k` the check (it has loops); recorded as
/// `Features::loops` for the host's refusal of an unchecked kernel on a driver that cuts loops.
pub fn needs_check(k: &Kernel) -> bool {
    has_loop(&k.body)
}

fn has_loop(block: &Block) -> bool {
    block.stmts.iter().any(|s| match s {
        Stmt::Loop { .. } => true,
        Stmt::If { then_body, else_body, .. } => has_loop(then_body) || has_loop(else_body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| has_loop(&c.body)) || has_loop(default),
        _ => false,
    })
}

/// Whether `block` (a loop body) has a `Break` of that loop (not of a nested one).
fn breaks_out(block: &Block) -> bool {
    block.stmts.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If { then_body, else_body, .. } => breaks_out(then_body) || breaks_out(else_body),
        _ => false,
    })
}
