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
//! register, or warp collectives that may meet at different instructions: `meeting`,
//! `kernel::lower_body`) are therefore lowered in scheduler mode: every `bar`/`barrier`
//! becomes a point of a per-CTA scheduler, and the kernel becomes one workgroup-uniform loop
//! of rounds:
//!
//! 1. every thread that is runnable runs from its resume point (a `switch` into the kernel's
//!    CFG) to its next barrier point, where it records the barrier (id, the warps that
//!    complete it, arrive or sync) and parks, or to its exit;
//! 2. every parked thread publishes itself in workgroup memory (its warp's parked threads and
//!    the barrier ids they park at), and a thread that exited clears its bit of its warp's live
//!    lanes (kept from the start); then a workgroup barrier (which also makes every memory access
//!    before it visible to the threads released below: §9.7.13.1's "prior memory accesses
//!    requested by this thread are performed relative to all threads participating in the
//!    barrier");
//! 3. thread 0 goes through the warps with parked threads in order: a warp whose non-exited
//!    threads all park at one barrier id arrives (one arrival per warp, whatever its live
//!    lanes); the barrier's
//!    arrivals grow (a warp mask), and when they reach the count (for the forms without one,
//!    and a count naming the whole CTA: once every warp that has a non-exited thread arrived,
//!    warps that arrived and exited since counting too), the barrier completes: the warps waiting at it are
//!    released and it resets. Exits can complete a full-CTA barrier too. Then it writes which
//!    warps arrived and which were released, and whether to go on; a round in which no warp
//!    arrived and no barrier completed while some thread is left (every live thread waits at
//!    a barrier that can no longer complete: undefined in PTX, a hang on NVIDIA) ends the
//!    launch with `abi::FAULT_BARRIER_DEADLOCK` at each waiting thread's barrier;
//! 4. every thread reads that (a workgroup-uniform load: its barrier too) and updates its
//!    state: an arrived `arrive` thread runs again, an arrived `sync` thread waits until its
//!    warp is released.
//!
//! Thread 0's bookkeeping has no loop for CTAs of up to 8 warps (and loops over set bits
//! beyond): lavapipe stops a thread's loops after 65,535 iterations in all, so a launch there
//! runs about 65,000 rounds before `loop_cut` reports the cut (each barrier a thread passes
//! takes a round or two).
//! Warps arriving in one round are taken in warp order, which is one of the orders an NVIDIA
//! GPU may take them in (three warps at `bar.sync 1, 64` release the first two, the third
//! waits for a fourth). The thread's registers live across rounds as ordinary variables.
//! The only barriers left are the scheduler's, in the loop's uniform body, so the SIMT pass
//! has nothing to rewrite. `bar.red` is a `sync` point whose warps also add their threads'
//! predicates (and participants) to the barrier's totals when they arrive; the threads it
//! releases read the totals of that completion.
//!
//! **Warp collectives** (`shfl`, `vote`, `match`, `redux`, `elect`, `activemask`,
//! `bar.warp.sync`) are points too, of the thread's warp alone ([`FnLower::collective_point`]):
//! the thread writes its value, key word (the collective's kind, the opcode and qualifiers, with
//! its predicate in bit 31) and membermask into its words of the collectives' scratch and
//! waits (state `COLLECTIVE`). After the round's workgroup barrier, while thread 0 keeps the
//! books, each waiting thread reads its warp's 32 key and membermask words: the collective
//! completes when every non-exited lane of its membermask waits with the same key and
//! membermask (§9.7.10.6 and the other collectives: each thread waits "until all non-exited
//! threads corresponding to membermask have executed [it] with the same qualifiers and same
//! membermask value", so two instructions of one kind meet, and lanes may get there in
//! different rounds); all those lanes decide alike in that round, read what the collective
//! needs (one lane's value, the participants' fold, the equal values) before anyone can write
//! the words again, and run in the next round, where they clear their key word. Participants
//! are the membermask's non-exited lanes (the warp's live lanes are a bit mask per warp);
//! `activemask`, which does not wait, completes at once over the lanes of its warp that got to
//! the same instruction in that round. Rounds in which a thread got to a collective or exited
//! count as progress (the word `fresh`), so a collective whose lanes never all arrive ends the
//! launch with `abi::FAULT_BARRIER_DEADLOCK` at a waiting thread's instruction one round later.
//! A warp's threads at a barrier and at a collective do not mix: the warp arrives at a barrier
//! once all its non-exited threads wait there. Native subgroup operations are not used here:
//! a warp's lanes run in different rounds, so no subgroup operation sees them together.

use crate::abi;
use crate::cfg::{NodeId, Terminator};
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{AtomicOp, BinaryOp, Block, CmpOp, Const, Expr, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};
use ptxcross_frontend::ast::Span;

/// The expected arrival count of the barrier forms that wait for every non-exited warp (no
/// thread count, or one naming the whole CTA): above any warp count (at most 32).
pub const ALL_WARPS: u32 = 64;

/// CTAs of at most this many warps go through the parked warps without a loop (each warp's
/// bookkeeping is about 40 statements).
const UNROLLED_WARPS: u32 = 8;

/// Barrier ids: the CTA's 16.
const NIDS: u32 = 16;

/// A thread's state between rounds.
const RUN: u32 = 0;
const PARKED: u32 = 1;
const WAITING: u32 = 2;
const EXITED: u32 = 3;
/// Exited in this round (becomes `EXITED` once its warp's live lanes are updated).
const EXITING: u32 = 4;
/// Waits at a warp collective ([`COLLECTIVE_NEW`] in the round it got there).
const COLLECTIVE: u32 = 5;
const COLLECTIVE_NEW: u32 = 6;
/// Waits for the phase of an `mbarrier` object to complete ([`FnLower::mbarrier_point`]).
const MBARRIER: u32 = 7;

