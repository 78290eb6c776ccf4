//! The run-time check in front of a kernel with native warp collectives
//! (`ir::Features::native_warps`, design.md "Warps").
//!
//! A logical warp is 32 consecutive linear thread ids. `Expr::WarpBallot`/`WarpShuffle` are
//! subgroup operations on the 32-lane slice `subgroup_invocation_id & !31 ..` of the
//! invocation's subgroup, so they are right only where that slice is exactly the invocation's
//! warp. Vulkan and WebGPU promise no subgroup size (4 to 128, per pipeline on some devices)
//! nor which invocations share a subgroup, so every invocation checks, first of all:
//!
//! 1. the subgroup size is a (non-zero) multiple of 32;
//! 2. `subgroup_invocation_id == linear_tid % subgroup_size`;
//! 3. for m = 1, 2, 4, 8, 16: the invocation 32-lane slot `lane ^ m` of its slice holds linear
//!    thread `linear_tid ^ m` (a shuffle; skipped where that thread is beyond the CTA). With
//!    (2) this proves that slot k of the slice holds thread `(linear_tid & !31) + k`.
//!
//! The CTA combines the verdicts (a shared word, a barrier, `workgroupUniformLoad`); if any
//! invocation failed, every invocation records `abi::FAULT_WARP_LAYOUT` and returns before
//! any other statement of the kernel ran (nothing else is written), and the host launches the
//! emulated twin instead (`ir::Features::warp_fallback`). Where the check passes, every
//! workgroup's subgroups hold whole warps, so the native collectives are exact.
//!
//! The host's first launch of such a pipeline is a check-only launch of the same pipeline
//! over the same grid: the parameter header's `abi::PARAM_WARP_CHECK_ONLY_WORD` is non-zero,
//! and every invocation returns right after the verdict. So no workgroup's effects happen
//! before the host knows the verdict of every workgroup: a launch whose workgroups disagree
//! (some pass, some fail) runs the emulated twin alone, once.

use crate::abi;
use crate::build::*;
use crate::ir::{AtomicOp, BinaryOp, Builtin, CmpOp, Expr, Kernel, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};

/// Prepends the layout check to `k` (adds one shared word).
pub fn check_layout(k: &mut Kernel) {
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let threads = k.workgroup_size.iter().product::<u32>();
    let (lt, t) = (new_var(Ty::U32, "warp_layout.tid"), new_var(Ty::U32, "warp_layout.t"));
    let (size, inv) = (new_var(Ty::U32, "warp_layout.subgroup_size"), new_var(Ty::U32, "warp_layout.subgroup_id"));
    let (low, size_ok, nonzero) =
        (new_var(Ty::U32, "warp_layout.low"), new_var(Ty::Bool, "warp_layout.size_ok"), new_var(Ty::Bool, "warp_layout.nonzero"));
    let (div, rem, place_ok, ok) = (
        new_var(Ty::U32, "warp_layout.divisor"),
        new_var(Ty::U32, "warp_layout.rem"),
        new_var(Ty::Bool, "warp_layout.place_ok"),
        new_var(Ty::Bool, "warp_layout.ok"),
    );
    let mut s = linear_thread_id(lt, t, k.workgroup_size);
    s.extend([
        assign(size, Expr::Builtin(Builtin::SubgroupSize)),
        assign(inv, Expr::Builtin(Builtin::SubgroupInvocationId)),
        // (1) a non-zero multiple of 32.
        assign(low, bin(BinaryOp::And, Ty::U32, size, c32(31))),
        assign(size_ok, cmp(CmpOp::Eq, Ty::U32, low, c32(0))),
        assign(nonzero, cmp(CmpOp::Ne, Ty::U32, size, c32(0))),
        assign(size_ok, bin(BinaryOp::And, Ty::Bool, size_ok, nonzero)),
        // (2) subgroup_invocation_id == linear_tid % subgroup_size (the divisor kept non-zero).
        assign(div, bin(BinaryOp::MaxU, Ty::U32, size, c32(1))),
        assign(rem, bin(BinaryOp::RemU, Ty::U32, lt, div)),
        assign(place_ok, cmp(CmpOp::Eq, Ty::U32, inv, rem)),
        assign(ok, bin(BinaryOp::And, Ty::Bool, size_ok, place_ok)),
    ]);
    // (3) the butterfly partners. A subgroup narrower than 32 would make the slot index out of
    // range (an undefined value, but not one to feed a driver): lane 0 there, the verdict is
    // already false.
    let (lane, partner, exists, got, same, fine, lane_sel) = (
        new_var(Ty::U32, "warp_layout.lane"),
        new_var(Ty::U32, "warp_layout.partner"),
        new_var(Ty::Bool, "warp_layout.exists"),
        new_var(Ty::U32, "warp_layout.got"),
        new_var(Ty::Bool, "warp_layout.same"),
        new_var(Ty::Bool, "warp_layout.fine"),
        new_var(Ty::U32, "warp_layout.slot"),
    );
    for m in [1u32, 2, 4, 8, 16] {
        s.extend([
            assign(partner, bin(BinaryOp::Xor, Ty::U32, lt, c32(m))),
            assign(lane, bin(BinaryOp::And, Ty::U32, partner, c32(31))),
            assign(lane_sel, Expr::Select { ty: Ty::U32, cond: var(size_ok), a: var(lane), b: c32(0) }),
            assign(got, Expr::WarpShuffle { value: var(lt), lane: var(lane_sel) }),
            assign(exists, cmp(CmpOp::LtU, Ty::U32, partner, c32(threads))),
            assign(same, cmp(CmpOp::Eq, Ty::U32, got, partner)),
            assign(fine, un(UnaryOp::Not, Ty::Bool, exists)),
            assign(fine, bin(BinaryOp::Or, Ty::Bool, fine, same)),
            assign(ok, bin(BinaryOp::And, Ty::Bool, ok, fine)),
        ]);
    }
    verdict(k, s, lt, ok);
}

