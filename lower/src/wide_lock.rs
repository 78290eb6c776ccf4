//! Strong 16-byte `ld`/`st` (`.relaxed`/`.volatile`/`.acquire`/`.release` of `.v2.u64`,
//! `.v2.f64`, `.v4.u32`, `.v4.f32`, `.v8.b16`, `.b128`) and `atom.cas/exch.b128` made
//! single-copy atomic with a lock per location. PTX performs such an access whole (ISA 8.5 §8.10.3; NVIDIA does, and CUB's
//! decoupled look-back keeps `{status, value}` tile descriptors of 8-byte scan values in
//! `ld/st.relaxed.gpu.v2.u64`), but Vulkan and WGSL have no atomic wider than 8 bytes.
//!
//! The locks are [`LOCK_WORDS`] words of the module's globals segment ([`REGION_NAME`],
//! reserved like the printf buffer when the module has such an access: [`module_needs_locks`]).
//! Isolation: the segment lies in the heap of one context, which no other context can address,
//! and the kernels of other modules never compute its address (the name has `::`, which no PTX
//! identifier has). One table per module is enough because the host runs the launches of a
//! context in order (`Context::launch_async`: "Launches run in order"), so the kernels racing
//! on a location are the threads of one launch, which all use this module's table.
//!
//! An access hashes its 16-byte granule (for shared memory with the CTA, whose memory it is)
//! to a lock word and runs
//! `loop { if CAS(lock, 0 → 1) == 0 { fence; access; fence; lock = 0; done = true } …;
//! if done { break } }`: the critical section is inside the iteration that won the lock, so
//! lanes of one subgroup that run in lockstep cannot deadlock (the winner finishes its section
//! while the others are masked off), and nothing in the section waits. The `break` is not in
//! the section's `if`: written there, NVIDIA's Vulkan driver apparently kept the winner from
//! unlocking while lanes of its subgroup spun (on an H200 every 16-byte test faulted with
//! `FAULT_LOCK_SPIN` or hung; with the exit at the loop's level they pass: `docs/nvidia.md`).
//! The fences (`Stmt::Fence`, device scope) make the compare-exchange an acquire and the
//! unlock a release: two locked accesses of one location are ordered, each seeing all or none
//! of the other's words. Only 16-byte strong accesses take the lock; a mixed-size access
//! overlapping one is not morally strong with it (§8.6), so PTX promises no atomicity between
//! them either.
//!
//! A thread that lost the compare-exchange reads the lock word [`POLLS`] times before it
//! tries again. A lock still held after [`SPIN_LIMIT`] tries (left held by a launch stopped
//! mid-section, or a driver that cut the loop: lavapipe ends loops after 65,535 back-edges)
//! faults with `abi::FAULT_LOCK_SPIN` instead of hanging or skipping the access silently.
//!
//! WGSL has no fence outside a barrier (its atomics are relaxed), so a lock cannot order the
//! data there: the WGSL backend refuses the kernel's fences, naming this instruction.

use crate::function::{FnLower, LResult, Symbol};
use crate::ir::{AtomicOp, BinaryOp, Block, Builtin, CmpOp, Const, Expr, Memory, Operand, Scope, Stmt, Ty};
use ptxcross_frontend::ast::{self, ScalarType, Statement};
use ptxcross_frontend::Diagnostic;

/// The lock table's name among the globals' places: `::` is in no PTX identifier.
pub const REGION_NAME: &str = "ptxcross::locks16";
/// log2 of the number of lock words.
const LOCK_BITS: u32 = 12;
/// Lock words: 4 Ki, so unrelated locations rarely share one (which costs waiting, never
/// correctness).
pub const LOCK_WORDS: u32 = 1 << LOCK_BITS;
/// Bytes of the table.
pub const REGION_BYTES: u64 = 4 * LOCK_WORDS as u64;
/// Compare-exchanges a thread tries before it gives up with a fault: far more than a section
/// of a few atomics ever holds a lock, even with thousands of threads contending.
pub const SPIN_LIMIT: u32 = 1 << 16;
/// Relaxed reads of the lock word after a lost compare-exchange, straight-line (no loop): they
/// stretch each try in time without adding back-edges, so a holder that is briefly not
/// running (a CPU driver's thread preempted by the OS in its section: lavapipe, which also
/// ends loops after 65,535 back-edges) is waited for rather than reported.
const POLLS: u32 = 16;

/// Whether the module has an `ld`/`st` that may be a strong 16-byte access of memory other
/// threads can write, or an `atom.b128` (then its globals get the lock table). A superset is
/// harmless (16 KiB).
pub fn module_needs_locks(items: &[ast::Item]) -> bool {
    fn any(stmts: &[Statement]) -> bool {
        stmts.iter().any(|s| match s {
            Statement::Instruction(i) => needs_lock(i),
            Statement::Block(b, _) => any(b),
            _ => false,
        })
    }
    items.iter().any(|i| matches!(i, ast::Item::Function(f) if f.body.as_deref().is_some_and(any)))
}

/// `ld`/`st` of 16 bytes or more with a strong qualifier, outside local/param/const space;
/// `atom.b128`.
fn needs_lock(i: &ast::Instruction) -> bool {
    let has = |m: &str| i.modifiers.iter().any(|x| x.text == m);
    if &*i.opcode.name == "atom" {
        return has("b128");
    }
    let elements = [("v2", 2), ("v4", 4), ("v8", 8)].iter().find(|(v, _)| has(v)).map_or(1, |&(_, n)| n);
    let bytes = i.modifiers.iter().find_map(|m| ScalarType::from_suffix(&m.text)).map_or(0, |t| t.size_bytes());
    matches!(&*i.opcode.name, "ld" | "st")
        && elements * bytes >= 16
        && ["volatile", "relaxed", "acquire", "release"].iter().any(|q| has(q))
        && !["local", "param", "param::entry", "param::func", "const"].iter().any(|q| has(q))
}