/// Bit 31 of a lane's collective key word: its predicate (`vote`).
const PRED_BIT: u32 = 0x8000_0000;

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
    /// `bar.red`: the thread's predicate (0 or 1), counted when its warp arrives.
    pub pred: VarId,
    /// `bar.red`: the completed barrier's true predicates and participants, read when the
    /// thread is released.
    pub trues: VarId,
    pub parts: VarId,
}

/// One barrier instruction of a scheduler kernel: its code ends block `node`; the thread
/// resumes at `cont`.
#[derive(Clone, Debug)]
pub struct Point {
    pub node: NodeId,
    pub cont: NodeId,
    pub span: Span,
    pub kind: PointKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointKind {
    /// `bar`/`barrier` (`FnLower::park`).
    Barrier,
    /// A warp collective (see [`FnLower::collective_point`]).
    Collective,
    /// An `mbarrier` wait (see [`FnLower::mbarrier_point`]).
    Mbarrier,
}

/// The per-thread record of the `mbarrier` phase a thread waits for: the object's shared
/// word and the parity of the phase whose completion it waits for.
#[derive(Clone, Copy, Debug)]
pub struct MbarrierVars {
    pub word: VarId,
    pub parity: VarId,
}

/// What a completed warp collective reads from its warp's value words for each of its
/// threads, in the round's after-phase (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollRead {
    /// Nothing (votes, `elect`, `activemask`, `bar.warp.sync`: the masks are enough).
    Nothing,
    /// The value of lane `src` (`shfl`).
    Lane,
    /// The fold of the participants' values with `op`, `identity` standing for the others
    /// (`redux`).
    Fold(BinaryOp, u32),
    /// The participants whose value equals the thread's own (`match`).
    Equal,
}

/// The per-thread variables of a warp collective point.
#[derive(Clone, Copy, Debug)]
pub struct CollVars {
    /// The collective's key (its kind: opcode and qualifiers; `activemask`: its site).
    pub key: VarId,
    pub mask: VarId,
    /// `shfl`: the source lane.
    pub src: VarId,
    /// Index of its [`CollRead`] in [`Points::reads`].
    pub read: VarId,
    /// Results, set when the collective completes: the participating lanes, those of them
    /// whose predicate is true, and what [`CollRead`] read.
    pub active: VarId,
    pub ballot: VarId,
    pub result: VarId,
}

/// What a warp collective point gives its thread once released.
pub struct Collected {
    pub active: Operand,
    pub ballot: Operand,
    pub result: Operand,
}

#[derive(Clone, Debug, Default)]
pub struct Points {
    vars: Option<PointVars>,
    pub points: Vec<Point>,
    /// Some point is a `bar.red` (the scheduler then sums predicates).
    pub reduces: bool,
    coll: Option<CollVars>,
    /// The collectives' keys (a key is its index + 1) and reads.
    keys: Vec<String>,
    reads: Vec<CollRead>,
    /// First shared word of the collectives' scratch: per thread (padded to whole warps) its
    /// value, key word (key | predicate << 31; 0: not at a collective) and membermask.
    coll_base: Option<u32>,
    mbarrier: Option<MbarrierVars>,
    /// Shared word set by every `mbarrier` arrive-on of a round (a phase may have completed:
    /// the round made progress); thread 0 reads and clears it. Not zeroed at the start: a
    /// stale non-zero value only costs one more round.
    mbarrier_flag: Option<u32>,
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
                pred: new(Ty::U32, "sched.predicate"),
                trues: new(Ty::U32, "sched.trues"),
                parts: new(Ty::U32, "sched.participants"),
            }
        })
    }
}

impl Points {
    fn coll_vars(&mut self, vars: &mut Vec<VarInfo>) -> CollVars {
        *self.coll.get_or_insert_with(|| {
            let mut new = |name: &str| {
                vars.push(VarInfo { ty: Ty::U32, name: name.into() });
                VarId(vars.len() as u32 - 1)
            };
            CollVars {
                key: new("sched.collective"),
                mask: new("sched.membermask"),
                src: new("sched.source lane"),
                read: new("sched.read"),
                active: new("sched.participants mask"),
                ballot: new("sched.ballot"),
                result: new("sched.collected"),
            }
        })
    }
}

