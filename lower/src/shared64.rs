//! 64-bit atomics on shared memory whose old value is used (`atom.shared.{add,min,max,and,or,
//! xor,exch,cas}.{b64,u64,s64}`, `atom.shared.add.f64`, and generic addresses that reach shared
//! memory): the kernel's shared memory becomes an array of 64-bit doublewords.
//!
//! Why a second layout: wgpu gives a workgroup array one element type. A native 64-bit atomic
//! needs `u64` elements (SPIR-V `OpAtomic*` on a `u64` pointer, WGSL `atomic<u64>`), and the same
//! bytes are also read and written 32 bits at a time (`st.shared.u64` that initialises a
//! counter, the 32-bit view `ld.shared.u32` of it, the warp emulation's scratch words). So a
//! kernel with such an atomic declares its whole shared memory as `shared_words.div_ceil(2)`
//! doublewords and this pass rewrites every other shared access onto them (word `i` is the
//! low (`i` even) or high half of doubleword `i / 2`, little-endian as PTX's memory):
//!
//! - load of word `i`: a relaxed atomic load of its doubleword (`Expr::LoadDword`; WGSL reads
//!   `atomic<u64>` only through atomics), shifted;
//! - store of word `i`: a compare-and-swap loop replacing the half (an exchange whose old value
//!   is unused), so that it stays single-copy atomic and never touches the other half:
//!   32-bit (and, through `lower`'s word atomics, sub-word) stores of other threads to the
//!   other half are kept, and two threads storing different values to one word leave one of
//!   them, as on NVIDIA GPUs (CUDA code elects leaders that way). An `and` clearing the half
//!   then an `or` setting it would be one atomic cheaper per store, but could leave the OR of
//!   two racing values;
//! - word atomics: `and`/`or`/`xor` act on the half through a mask (`and` with the other half's
//!   bits set, `or`/`xor` with them clear), native; `add`, `exch`, `min`/`max`, `cas` are a
//!   compare-and-swap loop on the doubleword (the carry of an `add` to the low half must not
//!   reach the high half);
//! - the barrier-and-uniform-read (`SharedUniformLoad`): a barrier, then the load above (what
//!   the SPIR-V backend emits for it anyway). WGSL's `workgroupUniformLoad` would keep browsers'
//!   uniformity analysis satisfied, but browsers' WebGPU has no 64-bit atomics, so such a
//!   kernel never reaches one.
//!
//! The out-of-range rules stay the word array's: index `i >= shared_words` keeps an index that
//! is out of range for the doublewords too (`i >= div_ceil(shared_words, 2)`), so the access
//! faults and changes nothing; `abi::DISCARD_INDEX` on a store (a misaligned store `lower`
//! faulted already) becomes a store that changes nothing (a CAS of doubleword 0 with itself).
//! With an odd number of words the last doubleword's high half is padding: the program's own
//! 64-bit atomics on that doubleword get an out-of-range index, so they fault as on words.
//!
//! Options weighed (issue 10):
//! - **A second, 64-bit view of the same workgroup array** (SPIR-V
//!   `WorkgroupMemoryExplicitLayoutKHR`, aliased `Block` variables): needs the device extension
//!   `VK_KHR_workgroup_memory_explicit_layout`, which wgpu-hal does not enable (passthrough
//!   SPIR-V included), and WGSL has no aliasing at all. Not available.
//! - **A collective** (requests gathered in shared scratch, applied in lane order by one
//!   thread, barriers around): needs workgroup-uniform control flow around every such atomic
//!   (the SIMT pass's state machines) and changes forward progress: a spin lock built from
//!   `atom.shared.cas.b64` (which NVIDIA runs, each thread's loop eventually succeeding) would
//!   wait on a barrier the lock holder cannot reach. Refused.
//! - **A lock made of 32-bit atomics**: lanes of one subgroup spinning on a lock that another
//!   lane of it holds deadlock without independent forward progress (Vulkan, WebGPU); see
//!   `inst/atomic.rs`. Refused.
//! - **Doublewords (this pass)**: lock-free (each CAS loop has one winner per round), exact for
//!   every operation, and kernels without such an atomic keep today's code unchanged (the pass
//!   does nothing to them). Cost for those that have one: every other shared access becomes a
//!   64-bit atomic (an atomic load; a store an atomic load and, uncontended, one CAS; measured
//!   in the README). It needs 64-bit atomics on workgroup memory (wgpu
//!   `SHADER_INT64_ATOMIC_ALL_OPS`, which also requires Vulkan's `shaderSharedInt64Atomics`):
//!   the host refuses the launch elsewhere, and the `webgpu` WGSL profile (no 64-bit integers,
//!   `int64`) keeps refusing such an atomic.

