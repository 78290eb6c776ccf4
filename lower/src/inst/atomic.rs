//! `atom` and `red` (spec §9.7.14.5 "atom", §9.7.14.6 "red") on the IR's word atomic
//! ([`Expr::AtomicWord`]) and, for 64-bit read-modify-writes, its doubleword atomic
//! ([`Expr::AtomicDword`], heap or shared).
//!
//! - `.b32/.u32/.s32` add/and/or/xor/exch/min/max/cas map onto the word atomic directly.
//! - `inc`/`dec` (wrap rules of the spec's Semantics) and `add.f32` are compare-and-swap loops
//!   on the word: read, compute, CAS, retry with the value the CAS saw.
//! - `cas.b16` and `add.noftz.{f16,bf16}` are CAS loops on the containing word;
//!   `add.noftz.{f16x2,bf16x2}` one on the word.
//! - The vector forms (`.v2/.v4/.v8`, sm_90) are one element atomic each (`atom_vector`).
//! - 64-bit add/and/or/xor whose result nobody reads (`red`, or what nvcc writes for an unused
//!   `atomicAdd`) are two word atomics, exact in memory on every device (see `atomic64_split`).
//! - Every other 64-bit atomic is the doubleword atomic (`add.f64`: a CAS loop on it); the
//!   device needs 64-bit atomics (wgpu `SHADER_INT64_ATOMIC_ALL_OPS`, which lavapipe, NVIDIA,
//!   AMD and Intel Vulkan drivers have; the host refuses the launch otherwise). On shared
//!   memory one makes the kernel's shared memory doublewords (`shared64.rs`, which weighs the
//!   alternatives). Strong 8-byte `ld`/`st` use the doubleword atomic too (`inst::memory`).
//!
//! Why not a lock: a spin lock built from the 32-bit atomics (tried last session) lost updates
//! across CTAs. Its lock operations were relaxed, so nothing ordered the data accesses inside
//! the critical section after the acquiring CAS or before the releasing store (the compiler and
//! the hardware may move them, and plain heap loads may be served from a non-coherent cache),
//! and the word-pair split forms did not take the lock at all. A correct lock needs
//! acquire/release (which WGSL cannot express: its atomics are relaxed only) and a loop shaped
//! so that the lane holding the lock finishes in the same iteration (lanes of one subgroup
//! spinning on a lock another lane of it holds deadlock on SIMT hardware without independent
//! forward progress). Native 64-bit atomics need neither.
//!
//! Ordering: the IR's atomics are relaxed; that is `.relaxed`, PTX's default. `.release`
//! puts a [`Stmt::Fence`] before the operation, `.acquire` one after, `.acq_rel` both, at the
//! operation's scope (`.cta`: workgroup, else device). The atomics themselves run at device
//! scope on the heap (at least the scope asked for; ptxcross has no host-mapped memory, so
//! system scope observes nothing more) and workgroup scope on shared memory (the only threads
//! that can see it).

use super::half::{self, half_format, Clamp, Format, Rounding};
use super::Mods;
use crate::function::{invalid, unsupported, FnLower, LResult};
use crate::ir::{AtomicOp, BinaryOp, Block, CmpOp, Const, ConvertOp, Expr, Memory, Operand, Scope, Stmt, Ty, UnaryOp};
use crate::ptx_types;
use ptxcross_frontend::ast::{self, ScalarType};
use ptxcross_frontend::Diagnostic;

const OPS: [&str; 10] = ["add", "and", "or", "xor", "exch", "min", "max", "cas", "inc", "dec"];