impl FnLower {
    /// A warp collective of a scheduler kernel (`shfl`, `vote`, `match`, `redux`, `elect`,
    /// `activemask`, `bar.warp.sync`; §9.7.10.6, §9.7.12.x: "will cause executing thread to
    /// wait until all non-exited threads corresponding to membermask have executed
    /// [the instruction] with the same qualifiers and same membermask value"). The thread
    /// publishes `value`, its predicate and `member` in its words of the collectives' scratch
    /// under the key `kind` (the opcode and qualifiers: two instructions of one kind meet, as
    /// the spec says) and parks; the round in which every non-exited lane of `member` waits
    /// with the same key and membermask completes it and each thread reads what `read` says
    /// (see [`build`]). With `per_site` (`activemask`, which does not wait) the key is the
    /// instruction's own and the collective completes in the round the thread gets there,
    /// over the lanes of its warp that got there in that round. Returns, valid from the
    /// thread's resumption: the participating lanes (membermask ∩ non-exited lanes; for
    /// `activemask` those lanes), those of them whose predicate is true, and what was read.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn collective_point(
        &mut self,
        inst: &ptxcross_frontend::ast::Instruction,
        read: CollRead,
        value: Operand,
        pred: Operand,
        member: Operand,
        src: Operand,
        per_site: bool,
    ) -> Collected {
        let mut kind = crate::fault_site::instruction_name(inst);
        if per_site {
            // This point's own key (each inlined copy of the instruction too).
            kind = format!("{kind}#{}", self.sched.points.len());
        }
        let key = match self.sched.keys.iter().position(|k| *k == kind) {
            Some(i) => i as u32 + 1,
            None => {
                self.sched.keys.push(kind);
                self.sched.keys.len() as u32
            }
        };
        let read_index = match self.sched.reads.iter().position(|r| *r == read) {
            Some(i) => i as u32,
            None => {
                self.sched.reads.push(read);
                self.sched.reads.len() as u32 - 1
            }
        };
        let threads: u32 = self.block.iter().product();
        let padded = threads.div_ceil(32) * 32;
        let base = match self.sched.coll_base {
            Some(b) => b,
            None => {
                let b = self.shared_bytes.div_ceil(4);
                self.shared_bytes = (b + 3 * padded) * 4;
                self.has_shared = true;
                self.sched.coll_base = Some(b);
                b
            }
        };
        let cv = self.sched.coll_vars(&mut self.vars);
        let t = self.linear_tid();
        let member = if per_site { u32c(0) } else { member };
        shared_store(self, base, t, value);
        let p = self.select(Ty::U32, pred, u32c(PRED_BIT | key), u32c(key));
        shared_store(self, base + padded, t, p);
        shared_store(self, base + 2 * padded, t, member);
        self.assign(cv.key, Expr::Use(u32c(key)));
        self.assign(cv.mask, Expr::Use(member));
        self.assign(cv.src, Expr::Use(src));
        self.assign(cv.read, Expr::Use(u32c(read_index)));
        self.end_at_point(inst, PointKind::Collective);
        // Resumed: the thread leaves the collective (its lanes have all read the words).
        let t = self.linear_tid();
        shared_store(self, base + padded, t, u32c(0));
        let copy = |fl: &mut FnLower, v: VarId, name: &str| {
            let c = fl.new_var(Ty::U32, name);
            fl.assign(c, Expr::Use(Operand::Var(v)));
            Operand::Var(c)
        };
        Collected {
            active: copy(self, cv.active, "warp participants"),
            ballot: copy(self, cv.ballot, "warp ballot"),
            result: copy(self, cv.result, "warp collected"),
        }
    }
}

impl FnLower {
    /// An `mbarrier` wait of a scheduler kernel (`inst::mbarrier`): the thread parks until
    /// the phase of parity `parity` of the object at shared word `word` has completed; each
    /// round, after the round's workgroup barrier, a waiting thread reads the word and runs
    /// again once its phase bit differs from `parity`. Every arrive-on sets the round's
    /// `mbarrier_flag` ([`FnLower::mbarrier_changed`]), so a round in which nothing arrived
    /// and nothing else moved ends the launch with `abi::FAULT_BARRIER_DEADLOCK` here. Every
    /// arrive that completed the phase came before that workgroup barrier, which orders
    /// shared and global memory: the wait's acquire pattern (§9.7.14.15.16) holds.
    pub(crate) fn mbarrier_point(&mut self, inst: &ptxcross_frontend::ast::Instruction, word: Operand, parity: Operand) {
        let mv = *self.sched.mbarrier.get_or_insert_with(|| {
            let mut new = |name: &str| {
                self.vars.push(VarInfo { ty: Ty::U32, name: name.into() });
                VarId(self.vars.len() as u32 - 1)
            };
            MbarrierVars { word: new("sched.mbarrier word"), parity: new("sched.mbarrier parity") }
        });
        self.assign(mv.word, Expr::Use(word));
        self.assign(mv.parity, Expr::Use(parity));
        self.end_at_point(inst, PointKind::Mbarrier);
    }

    /// Ends the block at a point of kind `kind` for `inst`, whose fault site it records (a
    /// point that never completes: `FAULT_BARRIER_DEADLOCK`); the thread resumes at the next
    /// block.
    pub(crate) fn end_at_point(&mut self, inst: &ptxcross_frontend::ast::Instruction, kind: PointKind) {
        let site = self.record_fault_site(inst);
        let pv = self.sched.vars(&mut self.vars);
        self.assign(pv.site, Expr::Use(u32c(site)));
        let node = self.cur;
        let cont = self.new_node();
        self.terminate(Terminator::Jump(cont), cont);
        self.sched.points.push(Point { node, cont, span: inst.span, kind });
    }

    /// Notes that an `mbarrier` object may have changed phase in this round (see
    /// [`FnLower::mbarrier_point`]).
    pub(crate) fn mbarrier_changed(&mut self) {
        let flag = match self.sched.mbarrier_flag {
            Some(b) => b,
            None => {
                let b = self.shared_bytes.div_ceil(4);
                self.shared_bytes = (b + 1) * 4;
                self.has_shared = true;
                self.sched.mbarrier_flag = Some(b);
                b
            }
        };
        self.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(flag), value: u32c(1) });
    }
}

/// The scheduler's workgroup words, from `base`, for `w` warps.
struct Scratch {
    base: u32,
    w: u32,
    /// With the `bar.red` words.
    red: bool,
}