/// Test mode (`LowerOptions::simulate_warp_layout`, with `simulate_native_warps`): the layout
/// check's protocol (the CTA's verdict, the fault, the check-only launch) with a verdict
/// chosen by the test instead of read from subgroups: an invocation passes where its
/// workgroup's x index in the dispatch is below `pass_below`. Lets a device with narrow
/// subgroups (lavapipe) run a launch whose workgroups disagree, which no known device gives.
pub fn simulate_layout_check(k: &mut Kernel, pass_below: u32) {
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let (lt, t) = (new_var(Ty::U32, "warp_layout.tid"), new_var(Ty::U32, "warp_layout.t"));
    let (cta, ok) = (new_var(Ty::U32, "warp_layout.cta"), new_var(Ty::Bool, "warp_layout.ok"));
    let mut s = linear_thread_id(lt, t, k.workgroup_size);
    s.extend([
        assign(cta, Expr::Builtin(Builtin::CtaId(0))),
        assign(ok, cmp(CmpOp::LtU, Ty::U32, cta, c32(pass_below))),
    ]);
    verdict(k, s, lt, ok);
}

/// Appends to the check `s` (linear thread id `lt`, this invocation's verdict `ok`) the CTA's
/// verdict and the stop of a failed or check-only launch, and prepends it all to `k`'s body.
fn verdict(k: &mut Kernel, mut s: Vec<Stmt>, lt: VarId, ok: VarId) {
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let word = k.shared_words;
    // The CTA's verdict: thread 0 clears the word, barrier, failing threads set it, barrier
    // and uniform read.
    let (first, bad, old, verdict, stop) = (
        new_var(Ty::Bool, "warp_layout.first"),
        new_var(Ty::Bool, "warp_layout.bad"),
        new_var(Ty::U32, "warp_layout.old"),
        new_var(Ty::U32, "warp_layout.verdict"),
        new_var(Ty::Bool, "warp_layout.stop"),
    );
    let (check_word, check_only) = (new_var(Ty::U32, "warp_layout.check_word"), new_var(Ty::Bool, "warp_layout.check_only"));
    s.extend([
        assign(first, cmp(CmpOp::Eq, Ty::U32, lt, c32(0))),
        if_(first, vec![store(Memory::Shared, c32(word), c32(0))], vec![]),
        Stmt::Barrier,
        assign(bad, un(UnaryOp::Not, Ty::Bool, ok)),
        if_(
            bad,
            vec![assign(
                old,
                Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::Or, index: c32(word), value: c32(1), comparand: None },
            )],
            vec![],
        ),
        assign(verdict, Expr::SharedUniformLoad { index: c32(word) }),
        assign(stop, cmp(CmpOp::Ne, Ty::U32, verdict, c32(0))),
        if_(stop, vec![Stmt::Fault { code: abi::FAULT_WARP_LAYOUT }, Stmt::Return], vec![]),
        // A check-only launch (the host's first of this pipeline) ends here everywhere: the
        // header word is uniform, so is this return.
        assign(check_word, Expr::LoadWord { memory: Memory::Param, index: c32(abi::PARAM_WARP_CHECK_ONLY_WORD) }),
        assign(check_only, cmp(CmpOp::Ne, Ty::U32, check_word, c32(0))),
        if_(check_only, vec![Stmt::Return], vec![]),
    ]);
    k.shared_words += 1;
    s.append(&mut k.body.stmts);
    k.body.stmts = s;
}

