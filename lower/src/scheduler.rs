//! The CTA barrier scheduler: `bar.arrive` and barriers for part of the CTA (issue 10).
//!
//! PTX ISA 8.5 §9.7.13.1 (`bar`, `barrier`): each CTA has 16 barriers; a thread count `b` names
//! how many threads (whole warps) take part; "barrier{.cta} instruction causes executing thread
//! to wait for all non-exited threads from its warp and marks warps' arrival at barrier";
//! `.sync` (and `.red`) then wait "for non-exited threads of all other warps participating in
//! the barrier to arrive", `.arrive` does not wait; "When a barrier completes, the waiting
//! threads are restarted without delay, and the barrier is reinitialized so that it can be
//! immediately reused." Producer warps `bar.arrive` and go on while consumer warps `bar.sync`:
//! Vulkan's and WGSL's workgroup barriers make every invocation wait, in uniform control flow,
//! and today's SIMT pass runs divergent branches one after the other, so such a pair can meet
//! its barrier instances in the wrong order. Kernels with `bar.arrive` or an immediate count
//! naming fewer warps than the CTA (and, where the kernel allows it, a count held in a
//! register) are therefore lowered in scheduler mode: every `bar`/`barrier` becomes a point of
//! a per-CTA scheduler, and the kernel becomes one workgroup-uniform loop of rounds:
//!
//! 1. every thread that is runnable runs from its resume point (a `switch` into the kernel's
//!    CFG) to its next barrier point, where it records the barrier (id, the warps that
//!    complete it, arrive or sync) and parks, or to its exit;
//! 2. every non-exited thread publishes itself in workgroup memory: its warp's live and parked
//!    threads and the barrier ids they park at; then a workgroup barrier (which also makes
//!    every memory access before it visible to the threads released below: §9.7.13.1's
//!    "prior memory accesses requested by this thread are performed relative to all threads
//!    participating in the barrier");
//! 3. thread 0 goes through the warps in order: a warp whose non-exited threads all park at
//!    one barrier id arrives (one arrival per warp, whatever its live lanes); the barrier's
//!    arrival count grows, and when it reaches the count (for the forms without one: every
//!    warp that has a non-exited thread), the barrier completes: the warps waiting at it are
//!    released and it resets. Exits can complete a full-CTA barrier too. Then it writes which
//!    warps arrived and which were released, and whether to go on; a round in which no warp
//!    arrived and no barrier completed while some thread is left (every live thread waits at
//!    a barrier that can no longer complete: undefined in PTX, a hang on NVIDIA) ends the
//!    launch with `abi::FAULT_BARRIER_DEADLOCK` at each waiting thread's barrier;
//! 4. every thread reads that (a workgroup-uniform load: its barrier too) and updates its
//!    state: an arrived `arrive` thread runs again, an arrived `sync` thread waits until its
//!    warp is released.
//!
//! Warps arriving in one round are taken in warp order, which is one of the orders an NVIDIA
//! GPU may take them in (three warps at `bar.sync 1, 64` release the first two, the third
//! waits for a fourth). The thread's registers live across rounds as ordinary variables.
//! The only barriers left are the scheduler's, in the loop's uniform body, so the SIMT pass
//! has nothing to rewrite. Warp collectives, `bar.red` and `bar.warp.sync` (whose emulation
//! needs every thread of the CTA at its workgroup barriers) are refused in such kernels.

use crate::abi;
use crate::cfg::{NodeId, Terminator};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{AtomicOp, BinaryOp, Block, CmpOp, Const, Expr, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};
use ptxcross_frontend::ast::Span;

/// The expected arrival count of the barrier forms that wait for every non-exited warp (no
/// thread count, or one naming the whole CTA): above any warp count (at most 32).
pub const ALL_WARPS: u32 = 64;

/// A thread's state between rounds.
const RUN: u32 = 0;
const PARKED: u32 = 1;
const WAITING: u32 = 2;
const EXITED: u32 = 3;

/// The round's verdict (shared word `ctl`).
const DONE: u32 = 0;
const CONTINUE: u32 = 1;
const STUCK: u32 = 2;