impl Scratch {
    /// Per warp: its non-exited lanes (bit per lane).
    fn live(&self) -> u32 {
        self.base
    }
    /// Per warp: its lanes parked at a barrier, not yet counted (bit per lane).
    fn parked(&self) -> u32 {
        self.base + self.w
    }
    /// Per warp: the ids (bits 0-15) the parked threads wait at, bit 16 if one of them is a
    /// `sync` (the warp then waits for the completion), and the OR of their expected warps
    /// from bit 24 (one value, or the program is undefined: §9.7.13.1 "the same barrier name
    /// and thread count"). One atomic per parked thread for all of it.
    fn ids(&self) -> u32 {
        self.base + 2 * self.w
    }
    /// Per barrier id (`NIDS` words each): the warps arrived in the current instance (bit per
    /// warp).
    fn count(&self) -> u32 {
        self.base + 3 * self.w
    }
    /// Per barrier id: the arrival count that completes it (max over the parked threads').
    fn expect(&self) -> u32 {
        self.count() + NIDS
    }
    /// Per barrier id: bit per warp waiting for it to complete.
    fn waiters(&self) -> u32 {
        self.count() + 2 * NIDS
    }
    /// Bit per warp: arrived this round.
    fn arrived(&self) -> u32 {
        self.count() + 3 * NIDS
    }
    /// Bit per warp: released this round.
    fn released(&self) -> u32 {
        self.count() + 3 * NIDS + 1
    }
    /// The round's verdict.
    fn ctl(&self) -> u32 {
        self.count() + 3 * NIDS + 2
    }
    /// Bit per warp: has a non-exited thread.
    fn live_warps(&self) -> u32 {
        self.count() + 3 * NIDS + 3
    }
    /// Bit per barrier id: some warp arrived in its current instance.
    fn pending(&self) -> u32 {
        self.count() + 3 * NIDS + 4
    }
    /// Bit per warp: has threads parked at a barrier, not yet counted (this round; only for
    /// CTAs of more than `UNROLLED_WARPS` warps, the others look at every warp's `parked`).
    fn parked_warps(&self) -> u32 {
        self.count() + 3 * NIDS + 5
    }
    /// Live warps at the end of the previous round.
    fn previous_live(&self) -> u32 {
        self.count() + 3 * NIDS + 6
    }
    /// Non-zero: some thread got to a warp collective or exited in this round (a collective
    /// may complete: the round made progress).
    fn fresh(&self) -> u32 {
        self.count() + 3 * NIDS + 7
    }
    /// `bar.red`, per warp: true predicates of its parked threads (this round).
    fn red_true(&self) -> u32 {
        self.count() + 3 * NIDS + 8
    }
    /// `bar.red`, per barrier id: true predicates and participants of the arrived warps.
    fn red_sum(&self) -> u32 {
        self.red_true() + self.w
    }
    fn red_parts(&self) -> u32 {
        self.red_sum() + NIDS
    }
    /// `bar.red`, per barrier id: the totals of its last completion.
    fn result_trues(&self) -> u32 {
        self.red_parts() + NIDS
    }
    fn result_parts(&self) -> u32 {
        self.result_trues() + NIDS
    }
    fn words(&self) -> u32 {
        3 * self.w + 3 * NIDS + 8 + if self.red { self.w + 4 * NIDS } else { 0 }
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

/// The index of the only set bit of `single`.
fn bit_index(fl: &mut FnLower, single: Operand) -> Operand {
    let lz = fl.value(Ty::U32, Expr::Unary { op: UnaryOp::CountLeadingZeros, ty: Ty::U32, arg: single });
    fl.bin(BinaryOp::Sub, Ty::U32, u32c(31), lz)
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

/// `for each set bit of mask, lowest first { body(index, 1 << index) }` as CFG nodes from the
/// current block (as many iterations as bits: lavapipe stops a thread's loops after 65,535
/// iterations in all, so the rounds' bookkeeping loops only over warps and ids in use).
fn bit_loop(fl: &mut FnLower, mask: Operand, name: &str, body: impl FnOnce(&mut FnLower, Operand, Operand)) {
    let m = fl.new_var(Ty::U32, name);
    fl.assign(m, Expr::Use(mask));
    let head = fl.new_node();
    fl.terminate(Terminator::Jump(head), head);
    let more = fl.cmp(CmpOp::Ne, Ty::U32, Operand::Var(m), u32c(0));
    let (inside, exit) = (fl.new_node(), fl.new_node());
    fl.terminate(Terminator::Branch { cond: more, then_target: inside, else_target: exit }, inside);
    let neg = fl.bin(BinaryOp::Sub, Ty::U32, u32c(0), Operand::Var(m));
    let low = fl.bin(BinaryOp::And, Ty::U32, Operand::Var(m), neg);
    let rest = fl.bin(BinaryOp::Xor, Ty::U32, Operand::Var(m), low);
    fl.assign(m, Expr::Use(rest));
    let k = bit_index(fl, low);
    body(fl, k, low);
    fl.terminate(Terminator::Jump(head), exit);
}

/// Thread 0's bookkeeping of a round (see the module comment).
struct Round<'s> {
    s: &'s Scratch,
    live_warps: Operand,
    arrived: VarId,
    released: VarId,
    progress: VarId,
}

impl Round<'_> {
    /// Barrier `id` completes: it resets, and the warps waiting for it are released.
    fn complete(&self, fl: &mut FnLower, id: Operand) {
        let s = self.s;
        let waiters = shared_load(fl, s.waiters(), id);
        let r = fl.bin(BinaryOp::Or, Ty::U32, Operand::Var(self.released), waiters);
        fl.assign(self.released, Expr::Use(r));
        for base in [s.waiters(), s.count(), s.expect()] {
            shared_store(fl, base, id, u32c(0));
        }
        if s.red {
            for (from, to) in [(s.red_sum(), s.result_trues()), (s.red_parts(), s.result_parts())] {
                let v = shared_load(fl, from, id);
                shared_store(fl, to, id, v);
                shared_store(fl, from, id, u32c(0));
            }
        }
        let pending = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.pending()) });
        let b = bit(fl, id);
        let nb = fl.un(UnaryOp::Not, Ty::U32, b);
        let pending = fl.bin(BinaryOp::And, Ty::U32, pending, nb);
        fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.pending()), value: pending });
        fl.assign(self.progress, Expr::Use(Operand::Const(Const::Bool(true))));
    }

    /// Warp `k` (`low`: its bit), which has parked threads: its round's words are read and
    /// cleared; it arrives if every non-exited thread of it parks at one barrier id.
    fn warp(&self, fl: &mut FnLower, k: Operand, low: Operand) {
        let s = self.s;
        let lanes = shared_load(fl, s.live(), k);
        let parked_lanes = shared_load(fl, s.parked(), k);
        let info = shared_load(fl, s.ids(), k);
        let ids = fl.bin(BinaryOp::And, Ty::U32, info, u32c(0xffff));
        for base in [s.parked(), s.ids()] {
            shared_store(fl, base, k, u32c(0));
        }
        let trues = s.red.then(|| {
            let t = shared_load(fl, s.red_true(), k);
            shared_store(fl, s.red_true(), k, u32c(0));
            t
        });
        let all = fl.cmp(CmpOp::Eq, Ty::U32, parked_lanes, lanes);
        let below = fl.bin(BinaryOp::Sub, Ty::U32, ids, u32c(1));
        let rest = fl.bin(BinaryOp::And, Ty::U32, ids, below);
        let at_most_one = fl.cmp(CmpOp::Eq, Ty::U32, rest, u32c(0));
        let any = fl.cmp(CmpOp::Ne, Ty::U32, ids, u32c(0));
        let a = fl.bin(BinaryOp::And, Ty::Bool, all, at_most_one);
        let arrives = fl.bin(BinaryOp::And, Ty::Bool, a, any);
        let _ = when(fl, arrives, |fl| {
            // The warp arrives at barrier `id` (its only bit).
            let id = bit_index(fl, ids);
            let r = fl.bin(BinaryOp::Or, Ty::U32, Operand::Var(self.arrived), low);
            fl.assign(self.arrived, Expr::Use(r));
            fl.assign(self.progress, Expr::Use(Operand::Const(Const::Bool(true))));
            let sync = fl.bin(BinaryOp::And, Ty::U32, info, u32c(1 << 16));
            let sync = fl.cmp(CmpOp::Ne, Ty::U32, sync, u32c(0));
            let syncing = fl.select(Ty::U32, sync, low, u32c(0));
            let waiters = shared_load(fl, s.waiters(), id);
            let waiters = fl.bin(BinaryOp::Or, Ty::U32, waiters, syncing);
            shared_store(fl, s.waiters(), id, waiters);
            let arrivals = shared_load(fl, s.count(), id);
            let arrivals = fl.bin(BinaryOp::Or, Ty::U32, arrivals, low);
            shared_store(fl, s.count(), id, arrivals);
            let count = fl.value(Ty::U32, Expr::Unary { op: UnaryOp::Popcount, ty: Ty::U32, arg: arrivals });
            if let Some(trues) = trues {
                // `bar.red`: the warp's participants (its non-exited threads) and true predicates.
                let parked = fl.value(Ty::U32, Expr::Unary { op: UnaryOp::Popcount, ty: Ty::U32, arg: parked_lanes });
                for (base, add) in [(s.red_sum(), trues), (s.red_parts(), parked)] {
                    let v = shared_load(fl, base, id);
                    let v = fl.bin(BinaryOp::Add, Ty::U32, v, add);
                    shared_store(fl, base, id, v);
                }
            }
            let pending = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.pending()) });
            let b = bit(fl, id);
            let pending = fl.bin(BinaryOp::Or, Ty::U32, pending, b);
            fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.pending()), value: pending });
            let warp_expect = fl.bin(BinaryOp::ShrU, Ty::U32, info, u32c(24));
            let expect = shared_load(fl, s.expect(), id);
            let expect = fl.bin(BinaryOp::MaxU, Ty::U32, expect, warp_expect);
            shared_store(fl, s.expect(), id, expect);
            let full = fl.cmp(CmpOp::GeU, Ty::U32, expect, u32c(ALL_WARPS));
            let enough = fl.cmp(CmpOp::GeU, Ty::U32, count, expect);
            let every = self.every_live_warp(fl, arrivals);
            let done = fl.select(Ty::Bool, full, every, enough);
            let _ = when(fl, done, |fl| self.complete(fl, id));
        });
    }

    /// Whether every warp with a non-exited thread is in `arrivals` (what completes the
    /// forms that wait for the whole CTA: a warp that arrived (`bar.arrive` with the CTA's
    /// count) and exited since still counts, and the others must all be there).
    fn every_live_warp(&self, fl: &mut FnLower, arrivals: Operand) -> Operand {
        let missing = fl.un(UnaryOp::Not, Ty::U32, arrivals);
        let missing = fl.bin(BinaryOp::And, Ty::U32, self.live_warps, missing);
        fl.cmp(CmpOp::Eq, Ty::U32, missing, u32c(0))
    }

    /// Pending barrier `id`: a full-CTA one whose arrivals reached the warps left (some
    /// exited since) completes.
    fn after_exits(&self, fl: &mut FnLower, id: Operand) {
        let s = self.s;
        let arrivals = shared_load(fl, s.count(), id);
        let expect = shared_load(fl, s.expect(), id);
        let full = fl.cmp(CmpOp::GeU, Ty::U32, expect, u32c(ALL_WARPS));
        let enough = self.every_live_warp(fl, arrivals);
        let ready = fl.bin(BinaryOp::And, Ty::Bool, full, enough);
        let _ = when(fl, ready, |fl| self.complete(fl, id));
    }
}