use crate::abi;
use crate::build::*;
use crate::ir::{AtomicOp, BinaryOp, Block, CmpOp, Const, ConvertOp, Expr, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};

/// Whether `b` has a 64-bit atomic on shared memory.
fn has_shared_dword(b: &Block) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Assign { expr: Expr::AtomicDword { memory: Memory::Shared, .. }, .. } => true,
        Stmt::If { then_body, else_body, .. } => has_shared_dword(then_body) || has_shared_dword(else_body),
        Stmt::Loop { body } => has_shared_dword(body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| has_shared_dword(&c.body)) || has_shared_dword(default),
        _ => false,
    })
}

/// Rewrites every word access to shared memory in `body` onto doublewords if `body` has a
/// 64-bit atomic on shared memory (see the module comment); returns whether it did. Runs on the
/// structured body, after `simt` (whose scratch words it rewrites too) and before
/// `loop_exits` (its CAS loops have values live after them).
pub(crate) fn widen_shared(body: &mut Block, vars: &mut Vec<VarInfo>, shared_words: u32) -> bool {
    if shared_words == 0 || !has_shared_dword(body) {
        return false;
    }
    let mut w = Widen { vars, words: shared_words };
    w.block(body);
    true
}

struct Widen<'a> {
    vars: &'a mut Vec<VarInfo>,
    words: u32,
}

/// Where word `i` lives: doubleword `d`, at bit `sh` (0 or 32); `discard`: a `Bool` that is
/// true for `abi::DISCARD_INDEX` (stores only, when the index is not a constant).
struct Loc {
    d: Operand,
    sh: Operand,
    discard: Option<Operand>,
}

fn atomic(op: AtomicOp, d: Operand, value: Operand, comparand: Option<Operand>) -> Expr {
    Expr::AtomicDword { memory: Memory::Shared, op, index: d, value, comparand }
}