/// The per-thread record of the barrier point a thread parks at.
#[derive(Clone, Copy, Debug)]
pub struct PointVars {
    /// Barrier id, 0–15.
    pub id: VarId,
    /// Warps that complete the barrier, or [`ALL_WARPS`].
    pub expect: VarId,
    /// `bar.arrive` (the thread goes on once its warp arrived).
    pub arrive: VarId,
    /// The barrier's fault site (for `abi::FAULT_BARRIER_DEADLOCK`).
    pub site: VarId,
}

/// One barrier instruction of a scheduler kernel: its code ends block `node`; the thread
/// resumes at `cont`.
#[derive(Clone, Debug)]
pub struct Point {
    pub node: NodeId,
    pub cont: NodeId,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Points {
    vars: Option<PointVars>,
    pub points: Vec<Point>,
}

impl Points {
    pub fn vars(&mut self, vars: &mut Vec<VarInfo>) -> PointVars {
        *self.vars.get_or_insert_with(|| {
            let mut new = |ty: Ty, name: &str| {
                vars.push(VarInfo { ty, name: name.into() });
                VarId(vars.len() as u32 - 1)
            };
            PointVars {
                id: new(Ty::U32, "sched.barrier"),
                expect: new(Ty::U32, "sched.expect"),
                arrive: new(Ty::Bool, "sched.arrive"),
                site: new(Ty::U32, "sched.site"),
            }
        })
    }
}

/// The scheduler's workgroup words, from `base`, for `w` warps.
struct Scratch {
    base: u32,
    w: u32,
}

impl Scratch {
    /// Per warp: non-exited threads this round.
    fn live(&self) -> u32 {
        self.base
    }
    /// Per warp: threads parked at a barrier, not yet counted.
    fn parked(&self) -> u32 {
        self.base + self.w
    }
    /// Per warp: the ids (bit set) the parked threads wait at.
    fn ids(&self) -> u32 {
        self.base + 2 * self.w
    }
    /// Per warp: 1 + the id of the barrier it waits for to complete, 0 if none.
    fn wait(&self) -> u32 {
        self.base + 3 * self.w
    }
    /// Per barrier id: warps arrived in the current instance.
    fn count(&self) -> u32 {
        self.base + 4 * self.w
    }
    /// Per barrier id: the arrival count that completes it (max over the parked threads').
    fn expect(&self) -> u32 {
        self.count() + 16
    }
    /// Bit per warp: some parked thread of the warp is a `sync` (its warp waits).
    fn syncers(&self) -> u32 {
        self.count() + 32
    }
    /// Bit per warp: arrived this round.
    fn arrived(&self) -> u32 {
        self.count() + 33
    }
    /// Bit per warp: released this round.
    fn released(&self) -> u32 {
        self.count() + 34
    }
    /// The round's verdict.
    fn ctl(&self) -> u32 {
        self.count() + 35
    }
    fn words(&self) -> u32 {
        4 * self.w + 36
    }
}

fn u32c(v: u32) -> Operand {
    Operand::Const(Const::U32(v))
}

fn shared_load(fl: &mut FnLower, base: u32, k: Operand) -> Operand {
    let index = fl.bin(BinaryOp::Add, Ty::U32, u32c(base), k);
    fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index })
}

fn shared_store(fl: &mut FnLower, base: u32, k: Operand, value: Operand) {
    let index = fl.bin(BinaryOp::Add, Ty::U32, u32c(base), k);
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index, value });
}

fn shared_atomic(fl: &mut FnLower, op: AtomicOp, base: u32, k: Operand, value: Operand) {
    let index = fl.bin(BinaryOp::Add, Ty::U32, u32c(base), k);
    let old = fl.new_var(Ty::U32, "sched.old");
    fl.assign(old, Expr::AtomicWord { memory: Memory::Shared, op, index, value, comparand: None });
}

/// `1 << k` (k < 32).
fn bit(fl: &mut FnLower, k: Operand) -> Operand {
    fl.bin(BinaryOp::Shl, Ty::U32, u32c(1), k)
}