/// Whether a strong 16-byte access to `mem` takes a lock: global and shared memory, which
/// other threads write. Local memory is the thread's own; parameters are read-only.
pub fn locked_memory(mem: Memory) -> bool {
    mem.is_heap() || mem == Memory::Shared
}

impl FnLower {
    /// Emits `access` (the 16 bytes' loads or stores at byte `off` of `mem`) under the lock of
    /// that location; see the module comment. `access` runs once, inside the won iteration.
    pub(crate) fn locked_wide_access(&mut self, mem: Memory, off: Operand, access: impl FnOnce(&mut Self) -> LResult<()>) -> LResult<()> {
        let region = match self.lookup(REGION_NAME) {
            Some(&Symbol::Global { offset }) => offset,
            _ => {
                return Err(Diagnostic::new(
                    "internal: a strong 16-byte access in a module whose globals have no lock table",
                    self.inst_span.unwrap_or_default(),
                ))
            }
        };
        if self.wide_lock_site.is_none() {
            self.wide_lock_site = self.inst_span;
        }
        let lock_at = self.lock_address(mem, off, region);
        let done = self.new_var(Ty::Bool, "wide access done");
        let spins = self.new_var(Ty::U32, "lock tries");
        self.assign(done, Expr::Use(Operand::Const(Const::Bool(false))));
        self.assign(spins, Expr::Use(FnLower::u32c(0)));
        let body = self.collect(|s| {
            let old = s.global_atomic_word(lock_at, AtomicOp::CompareExchange, FnLower::u32c(1), Some(FnLower::u32c(0)))?;
            let won = s.cmp(CmpOp::Eq, Ty::U32, old, FnLower::u32c(0));
            let section = s.collect(|s| {
                // Acquire: nothing of the section may be seen before the lock is ours.
                s.push(Stmt::Fence { scope: Scope::Device });
                access(s)?;
                // Release: the section's accesses are done before the lock is free.
                s.push(Stmt::Fence { scope: Scope::Device });
                s.global_atomic_word(lock_at, AtomicOp::Exchange, FnLower::u32c(0), None)?;
                s.assign(done, Expr::Use(Operand::Const(Const::Bool(true))));
                Ok(())
            })?;
            let wait = s.collect(|s| {
                for _ in 0..POLLS {
                    s.global_atomic_word(lock_at, AtomicOp::Or, FnLower::u32c(0), None)?;
                }
                Ok(())
            })?;
            s.emit_if(won, section, wait);
            // The winner leaves at the loop's top level, not from inside the section's `if`:
            // NVIDIA's Vulkan driver (H200, 580.159) compiled a `break` inside the `if` so that
            // the lanes of a subgroup spinning on the lock kept the winner from unlocking
            // (every 16-byte test faulted with FAULT_LOCK_SPIN or ran into the test's time
            // limit); with the exit here the same tests pass there (docs/nvidia.md).
            s.emit_if(Operand::Var(done), Block { stmts: vec![Stmt::Break] }, Block::new());
            let next = s.bin(BinaryOp::Add, Ty::U32, Operand::Var(spins), FnLower::u32c(1));
            s.assign(spins, Expr::Use(next));
            let over = s.cmp(CmpOp::GeU, Ty::U32, next, FnLower::u32c(SPIN_LIMIT));
            s.emit_if(over, Block { stmts: vec![Stmt::Break] }, Block::new());
            Ok(())
        })?;
        self.push(Stmt::Loop { body });
        let failed = self.un(crate::ir::UnaryOp::Not, Ty::Bool, Operand::Var(done));
        self.emit_if(failed, Block { stmts: vec![Stmt::Fault { code: crate::abi::FAULT_LOCK_SPIN }] }, Block::new());
        Ok(())
    }

    /// The global address of the lock word of the 16-byte granule at byte `off` of `mem`:
    /// Fibonacci hashing of the granule (mixed with the CTA for shared memory, so CTAs do
    /// not contend for the same offsets of their own memories).
    fn lock_address(&mut self, mem: Memory, off: Operand, region: u64) -> Operand {
        let granule = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(4));
        let key = match mem {
            Memory::Shared => {
                let cta = self.value(Ty::U32, Expr::Builtin(Builtin::CtaId(0)));
                let cta = self.bin(BinaryOp::Mul, Ty::U32, cta, FnLower::u32c(0x85eb_ca6b));
                self.bin(BinaryOp::Xor, Ty::U32, granule, cta)
            }
            _ => granule,
        };
        let h = self.bin(BinaryOp::Mul, Ty::U32, key, FnLower::u32c(0x9e37_79b9));
        let slot = self.bin(BinaryOp::ShrU, Ty::U32, h, FnLower::u32c(32 - LOCK_BITS - 2));
        let byte = self.bin(BinaryOp::And, Ty::U32, slot, FnLower::u32c((LOCK_WORDS - 1) << 2));
        let byte = self.resize(byte, Ty::U32, Ty::U64, false);
        let base = self.globals_base();
        let table = self.bin(BinaryOp::Add, Ty::U64, base, FnLower::u64c(region));
        self.bin(BinaryOp::Add, Ty::U64, table, byte)
    }
}