/// Collects into `out` every register name that may be read: each name that occurs more than
/// once in `bodies` together (as any operand or guard), and every name of `formals`. A name
/// occurring once is written by one instruction and never read. `bodies` must be every body
/// lowered into the kernel (the kernel's and each device function's: they are inlined or
/// called, and their registers are judged by name), and `formals` the device functions'
/// parameter and return names (a `.reg` return written once is read by the caller).
pub fn collect_read_regs<'a>(
    bodies: &[&'a [ast::Statement]],
    formals: impl IntoIterator<Item = &'a str>,
    out: &mut rustc_hash::FxHashSet<String>,
) {
    // Only `atom`/`red` ask (`FnLower::atom`): bodies without one need no count, which hashed
    // every operand of the kernel and of every function of the module, per kernel.
    if !bodies.iter().any(|b| has_atomics(b)) {
        return;
    }
    // Counted by borrowed name (no `String` per occurrence; only the names kept are owned).
    type Seen<'a> = rustc_hash::FxHashMap<&'a str, u32>;
    fn expr<'a>(e: &'a ast::Expr, seen: &mut Seen<'a>) {
        match e {
            ast::Expr::Symbol { name, .. } => *seen.entry(name.as_str()).or_default() += 1,
            ast::Expr::Unary { arg, .. } | ast::Expr::Cast { arg, .. } => expr(arg, seen),
            ast::Expr::Binary { lhs, rhs, .. } => {
                expr(lhs, seen);
                expr(rhs, seen)
            }
            ast::Expr::Conditional { cond, then, otherwise, .. } => {
                [cond, then, otherwise].into_iter().for_each(|e| expr(e, seen))
            }
            ast::Expr::Call { args, .. } => args.iter().for_each(|e| expr(e, seen)),
            _ => {}
        }
    }
    fn operand<'a>(o: &'a ast::Operand, seen: &mut Seen<'a>) {
        use ast::OperandKind as K;
        match &o.kind {
            K::Symbol { name, .. } => *seen.entry(name.as_str()).or_default() += 1,
            K::Expr(e) => expr(e, seen),
            K::Address(v) | K::Vector(v) | K::List(v) => v.iter().for_each(|o| operand(o, seen)),
            K::Not(a) | K::Neg(a) | K::Qualified(a, _) => operand(a, seen),
            K::Pair(a, b) | K::Index(a, b) => {
                operand(a, seen);
                operand(b, seen)
            }
            K::Sink => {}
        }
    }
    fn walk<'a>(stmts: &'a [ast::Statement], seen: &mut Seen<'a>) {
        for s in stmts {
            match s {
                ast::Statement::Instruction(i) => {
                    if let Some(g) = &i.guard {
                        *seen.entry(g.pred.name.as_str()).or_default() += 1;
                    }
                    i.operands.iter().for_each(|o| operand(o, seen));
                }
                ast::Statement::Block(inner, _) => walk(inner, seen),
                _ => {}
            }
        }
    }
    let mut seen = Seen::default();
    for stmts in bodies {
        walk(stmts, &mut seen);
    }
    out.extend(seen.into_iter().filter(|&(_, n)| n > 1).map(|(k, _)| k.to_string()));
    out.extend(formals.into_iter().map(str::to_string));
}

/// Whether `stmts` hold an `atom` or `red` instruction (nested blocks included).
fn has_atomics(stmts: &[ast::Statement]) -> bool {
    stmts.iter().any(|s| match s {
        ast::Statement::Instruction(i) => matches!(i.opcode.name.as_str(), "atom" | "red"),
        ast::Statement::Block(inner, _) => has_atomics(inner),
        _ => false,
    })
}

/// What one `atom`/`red` computes from the old value (`old` has the operation's IR type).
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Native(AtomicOp),
    Inc,
    Dec,
    FAdd,
    /// `add.noftz` of `.f16`/`.bf16` (one half of a word) or `.f16x2`/`.bf16x2` (both halves).
    HalfAdd(Format, bool),
}

/// What a half-precision CAS loop computes per half: `add.noftz`, or `min`/`max` (the vector
/// forms only, §9.7.14.5 "Atomic operation with vector type").
#[derive(Clone, Copy, PartialEq)]
enum HalfOp {
    Add,
    Min,
    Max,
}

/// The fences an `atom`/`red`/`ld`/`st` with `.sem` needs around it: (before, after).
/// `.release` orders what came before, `.acquire` what comes after, `.acq_rel` both (the
/// spec's fence-based equivalents, §8 "Memory Consistency Model"); the scope is the operation's
/// (`.gpu` when absent: §9.7.14.5 "If the .scope qualifier is absent, .gpu scope is assumed").
pub(crate) fn sem_fences(m: &Mods) -> (Option<Scope>, Option<Scope>) {
    let scope = if m.has("cta") { Scope::Workgroup } else { Scope::Device };
    let before = (m.has("release") || m.has("acq_rel")).then_some(scope);
    let after = (m.has("acquire") || m.has("acq_rel")).then_some(scope);
    (before, after)
}