/// Whether bit `k` of `mask` is set.
fn has_bit(fl: &mut FnLower, mask: Operand, k: Operand) -> Operand {
    let s = fl.bin(BinaryOp::ShrU, Ty::U32, mask, k);
    let b = fl.bin(BinaryOp::And, Ty::U32, s, u32c(1));
    fl.cmp(CmpOp::Ne, Ty::U32, b, u32c(0))
}

/// `if cond { f }` in the current block.
fn when(fl: &mut FnLower, cond: Operand, f: impl FnOnce(&mut FnLower)) -> LResult<()> {
    let body = fl.collect(|fl| {
        f(fl);
        Ok(())
    })?;
    fl.emit_if(cond, body, Block::new());
    Ok(())
}

/// `for k in 0..n { body(k) }` as CFG nodes from the current block; `body` emits into the
/// current block and may add nodes, falling through at the end.
fn counted_loop(fl: &mut FnLower, n: u32, name: &str, body: impl FnOnce(&mut FnLower, Operand) -> LResult<()>) -> LResult<()> {
    let k = fl.new_var(Ty::U32, name);
    fl.assign(k, Expr::Use(u32c(0)));
    let head = fl.new_node();
    fl.terminate(Terminator::Jump(head), head);
    let more = fl.cmp(CmpOp::LtU, Ty::U32, Operand::Var(k), u32c(n));
    let (inside, exit) = (fl.new_node(), fl.new_node());
    fl.terminate(Terminator::Branch { cond: more, then_target: inside, else_target: exit }, inside);
    body(fl, Operand::Var(k))?;
    let next = fl.bin(BinaryOp::Add, Ty::U32, Operand::Var(k), u32c(1));
    fl.assign(k, Expr::Use(next));
    fl.terminate(Terminator::Jump(head), exit);
    Ok(())
}

/// Thread 0's bookkeeping of a round (see the module comment).
struct Round<'s> {
    s: &'s Scratch,
    nlive: Operand,
    arrived: VarId,
    released: VarId,
    progress: VarId,
}