/// After the round's workgroup barrier, a thread waiting at a warp collective (no thread
/// writes the scratch words until the next round): the collective completes when every
/// non-exited lane of its membermask waits with the same key and membermask (all those lanes
/// decide alike, in the same round); then the thread takes its results (see
/// [`FnLower::collective_point`]) and runs again. Reading here, not once resumed, keeps a
/// lane that runs on to its next collective from overwriting its value word while another
/// reads it.
#[allow(clippy::too_many_arguments)]
fn collective_check(fl: &mut FnLower, s: &Scratch, base: u32, padded: u32, cv: CollVars, reads: &[CollRead], st: VarId, warp: Operand) {
    let tid = fl.linear_tid();
    let wbase = fl.bin(BinaryOp::And, Ty::U32, tid, u32c(!31));
    let live = shared_load(fl, s.live(), warp);
    let need = fl.bin(BinaryOp::And, Ty::U32, Operand::Var(cv.mask), live);
    let mut same = u32c(0);
    let mut preds = u32c(0);
    for k in 0..32u32 {
        let kidx = fl.bin(BinaryOp::Add, Ty::U32, wbase, u32c(base + padded + k));
        let kw = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: kidx });
        let midx = fl.bin(BinaryOp::Add, Ty::U32, wbase, u32c(base + 2 * padded + k));
        let mw = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: midx });
        let kk = fl.bin(BinaryOp::And, Ty::U32, kw, u32c(!PRED_BIT));
        let e1 = fl.cmp(CmpOp::Eq, Ty::U32, kk, Operand::Var(cv.key));
        let e2 = fl.cmp(CmpOp::Eq, Ty::U32, mw, Operand::Var(cv.mask));
        let e = fl.bin(BinaryOp::And, Ty::Bool, e1, e2);
        let b = fl.select(Ty::U32, e, u32c(1 << k), u32c(0));
        same = fl.bin(BinaryOp::Or, Ty::U32, same, b);
        let pb = fl.bin(BinaryOp::ShrU, Ty::U32, kw, u32c(31 - k));
        let pb = fl.bin(BinaryOp::And, Ty::U32, pb, u32c(1 << k));
        preds = fl.bin(BinaryOp::Or, Ty::U32, preds, pb);
    }
    // Lanes past the CTA (a partial last warp) never count.
    let same = fl.bin(BinaryOp::And, Ty::U32, same, live);
    let not_same = fl.un(UnaryOp::Not, Ty::U32, same);
    let missing = fl.bin(BinaryOp::And, Ty::U32, need, not_same);
    let complete = fl.cmp(CmpOp::Eq, Ty::U32, missing, u32c(0));
    let _ = when(fl, complete, |fl| {
        // `activemask` (membermask 0 here): the lanes that got there with it.
        let own = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(cv.mask), u32c(0));
        let active = fl.select(Ty::U32, own, same, need);
        fl.assign(cv.active, Expr::Use(active));
        let ballot = fl.bin(BinaryOp::And, Ty::U32, preds, active);
        fl.assign(cv.ballot, Expr::Use(ballot));
        for (i, read) in reads.iter().enumerate() {
            let value = |fl: &mut FnLower, lane: Operand| {
                let i = fl.bin(BinaryOp::Add, Ty::U32, wbase, lane);
                shared_load(fl, base, i)
            };
            let this = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(cv.read), u32c(i as u32));
            let _ = when(fl, this, |fl| match *read {
                CollRead::Nothing => {}
                CollRead::Lane => {
                    let src = fl.bin(BinaryOp::And, Ty::U32, Operand::Var(cv.src), u32c(31));
                    let v = value(fl, src);
                    fl.assign(cv.result, Expr::Use(v));
                }
                CollRead::Fold(op, identity) => {
                    let mut acc = u32c(identity);
                    for k in 0..32 {
                        let v = value(fl, u32c(k));
                        let on = has_bit(fl, active, u32c(k));
                        let v = fl.select(Ty::U32, on, v, u32c(identity));
                        acc = fl.bin(op, Ty::U32, acc, v);
                    }
                    fl.assign(cv.result, Expr::Use(acc));
                }
                CollRead::Equal => {
                    let mine = shared_load(fl, base, tid);
                    let mut eq = u32c(0);
                    for k in 0..32 {
                        let v = value(fl, u32c(k));
                        let e = fl.cmp(CmpOp::Eq, Ty::U32, v, mine);
                        let b = fl.select(Ty::U32, e, u32c(1 << k), u32c(0));
                        eq = fl.bin(BinaryOp::Or, Ty::U32, eq, b);
                    }
                    let eq = fl.bin(BinaryOp::And, Ty::U32, eq, active);
                    fl.assign(cv.result, Expr::Use(eq));
                }
            });
        }
        fl.assign(st, Expr::Use(u32c(RUN)));
    });
}

