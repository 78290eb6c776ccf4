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
/// places the block's `exchange_words` words of warp matrix exchange there, and with
/// `shared` the CTA's shared memory too (see [`shared_in_scratch`]).
pub fn place_local_memory(k: &mut Kernel, min_bytes: u32, exchange_words: u32, shared: bool) {
    let local = k.local_words > 0 && (k.local_words as u64) * 4 >= min_bytes as u64;
    let shared_words = if shared { k.shared_words } else { 0 };
    if !local && exchange_words == 0 && shared_words == 0 {
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
    let (shared_base, bad, tmp) =
        (new_var(Ty::U32, "shared_scratch.base"), new_var(Ty::Bool, "shared_scratch.bad"), new_var(Ty::U32, "shared_scratch.value"));
    let real = new_var(Ty::Bool, "shared_scratch.real");
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
        // The block's part: X + S + T * L words (fits in 32 bits: see the module's comment).
        mul(block, c32(exchange_words.wrapping_add(shared_words).wrapping_add(threads.wrapping_mul(local_words)))),
    ];
    if shared_words > 0 {
        // The CTA's shared memory: words b * R + X .. b * R + X + S.
        prologue.push(assign(shared_base, bin(BinaryOp::Add, Ty::U32, block, c32(exchange_words))));
    }
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
            // b * R + X + S + t * L.
            mul(t, c32(local_words)),
            assign(base, bin(BinaryOp::Add, Ty::U32, block, c32(exchange_words.wrapping_add(shared_words)))),
            add(base, var(t)),
        ]);
    }
    let rw = Rewrite { part: block, base, ok, index, words: local_words, local, shared_base, shared_words, bad, real, tmp };
    rw.block(&mut k.body);
    prologue.append(&mut k.body.stmts);
    k.body.stmts = prologue;
    if local {
        k.local_placement = LocalPlacement::Scratch;
    }
    if shared_words > 0 {
        // No workgroup array is left: every access went to the scratch buffer.
        k.shared_words = 0;
        k.features.scratch_shared_words = shared_words;
    }
}

/// The refusal of [`shared_in_scratch`] for shared accesses in outlined functions (the
/// kernel is then lowered again without outlining, `kernel::lower_kernel`).
pub(crate) const SHARED_IN_FUNCTION: &str = "shared memory reached from an outlined function";

/// Whether `k`'s shared memory, with `max_bytes` of workgroup memory on the device, must
/// live in the scratch buffer instead (the fallback for kernels that declare more shared
/// memory than a Vulkan/WebGPU workgroup may have: lavapipe 32 KiB, NVIDIA's Vulkan 48 KiB,
/// while CUDA kernels use up to 227 KiB). `Err`: it would have to, but the kernel reaches
/// shared memory in a way this placement does not cover (named in the message).
///
/// The CTA's `S` shared words then take words `X .. X + S` of its block's part of the
/// buffer (after the warp matrix exchange, before the threads' local memory; see the
/// module's comment): per CTA of the dispatch, like CUDA's per-SM shared memory. Rules kept:
/// - **Bounds.** Shared word `i` is valid for `i < S`, as in the workgroup array: a bad
///   access records `abi::FAULT_SHARED_OUT_OF_RANGE` (a lone `if` with a `Fault`), a bad load
///   or atomic yields 0, and a bad store or atomic reaches only the CTA's own word 0 (what
///   the backends do with a bad access to the workgroup array, `ir::Stmt::StoreWord`), never
///   another CTA's slice. `abi::DISCARD_INDEX` (a store `lower` has faulted already) goes to
///   word 0 without a fault, as there.
/// - **Zeroing.** `isolation`'s prologue, which ran before, zeroes the slice at the start of
///   each CTA (its stores are rewritten like all others): no value of an earlier CTA, launch
///   or context is ever read.
/// - **Barriers.** Shared accesses are now storage-buffer accesses: `barriers` keeps every
///   barrier after one a full barrier (storage semantics too, both backends), so `bar.sync`
///   orders them within the CTA as it did in workgroup memory.
/// - **Atomics.** Shared word atomics become atomics on the scratch buffer (workgroup scope
///   still suffices: only the CTA's threads reach its slice).
/// - `SharedUniformLoad` (a barrier and a uniform read) becomes a barrier and a plain load.
pub fn shared_in_scratch(k: &Kernel, max_bytes: Option<u32>) -> Result<bool, String> {
    let Some(max) = max_bytes else { return Ok(false) };
    if k.shared_words as u64 * 4 <= max as u64 {
        return Ok(false);
    }
    let bytes = k.shared_words as u64 * 4;
    if k.shared_dwords() {
        return Err(format!(
            "64-bit atomics on shared memory in a kernel whose shared memory ({bytes} bytes) exceeds the device's workgroup memory ({max} bytes): \
             its shared memory would have to live in global memory, where that is not supported yet"
        ));
    }
    let in_function = k.functions.iter().any(|f| reaches_shared(&f.body));
    if in_function {
        return Err(format!(
            "{SHARED_IN_FUNCTION} in a kernel whose shared memory ({bytes} bytes) exceeds the device's workgroup memory ({max} bytes): not supported yet"
        ));
    }
    Ok(true)
}

