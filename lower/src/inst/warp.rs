//! Warp collectives (spec §9.7.8.x `shfl.sync`, `vote.sync`, `activemask`, `match.sync`,
//! `redux.sync`, `elect.sync`, `bar.warp.sync`), emulated through shared memory and CTA
//! barriers so that they give NVIDIA's results on any subgroup size (lavapipe 8, browsers 4,
//! AMD 64): a logical warp is 32 consecutive linear thread ids.
//!
//! Every thread owns two scratch words (appended to the CTA's shared memory, padded to whole
//! warps): a value and a flag (bit 0: active, bit 1: predicate; `vote.ballot` stores
//! `pred << lane` instead, all it reads back). A collective is
//! `store value, flag; barrier; read the warp's words; barrier; clear own flag`. A thread that
//! does not logically execute the collective (inactive: another branch, returned) never sets
//! its flag, so it reads as inactive — the barriers themselves are reached by every thread: the
//! SIMT pass (`simt::uniformize`) predicates the thread's own statements around them. Flags
//! start cleared (a prologue zeroes them: lavapipe does not zero workgroup memory) and every
//! thread that sets its flag clears it in the same collective.
//!
//! In a kernel with the CTA barrier scheduler (`scheduler`), whose threads run apart, every
//! collective is instead a point of the scheduler (`FnLower::collective_point`): the same
//! rules, from the words its lanes publish there.
//!
//! **Lanes at another instruction** ([`FnLower::meet_check`]): on sm_70+ lanes of membermask
//! that run a *different* collective of the same kind and mask meet this one (§9.7.8.6); here
//! they read as not taking part. Kernels where that may happen run in the CTA barrier
//! scheduler, where they meet (`kernel::lower_body`); where they cannot, both paths remember
//! such lanes per warp and record `abi::FAULT_WARP_DIVERGED` when one of them executes a
//! collective later, so that program faults instead of giving a wrong result (lanes that exit
//! instead never fault).
//!
//! `membermask` selects lanes as the spec says; a lane outside it reads as not participating.
//! Results the spec leaves undefined (a `shfl` source lane that is inactive) read whatever that
//! lane's scratch word holds.
//!
//! **Native variant** (`LowerOptions::native_warps`): the same rules from two subgroup
//! operations, `Expr::WarpBallot` and `Expr::WarpShuffle`, valid where the subgroups hold
//! whole warps (`warp_layout` checks that at kernel start; the host falls back to this file's
//! emulation elsewhere). They are reached by every thread like the barriers above (the SIMT
//! pass treats them as barriers), and the SIMT pass ANDs a ballot's predicate with the
//! thread's mask, so `ballot(true)` is the set of lanes that execute the collective — what
//! the emulation's flag bit 0 says. Per reading thread, exactly as the emulation:
//! participants = that ballot & the reader's `membermask`; `vote`'s ballot = ballot(pred) &
//! membermask; `redux` and `match` read every lane's value with 32 shuffles and combine the
//! participants' (a butterfly reduction would be 5 shuffles, but lanes that do not execute the
//! collective do not run the steps between shuffles, so their partial results would be stale);
//! `shfl` is one shuffle from the source lane the spec's Semantics compute. A `shfl` source
//! lane that is inactive ("unpredictable" in §9.7.10.6 `shfl.sync` Semantics) gives that
//! lane's current register value here, the emulation an older published one.