/// Turns the kernel lowered in scheduler mode into the scheduler loop (see the module
/// comment). Called once the whole body (inlined and stack-called functions included) is
/// lowered, before the CFG is taken.
pub(crate) fn build(fl: &mut FnLower) -> LResult<()> {
    // Collectives are scheduler points here (`collective_point`); nothing else may have
    // emitted a workgroup barrier.
    if let Some(&(_, span)) = fl.barriers.first() {
        return Err(unsupported("a workgroup barrier in a kernel with the CTA barrier scheduler", span));
    }
    if let Some(p) = fl.sched.points.first() {
        if fl.used_native_warps {
            return Err(unsupported("native warp collectives in a kernel with the CTA barrier scheduler", p.span));
        }
    }
    // The body's last block ends the thread; `entry` is the scheduler's first block.
    let entry = fl.new_node();
    fl.terminate(Terminator::Return, entry);
    let threads: u32 = fl.block.iter().product();
    let s = Scratch { base: fl.shared_bytes.div_ceil(4), w: threads.div_ceil(32), red: fl.sched.reduces };
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
            fl.blocks[b].stmts.push(Stmt::Assign { dst: st, expr: Expr::Use(u32c(EXITING)) });
            fl.blocks[b].term = Terminator::Jump(publish);
        }
    }
    let points = fl.sched.points.clone();
    for (i, p) in points.iter().enumerate() {
        let block = &mut fl.blocks[p.node];
        block.stmts.push(Stmt::Assign { dst: resume, expr: Expr::Use(u32c(i as u32 + 1)) });
        let state = match p.kind {
            PointKind::Barrier => PARKED,
            PointKind::Collective => COLLECTIVE_NEW,
            PointKind::Mbarrier => MBARRIER,
        };
        block.stmts.push(Stmt::Assign { dst: st, expr: Expr::Use(u32c(state)) });
        block.term = Terminator::Jump(publish);
    }

    // Entry: every thread runnable from the kernel's start.
    fl.assign(st, Expr::Use(u32c(RUN)));
    fl.assign(resume, Expr::Use(u32c(0)));
    fl.assign(pv.id, Expr::Use(u32c(0)));
    fl.assign(pv.expect, Expr::Use(u32c(0)));
    fl.assign(pv.arrive, Expr::Use(Operand::Const(Const::Bool(false))));
    fl.assign(pv.site, Expr::Use(u32c(0)));
    for v in [pv.pred, pv.trues, pv.parts] {
        fl.assign(v, Expr::Use(u32c(0)));
    }
    let mbarrier = fl.sched.mbarrier;
    if let Some(mv) = mbarrier {
        fl.assign(mv.word, Expr::Use(u32c(0)));
        fl.assign(mv.parity, Expr::Use(u32c(0)));
    }
    let tid = fl.linear_tid();
    let w = fl.bin(BinaryOp::ShrU, Ty::U32, tid, u32c(5));
    let warp = fl.new_var(Ty::U32, "sched.warp");
    fl.assign(warp, Expr::Use(w));
    let first = fl.cmp(CmpOp::Eq, Ty::U32, tid, u32c(0));
    let thread_zero = fl.new_var(Ty::Bool, "sched.thread zero");
    fl.assign(thread_zero, Expr::Use(first));
    let warp = Operand::Var(warp);
    let warp_bit = bit(fl, warp);
    let warp_bit_var = fl.new_var(Ty::U32, "sched.warp bit");
    fl.assign(warp_bit_var, Expr::Use(warp_bit));
    let warp_bit = Operand::Var(warp_bit_var);
    let lane = fl.bin(BinaryOp::And, Ty::U32, tid, u32c(31));
    let lane_bit = bit(fl, lane);
    let lane_bit_var = fl.new_var(Ty::U32, "sched.lane bit");
    fl.assign(lane_bit_var, Expr::Use(lane_bit));
    let lane_bit = Operand::Var(lane_bit_var);
    let coll_base = fl.sched.coll_base;
    let padded = s.w * 32;
    if let Some(base) = coll_base {
        // Not at a collective (lavapipe does not zero workgroup memory).
        shared_store(fl, base + padded, tid, u32c(0));
    }
    // Live lanes are kept from here on (updated at exits).
    shared_atomic(fl, AtomicOp::Or, s.live(), warp, lane_bit);
    shared_atomic(fl, AtomicOp::Or, s.live_warps(), u32c(0), warp_bit);
    fl.terminate(Terminator::Jump(head), head);

    // Round head: runnable threads resume where they parked.
    let runs = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(RUN));
    let dispatch = fl.new_node();
    fl.terminate(Terminator::Branch { cond: runs, then_target: dispatch, else_target: publish }, dispatch);
    let mut cases = vec![(0, 0)];
    cases.extend(points.iter().enumerate().map(|(i, p)| (i as u32 + 1, p.cont)));
    fl.terminate(Terminator::Switch { selector: Operand::Var(resume), cases, default: 0 }, publish);

    // Publication, then the round's workgroup barrier.
    let exiting = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(EXITING));
    when(fl, exiting, |fl| {
        let index = fl.bin(BinaryOp::Add, Ty::U32, u32c(s.live()), warp);
        let not_me = fl.un(UnaryOp::Not, Ty::U32, lane_bit);
        let old = fl.value(Ty::U32, Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::And, index, value: not_me, comparand: None });
        let last = fl.cmp(CmpOp::Eq, Ty::U32, old, lane_bit);
        let others = fl.un(UnaryOp::Not, Ty::U32, warp_bit);
        let _ = when(fl, last, |fl| shared_atomic(fl, AtomicOp::And, s.live_warps(), u32c(0), others));
        if coll_base.is_some() {
            // The exit may complete a collective of the lanes left.
            shared_atomic(fl, AtomicOp::Or, s.fresh(), u32c(0), u32c(1));
        }
        fl.assign(st, Expr::Use(u32c(EXITED)));
    })?;
    if coll_base.is_some() {
        let new = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(COLLECTIVE_NEW));
        when(fl, new, |fl| {
            shared_atomic(fl, AtomicOp::Or, s.fresh(), u32c(0), u32c(1));
            fl.assign(st, Expr::Use(u32c(COLLECTIVE)));
        })?;
    }
    let parked = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(PARKED));
    when(fl, parked, |fl| {
        shared_atomic(fl, AtomicOp::Or, s.parked(), warp, lane_bit);
        if s.w > UNROLLED_WARPS {
            shared_atomic(fl, AtomicOp::Or, s.parked_warps(), u32c(0), warp_bit);
        }
        let b = bit(fl, Operand::Var(pv.id));
        let sync = fl.select(Ty::U32, Operand::Var(pv.arrive), u32c(0), u32c(1 << 16));
        let b = fl.bin(BinaryOp::Or, Ty::U32, b, sync);
        let e = fl.bin(BinaryOp::Shl, Ty::U32, Operand::Var(pv.expect), u32c(24));
        let b = fl.bin(BinaryOp::Or, Ty::U32, b, e);
        shared_atomic(fl, AtomicOp::Or, s.ids(), warp, b);
        if s.red {
            let t = fl.cmp(CmpOp::Ne, Ty::U32, Operand::Var(pv.pred), u32c(0));
            let _ = when(fl, t, |fl| shared_atomic(fl, AtomicOp::Add, s.red_true(), warp, u32c(1)));
        }
    })?;
    fl.push(Stmt::Barrier);
    let barrier_node = fl.cur;
    let (book, after) = (fl.new_node(), fl.new_node());
    fl.terminate(Terminator::Branch { cond: Operand::Var(thread_zero), then_target: book, else_target: after }, book);

    // Thread 0's bookkeeping.
    let arrived = fl.new_var(Ty::U32, "sched.arrived");
    let released = fl.new_var(Ty::U32, "sched.released");
    let progress = fl.new_var(Ty::Bool, "sched.progress");
    fl.assign(arrived, Expr::Use(u32c(0)));
    fl.assign(released, Expr::Use(u32c(0)));
    fl.assign(progress, Expr::Use(Operand::Const(Const::Bool(false))));
    let live_warps = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.live_warps()) });
    let nlive = fl.value(Ty::U32, Expr::Unary { op: UnaryOp::Popcount, ty: Ty::U32, arg: live_warps });
    let round = Round { s: &s, live_warps, arrived, released, progress };
    if s.w <= UNROLLED_WARPS {
        // Straight-line: lavapipe's loop limiter counts every iteration of thread 0's loops.
        for k in 0..s.w {
            let lanes = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.parked() + k) });
            let parked = fl.cmp(CmpOp::Ne, Ty::U32, lanes, u32c(0));
            when(fl, parked, |fl| round.warp(fl, u32c(k), u32c(1 << k)))?;
        }
    } else {
        let parked_warps = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.parked_warps()) });
        bit_loop(fl, parked_warps, "sched.parked warps", |fl, k, low| round.warp(fl, k, low));
        fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.parked_warps()), value: u32c(0) });
    }
    // Only when warps exited since the last round: full-CTA barriers they complete.
    let previous = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.previous_live()) });
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.previous_live()), value: nlive });
    let fewer = fl.cmp(CmpOp::LtU, Ty::U32, nlive, previous);
    let (exits, checked) = (fl.new_node(), fl.new_node());
    fl.terminate(Terminator::Branch { cond: fewer, then_target: exits, else_target: checked }, exits);
    let pending = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.pending()) });
    bit_loop(fl, pending, "sched.barriers left", |fl, id, _| round.after_exits(fl, id));
    fl.terminate(Terminator::Jump(checked), checked);
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.arrived()), value: Operand::Var(arrived) });
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.released()), value: Operand::Var(released) });
    if coll_base.is_some() {
        // A thread that got to a collective or exited may have completed one (the threads
        // check that themselves below): the round made progress.
        let fresh = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(s.fresh()) });
        fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.fresh()), value: u32c(0) });
        let f = fl.cmp(CmpOp::Ne, Ty::U32, fresh, u32c(0));
        let p = fl.bin(BinaryOp::Or, Ty::Bool, Operand::Var(progress), f);
        fl.assign(progress, Expr::Use(p));
    }
    if let Some(flag) = fl.sched.mbarrier_flag {
        // An `mbarrier` arrive-on in this round: its waiters check their phase below.
        let changed = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: u32c(flag) });
        fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(flag), value: u32c(0) });
        let f = fl.cmp(CmpOp::Ne, Ty::U32, changed, u32c(0));
        let p = fl.bin(BinaryOp::Or, Ty::Bool, Operand::Var(progress), f);
        fl.assign(progress, Expr::Use(p));
    }
    let go_on = fl.select(Ty::U32, Operand::Var(progress), u32c(CONTINUE), u32c(STUCK));
    let none_left = fl.cmp(CmpOp::Eq, Ty::U32, nlive, u32c(0));
    let verdict = fl.select(Ty::U32, none_left, u32c(DONE), go_on);
    fl.push(Stmt::StoreWord { memory: Memory::Shared, index: u32c(s.ctl()), value: verdict });
    fl.terminate(Terminator::Jump(after), after);

    if let Some(base) = coll_base {
        let reads = fl.sched.reads.clone();
        let cv = fl.sched.coll_vars(&mut fl.vars);
        let waits = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(COLLECTIVE));
        when(fl, waits, |fl| collective_check(fl, &s, base, padded, cv, &reads, st, warp))?;
    }
    if let Some(mv) = mbarrier {
        // No thread writes an `mbarrier` object until the next round.
        let waits = fl.cmp(CmpOp::Eq, Ty::U32, Operand::Var(st), u32c(MBARRIER));
        when(fl, waits, |fl| {
            let w = fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: Operand::Var(mv.word) });
            let phase = fl.bin(BinaryOp::ShrU, Ty::U32, w, u32c(31));
            let done = fl.cmp(CmpOp::Ne, Ty::U32, phase, Operand::Var(mv.parity));
            let next = fl.select(Ty::U32, done, u32c(RUN), u32c(MBARRIER));
            fl.assign(st, Expr::Use(next));
        })?;
    }
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
    if s.red {
        // Released now: a `bar.red` thread takes its barrier's totals.
        let runs = fl.cmp(CmpOp::Eq, Ty::U32, s2, u32c(RUN));
        let was = fl.cmp(CmpOp::Ne, Ty::U32, Operand::Var(st), u32c(RUN));
        let now = fl.bin(BinaryOp::And, Ty::Bool, runs, was);
        when(fl, now, |fl| {
            let t = shared_load(fl, s.result_trues(), Operand::Var(pv.id));
            fl.assign(pv.trues, Expr::Use(t));
            let p = shared_load(fl, s.result_parts(), Operand::Var(pv.id));
            fl.assign(pv.parts, Expr::Use(p));
        })?;
    }
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
