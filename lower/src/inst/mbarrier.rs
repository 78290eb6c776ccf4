//! `mbarrier` objects in shared memory (PTX ISA 8.5 §9.7.14.15): `mbarrier.init`, `inval`,
//! `arrive{.noComplete}`, `arrive_drop`, `test_wait`/`try_wait` (token or `.parity`),
//! `pending_count`, `cp.async.mbarrier.arrive{.noinc}` and `fence.mbarrier_init`.
//!
//! **The object** (§9.7.14.15.1: 8 bytes, 8-aligned, opaque; the layout is ours): its first
//! word holds the pending arrival count in bits 0-14, the expected arrival count in bits 15-29
//! and the parity of the current phase in bit 31 (bit 30 and the second word are 0). Every
//! operation is one atomic on that word (arrive-on: a compare-and-swap loop that counts down
//! and, at zero, flips the phase and reloads the pending count from the expected count:
//! §9.7.14.15.6's "performed atomically"). Counts are limited to 32,767 (the ISA allows
//! 2^20 - 1): a larger count, a zero one, or an arrive-on with more than the pending arrivals
//! records `abi::FAULT_BARRIER_COUNT` and changes nothing. The state token that `arrive`
//! returns is the word before the arrive-on (zero-extended): its bit 31 is the phase it
//! counted toward, bits 0-14 the pending count before it (what `pending_count` returns).
//! A phase of parity p has completed when the word's phase bit is no longer p: exact for the
//! current and the immediately preceding phase, the two §9.7.14.15.16 allows.
//!
//! **Waiting** is a point of the CTA barrier scheduler (`scheduler`, docs/simt.md): Vulkan and
//! WGSL give the invocations of a workgroup no forward progress relative to each other, so a
//! thread spinning on the word could wait forever for a thread that never runs. A kernel with
//! a wait is lowered in scheduler mode, where the waiting thread parks and every other thread
//! runs to its next point; after each round's workgroup barrier (which orders shared and
//! global memory: the arrive's release and the wait's acquire, §9.7.14.15.16's orderings 1-2)
//! the waiter reads the word and runs again once its phase has completed. So a wait returns
//! True, always, once the phase completed: `try_wait` is allowed to suspend that long, and a
//! `test_wait` that runs later than on a GPU is one schedule of the program — except where
//! the phase can only complete after this thread goes on (it must arrive itself after a
//! False): then no thread can move and the launch ends with `abi::FAULT_BARRIER_DEADLOCK` at
//! the wait, never a hang or a wrong value. Waits in a `.func` inline it (`call`).
//!
//! **Not supported** (refused by name): the tx-count (`expect_tx`, `complete_tx`,
//! `.expect_tx` arrives: sm_90 asynchronous transactions), objects in `.shared::cluster`
//! (another CTA's shared memory), `.relaxed` waits (PTX 8.6; not in the 8.5 text).

use super::{operands, Mods};
use crate::abi;
use crate::function::{unsupported, FnLower, LResult, Space};
use crate::ir::{BinaryOp, Block, CmpOp, Expr, Memory, Operand, Stmt, Ty};
use ptxcross_frontend::ast::{self, Instruction, ScalarType};
use ptxcross_frontend::Diagnostic;

const COUNT_MASK: u32 = 0x7fff;
const EXPECTED_SHIFT: u32 = 15;
const PHASE_SHIFT: u32 = 31;
/// The largest expected or pending count the layout holds.
const MAX_COUNT: u32 = COUNT_MASK;

const OPS: [&str; 9] = ["init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait", "pending_count", "expect_tx", "complete_tx"];

/// Whether `inst` waits for a phase (`test_wait`/`try_wait`): a point of the CTA barrier
/// scheduler, so its function must be lowered where it runs (`call`).
pub(crate) fn waits(inst: &Instruction) -> bool {
    inst.opcode.name == "mbarrier" && inst.modifiers.iter().any(|m| m.text == "test_wait" || m.text == "try_wait")
}