/// Test mode (`LowerOptions::simulate_native_warps`): replaces every native warp collective
/// of `k` by shared memory and barriers — exact on any subgroup size, so the native lowering
/// (the collectives' rules, the SIMT pass's masks) runs end to end where subgroups are narrow
/// (lavapipe), with no subgroup operation left in the kernel. Each thread owns one scratch
/// word (the CTA padded to whole warps). A ballot: store the predicate, barrier, gather the
/// warp's 32 words, barrier. A run of consecutive shuffles of one value: store it once,
/// barrier, load each requested lane, barrier. Collectives are in uniform control flow
/// (their precondition), so every thread reaches these barriers.
pub fn simulate(k: &mut Kernel) {
    let threads = k.workgroup_size.iter().product::<u32>();
    let padded = threads.div_ceil(32) * 32;
    let base = k.shared_words;
    k.shared_words += padded;
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let (lt, t, mine, wbase) = (
        new_var(Ty::U32, "warp_sim.tid"),
        new_var(Ty::U32, "warp_sim.t"),
        new_var(Ty::U32, "warp_sim.mine"),
        new_var(Ty::U32, "warp_sim.warp_base"),
    );
    let (word, idx, acc) = (new_var(Ty::U32, "warp_sim.word"), new_var(Ty::U32, "warp_sim.index"), new_var(Ty::U32, "warp_sim.acc"));
    let mut prologue = linear_thread_id(lt, t, k.workgroup_size);
    prologue.extend([
        assign(mine, bin(BinaryOp::Add, Ty::U32, lt, c32(base))),
        assign(wbase, bin(BinaryOp::And, Ty::U32, lt, c32(!31))),
        assign(wbase, bin(BinaryOp::Add, Ty::U32, wbase, c32(base))),
    ]);
    let v = Vars { mine, wbase, word, idx, acc };
    let mut body = std::mem::take(&mut k.body.stmts);
    sim_block(&mut body, &v);
    prologue.append(&mut body);
    k.body.stmts = prologue;
}

struct Vars {
    mine: VarId,
    wbase: VarId,
    word: VarId,
    idx: VarId,
    acc: VarId,
}

fn sim_block(stmts: &mut Vec<Stmt>, v: &Vars) {
    let old = std::mem::take(stmts);
    let mut i = 0;
    while i < old.len() {
        match &old[i] {
            Stmt::Assign { dst, expr: Expr::WarpBallot { pred } } => {
                stmts.extend([
                    assign(v.word, Expr::Select { ty: Ty::U32, cond: *pred, a: c32(1), b: c32(0) }),
                    store(Memory::Shared, v.mine, v.word),
                    Stmt::Barrier,
                    assign(v.acc, Expr::Use(c32(0))),
                ]);
                for lane in 0..32 {
                    stmts.extend([
                        assign(v.idx, bin(BinaryOp::Add, Ty::U32, v.wbase, c32(lane))),
                        assign(v.word, load(Memory::Shared, v.idx)),
                        assign(v.word, bin(BinaryOp::Shl, Ty::U32, v.word, c32(lane))),
                        assign(v.acc, bin(BinaryOp::Or, Ty::U32, v.acc, v.word)),
                    ]);
                }
                stmts.extend([Stmt::Barrier, assign(*dst, Expr::Use(var(v.acc)))]);
                i += 1;
            }
            Stmt::Assign { expr: Expr::WarpShuffle { value, .. }, .. } => {
                let value = *value;
                stmts.extend([store(Memory::Shared, v.mine, value), Stmt::Barrier]);
                // One store serves the run while `value` stays the same variable's same value
                // (the run ends after a shuffle that overwrites it).
                while let Some(Stmt::Assign { dst, expr: Expr::WarpShuffle { value: same, lane } }) = old.get(i) {
                    if *same != value {
                        break;
                    }
                    stmts.extend([
                        assign(v.idx, bin(BinaryOp::And, Ty::U32, *lane, c32(31))),
                        assign(v.idx, bin(BinaryOp::Add, Ty::U32, v.wbase, v.idx)),
                        assign(*dst, load(Memory::Shared, v.idx)),
                    ]);
                    i += 1;
                    if Operand::Var(*dst) == value {
                        break;
                    }
                }
                stmts.push(Stmt::Barrier);
            }
            s => {
                let mut s = s.clone();
                match &mut s {
                    Stmt::If { then_body, else_body, .. } => {
                        sim_block(&mut then_body.stmts, v);
                        sim_block(&mut else_body.stmts, v);
                    }
                    Stmt::Loop { body } => sim_block(&mut body.stmts, v),
                    Stmt::Switch { cases, default, .. } => {
                        for c in cases {
                            sim_block(&mut c.body.stmts, v);
                        }
                        sim_block(&mut default.stmts, v);
                    }
                    _ => {}
                }
                stmts.push(s);
                i += 1;
            }
        }
    }
}