impl FnLower {
    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}` and `red…` (no `d`).
    pub(super) fn atom(&mut self, m: &Mods) -> LResult<()> {
        let is_red = m.inst.opcode.name == "red";
        let mut allowed = vec!["global", "shared", "shared::cta", "relaxed", "acquire", "release", "acq_rel"];
        allowed.extend(["cta", "cluster", "gpu", "sys"]);
        allowed.extend(OPS);
        allowed.extend(["noftz", "L2::cache_hint", "v2", "v4", "v8"]);
        m.only(&allowed)?;
        let t = m.ty()?;
        if t == ScalarType::B128 {
            return self.atom_b128(m, is_red);
        }
        if let Some(v) = m.one_of(&["v2", "v4", "v8"]) {
            return self.atom_vector(m, t, v);
        }
        let op_name = m
            .one_of(&OPS)
            .ok_or_else(|| Diagnostic::new(format!("`{}` needs an operation", m.name()), m.inst.span))?;
        let refuse = || unsupported(format!("`{}`", m.name()), m.inst.span);
        use ScalarType::*;
        // Forms the spec does not have: `red` has no .cas/.exch (§9.7.14.6), and .cas is the
        // one .b16 atomic (§9.7.14.5).
        if is_red && matches!(op_name, "cas" | "exch") {
            return Err(invalid(format!("`{}`: `red` has no .{op_name} (§9.7.14.6; `atom.{op_name}` returns the old value)", m.name()), m.inst.span));
        }
        if t == B16 && op_name != "cas" {
            return Err(invalid(format!("`{}`: the only .b16 atomic operation is `atom.cas.b16` (§9.7.14.5)", m.name()), m.inst.span));
        }
        let signed = ptx_types::is_signed(t);
        let op = match (op_name, t) {
            ("add", B32 | U32 | S32 | B64 | U64 | S64) => Op::Native(AtomicOp::Add),
            ("add", F32 | F64) => Op::FAdd,
            // §9.7.14.5: the half adds require `.noftz` (they keep subnormals).
            ("add", F16 | Bf16 | F16x2 | Bf16x2) if m.has("noftz") => {
                Op::HalfAdd(half_format(t).ok_or_else(refuse)?, matches!(t, F16x2 | Bf16x2))
            }
            ("and", _) => Op::Native(AtomicOp::And),
            ("or", _) => Op::Native(AtomicOp::Or),
            ("xor", _) => Op::Native(AtomicOp::Xor),
            ("exch", _) => Op::Native(AtomicOp::Exchange),
            ("cas", _) => Op::Native(AtomicOp::CompareExchange),
            ("min", U32 | S32 | U64 | S64) => Op::Native(if signed { AtomicOp::MinS } else { AtomicOp::MinU }),
            ("max", U32 | S32 | U64 | S64) => Op::Native(if signed { AtomicOp::MaxS } else { AtomicOp::MaxU }),
            ("inc", U32) => Op::Inc,
            ("dec", U32) => Op::Dec,
            _ => return Err(refuse()),
        };
        // cas on a half-word is the one 16-bit bit-size form.
        if t == B16 && (op_name != "cas" || is_red) {
            return Err(refuse());
        }
        let half = matches!(op, Op::HalfAdd(..));
        if !(half || matches!(t, B16 | B32 | U32 | S32 | B64 | U64 | S64 | F32 | F64))
            || (ptx_types::is_float(t) && !matches!(op, Op::FAdd | Op::HalfAdd(..)))
            || (is_red && matches!(op_name, "cas" | "exch"))
            || (m.has("noftz") && !half)
        {
            return Err(refuse());
        }
        let width = ptx_types::bits(t);

        // Operands: d (atom only), [a], b, c (cas), cache-policy (with .L2::cache_hint).
        let ops = &m.inst.operands;
        let mut rest: &[ast::Operand] = ops;
        let dst = if is_red {
            None
        } else {
            let (d, r) = rest.split_first().ok_or_else(|| Diagnostic::new(format!("`{}` needs operands", m.name()), m.inst.span))?;
            rest = r;
            Some(d)
        };
        let want = 2 + (op_name == "cas") as usize + m.has("L2::cache_hint") as usize;
        if rest.len() != want {
            return Err(Diagnostic::new(
                format!("`{}` takes {} operands, found {}", m.name(), want + dst.is_some() as usize, ops.len()),
                m.inst.span,
            ));
        }
        let space = self.state_space(m)?;
        if !matches!(space, crate::function::Space::Global | crate::function::Space::Shared | crate::function::Space::Generic) {
            return Err(Diagnostic::new(format!("`{}`: atomics apply to global and shared memory", m.name()), m.inst.span));
        }
        // `b`: the operand (for cas the value stored on a match); `c`: cas's comparand
        // (`atom.cas d, [a], b, c` stores c where the old value equals b).
        let (b, c) = if op_name == "cas" {
            (self.read(&rest[2], t)?, Some(self.read(&rest[1], t)?))
        } else {
            (self.read(&rest[1], t)?, None)
        };
        let place = self.place(&rest[0], space)?;
        let ty = ptx_types::value_ty(t).unwrap_or(Ty::U32);
        let result = self.new_var(ty, "atomic old");
        // Nobody reads the result (`red`, `_`, or a register named nowhere else, as nvcc writes
        // an unused `atomicAdd`): 64-bit add/and/or/xor then need no 64-bit atomics (see
        // atomic64_split), which every device has.
        let result_dead = match dst.map(|d| &d.kind) {
            None | Some(ast::OperandKind::Sink) => true,
            Some(ast::OperandKind::Symbol { name, component: None }) => !self.read_regs.contains(name.as_str()),
            Some(_) => false,
        };
        let (before, after) = sem_fences(m);
        if let Some(scope) = before {
            self.push(Stmt::Fence { scope });
        }
        self.on_place(place, |s, mem, off| {
            if mem == Memory::Local {
                // Only a generic address reaches here (`atom.local` is refused above): the
                // address is in global or shared memory unless the kernel is wrong, whose
                // atomic faults and changes nothing (§9.7.13.5: "generic addressing …
                // pointing to .global or .shared"). Refusing the kernel, as before, refused
                // every generic atomic whose space inference could not exclude local memory.
                s.push(Stmt::Fault { code: crate::abi::FAULT_LOCAL_OUT_OF_RANGE });
                return Ok(());
            }
            let bytes = if half { width.min(32) / 8 } else { width / 8 };
            s.aligned_atomic(off, bytes, &[result], |s| {
                let old = match (width, op) {
                    (_, Op::HalfAdd(fmt, packed)) => s.half_rmw(mem, off, fmt, packed, HalfOp::Add, b),
                    (16, _) => s.cas16(mem, off, b, c.unwrap_or(FnLower::u32c(0))),
                    (32, _) => s.atomic32(mem, off, op, ty, b, c),
                    (_, Op::Native(AtomicOp::Add | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor)) if result_dead => {
                        s.atomic64_split(mem, off, op, b)
                    }
                    // On shared memory this makes the kernel's shared memory doublewords (the
                    // `shared64` pass, after structurizing, rewrites its other accesses).
                    _ => s.atomic64(mem, off, op, ty, b, c),
                };
                s.assign(result, Expr::Use(old));
                Ok(())
            })
        })?;
        if let Some(scope) = after {
            self.push(Stmt::Fence { scope });
        }
        if let Some(d) = dst {
            self.write(d, t, Operand::Var(result))?;
        }
        Ok(())
    }

    /// `atom{.sem}{.scope}{.global}.op.noftz.vN.type d, [a], b` and `red…` (§9.7.14.5 "Atomic
    /// operation with vector type"; sm_90): `.v2/.v4 .f32` add, `.v2/.v4/.v8 .f16/.bf16` and
    /// `.v2/.v4 .f16x2/.bf16x2` add/min/max. "The atomicity is guaranteed separately for each
    /// of the individual scalar elements": one element atomic each, in element order, with
    /// the scalar forms' arithmetic (`add.f32` on global memory flushes like the scalar form).
    fn atom_vector(&mut self, m: &Mods, t: ScalarType, v: &str) -> LResult<()> {
        use ScalarType::*;
        let is_red = m.inst.opcode.name == "red";
        let n: usize = match v {
            "v2" => 2,
            "v4" => 4,
            _ => 8,
        };
        let refuse = || unsupported(format!("`{}`", m.name()), m.inst.span);
        let op_name = m.one_of(&OPS).ok_or_else(refuse)?;
        let half_op = match op_name {
            "add" => HalfOp::Add,
            "min" => HalfOp::Min,
            "max" => HalfOp::Max,
            _ => return Err(Diagnostic::new(format!("`{}`: vector atomics are add, min or max", m.name()), m.inst.span)),
        };
        let valid = match t {
            F32 => op_name == "add" && n <= 4 && !m.has("noftz"),
            F16 | Bf16 => m.has("noftz"),
            F16x2 | Bf16x2 => m.has("noftz") && n <= 4,
            _ => false,
        };
        if !valid {
            return Err(Diagnostic::new(
                format!("`{}`: not a vector atomic of the spec (f32 .v2/.v4 add; .noftz f16/bf16 .v2/.v4/.v8 and f16x2/bf16x2 .v2/.v4 add/min/max)", m.name()),
                m.inst.span,
            ));
        }
        let space = self.state_space(m)?;
        if !matches!(space, crate::function::Space::Global | crate::function::Space::Generic) {
            return Err(Diagnostic::new(format!("`{}`: vector atomics apply to global memory", m.name()), m.inst.span));
        }
        let ops = &m.inst.operands;
        let want = 2 + !is_red as usize + m.has("L2::cache_hint") as usize;
        if ops.len() != want {
            return Err(Diagnostic::new(format!("`{}` takes {want} operands, found {}", m.name(), ops.len()), m.inst.span));
        }
        let (dst, rest) = if is_red { (None, &ops[..]) } else { (Some(&ops[0]), &ops[1..]) };
        let elements = |s: &Self, op: &ast::Operand| -> LResult<Vec<ast::Operand>> {
            let els = match &op.kind {
                ast::OperandKind::Vector(v) => v.clone(),
                _ => s.vector_register_elements(op).unwrap_or_default(),
            };
            if els.len() != n {
                return Err(Diagnostic::new(format!("`{}` needs a vector of {n} elements here", m.name()), op.span));
            }
            Ok(els)
        };
        let b_ops = elements(self, &rest[1])?;
        let d_ops = dst.map(|d| elements(self, d)).transpose()?;
        let mut bs = Vec::new();
        for b in &b_ops {
            bs.push(self.read(b, t)?);
        }
        let place = self.place(&rest[0], space)?;
        let elem_bytes = ptx_types::bits(t) / 8;
        let ty = ptx_types::value_ty(t).unwrap_or(Ty::U32);
        let results: Vec<_> = (0..n).map(|_| self.new_var(ty, "atomic old")).collect();
        let (before, after) = sem_fences(m);
        if let Some(scope) = before {
            self.push(Stmt::Fence { scope });
        }
        self.on_place(place, |s, mem, off| {
            if mem == Memory::Local {
                // A generic address in the local window: faults, as in `atom` above.
                s.push(Stmt::Fault { code: crate::abi::FAULT_LOCAL_OUT_OF_RANGE });
                return Ok(());
            }
            s.aligned_atomic(off, elem_bytes * n as u32, &results, |s| {
                for (i, (&b, &r)) in bs.iter().zip(&results).enumerate() {
                    let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(i as u32 * elem_bytes));
                    let old = match t {
                        F32 => s.atomic32(mem, o, Op::FAdd, ty, b, None),
                        _ => s.half_rmw(mem, o, half_format(t).ok_or_else(refuse)?, matches!(t, F16x2 | Bf16x2), half_op, b),
                    };
                    s.assign(r, Expr::Use(old));
                }
                Ok(())
            })
        })?;
        if let Some(scope) = after {
            self.push(Stmt::Fence { scope });
        }
        for (d, r) in d_ops.iter().flatten().zip(results) {
            if !matches!(d.kind, ast::OperandKind::Sink) {
                self.write(d, t, Operand::Var(r))?;
            }
        }
        Ok(())
    }

    /// Runs `atomic` (which emits an atomic of `bytes` bytes at byte `off` and assigns
    /// `results`) only where `off` is aligned: a misaligned atomic faults (§9.7.13.5: the
    /// address must be naturally aligned; NVIDIA GPUs fault) and changes nothing, its
    /// results 0. (Before, it faulted and still updated the aligned word below.)
    pub(super) fn aligned_atomic(
        &mut self,
        off: Operand,
        bytes: u32,
        results: &[crate::ir::VarId],
        atomic: impl FnOnce(&mut Self) -> LResult<()>,
    ) -> LResult<()> {
        let body = self.collect(atomic)?;
        let mis = self.misaligned(off, bytes);
        let mut fault = Block { stmts: vec![Stmt::Fault { code: crate::abi::FAULT_MISALIGNED }] };
        for &r in results {
            let zero = match self.vars[r.index()].ty {
                Ty::Bool => Const::Bool(false),
                Ty::U32 => Const::U32(0),
                Ty::U64 => Const::U64(0),
                Ty::F32 => Const::F32(0),
                Ty::F64 => Const::F64(0),
            };
            fault.stmts.push(Stmt::Assign { dst: r, expr: Expr::Use(Operand::Const(zero)) });
        }
        self.emit_if(mis, fault, body);
        Ok(())
    }

    /// One 64-bit atomic on the heap or shared doubleword at byte `off` (8-aligned: checked
    /// before): the IR's native 64-bit atomic, or a compare-and-swap loop on it for `add.f64`.
    fn atomic64(&mut self, mem: Memory, off: Operand, op: Op, ty: Ty, b: Operand, c: Option<Operand>) -> Operand {
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(3));
        let bw = self.fit(b, ty, Ty::U64, ScalarType::B64);
        match op {
            Op::Native(aop) => {
                let r = self.value(Ty::U64, Expr::AtomicDword { memory: mem, op: aop, index: idx, value: bw, comparand: c });
                self.fit(r, Ty::U64, ty, ScalarType::B64)
            }
            _ => {
                // add.f64: no flushing (§9.7.14.5 flushes only atom.add.f32 on global memory).
                let old = self.cas_loop_dword(mem, idx, |s, old| {
                    let x = s.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, old);
                    let sum = s.bin(BinaryOp::FAdd, Ty::F64, x, b);
                    s.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, sum)
                });
                self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, old)
            }
        }
    }

    /// `atom.add.noftz.{f16,bf16}` (the half at byte `off` of its word) and `.{f16,bf16}x2`
    /// (both halves, each added on its own: §9.7.14.5 "atomicity is guaranteed separately for
    /// each of the individual scalar elements", which one word CAS more than meets): a CAS
    /// loop on the word. Each sum is the exact sum rounded once to nearest even (as `add.rn`
    /// on halves), subnormals kept; `min`/`max` follow `min`/`max` on halves (§9.7.4: a NaN
    /// operand yields the other, two NaNs the canonical NaN, −0 < +0). Yields the old half
    /// (or pair) in the low bits.
    fn half_rmw(&mut self, mem: Memory, off: Operand, fmt: Format, packed: bool, op: HalfOp, b: Operand) -> Operand {
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let byte = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(2));
        let sh = if packed { FnLower::u32c(0) } else { self.bin(BinaryOp::Shl, Ty::U32, byte, FnLower::u32c(3)) };
        let old = self.cas_loop(mem, idx, |s, old| {
            let lanes: &[u32] = if packed { &[0, 16] } else { &[0] };
            let mut new = if packed {
                FnLower::u32c(0)
            } else {
                // The other half of the word stays.
                let mask = s.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(0xffff), sh);
                let keep = s.un(UnaryOp::Not, Ty::U32, mask);
                s.bin(BinaryOp::And, Ty::U32, old, keep)
            };
            for &lane in lanes {
                let at = if packed { FnLower::u32c(lane) } else { sh };
                let x = s.bin(BinaryOp::ShrU, Ty::U32, old, at);
                let y = s.bin(BinaryOp::ShrU, Ty::U32, b, FnLower::u32c(lane));
                let [x, y] = [x, y].map(|h| s.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff)));
                let r = if op == HalfOp::Add {
                    s.half_add_sub_mul_fma("add", fmt, &[x, y], false, false, false)
                } else {
                    // The result is one of the exact widenings (or the canonical NaN), so
                    // narrowing it back is exact.
                    let [x, y] = [x, y].map(|h| s.half_to_f32(h, fmt));
                    let r = s.min_max_modifiers(op == HalfOp::Min, ScalarType::F32, x, y, false, false);
                    let bits = s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, r);
                    s.round_to_format(bits, half::F32, fmt, Rounding::Nearest, Clamp::default())
                };
                let r = s.bin(BinaryOp::Shl, Ty::U32, r, at);
                new = s.bin(BinaryOp::Or, Ty::U32, new, r);
            }
            new
        });
        if packed {
            return old;
        }
        let h = self.bin(BinaryOp::ShrU, Ty::U32, old, sh);
        self.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff))
    }

    /// One 32-bit atomic at byte `off` of `mem`; `b`, `c` and the result have type `ty`
    /// (`U32`, or `F32` for `add.f32`/`exch.f32`).
    fn atomic32(&mut self, mem: Memory, off: Operand, op: Op, ty: Ty, b: Operand, c: Option<Operand>) -> Operand {
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let bw = self.fit(b, ty, Ty::U32, ScalarType::B32);
        match op {
            Op::Native(aop) => {
                let r = self.value(Ty::U32, Expr::AtomicWord { memory: mem, op: aop, index: idx, value: bw, comparand: c });
                self.fit(r, Ty::U32, ty, ScalarType::B32)
            }
            Op::HalfAdd(fmt, packed) => self.half_rmw(mem, off, fmt, packed, HalfOp::Add, b),
            Op::Inc => self.cas_loop(mem, idx, |s, old| {
                // inc(r, s) = (r >= s) ? 0 : r+1
                let ge = s.cmp(CmpOp::GeU, Ty::U32, old, bw);
                let next = s.bin(BinaryOp::Add, Ty::U32, old, FnLower::u32c(1));
                s.select(Ty::U32, ge, FnLower::u32c(0), next)
            }),
            Op::Dec => self.cas_loop(mem, idx, |s, old| {
                // dec(r, s) = (r == 0 || r > s) ? s : r-1
                let zero = s.cmp(CmpOp::Eq, Ty::U32, old, FnLower::u32c(0));
                let gt = s.cmp(CmpOp::GtU, Ty::U32, old, bw);
                let wrap = s.bin(BinaryOp::Or, Ty::Bool, zero, gt);
                let prev = s.bin(BinaryOp::Sub, Ty::U32, old, FnLower::u32c(1));
                s.select(Ty::U32, wrap, bw, prev)
            }),
            Op::FAdd => {
                // Global-memory `atom.add.f32` flushes subnormal inputs and results to
                // sign-preserving zero; on shared memory it does not (spec §9.7.14.5).
                let ftz = mem.is_heap();
                let old = self.cas_loop(mem, idx, |s, old| {
                    let x = s.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, old);
                    let (x, y) = if ftz {
                        (s.flush_denormal(x, ScalarType::F32), s.flush_denormal(b, ScalarType::F32))
                    } else {
                        (x, b)
                    };
                    let sum = if s.flushed_f32 && !ftz {
                        // Exact on a device that flushes f32 subnormals (`inst::flushed`); the
                        // global form flushes them itself.
                        s.f32_arith_flushed("add", &[x, y])
                    } else {
                        s.bin(BinaryOp::FAdd, Ty::F32, x, y)
                    };
                    let sum = if ftz { s.flush_denormal(sum, ScalarType::F32) } else { sum };
                    s.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, sum)
                });
                self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, old)
            }
        }
    }

    /// `atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c` and `atom….exch.b128 d, [a], b`
    /// (§9.7.13.5, sm_90): one 128-bit atomic access. Vulkan's and WGSL's atomics are at most
    /// 64-bit, so it runs under the location's lock (`wide_lock`), as strong 16-byte `ld`/`st`
    /// do (which it is morally strong with: same size, complete overlap). The old value is
    /// read and, for `.cas` where it equals `b`, `c` stored, inside the section; `.sem` adds
    /// its fences around, as for the other atomics.
    fn atom_b128(&mut self, m: &Mods, is_red: bool) -> LResult<()> {
        let op = m.one_of(&["cas", "exch"]);
        if is_red || op.is_none() || m.one_of(&["v2", "v4", "v8", "noftz", "L2::cache_hint"]).is_some() {
            return Err(unsupported(format!("`{}` (the .b128 atomics are `atom.cas` and `atom.exch`)", m.name()), m.inst.span));
        }
        let cas = op == Some("cas");
        let ops = super::operands(m.inst, if cas { 4 } else { 3 })?;
        let space = self.state_space(m)?;
        if !matches!(space, crate::function::Space::Global | crate::function::Space::Shared | crate::function::Space::Generic) {
            return Err(Diagnostic::new(format!("`{}`: atomics apply to global and shared memory", m.name()), m.inst.span));
        }
        let (b_lo, b_hi) = self.read_b128(&ops[2])?;
        let stored = if cas { Some(self.read_b128(&ops[3])?) } else { None };
        let place = self.place(&ops[1], space)?;
        let (old_lo, old_hi) = (self.new_var(Ty::U64, "atomic old"), self.new_var(Ty::U64, "atomic old"));
        self.assign(old_lo, Expr::Use(FnLower::u64c(0)));
        self.assign(old_hi, Expr::Use(FnLower::u64c(0)));
        let (before, after) = sem_fences(m);
        if let Some(scope) = before {
            self.push(Stmt::Fence { scope });
        }
        let mut body = self.collect(|s| {
            s.on_place(place, |s, mem, off| {
                if !crate::wide_lock::locked_memory(mem) {
                    // A generic address in local memory: as for the other atomics (`atom`).
                    s.push(Stmt::Fault { code: crate::abi::FAULT_LOCAL_OUT_OF_RANGE });
                    return Ok(());
                }
                s.locked_wide_access(mem, off, |s| {
                    let (lo, hi) = s.load_b128(mem, off);
                    s.assign(old_lo, Expr::Use(lo));
                    s.assign(old_hi, Expr::Use(hi));
                    let store = |s: &mut Self, (lo, hi): (Operand, Operand)| {
                        s.collect(|s| {
                            s.store_b128(mem, off, lo, hi);
                            Ok(())
                        })
                    };
                    match stored {
                        Some(new) => {
                            let eq_lo = s.cmp(CmpOp::Eq, Ty::U64, lo, b_lo);
                            let eq_hi = s.cmp(CmpOp::Eq, Ty::U64, hi, b_hi);
                            let eq = s.bin(BinaryOp::And, Ty::Bool, eq_lo, eq_hi);
                            let write = store(s, new)?;
                            s.emit_if(eq, write, Block::new());
                        }
                        None => {
                            let write = store(s, (b_lo, b_hi))?;
                            s.push_block(write);
                        }
                    }
                    Ok(())
                })
            })
        })?;
        // The data's words are word atomics, as in a strong `ld`/`st`.
        self.strong_accesses(&mut body.stmts);
        self.push_block(body);
        if let Some(scope) = after {
            self.push(Stmt::Fence { scope });
        }
        self.write_b128(&ops[0], Operand::Var(old_lo), Operand::Var(old_hi))
    }

    /// `atom.cas.b16`: a CAS loop on the word holding the half-word at byte `off`.
    fn cas16(&mut self, mem: Memory, off: Operand, b: Operand, c: Operand) -> Operand {
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let byte = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(2));
        let sh = self.bin(BinaryOp::Shl, Ty::U32, byte, FnLower::u32c(3));
        let mask = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(0xffff), sh);
        let keep = self.un(UnaryOp::Not, Ty::U32, mask);
        let cmp = self.bin(BinaryOp::And, Ty::U32, c, FnLower::u32c(0xffff));
        let new = self.bin(BinaryOp::And, Ty::U32, b, FnLower::u32c(0xffff));
        let new = self.bin(BinaryOp::Shl, Ty::U32, new, sh);
        let old = self.cas_loop(mem, idx, |s, old| {
            let h = s.bin(BinaryOp::ShrU, Ty::U32, old, sh);
            let h = s.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff));
            let eq = s.cmp(CmpOp::Eq, Ty::U32, h, cmp);
            let cleared = s.bin(BinaryOp::And, Ty::U32, old, keep);
            let replaced = s.bin(BinaryOp::Or, Ty::U32, cleared, new);
            s.select(Ty::U32, eq, replaced, old)
        });
        let h = self.bin(BinaryOp::ShrU, Ty::U32, old, sh);
        self.bin(BinaryOp::And, Ty::U32, h, FnLower::u32c(0xffff))
    }

    /// Atomically replaces word `idx` of `mem` by `f(old)`; yields the old word.
    /// `old = atomic read; loop { seen = CAS(idx, old → f(old)); if seen == old break; old = seen }`.
    pub(super) fn cas_loop(&mut self, mem: Memory, idx: Operand, f: impl FnOnce(&mut Self, Operand) -> Operand) -> Operand {
        let atomic = |op, value, comparand| Expr::AtomicWord { memory: mem, op, index: idx, value, comparand };
        self.cas_loop_on(Ty::U32, atomic, f)
    }

    /// [`FnLower::cas_loop`] on doubleword `idx` of `mem` with the IR's 64-bit atomics.
    fn cas_loop_dword(&mut self, mem: Memory, idx: Operand, f: impl FnOnce(&mut Self, Operand) -> Operand) -> Operand {
        let atomic = |op, value, comparand| Expr::AtomicDword { memory: mem, op, index: idx, value, comparand };
        self.cas_loop_on(Ty::U64, atomic, f)
    }

    /// The CAS loop on the location `atomic(op, value, comparand)` accesses, of type `ty`.
    fn cas_loop_on(
        &mut self,
        ty: Ty,
        atomic: impl Fn(AtomicOp, Operand, Option<Operand>) -> Expr,
        f: impl FnOnce(&mut Self, Operand) -> Operand,
    ) -> Operand {
        let old = self.new_var(ty, "cas old");
        let zero = if ty == Ty::U64 { FnLower::u64c(0) } else { FnLower::u32c(0) };
        self.assign(old, atomic(AtomicOp::Or, zero, None));
        let body = self
            .collect(|s| {
                let new = f(s, Operand::Var(old));
                let seen = s.value(ty, atomic(AtomicOp::CompareExchange, new, Some(Operand::Var(old))));
                let done = s.cmp(CmpOp::Eq, ty, seen, Operand::Var(old));
                s.push(Stmt::If { cond: done, then_body: Block { stmts: vec![Stmt::Break] }, else_body: Block::new() });
                s.assign(old, Expr::Use(seen));
                Ok(())
            })
            .expect("closure cannot fail");
        self.push(Stmt::Loop { body });
        Operand::Var(old)
    }

    /// A 64-bit add/and/or/xor whose result nobody reads, as two word atomics: the low word,
    /// then the high word (plus the carry out of the low word for add). Every interleaving of
    /// such operations leaves the exact 64-bit result in memory; only the old value, which is
    /// not needed, would not be a snapshot.
    fn atomic64_split(&mut self, mem: Memory, off: Operand, op: Op, b: Operand) -> Operand {
        let Op::Native(aop) = op else { return FnLower::u64c(0) };
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let idx1 = self.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(1));
        let bits = self.fit(b, self.operand_ty(b), Ty::U64, ScalarType::B64);
        let lo = self.resize(bits, Ty::U64, Ty::U32, false);
        let hi = self.bin(BinaryOp::ShrU, Ty::U64, bits, FnLower::u32c(32));
        let hi = self.resize(hi, Ty::U64, Ty::U32, false);
        let old_lo = self.value(Ty::U32, Expr::AtomicWord { memory: mem, op: aop, index: idx, value: lo, comparand: None });
        let hi = if aop == AtomicOp::Add {
            // Carry out of the low word: old + lo wrapped below old.
            let sum = self.bin(BinaryOp::Add, Ty::U32, old_lo, lo);
            let carry = self.cmp(CmpOp::LtU, Ty::U32, sum, old_lo);
            let c = self.select(Ty::U32, carry, FnLower::u32c(1), FnLower::u32c(0));
            self.bin(BinaryOp::Add, Ty::U32, hi, c)
        } else {
            hi
        };
        let t = self.new_var(Ty::U32, "t");
        self.assign(t, Expr::AtomicWord { memory: mem, op: aop, index: idx1, value: hi, comparand: None });
        FnLower::u64c(0)
    }
}