use super::{operands, Mods};
use crate::function::{invalid, unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, Block, CmpOp, ConvertOp, Expr, Memory, Operand, Stmt, Ty, UnaryOp};
use crate::scheduler::CollRead;
use ptxcross_frontend::ast::{self, Instruction, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// Words per thread of each half of the warp matrix instructions' exchange scratch
/// ([`FnLower::warp_exchange`]): the most any of them offers, `mma.m16n8k16`'s four A and two
/// B fragment registers.
pub(super) const MATRIX_WORDS: u32 = 6;

/// Where the last emulated warp matrix exchange left its trailing barrier
/// ([`FnLower::warp_exchange`]): the CFG block and statement index (in the block being
/// lowered), [`FnLower::entry_prepended`] then (prologues move the entry block's statements;
/// the instruction's fault site, `fault_site`, may go in front of its code later, moving the
/// barrier one further), and the half of the scratch it used.
#[derive(Clone, Copy)]
pub(crate) struct ExchangeMark {
    block: crate::cfg::NodeId,
    index: usize,
    prepended: usize,
    half: u32,
}

/// The words one collective reads: for lane k of the thread's warp, `value[k]` and `flag[k]`
/// (bit 0 set: the lane executes this collective; bit 1: its predicate). A lane takes part
/// when its bit 0 is set and bit k of `member` (the reader's `membermask`) is set: readers
/// apply `member` once to a 32-lane mask ([`FnLower::lanes_with`]) rather than to every flag.
/// Without reads, `values[0]` is the linear id of the warp's lane 0.
struct WarpView {
    lane: Operand,
    values: Vec<Operand>,
    flags: Vec<Operand>,
    member: Operand,
    /// The lanes of the warp that execute this collective (the meeting check's word).
    exec: Operand,
}

/// Which of the warp's scratch words a collective reads.
#[derive(Clone, Copy, PartialEq)]
enum WarpRead {
    /// None (`shfl` loads the one word it needs itself).
    Nothing,
    /// The flags only (`vote`, `activemask`, `elect`).
    Flags,
    /// The flags only, each thread's flag being `pred << lane` instead of the usual bits
    /// (`vote.ballot`, which needs no more: [`FnLower::ballot_bits`]).
    BallotBits,
    /// Values and flags (`redux`, `match`).
    All,
}

impl FnLower {
    /// Native: the ballot of `pred` over the thread's warp (see [`ir::Expr::WarpBallot`]); the
    /// SIMT pass restricts it to the threads that execute it.
    fn native_ballot(&mut self, pred: Operand, span: ast::Span) -> Operand {
        self.used_native_warps = true;
        let v = self.new_var(Ty::U32, "warp ballot");
        self.assign(v, Expr::WarpBallot { pred });
        self.barriers.push((self.cur, span));
        Operand::Var(v)
    }

    /// Native: `value` of lane `lane` (0..32) of the thread's warp.
    fn native_shuffle(&mut self, value: Operand, lane: Operand, span: ast::Span) -> Operand {
        self.used_native_warps = true;
        let v = self.new_var(Ty::U32, "warp shuffle");
        self.assign(v, Expr::WarpShuffle { value, lane });
        self.barriers.push((self.cur, span));
        Operand::Var(v)
    }

    /// Native: the lanes that execute this collective and are in `member` (the emulation's
    /// flag bit 0).
    fn native_participants(&mut self, member: Operand, span: ast::Span) -> Operand {
        let all = self.native_ballot(Operand::Const(crate::ir::Const::Bool(true)), span);
        self.bin(BinaryOp::And, Ty::U32, all, member)
    }

    /// Native: every lane's `value` (32 shuffles).
    fn native_values(&mut self, value: Operand, span: ast::Span) -> Vec<Operand> {
        (0..32).map(|k| self.native_shuffle(value, FnLower::u32c(k), span)).collect()
    }

    /// The data exchange of the `.aligned` warp matrix instructions (`inst::matrix`): every
    /// thread offers `offered` words; for each `(w, lane)` of `reads` the thread gets word `w`
    /// offered by lane `lane` (0..32) of its warp. No membermask and no meeting check: these
    /// instructions are undefined unless every thread of the warp executes them
    /// (§9.7.15.4.14 `mma`, §9.7.15.4.15 `ldmatrix`: "all threads in the warp must execute
    /// the same … instruction"), so a lane that does not gives whatever its words hold.
    /// Native: one shuffle per read. Emulated: the words go through a scratch of two halves
    /// of [`MATRIX_WORDS`] words per thread (word w of thread t in half h at
    /// `base + (h·MATRIX_WORDS + w)·padded + t`): store, CTA barrier, loads, CTA barrier (so
    /// that the next exchange's stores wait for these loads) — two barriers per instruction
    /// whatever the number of words. An exchange that follows another in the same block
    /// (straight-line code: Triton's 64 `mma` in a row) uses the other half and drops the
    /// other's trailing barrier: its stores cannot touch the words the other reads, and the
    /// exchange after it, which reuses the other's half, stores only after this one's first
    /// barrier, which every thread reaches after its loads of the other. One barrier per
    /// instruction there: half the CTA synchronisations, and half the coroutine suspensions
    /// lavapipe's LLVM builds a pipeline with (Triton's matmul: 86 barriers left, for 80 exchanges).
    ///
    /// The scratch is shared memory, or, where the device's shared memory cannot hold it
    /// besides the kernel's own (`exchange_in_scratch`: Triton's matmul fills lavapipe's
    /// 32 KiB by itself), the block's first [`FnLower::scratch_exchange_words`] words of the
    /// launch's scratch buffer (`local_scratch` adds the block's offset; no other block
    /// touches them). Shared memory is preferred where it fits: on GPUs it is much faster than
    /// device memory, and its barriers need not order storage memory. In the scratch buffer
    /// the barriers stay `Stmt::Barrier`, which orders storage buffers
    /// (`barriers::narrow_barriers` counts these accesses).
    pub(super) fn warp_exchange(&mut self, offered: &[Operand], reads: &[(usize, Operand)], span: ast::Span) -> Vec<Operand> {
        assert!(offered.len() <= MATRIX_WORDS as usize, "a warp matrix exchange offers at most {MATRIX_WORDS} words");
        if self.native_warps {
            return reads.iter().map(|&(w, lane)| self.native_shuffle(offered[w], lane, span)).collect();
        }
        let threads: u32 = self.block.iter().product();
        let padded = threads.div_ceil(32) * 32;
        let memory = if self.exchange_in_scratch { Memory::Scratch } else { Memory::Shared };
        let base = match self.matrix_scratch {
            Some(b) => b,
            None if self.exchange_in_scratch => {
                self.matrix_scratch = Some(0);
                0
            }
            None => {
                let b = self.shared_bytes.div_ceil(4);
                self.shared_bytes = (b + 2 * MATRIX_WORDS * padded) * 4;
                self.has_shared = true;
                self.matrix_scratch = Some(b);
                b
            }
        };
        let half = self.drop_last_exchange_barrier();
        let base = base + half * MATRIX_WORDS * padded;
        let t = self.linear_tid();
        for (w, &value) in offered.iter().enumerate() {
            let index = self.bin(BinaryOp::Add, Ty::U32, t, FnLower::u32c(base + w as u32 * padded));
            self.push(Stmt::StoreWord { memory, index, value });
        }
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, span));
        let wbase = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(!31));
        let got = reads
            .iter()
            .map(|&(w, lane)| {
                let i = self.bin(BinaryOp::Add, Ty::U32, wbase, lane);
                let i = self.bin(BinaryOp::Add, Ty::U32, i, FnLower::u32c(base + w as u32 * padded));
                self.value(Ty::U32, Expr::LoadWord { memory, index: i })
            })
            .collect();
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, span));
        // Only at the block's top level (not inside an instruction's own `if` or function).
        self.last_exchange = (self.emit_stack.len() == 1).then(|| ExchangeMark {
            block: self.cur,
            index: self.emit_stack[0].len() - 1,
            prepended: self.entry_prepended,
            half,
        });
        got
    }

    /// The half of the exchange scratch the next exchange uses: the other half when the last
    /// exchange is in the same block, whose trailing barrier it then removes (see
    /// [`FnLower::warp_exchange`]); else half 0.
    fn drop_last_exchange_barrier(&mut self) -> u32 {
        let Some(last) = self.last_exchange.take() else { return 0 };
        if last.block != self.cur || self.emit_stack.len() != 1 {
            return 0;
        }
        let moved = if self.cur == 0 { self.entry_prepended - last.prepended } else { 0 };
        // Statements went in front of the barrier only (a prologue, a fault site), so it is
        // the first barrier from its recorded place on: what moved into that stretch are the
        // exchange's own loads. It becomes a dead copy rather than going away, so that no
        // statement index recorded since (the fault site's of this instruction) moves.
        let dead = self.new_var(Ty::U32, "dropped exchange barrier");
        let stmts = &mut self.emit_stack[0];
        if let Some(b) = stmts.iter_mut().skip(last.index + moved).find(|s| matches!(s, Stmt::Barrier)) {
            *b = Stmt::Assign { dst: dead, expr: Expr::Use(FnLower::u32c(0)) };
        }
        1 - last.half
    }

    /// Words per block of the scratch buffer that the warp matrix exchange uses (0 where it
    /// is in shared memory or absent): two halves of [`MATRIX_WORDS`] per thread of the block
    /// padded to whole warps.
    pub fn scratch_exchange_words(&self) -> u32 {
        if !self.exchange_in_scratch || self.matrix_scratch.is_none() {
            return 0;
        }
        let threads: u32 = self.block.iter().product();
        2 * MATRIX_WORDS * threads.div_ceil(32) * 32
    }

    /// Whether the warp matrix exchange is in shared memory (then a device with less shared
    /// memory than the kernel needs may run it with the exchange in the scratch buffer).
    pub fn shared_exchange(&self) -> bool {
        !self.exchange_in_scratch && self.matrix_scratch.is_some()
    }

    /// Word index of the scratch (values, then flags), creating it on first use.
    fn warp_scratch(&mut self, span: ast::Span) -> u32 {
        if let Some(b) = self.warp_scratch {
            return b;
        }
        let threads: u32 = self.block.iter().product();
        let padded = threads.div_ceil(32) * 32;
        let base = self.shared_bytes.div_ceil(4);
        // values, flags, then the two `bar.red` counters.
        self.shared_bytes = (base + 2 * padded + 2) * 4;
        self.has_shared = true;
        self.warp_scratch = Some(base);
        // Every flag word and the two counters (contiguous), cleared before anything runs.
        self.zero_shared_in_prologue(base + padded, padded + 2, span);
        base
    }

    /// Publishes (`value`, `pred`) of this thread, waits for the CTA, and gives the warp's words;
    /// the caller reads them, then calls [`FnLower::warp_finish`].
    fn warp_publish(&mut self, value: Operand, pred: Operand, member: Operand, span: ast::Span) -> WarpView {
        self.warp_publish_reading(value, pred, member, span, WarpRead::All)
    }

    /// As [`FnLower::warp_publish`], reading the words `read` says (loads stay even when
    /// their value is unused, so a collective that needs no values must not load them).
    fn warp_publish_reading(&mut self, value: Operand, pred: Operand, member: Operand, span: ast::Span, read: WarpRead) -> WarpView {
        let base = self.warp_scratch(span);
        let threads: u32 = self.block.iter().product();
        let padded = threads.div_ceil(32) * 32;
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31));
        let vidx = self.bin(BinaryOp::Add, Ty::U32, t, FnLower::u32c(base));
        let fidx = self.bin(BinaryOp::Add, Ty::U32, t, FnLower::u32c(base + padded));
        let p = if read == WarpRead::BallotBits {
            // `lane` < 32: a valid shift.
            let bit = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
            self.select(Ty::U32, pred, bit, FnLower::u32c(0))
        } else {
            self.select(Ty::U32, pred, FnLower::u32c(3), FnLower::u32c(1))
        };
        self.push(Stmt::StoreWord { memory: Memory::Shared, index: vidx, value });
        self.push(Stmt::StoreWord { memory: Memory::Shared, index: fidx, value: p });
        // This lane executes the collective (the meeting check's word, cleared in
        // `warp_finish`).
        let exec_i = self.meet_checks.then(|| self.meet_word(0, span));
        if let Some(exec_i) = exec_i {
            let me = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
            let old = self.new_var(Ty::U32, "t");
            self.assign(old, Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::Or, index: exec_i, value: me, comparand: None });
        }
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, span));
        let wbase = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(!31));
        let mut values = vec![wbase];
        let mut flags = Vec::new();
        for k in 0..if read == WarpRead::Nothing { 0 } else { 32 } {
            if read == WarpRead::All {
                let i = self.bin(BinaryOp::Add, Ty::U32, wbase, FnLower::u32c(base + k));
                if k == 0 {
                    values.clear();
                }
                values.push(self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: i }));
            }
            let fi = self.bin(BinaryOp::Add, Ty::U32, wbase, FnLower::u32c(base + padded + k));
            flags.push(self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: fi }));
        }
        let _ = fidx;
        let exec = match exec_i {
            Some(exec_i) => self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: exec_i }),
            None => FnLower::u32c(0),
        };
        WarpView { lane, values, flags, member, exec }
    }

    /// A prologue in the entry block: the CTA's threads zero shared words
    /// `start..start + count` between them, then a barrier.
    fn zero_shared_in_prologue(&mut self, start: u32, count: u32, span: ast::Span) {
        let threads: u32 = self.block.iter().product();
        let prologue = self
            .collect(|s| {
                let t = s.linear_tid();
                for i in 0..count.div_ceil(threads) {
                    let k = s.bin(BinaryOp::Add, Ty::U32, t, FnLower::u32c(i * threads));
                    let inside = s.cmp(CmpOp::LtU, Ty::U32, k, FnLower::u32c(count));
                    let idx = s.bin(BinaryOp::Add, Ty::U32, k, FnLower::u32c(start));
                    let body = Block { stmts: vec![Stmt::StoreWord { memory: Memory::Shared, index: idx, value: FnLower::u32c(0) }] };
                    s.emit_if(inside, body, Block::new());
                }
                s.push(Stmt::Barrier);
                Ok(())
            })
            .expect("cannot fail");
        self.prepend_to_entry(prologue.stmts);
        self.barriers.push((0, span));
    }

    /// The meeting check's words (see [`FnLower::meet_check`]): per warp of the CTA, the lanes
    /// executing the current emulated collective (set before its first barrier, read after
    /// it, cleared after its second), then the lanes owed to an earlier collective. Created on
    /// first use, cleared by a prologue in the entry block.
    fn meet_scratch(&mut self, span: ast::Span) -> u32 {
        if let Some(b) = self.meet_scratch {
            return b;
        }
        let threads: u32 = self.block.iter().product();
        let words = 2 * threads.div_ceil(32);
        let base = self.shared_bytes.div_ceil(4);
        self.shared_bytes = (base + words) * 4;
        self.has_shared = true;
        self.meet_scratch = Some(base);
        self.zero_shared_in_prologue(base, words, span);
        base
    }

    /// Shared word index of this thread's warp's meeting-check word `which` (0: the lanes
    /// executing the current collective, 1: the lanes owed to an earlier one).
    fn meet_word(&mut self, which: u32, span: ast::Span) -> Operand {
        let base = self.meet_scratch(span);
        let warps = (self.block.iter().product::<u32>()).div_ceil(32);
        let t = self.linear_tid();
        let w = self.bin(BinaryOp::ShrU, Ty::U32, t, FnLower::u32c(5));
        self.bin(BinaryOp::Add, Ty::U32, w, FnLower::u32c(base + which * warps))
    }

    /// The meeting check of a waiting collective outside the barrier scheduler (emulated and
    /// native), in the thread that executes it; `exec`: the lanes of the warp that execute it.
    ///
    /// On sm_70+ a collective waits for "all non-exited threads corresponding to membermask"
    /// to execute a collective of the same kind and membermask (ISA 8.5 §9.7.8.6 `shfl.sync`,
    /// §9.7.12.x `vote.sync`/`match.sync`/`redux.sync`): lanes at two different instructions
    /// meet. The emulation and the native subgroup operations see only the lanes at this
    /// instruction now; the others read as not taking part. That is right when those lanes
    /// have exited or will exit without another collective (the wait ends at their exit), and
    /// wrong when such a lane executes a collective later (on NVIDIA it would have met this
    /// one, or hung where the kinds differ). So the lanes of `membermask` that do not execute
    /// this collective (`member & !exec`: exited lanes and lanes beyond a partial warp too,
    /// which never execute again) become *owed* (a per-warp word, OR-ed atomically), and a
    /// lane that executes a collective while owed records `abi::FAULT_WARP_DIVERGED` at it:
    /// a wrong result becomes a fault. A partial membermask equal to the lanes that execute
    /// the collective owes nothing. The barrier scheduler (`scheduler`) meets such lanes
    /// correctly instead. Owed bits are never cleared: once owed, any later collective of
    /// that lane would have met the earlier one.
    fn meet_check(&mut self, exec: Operand, member: Operand, span: ast::Span) {
        if self.meet_site(member, span) {
            self.meet_check_recorded(exec, member, span);
        }
    }

    /// [`FnLower::meet_check`] of a collective already recorded (`meet_site`).
    fn meet_check_recorded(&mut self, exec: Operand, member: Operand, span: ast::Span) {
        let u = FnLower::u32c;
        let oi = self.meet_word(1, span);
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, u(31));
        let bit = self.bin(BinaryOp::Shl, Ty::U32, u(1), lane);
        // Atomic reads and ORs: other lanes may OR bits (never this lane's) at the same time,
        // and in the native path no barrier orders them.
        let owed = self.new_var(Ty::U32, "owed lanes");
        self.assign(owed, Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::Or, index: oi, value: u(0), comparand: None });
        let mine = self.bin(BinaryOp::And, Ty::U32, Operand::Var(owed), bit);
        let ok = self.cmp(CmpOp::Eq, Ty::U32, mine, u(0));
        self.emit_if(ok, Block::new(), Block { stmts: vec![Stmt::Fault { code: crate::abi::FAULT_WARP_DIVERGED }] });
        let not_exec = self.un(UnaryOp::Not, Ty::U32, exec);
        let missing = self.bin(BinaryOp::And, Ty::U32, member, not_exec);
        let any = self.cmp(CmpOp::Ne, Ty::U32, missing, u(0));
        let old = self.new_var(Ty::U32, "t");
        let set = Block {
            stmts: vec![Stmt::Assign {
                dst: old,
                expr: Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::Or, index: oi, value: missing, comparand: None },
            }],
        };
        self.emit_if(any, set, Block::new());
    }

    /// Records a waiting collective for the static proof (`meeting`); whether its meeting
    /// check is emitted.
    fn meet_site(&mut self, member: Operand, span: ast::Span) -> bool {
        let guard = match (self.emit_stack.len(), self.inst_guard) {
            (1, _) => crate::meeting::Guard::None,
            (2, Some((pred, negated))) => crate::meeting::Guard::Pred { pred, negated },
            _ => crate::meeting::Guard::Unknown,
        };
        let member_is_active = matches!(guard, crate::meeting::Guard::None) && self.active_mask_here(member);
        self.collective_sites.push(crate::meeting::Site { node: self.cur, span, guard, member, member_is_active, uniform: None });
        self.meet_checks
    }

    /// `r`, a result of the collective just recorded ([`FnLower::meet_site`]) that every lane
    /// executing it together gets alike when `member` is the same in those lanes, in a
    /// variable the static proof (`meeting`) knows as such.
    fn warp_result(&mut self, ty: Ty, r: Operand, member: Operand) -> Operand {
        if self.scheduler || self.collective_sites.is_empty() || matches!(r, Operand::Const(_)) {
            return r;
        }
        let var = self.new_var(ty, "warp result");
        self.assign(var, Expr::Use(r));
        let site = self.collective_sites.len() - 1;
        self.warp_results.push(crate::meeting::WarpResult { var, member, site, ballot: None });
        Operand::Var(var)
    }

    /// The value of `o` here when it is a constant, or a variable whose last assignment in the
    /// statements of the current block lowered so far (not inside a nested statement) is a
    /// constant or a copy of one; `None` when not known.
    pub(super) fn known_u32(&self, mut o: Operand) -> Option<u32> {
        let stmts = self.emit_stack.iter().rev().flat_map(|level| level.iter().rev());
        for s in stmts {
            let Operand::Var(v) = o else { break };
            match s {
                Stmt::Assign { dst, expr: Expr::Use(a) } if *dst == v => o = *a,
                Stmt::Assign { dst, .. } if *dst == v => return None,
                Stmt::Assign { .. } | Stmt::StoreWord { .. } | Stmt::Barrier | Stmt::SharedBarrier | Stmt::Fault { .. } | Stmt::Fence { .. } => {}
                // A nested statement may assign it.
                _ => return None,
            }
        }
        match o {
            Operand::Const(crate::ir::Const::U32(k)) => Some(k),
            _ => None,
        }
    }

    /// Whether `o` holds, here, the result of an `activemask` lowered earlier in the current
    /// block (through copies), unchanged since: the lanes of the warp running this block
    /// together, as the block is straight-line code (`Site::member_is_active`).
    fn active_mask_here(&self, mut o: Operand) -> bool {
        let stmts = self.emit_stack.iter().rev().flat_map(|level| level.iter().rev());
        for s in stmts {
            let Operand::Var(v) = o else { return false };
            match s {
                Stmt::Assign { dst, .. } if *dst == v && self.active_masks.contains(&v) => return true,
                Stmt::Assign { dst, expr: Expr::Use(a) } if *dst == v => o = *a,
                Stmt::Assign { dst, .. } if *dst == v => return false,
                // A nested statement (the collectives' own code) leaves it alone or is refused.
                s if crate::meeting::count_assigns(std::slice::from_ref(s), v) != 0 => return false,
                _ => {}
            }
        }
        false
    }

    /// `r` in a variable that `meeting` knows is the same in every thread of the CTA that
    /// reads it.
    pub(super) fn cta_result(&mut self, ty: Ty, r: Operand) -> Operand {
        let var = self.new_var(ty, "cta result");
        self.assign(var, Expr::Use(r));
        self.cta_results.push(var);
        Operand::Var(var)
    }

    fn warp_finish(&mut self, span: ast::Span) {
        let base = self.warp_scratch(span);
        let threads: u32 = self.block.iter().product();
        let padded = threads.div_ceil(32) * 32;
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, span));
        let t = self.linear_tid();
        let fidx = self.bin(BinaryOp::Add, Ty::U32, t, FnLower::u32c(base + padded));
        self.push(Stmt::StoreWord { memory: Memory::Shared, index: fidx, value: FnLower::u32c(0) });
        if !self.meet_checks {
            return;
        }
        let exec_i = self.meet_word(0, span);
        let lane = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31));
        let me = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
        let keep = self.un(UnaryOp::Not, Ty::U32, me);
        let old = self.new_var(Ty::U32, "t");
        self.assign(old, Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::And, index: exec_i, value: keep, comparand: None });
    }

    /// The ballot of a view published with [`WarpRead::BallotBits`]: lane k's flag is bit k
    /// alone (set when the lane executes the collective with its predicate true; flags of
    /// lanes that do not execute it are clear), so the flags OR together, restricted to the
    /// view's `member`.
    fn ballot_bits(&mut self, view: &WarpView) -> Operand {
        let mut acc = view.flags[0];
        for f in &view.flags[1..] {
            acc = self.bin(BinaryOp::Or, Ty::U32, acc, *f);
        }
        self.bin(BinaryOp::And, Ty::U32, acc, view.member)
    }

    /// The mask of lanes in the view's `member` whose flag has `bit` set.
    fn lanes_with(&mut self, view: &WarpView, bit: u32) -> Operand {
        let mut acc = FnLower::u32c(0);
        for (k, f) in view.flags.iter().enumerate() {
            // Bit `bit` of the flag moved to bit k, alone: one shift and one mask.
            let k = k as u32;
            let b = match k.cmp(&bit) {
                std::cmp::Ordering::Equal => *f,
                std::cmp::Ordering::Greater => self.bin(BinaryOp::Shl, Ty::U32, *f, FnLower::u32c(k - bit)),
                std::cmp::Ordering::Less => self.bin(BinaryOp::ShrU, Ty::U32, *f, FnLower::u32c(bit - k)),
            };
            let b = self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(1 << k));
            acc = if k == 0 { b } else { self.bin(BinaryOp::Or, Ty::U32, acc, b) };
        }
        // Lanes outside membermask do not take part.
        self.bin(BinaryOp::And, Ty::U32, acc, view.member)
    }

    fn pred_operand(&mut self, op: &ast::Operand) -> LResult<Operand> {
        self.read(op, ScalarType::Pred)
    }

    /// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`.
    pub(super) fn shfl(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sync", "up", "down", "bfly", "idx"])?;
        if !m.has("sync") {
            return Err(unsupported("`shfl` without `.sync` (sm_6x and older)", m.inst.span));
        }
        if m.ty()? != ScalarType::B32 {
            return Err(unsupported(format!("`{}`", m.name()), m.inst.span));
        }
        let mode = m
            .one_of(&["up", "down", "bfly", "idx"])
            .ok_or_else(|| Diagnostic::new("`shfl.sync` needs a mode (.up/.down/.bfly/.idx)", m.inst.span))?;
        let [d, a, b, c, mask] = operands(m.inst, 5)? else { unreachable!() };
        let a = self.read(a, ScalarType::B32)?;
        let b = self.read(b, ScalarType::B32)?;
        let c = self.read(c, ScalarType::B32)?;
        let member = self.read(mask, ScalarType::U32)?;
        let u = FnLower::u32c;
        let view = if self.native_warps || self.scheduler {
            let t = self.linear_tid();
            let lane = self.bin(BinaryOp::And, Ty::U32, t, u(31));
            WarpView { lane, values: Vec::new(), flags: Vec::new(), member, exec: FnLower::u32c(0) }
        } else {
            self.warp_publish_reading(a, Operand::Const(crate::ir::Const::Bool(false)), member, m.inst.span, WarpRead::Nothing)
        };
        let lane = view.lane;
        let bval = self.bin(BinaryOp::And, Ty::U32, b, u(31));
        let cval = self.bin(BinaryOp::And, Ty::U32, c, u(31));
        let seg = self.bin(BinaryOp::ShrU, Ty::U32, c, u(8));
        let seg = self.bin(BinaryOp::And, Ty::U32, seg, u(31));
        let nseg = self.un(UnaryOp::Not, Ty::U32, seg);
        let min_lane = self.bin(BinaryOp::And, Ty::U32, lane, seg);
        let cpart = self.bin(BinaryOp::And, Ty::U32, cval, nseg);
        let max_lane = self.bin(BinaryOp::Or, Ty::U32, min_lane, cpart);
        let (j, pval) = match mode {
            // j = lane - bval may be negative: a signed comparison.
            "up" => {
                let j = self.bin(BinaryOp::Sub, Ty::U32, lane, bval);
                (j, self.cmp(CmpOp::GeS, Ty::U32, j, max_lane))
            }
            "down" => {
                let j = self.bin(BinaryOp::Add, Ty::U32, lane, bval);
                (j, self.cmp(CmpOp::LeU, Ty::U32, j, max_lane))
            }
            "bfly" => {
                let j = self.bin(BinaryOp::Xor, Ty::U32, lane, bval);
                (j, self.cmp(CmpOp::LeU, Ty::U32, j, max_lane))
            }
            _ => {
                let bpart = self.bin(BinaryOp::And, Ty::U32, bval, nseg);
                let j = self.bin(BinaryOp::Or, Ty::U32, min_lane, bpart);
                (j, self.cmp(CmpOp::LeU, Ty::U32, j, max_lane))
            }
        };
        let j = self.select(Ty::U32, pval, j, lane);
        // d = value of lane j of this warp (j is in 0..32 here).
        let r = if self.scheduler {
            self.collective_point(m.inst, CollRead::Lane, a, Operand::Const(crate::ir::Const::Bool(false)), member, j, false).result
        } else if self.native_warps {
            let exec = self.native_participants(member, m.inst.span);
            self.meet_check(exec, member, m.inst.span);
            self.native_shuffle(a, j, m.inst.span)
        } else {
            self.meet_check(view.exec, member, m.inst.span);
            self.published_value(&view, j, m.inst.span)
        };
        // `shfl.idx` from a constant lane with no segment (c's bits 8-12 clear) and the lane
        // within the clamp (b ≤ c's bits 0-4): every lane reads lane `b`'s value (§9.7.10.6:
        // `j = minLane | bval`, `minLane = 0`, `pval = j <= cval`). nvcc puts the constants in
        // registers just before (`mov.u32 %r260, 31`).
        let broadcast = match (mode, self.known_u32(b), self.known_u32(c)) {
            ("idx", Some(b), Some(c)) => c & 0x1f00 == 0 && b & 31 <= c & 31,
            _ => false,
        };
        let r = if broadcast { self.warp_result(Ty::U32, r, member) } else { r };
        match &d.kind {
            OperandKind::Pair(dv, p) => {
                self.write(dv, ScalarType::B32, r)?;
                self.write(p, ScalarType::Pred, pval)
            }
            _ => self.write(d, ScalarType::B32, r),
        }
    }

    /// The value lane `j` (0..32) published in `view` (a `shfl`), then the collective's end.
    fn published_value(&mut self, view: &WarpView, j: Operand, span: ast::Span) -> Operand {
        let base = self.warp_scratch(span);
        let i = self.bin(BinaryOp::Add, Ty::U32, view.values[0], j);
        let i = self.bin(BinaryOp::Add, Ty::U32, i, FnLower::u32c(base));
        let r = self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: i });
        self.warp_finish(span);
        r
    }

    /// A load's `value` given to the whole warp (`warp_loads`): every lane gets the value of the
    /// lowest lane of its warp executing this with it, as `shfl.sync.idx` from that lane with
    /// the full membermask would give. A collective site for the static proof (`meeting`),
    /// which must show `address` and the block the same across each warp's lanes.
    pub(super) fn broadcast_first_lane(&mut self, value: Operand, address: Operand, span: ast::Span) -> Operand {
        let member = FnLower::u32c(u32::MAX);
        self.meet_site(member, span);
        if let Some(site) = self.collective_sites.last_mut() {
            site.uniform = Some(address);
        }
        // (`lanes` holds the lane running this.)
        let r = if self.native_warps {
            let lanes = self.native_participants(member, span);
            let (_, j) = self.lowest_lane(lanes);
            self.native_shuffle(value, j, span)
        } else {
            let view = self.warp_publish_reading(value, Operand::Const(crate::ir::Const::Bool(false)), member, span, WarpRead::Flags);
            let lanes = self.lanes_with(&view, 0);
            let (_, j) = self.lowest_lane(lanes);
            self.published_value(&view, j, span)
        };
        self.warp_result(Ty::U32, r, member)
    }

    /// `vote.sync.{all,any,uni}.pred d, a, membermask` / `vote.sync.ballot.b32 d, a, membermask`.
    pub(super) fn vote(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sync", "all", "any", "uni", "ballot"])?;
        if !m.has("sync") {
            return Err(unsupported("`vote` without `.sync` (sm_6x and older)", m.inst.span));
        }
        let kind = m
            .one_of(&["all", "any", "uni", "ballot"])
            .ok_or_else(|| Diagnostic::new("`vote.sync` needs .all/.any/.uni/.ballot", m.inst.span))?;
        let [d, a, mask] = operands(m.inst, 3)? else { unreachable!() };
        let p = self.pred_operand(a)?;
        let member = self.read(mask, ScalarType::U32)?;
        let (active, ballot) = if self.scheduler {
            let c = self.collective_point(m.inst, CollRead::Nothing, FnLower::u32c(0), p, member, FnLower::u32c(0), false);
            (c.active, c.ballot)
        } else if self.native_warps {
            let active = self.native_participants(member, m.inst.span);
            self.meet_check(active, member, m.inst.span);
            let b = self.native_ballot(p, m.inst.span);
            (active, self.bin(BinaryOp::And, Ty::U32, b, member))
        } else if kind == "ballot" {
            // The ballot alone (`active` is not read below).
            let view = self.warp_publish_reading(FnLower::u32c(0), p, member, m.inst.span, WarpRead::BallotBits);
            self.meet_check(view.exec, member, m.inst.span);
            let ballot = self.ballot_bits(&view);
            self.warp_finish(m.inst.span);
            (ballot, ballot)
        } else {
            let view = self.warp_publish_reading(FnLower::u32c(0), p, member, m.inst.span, WarpRead::Flags);
            self.meet_check(view.exec, member, m.inst.span);
            let active = self.lanes_with(&view, 0);
            let ballot = self.lanes_with(&view, 1);
            self.warp_finish(m.inst.span);
            (active, ballot)
        };
        let u = FnLower::u32c;
        // Every lane executing it with the same membermask reads the same ballot.
        match kind {
            "ballot" => {
                let r = self.warp_result(Ty::U32, ballot, member);
                // Its predicate too (`meeting`: a membermask carried from ballot to ballot).
                if let (Operand::Var(v), Some(w)) = (r, self.warp_results.last_mut()) {
                    if w.var == v {
                        w.ballot = Some(p);
                    }
                }
                self.write(d, ScalarType::B32, r)
            }
            "all" => {
                let r = self.cmp(CmpOp::Eq, Ty::U32, ballot, active);
                let r = self.warp_result(Ty::Bool, r, member);
                self.write(d, ScalarType::Pred, r)
            }
            "any" => {
                let r = self.cmp(CmpOp::Ne, Ty::U32, ballot, u(0));
                let r = self.warp_result(Ty::Bool, r, member);
                self.write(d, ScalarType::Pred, r)
            }
            _ => {
                let none = self.cmp(CmpOp::Eq, Ty::U32, ballot, u(0));
                let all = self.cmp(CmpOp::Eq, Ty::U32, ballot, active);
                let r = self.bin(BinaryOp::Or, Ty::Bool, none, all);
                let r = self.warp_result(Ty::Bool, r, member);
                self.write(d, ScalarType::Pred, r)
            }
        }
    }

    /// `activemask.b32 d`.
    pub(super) fn activemask(&mut self, m: &Mods) -> LResult<()> {
        m.only(&[])?;
        let [d] = operands(m.inst, 1)? else { unreachable!() };
        if self.scheduler {
            // Does not wait (§9.7.12.x `activemask`): the lanes of the warp that get to it in
            // the same scheduler round.
            let no = Operand::Const(crate::ir::Const::Bool(false));
            let c = self.collective_point(m.inst, CollRead::Nothing, FnLower::u32c(0), no, FnLower::u32c(!0), FnLower::u32c(0), true);
            return self.write(d, ScalarType::B32, c.active);
        }
        let active = if self.native_warps {
            self.native_participants(FnLower::u32c(!0), m.inst.span)
        } else {
            let view = self.warp_publish_reading(FnLower::u32c(0), Operand::Const(crate::ir::Const::Bool(false)), FnLower::u32c(!0), m.inst.span, WarpRead::Flags);
            let active = self.lanes_with(&view, 0);
            self.warp_finish(m.inst.span);
            active
        };
        // Known to `meeting` as the lanes running this block (`Site::member_is_active`).
        let var = self.new_var(Ty::U32, "active mask");
        self.assign(var, Expr::Use(active));
        self.active_masks.push(var);
        self.write(d, ScalarType::B32, Operand::Var(var))
    }

    /// `redux.sync.op.type d, a, membermask` (integer forms) and
    /// `redux.sync.{min,max}{.abs}{.NaN}.f32` (ISA 8.6+, see [`FnLower::redux_f32_key`]).
    pub(super) fn redux(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sync", "add", "min", "max", "and", "or", "xor", "abs", "NaN"])?;
        let t = m.ty()?;
        if t == ScalarType::F32 {
            return self.redux_f32(m);
        }
        if m.has("abs") || m.has("NaN") {
            return Err(Diagnostic::new(format!("`{}`: .abs and .NaN take .f32", m.name()), m.inst.span));
        }
        if !matches!(t, ScalarType::U32 | ScalarType::S32 | ScalarType::B32) {
            return Err(unsupported(format!("`{}`", m.name()), m.inst.span));
        }
        let op = m
            .one_of(&["add", "min", "max", "and", "or", "xor"])
            .ok_or_else(|| Diagnostic::new("`redux.sync` needs an operation", m.inst.span))?;
        let signed = t == ScalarType::S32;
        let (bop, identity) = match op {
            "add" => (BinaryOp::Add, 0),
            "and" => (BinaryOp::And, !0),
            "or" => (BinaryOp::Or, 0),
            "xor" => (BinaryOp::Xor, 0),
            "min" if signed => (BinaryOp::MinS, i32::MAX as u32),
            "max" if signed => (BinaryOp::MaxS, i32::MIN as u32),
            "min" => (BinaryOp::MinU, u32::MAX),
            _ => (BinaryOp::MaxU, 0),
        };
        if matches!(op, "and" | "or" | "xor") != (t == ScalarType::B32) {
            return Err(Diagnostic::new(format!("`{}`: bitwise forms take .b32, arithmetic .u32/.s32", m.name()), m.inst.span));
        }
        let [d, a, mask] = operands(m.inst, 3)? else { unreachable!() };
        let a = self.read(a, t)?;
        let member = self.read(mask, ScalarType::U32)?;
        let acc = self.redux_words(m.inst, bop, identity, a, member);
        self.write(d, t, acc)
    }

    /// The reduction of `redux.sync` over the participating lanes' words `a` (`bop` on u32,
    /// `identity` for lanes that do not take part), emulated or native.
    fn redux_words(&mut self, inst: &Instruction, bop: BinaryOp, identity: u32, a: Operand, member: Operand) -> Operand {
        let span = inst.span;
        if self.scheduler {
            let no = Operand::Const(crate::ir::Const::Bool(false));
            return self.collective_point(inst, CollRead::Fold(bop, identity), a, no, member, FnLower::u32c(0), false).result;
        }
        let mut acc = FnLower::u32c(identity);
        if self.native_warps {
            let active = self.native_participants(member, span);
            self.meet_check(active, member, span);
            let values = self.native_values(a, span);
            for (k, value) in values.into_iter().enumerate() {
                let on = self.bin(BinaryOp::ShrU, Ty::U32, active, FnLower::u32c(k as u32));
                let on = self.bin(BinaryOp::And, Ty::U32, on, FnLower::u32c(1));
                let on = self.cmp(CmpOp::Ne, Ty::U32, on, FnLower::u32c(0));
                let v = self.select(Ty::U32, on, value, FnLower::u32c(identity));
                acc = self.bin(bop, Ty::U32, acc, v);
            }
            // The fold of the same lanes' words in every lane with the same membermask.
            return self.warp_result(Ty::U32, acc, member);
        }
        let view = self.warp_publish(a, Operand::Const(crate::ir::Const::Bool(false)), member, span);
        self.meet_check(view.exec, member, span);
        for k in 0..32 {
            // Bit 0 of the flag and bit k of membermask.
            let m = if k == 0 { member } else { self.bin(BinaryOp::ShrU, Ty::U32, member, FnLower::u32c(k as u32)) };
            let on = self.bin(BinaryOp::And, Ty::U32, view.flags[k], m);
            let on = self.bin(BinaryOp::And, Ty::U32, on, FnLower::u32c(1));
            let on = self.cmp(CmpOp::Ne, Ty::U32, on, FnLower::u32c(0));
            let v = self.select(Ty::U32, on, view.values[k], FnLower::u32c(identity));
            acc = self.bin(bop, Ty::U32, acc, v);
        }
        let acc = self.warp_result(Ty::U32, acc, member);
        self.warp_finish(span);
        acc
    }

    /// `redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, membermask` (PTX ISA 8.6+, sm_100a; the text
    /// is not in this project's ISA 8.5 copy: §9.7.13.x `redux.sync` of the public ISA 8.6+
    /// docs says: "For .f32 instruction type, if the input value is 0.0 then +0.0 > -0.0. If
    /// .abs qualifier is specified, then the absolute value of the input is considered for the
    /// reduction operation. If the .NaN qualifier is specified, then the result of the
    /// reduction operation is canonical NaN if the input to the reduction operation from any
    /// participating thread is NaN. In the absence of .NaN qualifier, only non-NaN values are
    /// considered for the reduction operation and the result will be canonical NaN when all
    /// inputs are NaNs."
    ///
    /// Each thread turns its value into an order key ([`FnLower::redux_f32_key`]), the integer
    /// `min.u32`/`max.u32` reduction of [`FnLower::redux_words`] combines the keys (so the
    /// emulated and the native paths share this rule), and the result key turns back into the
    /// winning value's bits, or the canonical NaN 0x7fffffff. With `.abs` the result is the
    /// absolute value (the value the reduction considered). No ftz: subnormals compare exactly.
    fn redux_f32(&mut self, m: &Mods) -> LResult<()> {
        let max = match m.one_of(&["min", "max"]) {
            Some(op) if m.one_of(&["add", "and", "or", "xor"]).is_none() => op == "max",
            _ => return Err(Diagnostic::new(format!("`{}`: the .f32 forms are .min and .max", m.name()), m.inst.span)),
        };
        let [d, a, mask] = operands(m.inst, 3)? else { unreachable!() };
        let a = self.read(a, ScalarType::F32)?;
        let member = self.read(mask, ScalarType::U32)?;
        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, a);
        let (key, sentinel) = self.redux_f32_key(bits, max, m.has("abs"), m.has("NaN"));
        let (bop, identity) = if max { (BinaryOp::MaxU, 0) } else { (BinaryOp::MinU, u32::MAX) };
        let acc = self.redux_words(m.inst, bop, identity, key, member);
        // Back from the key: the sentinel means NaN (all inputs NaN, or with .NaN any).
        let u = FnLower::u32c;
        let nan = self.cmp(CmpOp::Eq, Ty::U32, acc, u(sentinel));
        let positive = self.cmp(CmpOp::GeU, Ty::U32, acc, u(0x8000_0000));
        let flip = self.select(Ty::U32, positive, u(0x8000_0000), u(!0));
        let r = self.bin(BinaryOp::Xor, Ty::U32, acc, flip);
        let r = self.select(Ty::U32, nan, u(0x7fff_ffff), r);
        let r = self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, r);
        self.write(d, ScalarType::F32, r)
    }

    /// The key one thread contributes to an f32 `redux.sync` (see [`FnLower::redux_f32`]), and
    /// the key that stands for NaN. Non-NaN values map to keys ordered as the floats with
    /// −0 < +0 (positive: bits | 2^31; negative: !bits), which lie in 0x007fffff..=0xff800000.
    /// A NaN (after `.abs`) becomes the sentinel: for `max`, 0 without `.NaN` (below every
    /// value, so NaNs are ignored, and a result of 0 means every input was NaN) and !0 with
    /// `.NaN` (above every value, so any NaN wins); for `min` the other way round. Lanes that do
    /// not take part give the reduction's identity (0 for max, !0 for min), which equals the
    /// ignoring sentinel and cannot win over a real value.
    fn redux_f32_key(&mut self, bits: Operand, max: bool, abs: bool, nan_wins: bool) -> (Operand, u32) {
        let u = FnLower::u32c;
        let bits = if abs { self.bin(BinaryOp::And, Ty::U32, bits, u(0x7fff_ffff)) } else { bits };
        let magnitude = self.bin(BinaryOp::And, Ty::U32, bits, u(0x7fff_ffff));
        let is_nan = self.cmp(CmpOp::GtU, Ty::U32, magnitude, u(0x7f80_0000));
        let negative = self.cmp(CmpOp::GeU, Ty::U32, bits, u(0x8000_0000));
        let flip = self.select(Ty::U32, negative, u(!0), u(0x8000_0000));
        let key = self.bin(BinaryOp::Xor, Ty::U32, bits, flip);
        let sentinel = if max == nan_wins { !0 } else { 0 };
        (self.select(Ty::U32, is_nan, u(sentinel), key), sentinel)
    }

    /// `match.{any,all}.sync.{b32,b64} d[|p], a, membermask` (§9.7.14.10). A `.b64` value is
    /// compared as its two words: lanes whose low and high words both equal the thread's
    /// (one collective whose values travel in two exchanges; nvcc writes `.b64` for
    /// `__match_any_sync` on 64-bit values such as pointers).
    pub(super) fn match_sync(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["any", "all", "sync"])?;
        let wide = match m.ty()? {
            ScalarType::B32 => false,
            ScalarType::B64 => true,
            _ => return Err(invalid(format!("`{}`: `match.sync` takes .b32 or .b64 (§9.7.14.10)", m.name()), m.inst.span)),
        };
        let all = m.has("all");
        let [d, a, mask] = operands(m.inst, 3)? else { unreachable!() };
        let words = if wide {
            let a = self.read(a, ScalarType::B64)?;
            let lo = self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, a);
            let hi = self.bin(BinaryOp::ShrU, Ty::U64, a, FnLower::u32c(32));
            vec![lo, self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, hi)]
        } else {
            vec![self.read(a, ScalarType::B32)?]
        };
        let member = self.read(mask, ScalarType::U32)?;
        if self.scheduler {
            // One point per word; every lane of the first completes it in the same round and
            // meets the others at the second.
            let no = Operand::Const(crate::ir::Const::Bool(false));
            let mut same = None;
            let mut active = FnLower::u32c(0);
            for w in words {
                let c = self.collective_point(m.inst, CollRead::Equal, w, no, member, FnLower::u32c(0), false);
                active = c.active;
                same = Some(match same {
                    None => c.result,
                    Some(s) => self.bin(BinaryOp::And, Ty::U32, s, c.result),
                });
            }
            return self.match_result(d, all, active, same.expect("one word at least"));
        }
        let native = self.native_warps;
        let mut active = FnLower::u32c(0);
        let mut same = FnLower::u32c(0);
        for (i, w) in words.into_iter().enumerate() {
            let values = if native {
                if i == 0 {
                    active = self.native_participants(member, m.inst.span);
                    self.meet_check(active, member, m.inst.span);
                }
                self.native_values(w, m.inst.span)
            } else {
                let view = self.warp_publish(w, Operand::Const(crate::ir::Const::Bool(false)), member, m.inst.span);
                if i == 0 {
                    // The meeting check once per instruction (its second exchange has the
                    // same lanes).
                    self.meet_check(view.exec, member, m.inst.span);
                    active = self.lanes_with(&view, 0);
                }
                view.values
            };
            let mut same_word = FnLower::u32c(0);
            for (k, value) in values.into_iter().enumerate() {
                let eq = self.cmp(CmpOp::Eq, Ty::U32, value, w);
                let bit = self.select(Ty::U32, eq, FnLower::u32c(1 << k), FnLower::u32c(0));
                same_word = self.bin(BinaryOp::Or, Ty::U32, same_word, bit);
            }
            same = if i == 0 { same_word } else { self.bin(BinaryOp::And, Ty::U32, same, same_word) };
            if !native {
                self.warp_finish(m.inst.span);
            }
        }
        let same = self.bin(BinaryOp::And, Ty::U32, same, active);
        let same = self.value(Ty::U32, Expr::Use(same));
        self.match_result(d, all, active, same)
    }

    /// `match`'s results from the participating lanes and those whose value equals the
    /// thread's (`same`, within `active`).
    fn match_result(&mut self, d: &ast::Operand, all: bool, active: Operand, same: Operand) -> LResult<()> {
        let (r, p) = if all {
            let every = self.cmp(CmpOp::Eq, Ty::U32, same, active);
            (self.select(Ty::U32, every, active, FnLower::u32c(0)), every)
        } else {
            (same, Operand::Const(crate::ir::Const::Bool(true)))
        };
        match &d.kind {
            // ptxas refuses a floating-point destination (it types `d` .u32, not .b32).
            OperandKind::Pair(dv, pd) => {
                self.write(dv, ScalarType::U32, r)?;
                self.write(pd, ScalarType::Pred, p)
            }
            _ => self.write(d, ScalarType::U32, r),
        }
    }

    /// The lowest lane of the lane mask `lanes` (not 0): its bit (`lanes & -lanes`) and its
    /// number (31 − clz of the bit); `elect.sync`'s leader, a warp-wide load's source lane.
    fn lowest_lane(&mut self, lanes: Operand) -> (Operand, Operand) {
        let neg = self.un(UnaryOp::Neg, Ty::U32, lanes);
        let bit = self.bin(BinaryOp::And, Ty::U32, lanes, neg);
        let clz = self.un(UnaryOp::CountLeadingZeros, Ty::U32, bit);
        (bit, self.bin(BinaryOp::Sub, Ty::U32, FnLower::u32c(31), clz))
    }

    /// `elect.sync d|p, membermask`: the lowest active lane of membermask is the leader.
    pub(super) fn elect(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sync"])?;
        let [d, mask] = operands(m.inst, 2)? else { unreachable!() };
        let member = self.read(mask, ScalarType::U32)?;
        let (active, lane) = if self.scheduler {
            let no = Operand::Const(crate::ir::Const::Bool(false));
            let c = self.collective_point(m.inst, CollRead::Nothing, FnLower::u32c(0), no, member, FnLower::u32c(0), false);
            let t = self.linear_tid();
            (c.active, self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31)))
        } else if self.native_warps {
            let active = self.native_participants(member, m.inst.span);
            self.meet_check(active, member, m.inst.span);
            let t = self.linear_tid();
            (active, self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31)))
        } else {
            let view = self.warp_publish_reading(FnLower::u32c(0), Operand::Const(crate::ir::Const::Bool(false)), member, m.inst.span, WarpRead::Flags);
            self.meet_check(view.exec, member, m.inst.span);
            let active = self.lanes_with(&view, 0);
            let lane = view.lane;
            self.warp_finish(m.inst.span);
            (active, lane)
        };
        // d: the leader's lane id.
        let (lowest, leader) = self.lowest_lane(active);
        let me = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
        let is = self.cmp(CmpOp::Eq, Ty::U32, lowest, me);
        match &d.kind {
            OperandKind::Pair(dv, p) => {
                self.write(dv, ScalarType::B32, leader)?;
                self.write(p, ScalarType::Pred, is)
            }
            _ => Err(Diagnostic::new("`elect.sync` writes `d|p`", m.inst.span)),
        }
    }

    /// `bar.warp.sync membermask`: a CTA barrier (at least as strong; every thread reaches it
    /// through the SIMT pass).
    pub(super) fn bar_warp_sync(&mut self, inst: &Instruction) -> LResult<()> {
        let m = Mods { inst };
        m.only(&["warp", "sync"])?;
        let [mask] = operands(inst, 1)? else { unreachable!() };
        let member = self.read(mask, ScalarType::U32)?;
        if self.scheduler {
            // With the CTA barrier scheduler: a warp collective that waits for the non-exited
            // lanes of `membermask` (§9.7.13.2) and exchanges nothing.
            let no = Operand::Const(crate::ir::Const::Bool(false));
            self.collective_point(inst, CollRead::Nothing, FnLower::u32c(0), no, member, FnLower::u32c(0), false);
            return Ok(());
        }
        // A CTA barrier, with the meeting check of the waiting collectives (`meet_check`):
        // on sm_70+ two `bar.warp.sync` in divergent branches meet (§9.7.13.2: only sm_6x
        // and below need "the same bar.warp.sync instruction"), so lanes that exchange
        // memory across them would read too early here. A lane of `membermask` that skipped
        // this one and reaches a later collective records `FAULT_WARP_DIVERGED` instead.
        if self.native_warps {
            let exec = self.native_participants(member, inst.span);
            self.meet_check(exec, member, inst.span);
            self.push(Stmt::Barrier);
            self.barriers.push((self.cur, inst.span));
            return Ok(());
        }
        if !self.meet_site(member, inst.span) {
            // No check: one CTA barrier.
            self.push(Stmt::Barrier);
            self.barriers.push((self.cur, inst.span));
            return Ok(());
        }
        let exec_i = self.meet_word(0, inst.span);
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31));
        let me = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
        let old = self.new_var(Ty::U32, "t");
        self.assign(old, Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::Or, index: exec_i, value: me, comparand: None });
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        let exec = self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: exec_i });
        self.meet_check_recorded(exec, member, inst.span);
        // Everyone has read the word before it is cleared for the next collective.
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        let keep = self.un(UnaryOp::Not, Ty::U32, me);
        let old = self.new_var(Ty::U32, "t");
        self.assign(old, Expr::AtomicWord { memory: Memory::Shared, op: crate::ir::AtomicOp::And, index: exec_i, value: keep, comparand: None });
        Ok(())
    }

    /// `bar.red.popc.u32 d, a{, b}, {!}c` / `bar.red.{and,or}.pred p, a{, b}, {!}c` (and the
    /// `barrier{.cta}.red` spellings): a CTA barrier that also reduces `c` over the threads
    /// that execute it. Two shared counters (participants, true predicates): every thread adds
    /// its share, barrier, reads, barrier, subtracts its share — so they are zero again for the
    /// next use, whichever threads take part.
    pub(super) fn bar_red(&mut self, inst: &Instruction) -> LResult<()> {
        let m = Mods { inst };
        m.only(&["red", "popc", "and", "or", "sync", "aligned", "cta"])?;
        let op = m
            .one_of(&["popc", "and", "or"])
            .ok_or_else(|| Diagnostic::new("`bar.red` needs .popc, .and or .or", inst.span))?;
        let (d, rest) = inst.operands.split_first().ok_or_else(|| Diagnostic::new("`bar.red` needs operands", inst.span))?;
        let (id, count, c) = match rest {
            [id, c] => (id, None, c),
            [id, count, c] => (id, Some(count), c),
            _ => return Err(Diagnostic::new(format!("`{}` takes 3 or 4 operands", m.name()), inst.span)),
        };
        if self.scheduler {
            // A `sync` point of the CTA barrier scheduler that also counts the predicate over
            // the arriving warps' threads (see `scheduler`).
            let c = self.pred_operand(c)?;
            let (id, expect) = self.point_id_expect(Some(id), count, false)?;
            let mine = self.select(Ty::U32, c, FnLower::u32c(1), FnLower::u32c(0));
            let v = self.sched.vars(&mut self.vars);
            self.sched.reduces = true;
            self.assign(v.pred, Expr::Use(mine));
            self.park(inst, id, expect, false);
            let (trues, parts) = (Operand::Var(v.trues), Operand::Var(v.parts));
            return match op {
                "popc" => self.write(d, ScalarType::U32, trues),
                "and" => {
                    let r = self.cmp(CmpOp::Eq, Ty::U32, trues, parts);
                    self.write(d, ScalarType::Pred, r)
                }
                _ => {
                    let r = self.cmp(CmpOp::Ne, Ty::U32, trues, FnLower::u32c(0));
                    self.write(d, ScalarType::Pred, r)
                }
            };
        }
        let partial = match count {
            Some(ast::Operand { kind: OperandKind::Expr(e), span }) => self.immediate_count(e, false, *span)?.is_some(),
            Some(_) => {
                self.register_count = true;
                false
            }
            None => false,
        };
        if partial {
            // Fewer warps than the CTA: the scheduler's (the kernel is lowered again).
            self.needs_scheduler.get_or_insert(inst.span);
            return Ok(());
        }
        self.barrier_id(id)?;
        if let Some(count) = count {
            self.barrier_count(count)?;
        }
        let c = self.pred_operand(c)?;
        let threads: u32 = self.block.iter().product();
        let base = self.warp_scratch(inst.span) + 2 * threads.div_ceil(32) * 32;
        let (pw, cw) = (FnLower::u32c(base), FnLower::u32c(base + 1));
        let mine = self.select(Ty::U32, c, FnLower::u32c(1), FnLower::u32c(0));
        let add = |s: &mut Self, op: crate::ir::AtomicOp, w: Operand, v: Operand| {
            let t = s.new_var(Ty::U32, "t");
            s.assign(t, Expr::AtomicWord { memory: Memory::Shared, op, index: w, value: v, comparand: None });
        };
        add(self, crate::ir::AtomicOp::Add, pw, FnLower::u32c(1));
        add(self, crate::ir::AtomicOp::Add, cw, mine);
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        // Between the two barriers no thread changes the counters: every thread reads the same
        // words (§9.7.14.1: "the final value is written to the destination register in all
        // threads waiting at the barrier"), which `meeting` may use.
        let parts = self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: pw });
        let parts = self.cta_result(Ty::U32, parts);
        let trues = self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index: cw });
        let trues = self.cta_result(Ty::U32, trues);
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        add(self, crate::ir::AtomicOp::Sub, pw, FnLower::u32c(1));
        add(self, crate::ir::AtomicOp::Sub, cw, mine);
        match op {
            "popc" => self.write(d, ScalarType::U32, trues),
            "and" => {
                let r = self.cmp(CmpOp::Eq, Ty::U32, trues, parts);
                self.write(d, ScalarType::Pred, r)
            }
            _ => {
                let r = self.cmp(CmpOp::Ne, Ty::U32, trues, FnLower::u32c(0));
                self.write(d, ScalarType::Pred, r)
            }
        }
    }

    /// `membar.cta` / `fence{.sc,.acq_rel}.cta`: a CTA barrier. WGSL has no fence outside a
    /// workgroup barrier, so the fence becomes one (the SIMT pass makes every thread reach it);
    /// a barrier that all threads reach orders memory among the CTA's threads at least as the
    /// fence does. Wider scopes (`membar.gl`/`.sys`, `fence.{gpu,sys,cluster}`) become a
    /// device-scope [`Stmt::Fence`] (a `.cluster` is part of the GPU): SPIR-V has it, WGSL
    /// cannot express it (no device-scope fence; its atomics are relaxed) and refuses the
    /// kernel. `.sc` and `.acq_rel` both get a sequentially consistent fence.
    pub(super) fn fence(&mut self, m: &Mods) -> LResult<()> {
        operands(m.inst, 0)?;
        let cta = match m.inst.opcode.name.as_str() {
            "membar" => {
                m.only(&["cta", "gl", "sys"])?;
                m.has("cta")
            }
            // `fence.proxy.async{.global, .shared::{cta,cluster}}` (§9.7.12.4) orders this
            // thread's generic-proxy accesses with its async-proxy ones (`wgmma` reading shared
            // memory). Here the async proxy is the generic one (`inst::wgmma` reads shared memory
            // with ordinary loads, in program order), so nothing is left to order.
            _ if m.has("proxy") => {
                m.only(&["proxy", "async", "async::global", "async::shared::cta", "async::shared::cluster", "global", "shared::cta", "shared::cluster"])?;
                if !m.has("async") && !m.inst.modifiers.iter().any(|x| x.text.starts_with("async::")) {
                    return Err(unsupported(format!("`{}` (only `fence.proxy.async`)", m.name()), m.inst.span));
                }
                return Ok(());
            }
            _ => {
                m.only(&["sc", "acq_rel", "cta", "gpu", "sys", "cluster"])?;
                m.has("cta")
            }
        };
        if !cta {
            self.push(Stmt::Fence { scope: crate::ir::Scope::Device });
            return Ok(());
        }
        self.cta_fence(m.inst.span);
        Ok(())
    }

    /// A CTA-scope fence (`fence.acq_rel.cta`): a workgroup barrier, which every thread
    /// reaches here. With the CTA barrier scheduler (`scheduler`) threads of the CTA run apart,
    /// so a workgroup barrier cannot stand for the fence: the device-scope fence orders at
    /// least as much (WGSL refuses it).
    pub(super) fn cta_fence(&mut self, span: ptxcross_frontend::ast::Span) {
        if self.scheduler {
            self.push(Stmt::Fence { scope: crate::ir::Scope::Device });
            return;
        }
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, span));
    }

    /// `nanosleep.u32 t` (§9.7.19.2): "suspends the thread for a sleep duration approximately
    /// close to the delay t … guaranteed to be in the interval [0, 2*t]": zero is in it, so
    /// nothing is emitted (CUB's look-back spin loops back off with it). The operand is read so
    /// a bad one is still an error.
    pub(super) fn nanosleep(&mut self, m: &Mods) -> LResult<()> {
        m.only(&[])?;
        let [t] = operands(m.inst, 1)? else { unreachable!() };
        self.read(t, ptxcross_frontend::ast::ScalarType::U32)?;
        Ok(())
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 n` (§9.7.19.5, sm_90a): a hint that moves
    /// physical registers between the warps of a CTA; PTX registers keep their values (ptxas
    /// allocates them), so nothing is emitted. `n`: "an integer constant … in the range 24 to
    /// 256 (both inclusive) and must be a multiple of 8".
    pub(super) fn setmaxnreg(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["inc", "dec", "sync", "aligned"])?;
        if m.one_of(&["inc", "dec"]).is_none() || !m.has("sync") || !m.has("aligned") || m.ty()? != ptxcross_frontend::ast::ScalarType::U32 {
            return Err(ptxcross_frontend::Diagnostic::new(format!("`{}`: the form is setmaxnreg.{{inc,dec}}.sync.aligned.u32 (§9.7.19.5)", m.name()), m.inst.span));
        }
        let [n] = operands(m.inst, 1)? else { unreachable!() };
        match super::imm_u64(n) {
            Some(v) if (24..=256).contains(&v) && v % 8 == 0 => Ok(()),
            _ => Err(ptxcross_frontend::Diagnostic::new(
                format!("`{}` takes an integer constant from 24 to 256, a multiple of 8 (§9.7.19.5)", m.name()),
                n.span,
            )),
        }
    }

    /// `prefetch{.space}.level [a]`, `prefetchu.L1 [a]` (§9.7.10.14): a cache hint with no
    /// effect on results (a bad address does not fault on NVIDIA either): nothing is emitted.
    pub(super) fn prefetch(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["global", "local", "L1", "L2", "L2::evict_last", "L2::evict_normal", "global::evict_last", "global::evict_normal"])?;
        let [a] = operands(m.inst, 1)? else { unreachable!() };
        if !matches!(a.kind, ptxcross_frontend::ast::OperandKind::Address(_)) {
            return Err(Diagnostic::new("expected an address `[…]`", a.span));
        }
        Ok(())
    }

    /// `%lanemask_{eq,lt,le,gt,ge}` from the lane id.
    pub fn lanemask(&mut self, which: &str) -> Option<Operand> {
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, FnLower::u32c(31));
        let eq = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(1), lane);
        let lt = self.bin(BinaryOp::Sub, Ty::U32, eq, FnLower::u32c(1));
        let le = self.bin(BinaryOp::Or, Ty::U32, lt, eq);
        Some(match which {
            "%lanemask_eq" => eq,
            "%lanemask_lt" => lt,
            "%lanemask_le" => le,
            "%lanemask_gt" => self.un(UnaryOp::Not, Ty::U32, le),
            "%lanemask_ge" => self.un(UnaryOp::Not, Ty::U32, lt),
            _ => return None,
        })
    }
}