impl Widen<'_> {
    fn tmp(&mut self, out: &mut Vec<Stmt>, ty: Ty, name: &str, e: Expr) -> Operand {
        self.vars.push(VarInfo { ty, name: format!("shared64.{name}").into() });
        let v = VarId(self.vars.len() as u32 - 1);
        out.push(assign(v, e));
        Operand::Var(v)
    }

    fn block(&mut self, b: &mut Block) {
        let stmts = std::mem::take(&mut b.stmts);
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s {
                Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Shared, index } } => {
                    let loc = self.locate(&mut out, index, false);
                    self.load(&mut out, dst, &loc);
                }
                Stmt::Assign { dst, expr: Expr::SharedUniformLoad { index } } => {
                    // Every invocation reaches it in uniform control flow, with an index in
                    // range (`Expr::SharedUniformLoad`'s preconditions): so does the barrier.
                    out.push(Stmt::Barrier);
                    let loc = self.locate(&mut out, index, false);
                    self.load(&mut out, dst, &loc);
                }
                Stmt::StoreWord { memory: Memory::Shared, index, value } => {
                    if index == Operand::Const(Const::U32(abi::DISCARD_INDEX)) {
                        continue;
                    }
                    let loc = self.locate(&mut out, index, true);
                    self.store(&mut out, &loc, value);
                }
                // A 64-bit atomic of the PTX program: with an odd number of words, the last
                // doubleword's high half lies past the end of shared memory, so the atomic
                // faults there as it would on words (§9.7.14.5's 8 bytes must all exist).
                Stmt::Assign { dst, expr: Expr::AtomicDword { memory: Memory::Shared, op, index, value, comparand } }
                    if self.words % 2 == 1 =>
                {
                    let index = match index {
                        Operand::Const(Const::U32(d)) => c32(if d < self.words / 2 { d } else { u32::MAX }),
                        d => {
                            let whole = self.tmp(&mut out, Ty::Bool, "whole", cmp(CmpOp::LtU, Ty::U32, d, c32(self.words / 2)));
                            self.tmp(&mut out, Ty::U32, "dword", Expr::Select { ty: Ty::U32, cond: whole, a: d, b: c32(u32::MAX) })
                        }
                    };
                    out.push(assign(dst, atomic(op, index, value, comparand)));
                }
                Stmt::Assign { dst, expr: Expr::AtomicWord { memory: Memory::Shared, op, index, value, comparand } } => {
                    let loc = self.locate(&mut out, index, false);
                    self.atomic_word(&mut out, dst, &loc, op, value, comparand);
                }
                Stmt::If { cond, mut then_body, mut else_body } => {
                    self.block(&mut then_body);
                    self.block(&mut else_body);
                    out.push(Stmt::If { cond, then_body, else_body });
                }
                Stmt::Loop { mut body } => {
                    self.block(&mut body);
                    out.push(Stmt::Loop { body });
                }
                Stmt::Switch { selector, mut cases, mut default } => {
                    for c in &mut cases {
                        self.block(&mut c.body);
                    }
                    self.block(&mut default);
                    out.push(Stmt::Switch { selector, cases, default });
                }
                s => out.push(s),
            }
        }
        b.stmts = out;
    }

    fn locate(&mut self, out: &mut Vec<Stmt>, i: Operand, store: bool) -> Loc {
        if let Operand::Const(Const::U32(i)) = i {
            // In range: folded. Out of range: `i` itself, out of range for the doublewords too.
            let d = if i < self.words { i / 2 } else { i };
            return Loc { d: c32(d), sh: c32((i & 1) * 32), discard: None };
        }
        let inside = self.tmp(out, Ty::Bool, "inside", cmp(CmpOp::LtU, Ty::U32, i, c32(self.words)));
        let half = self.tmp(out, Ty::U32, "dword", bin(BinaryOp::ShrU, Ty::U32, i, c32(1)));
        let odd = self.tmp(out, Ty::U32, "odd", bin(BinaryOp::And, Ty::U32, i, c32(1)));
        let sh = self.tmp(out, Ty::U32, "shift", bin(BinaryOp::Shl, Ty::U32, odd, c32(5)));
        let (other, discard) = if store {
            let discard = self.tmp(out, Ty::Bool, "discard", cmp(CmpOp::Eq, Ty::U32, i, c32(abi::DISCARD_INDEX)));
            let other = self.tmp(out, Ty::U32, "dword", Expr::Select { ty: Ty::U32, cond: discard, a: c32(0), b: i });
            (other, Some(discard))
        } else {
            (i, None)
        };
        let d = self.tmp(out, Ty::U32, "dword", Expr::Select { ty: Ty::U32, cond: inside, a: half, b: other });
        Loc { d, sh, discard }
    }

    /// `dst = word at loc`.
    fn load(&mut self, out: &mut Vec<Stmt>, dst: VarId, loc: &Loc) {
        let dw = self.tmp(out, Ty::U64, "old", Expr::LoadDword { memory: Memory::Shared, index: loc.d });
        self.half_into(out, dst, dw, loc);
    }

    /// `dst = the half of doubleword `dw` that loc names`.
    fn half_into(&mut self, out: &mut Vec<Stmt>, dst: VarId, dw: Operand, loc: &Loc) {
        let s = self.tmp(out, Ty::U64, "half", bin(BinaryOp::ShrU, Ty::U64, dw, loc.sh));
        out.push(assign(dst, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, s)));
    }

    /// The mask of loc's half in its doubleword.
    fn mask(&mut self, out: &mut Vec<Stmt>, loc: &Loc) -> Operand {
        self.tmp(out, Ty::U64, "mask", bin(BinaryOp::Shl, Ty::U64, c64(0xffff_ffff), loc.sh))
    }

    /// `value` (U32) moved into loc's half, zero elsewhere.
    fn placed(&mut self, out: &mut Vec<Stmt>, value: Operand, loc: &Loc) -> Operand {
        if let Operand::Const(Const::U32(v)) = value {
            if let Operand::Const(Const::U32(sh)) = loc.sh {
                return c64((v as u64) << sh);
            }
        }
        let v = self.tmp(out, Ty::U64, "value", conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, value));
        self.tmp(out, Ty::U64, "value", bin(BinaryOp::Shl, Ty::U64, v, loc.sh))
    }

    /// A store is an exchange of the half whose old value nobody reads: a CAS loop, so that it
    /// is single-copy atomic like the word store it replaces. (An `and` clearing the half, then
    /// an `or` setting it, would not be: two threads storing different values to one word,
    /// which CUDA code does to elect a leader, could leave the OR of both values, which neither
    /// stored.)
    fn store(&mut self, out: &mut Vec<Stmt>, loc: &Loc, value: Operand) {
        self.vars.push(VarInfo { ty: Ty::U32, name: "shared64.unused".into() });
        let dst = VarId(self.vars.len() as u32 - 1);
        self.cas_loop(out, dst, loc, AtomicOp::Exchange, value, None);
    }

    /// `dst = AtomicWord(op, loc, value, comparand)` on the doubleword.
    fn atomic_word(&mut self, out: &mut Vec<Stmt>, dst: VarId, loc: &Loc, op: AtomicOp, value: Operand, comparand: Option<Operand>) {
        match op {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => {
                let mut v = self.placed(out, value, loc);
                if op == AtomicOp::And {
                    // The other half's bits set: `and` leaves it as it is.
                    let m = self.mask(out, loc);
                    let other = self.tmp(out, Ty::U64, "keep", un(UnaryOp::Not, Ty::U64, m));
                    v = self.tmp(out, Ty::U64, "value", bin(BinaryOp::Or, Ty::U64, v, other));
                }
                let old = self.tmp(out, Ty::U64, "old", atomic(op, loc.d, v, None));
                self.half_into(out, dst, old, loc);
            }
            _ => self.cas_loop(out, dst, loc, op, value, comparand),
        }
    }

    /// `old = atomic read; loop { new = old with its half replaced by op(half); seen = CAS(old
    /// → new); if seen == old break; old = seen }`; `dst` = old's half. Lock-free: some
    /// invocation's CAS succeeds in every round.
    fn cas_loop(&mut self, out: &mut Vec<Stmt>, dst: VarId, loc: &Loc, op: AtomicOp, value: Operand, comparand: Option<Operand>) {
        let m = self.mask(out, loc);
        let keep = self.tmp(out, Ty::U64, "keep", un(UnaryOp::Not, Ty::U64, m));
        let old = self.tmp(out, Ty::U64, "old", Expr::LoadDword { memory: Memory::Shared, index: loc.d });
        let Operand::Var(old_var) = old else { unreachable!("tmp gives a variable") };
        let mut body = Vec::new();
        let s = self.tmp(&mut body, Ty::U64, "half", bin(BinaryOp::ShrU, Ty::U64, old, loc.sh));
        let x = self.tmp(&mut body, Ty::U32, "word", conv(ConvertOp::Truncate, Ty::U64, Ty::U32, s));
        let new = match op {
            AtomicOp::Add => self.tmp(&mut body, Ty::U32, "new", bin(BinaryOp::Add, Ty::U32, x, value)),
            AtomicOp::Sub => self.tmp(&mut body, Ty::U32, "new", bin(BinaryOp::Sub, Ty::U32, x, value)),
            AtomicOp::Exchange => value,
            AtomicOp::MinU | AtomicOp::MaxU | AtomicOp::MinS | AtomicOp::MaxS => {
                let c = match op {
                    AtomicOp::MinU => CmpOp::LtU,
                    AtomicOp::MaxU => CmpOp::GtU,
                    AtomicOp::MinS => CmpOp::LtS,
                    _ => CmpOp::GtS,
                };
                let better = self.tmp(&mut body, Ty::Bool, "better", cmp(c, Ty::U32, value, x));
                self.tmp(&mut body, Ty::U32, "new", Expr::Select { ty: Ty::U32, cond: better, a: value, b: x })
            }
            AtomicOp::CompareExchange => {
                // `comparand` is the expected old word, `value` the new one (ir::Expr::AtomicWord).
                let c = comparand.unwrap_or(c32(0));
                let eq = self.tmp(&mut body, Ty::Bool, "match", cmp(CmpOp::Eq, Ty::U32, x, c));
                self.tmp(&mut body, Ty::U32, "new", Expr::Select { ty: Ty::U32, cond: eq, a: value, b: x })
            }
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => unreachable!("native on the doubleword"),
        };
        // `abi::DISCARD_INDEX` (a store only): the doubleword 0 it addresses stays as it is.
        let new = match loc.discard {
            Some(discard) => self.tmp(&mut body, Ty::U32, "new", Expr::Select { ty: Ty::U32, cond: discard, a: x, b: new }),
            None => new,
        };
        let kept = self.tmp(&mut body, Ty::U64, "kept", bin(BinaryOp::And, Ty::U64, old, keep));
        let placed = self.placed(&mut body, new, loc);
        let new64 = self.tmp(&mut body, Ty::U64, "new", bin(BinaryOp::Or, Ty::U64, kept, placed));
        let seen = self.tmp(&mut body, Ty::U64, "seen", atomic(AtomicOp::CompareExchange, loc.d, new64, Some(old)));
        let done = self.tmp(&mut body, Ty::Bool, "done", cmp(CmpOp::Eq, Ty::U64, seen, old));
        body.push(if_(done, vec![Stmt::Break], vec![]));
        body.push(copy(old_var, seen));
        out.push(loop_(body));
        self.half_into(out, dst, old, loc);
    }
}