impl FnLower {
    pub(super) fn mbarrier(&mut self, m: &Mods) -> LResult<()> {
        let span = m.inst.span;
        let Some(op) = m.one_of(&OPS) else {
            return Err(unsupported(format!("`{}`", m.name()), span));
        };
        if m.has("expect_tx") || m.has("complete_tx") {
            return Err(unsupported(
                format!("`{}`: the mbarrier tx-count (sm_90 asynchronous transactions)", m.name()),
                span,
            ));
        }
        if m.has("shared::cluster") {
            return Err(unsupported(format!("`{}` on a `.shared::cluster` mbarrier (another CTA's object)", m.name()), span));
        }
        let mut allowed = vec![op, "shared", "shared::cta"];
        match op {
            "arrive" | "arrive_drop" => allowed.extend(["noComplete", "release", "cta", "cluster"]),
            "test_wait" | "try_wait" => allowed.extend(["parity", "acquire", "cta", "cluster"]),
            _ => {}
        }
        m.only(&allowed)?;
        if m.ty()? != ScalarType::B64 {
            return Err(Diagnostic::new(format!("`{}` takes .b64 (§9.7.14.15)", m.name()), span));
        }
        match op {
            "pending_count" => self.mbarrier_pending_count(m),
            "init" => {
                let [addr, count] = operands(m.inst, 2)? else { unreachable!() };
                let count = self.read(count, ScalarType::U32)?;
                let ok = self.count_ok(count);
                let expected = self.bin(BinaryOp::Shl, Ty::U32, count, FnLower::u32c(EXPECTED_SHIFT));
                let word = self.bin(BinaryOp::Or, Ty::U32, expected, count);
                self.on_object(m, addr, |s, idx| {
                    let store = s.collect(|s| {
                        s.push(Stmt::StoreWord { memory: Memory::Shared, index: idx, value: word });
                        let next = s.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(1));
                        s.push(Stmt::StoreWord { memory: Memory::Shared, index: next, value: FnLower::u32c(0) });
                        Ok(())
                    })?;
                    s.emit_if(ok, store, count_fault());
                    Ok(())
                })
            }
            "inval" => {
                let [addr] = operands(m.inst, 1)? else { unreachable!() };
                self.on_object(m, addr, |s, idx| {
                    s.push(Stmt::StoreWord { memory: Memory::Shared, index: idx, value: FnLower::u32c(0) });
                    Ok(())
                })
            }
            "arrive" | "arrive_drop" => {
                let (dst, addr, count) = match m.inst.operands.as_slice() {
                    [d, a] => (d, a, None),
                    [d, a, c] => (d, a, Some(c)),
                    _ => return Err(Diagnostic::new(format!("`{}` takes state, [addr]{{, count}}", m.name()), span)),
                };
                let count = match count {
                    Some(c) => self.read(c, ScalarType::U32)?,
                    None => FnLower::u32c(1),
                };
                let token = self.arrive_on(m, addr, count, op == "arrive_drop")?;
                self.write(dst, ScalarType::B64, token)
            }
            _ => self.mbarrier_wait(m, op == "try_wait"),
        }
    }

    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]` (§9.7.14.15.15): the
    /// arrive-on happens when this thread's earlier `cp.async` copies complete, and here they
    /// completed when they ran (`FnLower::cp_async` copies at once). Without `.noinc` the
    /// pending count is first raised by one, so the two cancel: nothing changes; with
    /// `.noinc` it is an arrive-on with count 1.
    pub(super) fn cp_async_mbarrier_arrive(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["async", "mbarrier", "arrive", "noinc", "shared", "shared::cta"])?;
        if !m.has("arrive") || m.ty()? != ScalarType::B64 {
            return Err(unsupported(format!("`{}`", m.name()), m.inst.span));
        }
        let [addr] = operands(m.inst, 1)? else { unreachable!() };
        if m.has("noinc") {
            self.arrive_on(m, addr, FnLower::u32c(1), false)?;
            return Ok(());
        }
        // Still checked: the address must be a shared-memory mbarrier.
        self.on_object(m, addr, |_, _| Ok(()))
    }

    /// `fence.mbarrier_init.release.cluster` (§9.7.13.4, sm_90): orders this thread's earlier
    /// `mbarrier.init`s before its later accesses, for the cluster (here a single CTA: the
    /// CTA's threads). Lowered as the CTA-scope fence (`fence.acq_rel.cta`) it is part of.
    pub(super) fn fence_mbarrier_init(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["mbarrier_init", "release", "cluster"])?;
        operands(m.inst, 0)?;
        self.cta_fence(m.inst.span);
        Ok(())
    }

    /// `mbarrier.pending_count.b64 count, state` (§9.7.14.15.17): the pending count before
    /// the arrive-on that returned `state`.
    fn mbarrier_pending_count(&mut self, m: &Mods) -> LResult<()> {
        let [dst, state] = operands(m.inst, 2)? else { unreachable!() };
        let state = self.read(state, ScalarType::B64)?;
        let low = self.resize(state, Ty::U64, Ty::U32, false);
        let pending = self.bin(BinaryOp::And, Ty::U32, low, FnLower::u32c(COUNT_MASK));
        self.write(dst, ScalarType::U32, pending)
    }

    /// `test_wait`/`try_wait{.parity}` (§9.7.14.15.16): a scheduler point (module comment).
    fn mbarrier_wait(&mut self, m: &Mods, try_wait: bool) -> LResult<()> {
        let ops = m.inst.operands.as_slice();
        let (dst, addr, state) = match ops {
            [d, a, s] => (d, a, s),
            [d, a, s, hint] if try_wait => {
                // suspendTimeHint: a bound on the suspension, which ends at completion here.
                self.read(hint, ScalarType::U32)?;
                (d, a, s)
            }
            _ => return Err(Diagnostic::new(format!("`{}` takes waitComplete, [addr], state", m.name()), m.inst.span)),
        };
        let parity = if m.has("parity") {
            let p = self.read(state, ScalarType::U32)?;
            self.bin(BinaryOp::And, Ty::U32, p, FnLower::u32c(1))
        } else {
            let token = self.read(state, ScalarType::B64)?;
            let low = self.resize(token, Ty::U64, Ty::U32, false);
            self.bin(BinaryOp::ShrU, Ty::U32, low, FnLower::u32c(PHASE_SHIFT))
        };
        if !self.scheduler {
            // Nothing emitted: the kernel is lowered again with the scheduler.
            self.needs_scheduler.get_or_insert(m.inst.span);
            return self.write(dst, ScalarType::Pred, Operand::Const(crate::ir::Const::Bool(true)));
        }
        let word = self.new_var(Ty::U32, "mbarrier word");
        let valid = self.new_var(Ty::Bool, "mbarrier address valid");
        self.assign(valid, Expr::Use(Operand::Const(crate::ir::Const::Bool(false))));
        self.assign(word, Expr::Use(FnLower::u32c(0)));
        self.on_object(m, addr, |s, idx| {
            s.assign(word, Expr::Use(idx));
            s.assign(valid, Expr::Use(Operand::Const(crate::ir::Const::Bool(true))));
            Ok(())
        })?;
        // A point ends its block: a bad address (its fault recorded) does not wait.
        let (wait, join) = (self.new_node(), self.new_node());
        self.terminate(crate::cfg::Terminator::Branch { cond: Operand::Var(valid), then_target: wait, else_target: join }, wait);
        self.mbarrier_point(m.inst, Operand::Var(word), parity);
        self.terminate(crate::cfg::Terminator::Jump(join), join);
        // Resumed: the phase has completed.
        self.write(dst, ScalarType::Pred, Operand::Const(crate::ir::Const::Bool(true)))
    }

    /// An arrive-on with `count` (with `drop`, also lowering the expected count: `arrive_drop`)
    /// on the object at `addr`; yields the state token (the word before it, as .b64).
    fn arrive_on(&mut self, m: &Mods, addr: &ast::Operand, count: Operand, drop: bool) -> LResult<Operand> {
        let token = self.new_var(Ty::U32, "mbarrier state");
        self.assign(token, Expr::Use(FnLower::u32c(0)));
        let count_ok = self.count_ok(count);
        self.on_object(m, addr, |s, idx| {
            let bad = s.new_var(Ty::Bool, "mbarrier over-arrival");
            s.assign(bad, Expr::Use(Operand::Const(crate::ir::Const::Bool(false))));
            let old = s.cas_loop(Memory::Shared, idx, |s, old| {
                let pending = s.bin(BinaryOp::And, Ty::U32, old, FnLower::u32c(COUNT_MASK));
                let shifted = s.bin(BinaryOp::ShrU, Ty::U32, old, FnLower::u32c(EXPECTED_SHIFT));
                let expected = s.bin(BinaryOp::And, Ty::U32, shifted, FnLower::u32c(COUNT_MASK));
                let phase = s.bin(BinaryOp::And, Ty::U32, old, FnLower::u32c(1 << PHASE_SHIFT));
                let enough = s.cmp(CmpOp::LeU, Ty::U32, count, pending);
                let fine = s.bin(BinaryOp::And, Ty::Bool, enough, count_ok);
                let over = s.un(crate::ir::UnaryOp::Not, Ty::Bool, fine);
                s.assign(bad, Expr::Use(over));
                let expected = if drop {
                    let e = s.bin(BinaryOp::Sub, Ty::U32, expected, count);
                    s.bin(BinaryOp::And, Ty::U32, e, FnLower::u32c(COUNT_MASK))
                } else {
                    expected
                };
                let left = s.bin(BinaryOp::Sub, Ty::U32, pending, count);
                // §9.7.14.15.6: at zero the phase completes, and the pending count is
                // reinitialized to the expected count.
                let done = s.cmp(CmpOp::Eq, Ty::U32, left, FnLower::u32c(0));
                let flipped = s.bin(BinaryOp::Xor, Ty::U32, phase, FnLower::u32c(1 << PHASE_SHIFT));
                let phase = s.select(Ty::U32, done, flipped, phase);
                let pending = s.select(Ty::U32, done, expected, left);
                let e = s.bin(BinaryOp::Shl, Ty::U32, expected, FnLower::u32c(EXPECTED_SHIFT));
                let new = s.bin(BinaryOp::Or, Ty::U32, phase, e);
                let new = s.bin(BinaryOp::Or, Ty::U32, new, pending);
                s.select(Ty::U32, fine, new, old)
            });
            s.assign(token, Expr::Use(old));
            s.emit_if(Operand::Var(bad), count_fault(), Block::new());
            Ok(())
        })?;
        if self.scheduler {
            self.mbarrier_changed();
        }
        Ok(self.resize(Operand::Var(token), Ty::U32, Ty::U64, false))
    }

    /// Whether `count` is one the object holds (1 to [`MAX_COUNT`]).
    fn count_ok(&mut self, count: Operand) -> Operand {
        let less = self.bin(BinaryOp::Sub, Ty::U32, count, FnLower::u32c(1));
        self.cmp(CmpOp::LtU, Ty::U32, less, FnLower::u32c(MAX_COUNT))
    }

    /// Runs `f` with the shared word index of the mbarrier object at `addr` (`.shared{::cta}`
    /// or generic): an address outside shared memory records `FAULT_SHARED_OUT_OF_RANGE`
    /// (§9.7.14.15.9: undefined), one not 8-aligned `FAULT_MISALIGNED` (§9.7.14.15.1); neither
    /// runs `f`.
    fn on_object(&mut self, m: &Mods, addr: &ast::Operand, mut f: impl FnMut(&mut Self, Operand) -> LResult<()>) -> LResult<()> {
        let space = if m.has("shared") || m.has("shared::cta") { Space::Shared } else { Space::Generic };
        let place = self.place(addr, space)?;
        self.on_place(place, |s, mem, off| {
            if mem != Memory::Shared {
                s.push(Stmt::Fault { code: abi::FAULT_SHARED_OUT_OF_RANGE });
                return Ok(());
            }
            let body = s.collect(|s| {
                let idx = s.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
                f(s, idx)
            })?;
            let mis = s.misaligned(off, 8);
            s.emit_if(mis, Block { stmts: vec![Stmt::Fault { code: abi::FAULT_MISALIGNED }] }, body);
            Ok(())
        })
    }
}

fn count_fault() -> Block {
    Block { stmts: vec![Stmt::Fault { code: abi::FAULT_BARRIER_COUNT }] }
}