/// Whether `b` accesses `Memory::Shared` anywhere.
fn reaches_shared(b: &Block) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Assign { expr, .. } => matches!(
            expr,
            Expr::LoadWord { memory: Memory::Shared, .. }
                | Expr::AtomicWord { memory: Memory::Shared, .. }
                | Expr::AtomicDword { memory: Memory::Shared, .. }
                | Expr::LoadDword { memory: Memory::Shared, .. }
                | Expr::SharedUniformLoad { .. }
        ),
        Stmt::StoreWord { memory: Memory::Shared, .. } => true,
        Stmt::If { then_body, else_body, .. } => reaches_shared(then_body) || reaches_shared(else_body),
        Stmt::Loop { body } => reaches_shared(body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| reaches_shared(&c.body)) || reaches_shared(default),
        _ => false,
    })
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
    /// First word of the CTA's shared memory in the buffer (with `shared_words` > 0).
    shared_base: VarId,
    /// Words of shared memory moved to the buffer (0: it stays a workgroup array).
    shared_words: u32,
    bad: VarId,
    real: VarId,
    tmp: VarId,
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

    /// Statements computing the scratch index of shared word `i` (into `self.index`), and
    /// whether the access may be out of range (then `self.ok` holds whether it is in range).
    /// See [`shared_in_scratch`] for the rules.
    fn shared_address(&self, i: Operand, out: &mut Vec<Stmt>) -> bool {
        match i {
            Operand::Const(Const::U32(c)) if c < self.shared_words => {
                out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.shared_base, c32(c))));
                false
            }
            _ => {
                out.push(assign(self.ok, cmp(CmpOp::LtU, Ty::U32, i, c32(self.shared_words))));
                // Out of range and not the discard index: the fault of a shared access.
                out.push(assign(self.bad, cmp(CmpOp::GeU, Ty::U32, i, c32(self.shared_words))));
                out.push(assign(self.real, cmp(CmpOp::Ne, Ty::U32, i, c32(crate::abi::DISCARD_INDEX))));
                out.push(assign(self.bad, bin(BinaryOp::And, Ty::Bool, self.bad, self.real)));
                out.push(if_(self.bad, vec![Stmt::Fault { code: crate::abi::FAULT_SHARED_OUT_OF_RANGE }], vec![]));
                out.push(assign(self.index, bin(BinaryOp::Add, Ty::U32, self.shared_base, i)));
                out.push(assign(self.index, Expr::Select { ty: Ty::U32, cond: var(self.ok), a: var(self.index), b: var(self.shared_base) }));
                true
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
                Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Shared, index } } if self.shared_words > 0 => {
                    let checked = self.shared_address(index, &mut out);
                    out.push(assign(dst, load(Memory::Scratch, var(self.index))));
                    if checked {
                        // Out of range: 0, as from the workgroup array.
                        out.push(assign(dst, Expr::Select { ty: Ty::U32, cond: var(self.ok), a: var(dst), b: c32(0) }));
                    }
                }
                Stmt::StoreWord { memory: Memory::Shared, index, value } if self.shared_words > 0 => {
                    self.shared_address(index, &mut out);
                    out.push(store(Memory::Scratch, var(self.index), value));
                }
                Stmt::Assign { dst, expr: Expr::AtomicWord { memory: Memory::Shared, op, index, value, comparand } } if self.shared_words > 0 => {
                    let checked = self.shared_address(index, &mut out);
                    let value = match op.identity() {
                        // Out of range, the identity goes to word 0 (changing nothing).
                        Some(identity) if checked => {
                            out.push(assign(self.tmp, Expr::Select { ty: Ty::U32, cond: var(self.ok), a: value, b: c32(identity) }));
                            var(self.tmp)
                        }
                        _ => value,
                    };
                    out.push(assign(dst, Expr::AtomicWord { memory: Memory::Scratch, op, index: var(self.index), value, comparand }));
                    if checked {
                        out.push(assign(dst, Expr::Select { ty: Ty::U32, cond: var(self.ok), a: var(dst), b: c32(0) }));
                    }
                }
                Stmt::Assign { dst, expr: Expr::SharedUniformLoad { index } } if self.shared_words > 0 => {
                    // Its preconditions: uniform control flow, `index < S`.
                    out.push(Stmt::Barrier);
                    self.shared_address(index, &mut out);
                    out.push(assign(dst, load(Memory::Scratch, var(self.index))));
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
