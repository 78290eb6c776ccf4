//! Local memory in a scratch buffer instead of a per-invocation private array.
//!
//! Why: drivers compile a dynamically indexed private array of a few KiB very slowly. lavapipe
//! (Mesa 22.3.6) took 15 s (SPIR-V) / 67 s (WGSL) to create the pipeline of a kernel with 1 KiB
//! of `.local` per thread, and minutes at 4 KiB (issue 7; numbers in the README), before any
//! timeout applies. Real kernels have kilobytes of local memory (register spills, local arrays,
//! `-G` builds, the 1 KiB call stack of `call.rs`). CUDA keeps local memory in device memory,
//! one slice per thread; so does this pass: above [`crate::LowerOptions::local_scratch_bytes`]
//! the kernel's local memory becomes a slice of the context's scratch buffer
//! ([`Memory::Scratch`], binding `abi::BINDING_SCRATCH`). Small arrays stay private: drivers
//! keep those in registers, which is cheaper than memory on real GPUs.
//!
//! Slot of a thread (see `abi::BINDING_SCRATCH`): the host may run a grid as several dispatches
//! (`grid.rs`) and sizes the buffer for the blocks of *one* dispatch, so the slot is indexed by
//! the block's index within its dispatch (the raw workgroup id and count, not `%ctaid`):
//! `slot = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * T + tid_linear`, words
//! `[slot * L, slot * L + L)`. All of it fits in 32 bits because the host keeps
//! `blocks per dispatch * T * L` within the buffer, which stays below 4 GiB.
//!
//! Bounds: `Memory::Local` word `i` of a thread is valid for `i < L`. Each access becomes
//! `j = i < L ? base + i : 0xffff_ffff` and an access to scratch word `j`; `0xffff_ffff` is past
//! the end of any buffer (< 4 GiB), so the backend's bounds check faults it with
//! `abi::FAULT_LOCAL_OUT_OF_RANGE` and changes nothing, exactly as a private array did. No new
//! control flow: the SIMT and structurizer results stay valid.
//!
//! Must run after `grid::resolve_grid_builtins` (which rewrites `Builtin::CtaId` into `%ctaid`).

use crate::build::*;
use crate::ir::{BinaryOp, Block, Builtin, CmpOp, Const, Expr, Kernel, LocalPlacement, Memory, Operand, Stmt, Ty, VarId, VarInfo};

/// Local memory per thread (bytes) from which it goes to the scratch buffer by default. At 256
/// bytes lavapipe still builds a private-array pipeline in well under a second (measured, see
/// the README); 1 KiB took 15 s.
pub const DEFAULT_LOCAL_SCRATCH_BYTES: u32 = 512;

/// An index no scratch buffer reaches: the backend's bounds check turns it into a fault.
const OUT_OF_RANGE: u32 = u32::MAX;

/// Moves `k`'s local memory into the scratch buffer when it has at least `min_bytes` of it.
pub fn place_local_memory(k: &mut Kernel, min_bytes: u32) {
    if k.local_words == 0 || (k.local_words as u64) * 4 < min_bytes as u64 {
        return;
    }
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let base = new_var(Ty::U32, "local_scratch.base");
    let t = new_var(Ty::U32, "local_scratch.t");
    let (ok, index) = (new_var(Ty::Bool, "local_scratch.in_range"), new_var(Ty::U32, "local_scratch.index"));
    let [bx, by, _] = k.workgroup_size;
    let threads: u32 = k.workgroup_size.iter().product();
    let add = |dst: VarId, o: Operand| assign(dst, bin(BinaryOp::Add, Ty::U32, dst, o));
    let mul = |dst: VarId, o: Operand| assign(dst, bin(BinaryOp::Mul, Ty::U32, dst, o));
    let builtin = |dst: VarId, b: Builtin| assign(dst, Expr::Builtin(b));
    let mut prologue = vec![
        // Block index within the dispatch: (wid.z * nwg.y + wid.y) * nwg.x + wid.x.
        builtin(base, Builtin::CtaId(2)),
        builtin(t, Builtin::NumCtas(1)),
        mul(base, var(t)),
        builtin(t, Builtin::CtaId(1)),
        add(base, var(t)),
        builtin(t, Builtin::NumCtas(0)),
        mul(base, var(t)),
        builtin(t, Builtin::CtaId(0)),
        add(base, var(t)),
        // Thread index: (tid.z * ntid.y + tid.y) * ntid.x + tid.x.
        mul(base, c32(threads)),
        builtin(t, Builtin::ThreadId(2)),
        mul(t, c32(by)),
    ];
    let t2 = index; // free until the accesses use it
    prologue.extend([
        builtin(t2, Builtin::ThreadId(1)),
        add(t, var(t2)),
        mul(t, c32(bx)),
        builtin(t2, Builtin::ThreadId(0)),
        add(t, var(t2)),
        add(base, var(t)),
        mul(base, c32(k.local_words)),
    ]);
    let rw = Rewrite { base, ok, index, words: k.local_words };
    rw.block(&mut k.body);
    prologue.append(&mut k.body.stmts);
    k.body.stmts = prologue;
    k.local_placement = LocalPlacement::Scratch;
}

struct Rewrite {
    base: VarId,
    ok: VarId,
    index: VarId,
    words: u32,
}

impl Rewrite {
    /// Statements computing the scratch index of local word `i` (into `self.index`, or a
    /// constant), and that index.
    fn address(&self, i: Operand, out: &mut Vec<Stmt>) -> Operand {
        match i {
            Operand::Const(Const::U32(c)) if c < self.words => {
                out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.base, c32(c))));
                var(self.index)
            }
            Operand::Const(_) => c32(OUT_OF_RANGE),
            Operand::Var(_) => {
                out.push(assign(self.ok, cmp(CmpOp::LtU, Ty::U32, i, c32(self.words))));
                out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.base, i)));
                out.push(assign(
                    self.index,
                    Expr::Select { ty: Ty::U32, cond: var(self.ok), a: var(self.index), b: c32(OUT_OF_RANGE) },
                ));
                var(self.index)
            }
        }
    }

    fn block(&self, block: &mut Block) {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s {
                Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Local, index } } => {
                    let j = self.address(index, &mut out);
                    out.push(assign(dst, load(Memory::Scratch, j)));
                }
                Stmt::StoreWord { memory: Memory::Local, index, value } => {
                    let j = self.address(index, &mut out);
                    out.push(store(Memory::Scratch, j, value));
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
                    cases.iter_mut().for_each(|c| self.block(&mut c.body));
                    self.block(&mut default);
                    out.push(Stmt::Switch { selector, cases, default });
                }
                other => out.push(other),
            }
        }
        block.stmts = out;
    }
}