impl Round<'_> {
    /// Barrier `id` completes: it resets, and the warps waiting for it are released.
    fn complete(&self, fl: &mut FnLower, id: Operand) -> LResult<()> {
        shared_store(fl, self.s.count(), id, u32c(0));
        shared_store(fl, self.s.expect(), id, u32c(0));
        fl.assign(self.progress, Expr::Use(Operand::Const(Const::Bool(true))));
        let tag = fl.bin(BinaryOp::Add, Ty::U32, id, u32c(1));
        let (s, released) = (self.s, self.released);
        counted_loop(fl, s.w, "sched.warp index", |fl, j| {
            let waits = shared_load(fl, s.wait(), j);
            let hit = fl.cmp(CmpOp::Eq, Ty::U32, waits, tag);
            when(fl, hit, |fl| {
                let b = bit(fl, j);
                let r = fl.bin(BinaryOp::Or, Ty::U32, Operand::Var(released), b);
                fl.assign(released, Expr::Use(r));
                shared_store(fl, s.wait(), j, u32c(0));
            })
        })
    }

    /// Warp `k`'s arrival, if every non-exited thread of it parks at one barrier id.
    fn arrival(&self, fl: &mut FnLower, k: Operand) -> LResult<()> {
        let s = self.s;
        let live = shared_load(fl, s.live(), k);
        let parked = shared_load(fl, s.parked(), k);
        let ids = shared_load(fl, s.ids(), k);
        let some = fl.cmp(CmpOp::Ne, Ty::U32, live, u32c(0));
        let all = fl.cmp(CmpOp::Eq, Ty::U32, parked, live);
        let below = fl.bin(BinaryOp::Sub, Ty::U32, ids, u32c(1));
        let rest = fl.bin(BinaryOp::And, Ty::U32, ids, below);
        let at_most_one = fl.cmp(CmpOp::Eq, Ty::U32, rest, u32c(0));
        let any = fl.cmp(CmpOp::Ne, Ty::U32, ids, u32c(0));
        let a = fl.bin(BinaryOp::And, Ty::Bool, some, all);
        let a = fl.bin(BinaryOp::And, Ty::Bool, a, at_most_one);
        let arrives = fl.bin(BinaryOp::And, Ty::Bool, a, any);
        let (yes, next) = (fl.new_node(), fl.new_node());
        fl.terminate(Terminator::Branch { cond: arrives, then_target: yes, else_target: next }, yes);
        // The warp arrives at barrier `id` (its only bit).
        let lz = fl.value(Ty::U32, Expr::Unary { op: UnaryOp::CountLeadingZeros, ty: Ty::U32, arg: ids });
        let id = fl.bin(BinaryOp::Sub, Ty::U32, u32c(31), lz);
        let b = bit(fl, k);
        let r = fl.bin(BinaryOp::Or, Ty::U32, Operand::Var(self.arrived), b);
        fl.assign(self.arrived, Expr::Use(r));
        fl.assign(self.progress, Expr::Use(Operand::Const(Const::Bool(true))));
        let syncers = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.syncers()) });
        let waits = has_bit(fl, syncers, k);
        let tag = fl.bin(BinaryOp::Add, Ty::U32, id, u32c(1));
        when(fl, waits, |fl| shared_store(fl, s.wait(), k, tag))?;
        let count = shared_load(fl, s.count(), id);
        let count = fl.bin(BinaryOp::Add, Ty::U32, count, u32c(1));
        shared_store(fl, s.count(), id, count);
        let expect = shared_load(fl, s.expect(), id);
        let full = fl.cmp(CmpOp::GeU, Ty::U32, expect, u32c(ALL_WARPS));
        let expect = fl.select(Ty::U32, full, self.nlive, expect);
        let done = fl.cmp(CmpOp::GeU, Ty::U32, count, expect);
        let completes = fl.new_node();
        fl.terminate(Terminator::Branch { cond: done, then_target: completes, else_target: next }, completes);
        self.complete(fl, id)?;
        fl.terminate(Terminator::Jump(next), next);
        Ok(())
    }

    /// A full-CTA barrier whose arrivals reached the warps left (some exited since).
    fn after_exits(&self, fl: &mut FnLower, id: Operand) -> LResult<()> {
        let s = self.s;
        let count = shared_load(fl, s.count(), id);
        let expect = shared_load(fl, s.expect(), id);
        let some = fl.cmp(CmpOp::Ne, Ty::U32, count, u32c(0));
        let full = fl.cmp(CmpOp::GeU, Ty::U32, expect, u32c(ALL_WARPS));
        let enough = fl.cmp(CmpOp::GeU, Ty::U32, count, self.nlive);
        let r = fl.bin(BinaryOp::And, Ty::Bool, some, full);
        let ready = fl.bin(BinaryOp::And, Ty::Bool, r, enough);
        let (completes, next) = (fl.new_node(), fl.new_node());
        fl.terminate(Terminator::Branch { cond: ready, then_target: completes, else_target: next }, completes);
        self.complete(fl, id)?;
        fl.terminate(Terminator::Jump(next), next);
        Ok(())
    }
}

