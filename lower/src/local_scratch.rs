//! Local memory in a scratch buffer instead of a per-invocation private array.
//!
//! Why: drivers compile a dynamically indexed private array of a few KiB very slowly. lavapipe
//! (Mesa 22.3.6) took 2.3 s to create the pipeline of an nvcc kernel with 1 KiB of `.local` per
//! thread, 100 s at 4 KiB and 569 s at 8 KiB (SPIR-V; in the scratch buffer: 0.2 s each; the
//! README has the table), before any timeout applies. Real kernels have kilobytes of local memory (register spills, local arrays,
//! `-G` builds, the 1 KiB call stack of `call.rs`). CUDA keeps local memory in device memory,
//! one slice per thread; so does this pass: above [`crate::LowerOptions::local_scratch_bytes`]
//! the kernel's local memory becomes a slice of the context's scratch buffer
//! ([`Memory::Scratch`], binding `abi::BINDING_SCRATCH`). Small arrays stay private: drivers
//! keep those in registers, which is cheaper than memory on real GPUs.
//!
//! Slot of a thread (see `abi::BINDING_SCRATCH`): the host may run a grid as several dispatches
//! (`grid.rs`) and sizes the buffer for the blocks of *one* dispatch, so the block's part is
//! indexed by the block's index within its dispatch (the raw workgroup id and count, not
//! `%ctaid`): `b = wid.x + nwg.x * (wid.y + nwg.y * wid.z)`, words `[b * R, b * R + R)` with
//! `R = X + T * L`: first the `X` words of the block's warp matrix exchange
//! (`ir::Features::scratch_exchange_words`, usually 0), then thread `t`'s slice at
//! `b * R + X + t * L`. All of it fits in 32 bits because the host keeps
//! `blocks per dispatch * R` within the buffer, which stays below 4 GiB.
//!
//! The exchange (`inst::warp`, `warp_exchange`) addresses words `0..X` of its block; this pass
//! adds `b * R` (those are the only `Memory::Scratch` accesses before it). Its indices are
//! below `X` by construction (lanes 0..32 of the thread's warp), so no check.
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
/// bytes lavapipe builds a private-array pipeline as fast as a scratch one (0.4 s, see the
/// README); at 1 KiB ten times slower (2.3 s), growing steeply beyond.
pub const DEFAULT_LOCAL_SCRATCH_BYTES: u32 = 512;

/// An index no scratch buffer reaches: the backend's bounds check turns it into a fault.
const OUT_OF_RANGE: u32 = u32::MAX;

/// Moves `k`'s local memory into the scratch buffer when it has at least `min_bytes` of it,
/// and places the block's `exchange_words` words of warp matrix exchange there.
pub fn place_local_memory(k: &mut Kernel, min_bytes: u32, exchange_words: u32) {
    let local = k.local_words > 0 && (k.local_words as u64) * 4 >= min_bytes as u64;
    if !local && exchange_words == 0 {
        return;
    }
    let mut new_var = |ty: Ty, name: &str| {
        k.vars.push(VarInfo { ty, name: name.into() });
        VarId(k.vars.len() as u32 - 1)
    };
    let block = new_var(Ty::U32, "scratch.block");
    let base = new_var(Ty::U32, "local_scratch.base");
    let t = new_var(Ty::U32, "local_scratch.t");
    let (ok, index) = (new_var(Ty::Bool, "local_scratch.in_range"), new_var(Ty::U32, "local_scratch.index"));
    let [bx, by, _] = k.workgroup_size;
    let threads: u32 = k.workgroup_size.iter().product();
    let local_words = if local { k.local_words } else { 0 };
    let add = |dst: VarId, o: Operand| assign(dst, bin(BinaryOp::Add, Ty::U32, dst, o));
    let mul = |dst: VarId, o: Operand| assign(dst, bin(BinaryOp::Mul, Ty::U32, dst, o));
    let builtin = |dst: VarId, b: Builtin| assign(dst, Expr::Builtin(b));
    let mut prologue = vec![
        // Block index within the dispatch: (wid.z * nwg.y + wid.y) * nwg.x + wid.x.
        builtin(block, Builtin::CtaId(2)),
        builtin(t, Builtin::NumCtas(1)),
        mul(block, var(t)),
        builtin(t, Builtin::CtaId(1)),
        add(block, var(t)),
        builtin(t, Builtin::NumCtas(0)),
        mul(block, var(t)),
        builtin(t, Builtin::CtaId(0)),
        add(block, var(t)),
        // The block's part: X + T * L words.
        mul(block, c32(exchange_words + threads * local_words)),
    ];
    if local {
        let t2 = index; // free until the accesses use it
        prologue.extend([
            // Thread index: (tid.z * ntid.y + tid.y) * ntid.x + tid.x.
            builtin(t, Builtin::ThreadId(2)),
            mul(t, c32(by)),
            builtin(t2, Builtin::ThreadId(1)),
            add(t, var(t2)),
            mul(t, c32(bx)),
            builtin(t2, Builtin::ThreadId(0)),
            add(t, var(t2)),
            // b * R + X + t * L.
            mul(t, c32(local_words)),
            assign(base, bin(BinaryOp::Add, Ty::U32, block, c32(exchange_words))),
            add(base, var(t)),
        ]);
    }
    let rw = Rewrite { part: block, base, ok, index, words: local_words, local };
    rw.block(&mut k.body);
    prologue.append(&mut k.body.stmts);
    k.body.stmts = prologue;
    if local {
        k.local_placement = LocalPlacement::Scratch;
    }
}

struct Rewrite {
    /// First word of the block's part of the buffer (its exchange words).
    part: VarId,
    /// First word of the thread's local memory.
    base: VarId,
    ok: VarId,
    index: VarId,
    words: u32,
    /// Local memory moves to the scratch buffer (else only the exchange is placed).
    local: bool,
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
                // The exchange's accesses: word `index` of the block's part.
                Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Scratch, index } } => {
                    out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.part, index)));
                    out.push(assign(dst, load(Memory::Scratch, var(self.index))));
                }
                Stmt::StoreWord { memory: Memory::Scratch, index, value } => {
                    out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.part, index)));
                    out.push(store(Memory::Scratch, var(self.index), value));
                }
                Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Local, index } } if self.local => {
                    let j = self.address(index, &mut out);
                    out.push(assign(dst, load(Memory::Scratch, j)));
                }
                Stmt::StoreWord { memory: Memory::Local, index, value } if self.local => {
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