/// Turns the kernel lowered in scheduler mode into the scheduler loop (see the module
/// comment). Called once the whole body (inlined and stack-called functions included) is
/// lowered, before the CFG is taken.
pub(crate) fn build(fl: &mut FnLower) -> LResult<()> {
    if let Some(&(_, span)) = fl.barriers.first() {
        return Err(unsupported(
            "a warp collective, `bar.red` or `bar.warp.sync` in a kernel whose barriers need the CTA barrier scheduler \
             (it has `bar.arrive` or a barrier for part of the CTA; that emulation needs every thread at its workgroup barriers)",
            span,
        ));
    }
    if let Some(p) = fl.sched.points.first() {
        if fl.native_warps && fl.used_native_warps {
            return Err(unsupported("native warp collectives in a kernel with the CTA barrier scheduler", p.span));
        }
    }
    // The body's last block ends the thread; `entry` is the scheduler's first block.
    let entry = fl.new_node();
    fl.terminate(Terminator::Return, entry);
    let threads: u32 = fl.block.iter().product();
    let s = Scratch { base: fl.shared_bytes.div_ceil(4), w: threads.div_ceil(32) };
    fl.shared_bytes = (s.base + s.words()) * 4;
    fl.has_shared = true;
    let st = fl.new_var(Ty::U32, "sched.state");
    let resume = fl.new_var(Ty::U32, "sched.resume");
    let pv = fl.sched.vars(&mut fl.vars);
    let site_var = match fl.fault_site_var {
        Some(v) => v,
        None => {
            let v = fl.new_var(Ty::U32, "fault site");
            fl.fault_site_var = Some(v);
            v
        }
    };
    let (head, publish) = (fl.new_node(), fl.new_node());

    // The kernel's blocks: exits and barrier points go to the round's publication.
    for b in 0..entry {
        if fl.blocks[b].term == Terminator::Return {
            fl.blocks[b].stmts.push(Stmt::Assign { dst: st, expr: Expr::Use(u32c(EXITED)) });
            fl.blocks[b].term = Terminator::Jump(publish);
        }
    }
    let points = fl.sched.points.clone();
    for (i, p) in points.iter().enumerate() {
        let block = &mut fl.blocks[p.node];
        block.stmts.push(Stmt::Assign { dst: resume, expr: Expr::Use(u32c(i as u32 + 1)) });
        block.stmts.push(Stmt::Assign { dst: st, expr: Expr::Use(u32c(PARKED)) });
        block.term = Terminator::Jump(publish);
    }

    // Entry: every thread runnable from the kernel's start.
    fl.assign(st, Expr::Use(u32c(RUN)));
    fl.assign(resume, Expr::Use(u32c(0)));
    fl.assign(pv.id, Expr::Use(u32c(0)));
    fl.assign(pv.expect, Expr::Use(u32c(0)));
    fl.assign(pv.arrive, Expr::Use(Operand::Const(Const::Bool(false))));
    fl.assign(pv.site, Expr::Use(u32c(0)));
    let tid = fl.linear_tid();
    let w = fl.bin(BinaryOp::ShrU, Ty::U32, tid, u32c(5));
    let warp = fl.new_var(Ty::U32, "sched.warp");
    fl.assign(warp, Expr::Use(w));
    let first = fl.cmp(CmpOp::Eq, Ty::U32, tid, u32c(0));
    let thread_zero = fl.new_var(Ty::Bool, "sched.thread zero");
    fl.assign(thread_zero, Expr::Use(first));
    let warp = Operand::Var(warp);
    fl.terminate(Terminator::Jump(head), head);

    // Round head: runnable threads resume where they parked.
    let runs = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(RUN));
    let dispatch = fl.new_node();
    fl.terminate(Terminator::Branch { cond: runs, then_target: dispatch, else_target: publish }, dispatch);
    let mut cases = vec![(0, 0)];
    cases.extend(points.iter().enumerate().map(|(i, p)| (i as u32 + 1, p.cont)));
    fl.terminate(Terminator::Switch { selector: Operand::Var(resume), cases, default: 0 }, publish);

    // Publication, then the round's workgroup barrier.
    let live = fl.cmp(CmpOp::Ne, Ty::U32, Operand::Var(st), u32c(EXITED));
    when(fl, live, |fl| shared_atomic(fl, AtomicOp::Add, s.live(), warp, u32c(1)))?;
    let parked = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(PARKED));
    when(fl, parked, |fl| {
        shared_atomic(fl, AtomicOp::Add, s.parked(), warp, u32c(1));
        let b = bit(fl, Operand::Var(pv.id));
        shared_atomic(fl, AtomicOp::Or, s.ids(), warp, b);
        shared_atomic(fl, AtomicOp::MaxU, s.expect(), Operand::Var(pv.id), Operand::Var(pv.expect));
        let sync = fl.un(UnaryOp::Not, Ty::Bool, Operand::Var(pv.arrive));
        let wb = bit(fl, warp);
        let _ = when(fl, sync, |fl| shared_atomic(fl, AtomicOp::Or, s.syncers(), u32c(0), wb));
    })?;
    fl.push(Stmt::Barrier);
    let barrier_node = fl.cur;
    let (book, after) = (fl.new_node(), fl.new_node());
    fl.terminate(Terminator::Branch { cond: Operand::Var(thread_zero), then_target: book, else_target: after }, book);

    // Thread 0's bookkeeping.
    let nlive = fl.new_var(Ty::U32, "sched.live warps");
    let arrived = fl.new_var(Ty::U32, "sched.arrived");
    let released = fl.new_var(Ty::U32, "sched.released");
    let progress = fl.new_var(Ty::Bool, "sched.progress");
    fl.assign(nlive, Expr::Use(u32c(0)));
    fl.assign(arrived, Expr::Use(u32c(0)));
    fl.assign(released, Expr::Use(u32c(0)));
    fl.assign(progress, Expr::Use(Operand::Const(Const::Bool(false))));
    counted_loop(fl, s.w, "sched.warp index", |fl, k| {
        let l = shared_load(fl, s.live(), k);
        let some = fl.cmp(CmpOp::Ne, Ty::U32, l, u32c(0));
        let one = fl.select(Ty::U32, some, u32c(1), u32c(0));
        let n = fl.bin(BinaryOp::Add, Ty::U32, Operand::Var(nlive), one);
        fl.assign(nlive, Expr::Use(n));
        Ok(())
    })?;
    let round = Round { s: &s, nlive: Operand::Var(nlive), arrived, released, progress };
    counted_loop(fl, s.w, "sched.warp index", |fl, k| round.arrival(fl, k))?;
    counted_loop(fl, 16, "sched.barrier index", |fl, id| round.after_exits(fl, id))?;
    counted_loop(fl, s.w, "sched.warp index", |fl, k| {
        for base in [s.live(), s.parked(), s.ids()] {
            shared_store(fl, base, k, u32c(0));
        }
        Ok(())
    })?;
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.syncers()), value: u32c(0) });
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.arrived()), value: Operand::Var(arrived) });
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.released()), value: Operand::Var(released) });
    let go_on = fl.select(Ty::U32, Operand::Var(progress), u32c(CONTINUE), u32c(STUCK));
    let none_left = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(nlive), u32c(0));
    let verdict = fl.select(Ty::U32, none_left, u32c(DONE), go_on);
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.ctl()), value: verdict });
    fl.terminate(Terminator::Jump(after), after);

    // Every thread: the verdict (a workgroup-uniform load), then its own state.
    let ctl = fl.new_var(Ty::U32, "sched.verdict");
    fl.assign(ctl, Expr::SharedUniformLoad { index: u32c(s.ctl()) });
    let after_node = fl.cur;
    let am = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.arrived()) });
    let rm = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.released()) });
    let a = has_bit(fl, am, warp);
    let r = has_bit(fl, rm, warp);
    let is_parked = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(PARKED));
    let is_waiting = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(WAITING));
    let goes = fl.bin(BinaryOp::Or, Ty::Bool, Operand::Var(pv.arrive), r);
    let on_arrival = fl.select(Ty::U32, goes, u32c(RUN), u32c(WAITING));
    let arrives = fl.bin(BinaryOp::And, Ty::Bool, is_parked, a);
    let s1 = fl.select(Ty::U32, arrives, on_arrival, Operand::Var(st));
    let freed = fl.bin(BinaryOp::And, Ty::Bool, is_waiting, r);
    let s2 = fl.select(Ty::U32, freed, u32c(RUN), s1);
    fl.assign(st, Expr::Use(s2));
    let more = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(ctl), u32c(CONTINUE));
    let finish = fl.new_node();
    fl.terminate(Terminator::Branch { cond: more, then_target: head, else_target: finish }, finish);

    // The end: on a deadlock every waiting thread records the fault at its barrier.
    let stuck = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(ctl), u32c(STUCK));
    let left = fl.cmp(CmpOp::Ne, Ty::U32, Operand::Var(st), u32c(EXITED));
    let fault = fl.bin(BinaryOp::And, Ty::Bool, stuck, left);
    when(fl, fault, |fl| {
        fl.assign(site_var, Expr::Use(Operand::Var(pv.site)));
        fl.push(Stmt::Fault { code: abi::FAULT_BARRIER_DEADLOCK });
    })?;
    let end = fl.new_node();
    fl.terminate(Terminator::Return, end);

    fl.entry = entry;
    let span = points.first().map_or_else(Span::default, |p| p.span);
    fl.barriers = vec![(barrier_node, span), (after_node, span)];
    Ok(())
}
