//! Warp-level matrix instructions (ISA 8.5 §9.7.15.4): `ldmatrix` and `mma.sync`, written
//! from the fragment layouts the spec gives per lane, on the warp data exchange of
//! `inst::warp` ([`FnLower::warp_exchange`]: native subgroup shuffles, or shared memory and
//! two CTA barriers), so the backends need nothing new. `wmma` (§9.7.15.3) is `inst::wmma`,
//! on the same pieces.
//!
//! Implemented: `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16`,
//! `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32` (A and B of one type),
//! `mma.sync.aligned.m16n8k8.row.col.f32.{f16,bf16}.{f16,bf16}.f32` and
//! `mma.sync.aligned.m8n8k16.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32`. Every other shape,
//! type, layout, `mma.sp` and `movmatrix` is refused by name.
//! `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16` is `ldmatrix`'s inverse,
//! on the same row-address exchange. `wgmma` (§9.7.16) is `inst::wgmma`.
//!
//! These instructions are `.aligned`: undefined unless every thread of the warp executes
//! them, so they read no membermask and take no part in the meeting check; a lane that does
//! not execute one gives whatever its exchanged words hold. Kernels lowered with the CTA
//! barrier scheduler (`scheduler`) refuse them.

use super::memory::Place;
use super::{operands, Mods};
use crate::abi;
use crate::function::{unsupported, FnLower, LResult, Space};
use crate::ir::{BinaryOp, Block, CmpOp, Memory, Operand, Stmt, Ty};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;
use std::collections::HashMap;

/// The `mma` shapes implemented, with their fragment layouts (§9.7.15.4.3, .7, .8).
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `m8n8k16` with `.s8/.u8` A and B, `.s32` C and D (§9.7.15.4.3).
    M8n8k16,
    /// `m16n8k8` with `.f16/.bf16` A and B, `.f32` C and D (§9.7.15.4.7).
    M16n8k8,
    /// `m16n8k16` with `.f16/.bf16` A and B, `.f32` C and D (§9.7.15.4.8).
    M16n8k16,
}

impl Shape {
    fn k(self) -> u32 {
        match self {
            Shape::M16n8k8 => 8,
            _ => 16,
        }
    }
    /// Bits of one A/B element.
    fn elem_bits(self) -> u32 {
        match self {
            Shape::M8n8k16 => 8,
            _ => 16,
        }
    }
    /// Registers of the A, B and C/D fragments.
    fn regs(self) -> (usize, usize, usize) {
        match self {
            Shape::M8n8k16 => (1, 1, 2),
            Shape::M16n8k8 => (2, 1, 4),
            Shape::M16n8k16 => (4, 2, 4),
        }
    }
    /// Who holds A[row][k] where `row` is the reader's `groupID` (+ 8 when `high`): the
    /// holder's `threadID_in_group` (its lane is `4·groupID` + that) and the element index i
    /// of its fragment `a_i`. The spec's formulas solved for (lane, i):
    /// - m16n8k16: row = groupID for i ∈ {0,1,4,5}, else groupID + 8;
    ///   col = tig·2 + (i & 1), + 8 for i ≥ 4;
    /// - m16n8k8: row = groupID for a0, a1, groupID + 8 for a2, a3; col = tig·2 + (i & 1);
    /// - m8n8k16: row = groupID; col = tig·4 + i.
    fn a_holder(self, high: bool, k: u32) -> (u32, u32) {
        let h = high as u32;
        match self {
            Shape::M16n8k16 => ((k % 8) / 2, 4 * (k / 8) + 2 * h + k % 2),
            Shape::M16n8k8 => (k / 2, 2 * h + k % 2),
            Shape::M8n8k16 => (k / 4, k % 4),
        }
    }
    /// Who holds B[k][col] (its lane is `4·col` + the returned `threadID_in_group`), and the
    /// element index i of its `b_i`. The spec's formulas solved for (lane, i):
    /// - m16n8k16: row = tig·2 + (i & 1), + 8 for i ≥ 2; col = groupID;
    /// - m16n8k8: row = tig·2 + i; col = groupID;
    /// - m8n8k16: row = tig·4 + i; col = groupID.
    fn b_holder(self, k: u32) -> (u32, u32) {
        match self {
            Shape::M16n8k16 => ((k % 8) / 2, 2 * (k / 8) + k % 2),
            Shape::M16n8k8 => (k / 2, k % 2),
            Shape::M8n8k16 => (k / 4, k % 4),
        }
    }
}

/// Where a lane's exchanged word comes from: A words from the lanes of the reader's group
/// (`4·groupID + tig`), B words from the lanes of column `2·threadID_in_group + j`
/// (`4·col + tig`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum From {
    A { tig: u32 },
    B { j: u32, tig: u32 },
}

/// Where a_k and b_k of one D element lie among its dot product's arguments: (argument
/// index, element index within that word) for a, then for b.
type ElementPlaces = [((usize, u32), (usize, u32))];

/// The registers of a brace-enclosed vector operand, checked to number `n`.
pub(super) fn vector_operands<'a>(op: &'a ast::Operand, n: usize, m: &Mods, what: &str) -> LResult<&'a [ast::Operand]> {
    match &op.kind {
        OperandKind::Vector(v) if v.len() == n => Ok(v),
        _ => Err(Diagnostic::new(format!("`{}`: {what} is a vector of {n} registers `{{…}}`", m.name()), op.span)),
    }
}

impl FnLower {
    pub(super) fn no_matrix_under_scheduler(&self, m: &Mods) -> LResult<()> {
        if self.scheduler {
            return Err(unsupported(
                format!("`{}` in a kernel lowered with the CTA barrier scheduler (`bar.arrive`, partial barriers)", m.name()),
                m.inst.span,
            ));
        }
        Ok(())
    }

    /// `ldmatrix.sync.aligned.m8n8.num{.trans}.shared{::cta}.b16 r, [p]` (§9.7.15.4.15).
    ///
    /// Figure 80: lane t receives row t/4, elements 2·(t%4) and 2·(t%4)+1 (low half first) of each
    /// matrix in the matching register of r; with `.trans` the matrix is read column-major,
    /// so lane t receives column t/4, rows 2·(t%4) and 2·(t%4)+1. Each lane gets the row
    /// addresses it needs from their lanes ([`FnLower::matrix_rows`]) and loads its own
    /// 16-bit elements from shared memory.
    pub(super) fn ldmatrix(&mut self, m: &Mods) -> LResult<()> {
        let num = self.matrix_form(m)?;
        let [d, a] = operands(m.inst, 2)? else { unreachable!() };
        let dests = vector_operands(d, num as usize, m, "the destination")?;
        let trans = m.has("trans");
        let (rows, group, quad) = self.matrix_rows(m, a, num, trans)?;
        let u = FnLower::u32c;
        for (i, dst) in dests.iter().enumerate() {
            let v = if trans {
                let col = self.bin(BinaryOp::Shl, Ty::U32, group, u(1));
                let lo = self.bin(BinaryOp::Add, Ty::U32, rows[2 * i], col);
                let hi = self.bin(BinaryOp::Add, Ty::U32, rows[2 * i + 1], col);
                let lo = self.load_bytes(Memory::Shared, lo, 2);
                let hi = self.load_bytes(Memory::Shared, hi, 2);
                let hi = self.bin(BinaryOp::Shl, Ty::U32, hi, u(16));
                self.bin(BinaryOp::Or, Ty::U32, lo, hi)
            } else {
                let at = self.bin(BinaryOp::Shl, Ty::U32, quad, u(2));
                let at = self.bin(BinaryOp::Add, Ty::U32, rows[i], at);
                self.load_bytes(Memory::Shared, at, 4)
            };
            self.write(dst, ScalarType::B32, v)?;
        }
        Ok(())
    }

    /// `stmatrix.sync.aligned.m8n8.num{.trans}.shared{::cta}.b16 [p], r` (§9.7.15.4.16): the
    /// inverse of `ldmatrix`, with the same row addresses (lanes 8·i..8·i+7 for matrix i, 16-byte
    /// aligned) and fragment (Figure 82 is Figure 80): lane t stores its register i as row t/4,
    /// elements 2·(t%4) and 2·(t%4)+1 of matrix i; with `.trans` the matrix is stored
    /// column-major, so those two elements go to rows 2·(t%4) and 2·(t%4)+1 of memory, at
    /// element t/4 of each (16-bit stores).
    pub(super) fn stmatrix(&mut self, m: &Mods) -> LResult<()> {
        let num = self.matrix_form(m)?;
        let [a, r] = operands(m.inst, 2)? else { unreachable!() };
        let srcs = vector_operands(r, num as usize, m, "the source")?;
        let trans = m.has("trans");
        let words: Vec<Operand> = srcs.iter().map(|x| self.read(x, ScalarType::B32)).collect::<LResult<_>>()?;
        let (rows, group, quad) = self.matrix_rows(m, a, num, trans)?;
        let u = FnLower::u32c;
        for (i, &w) in words.iter().enumerate() {
            if trans {
                let col = self.bin(BinaryOp::Shl, Ty::U32, group, u(1));
                let lo = self.bin(BinaryOp::Add, Ty::U32, rows[2 * i], col);
                let hi = self.bin(BinaryOp::Add, Ty::U32, rows[2 * i + 1], col);
                let high = self.bin(BinaryOp::ShrU, Ty::U32, w, u(16));
                self.store_bytes(Memory::Shared, lo, 2, w);
                self.store_bytes(Memory::Shared, hi, 2, high);
            } else {
                let at = self.bin(BinaryOp::Shl, Ty::U32, quad, u(2));
                let at = self.bin(BinaryOp::Add, Ty::U32, rows[i], at);
                self.store_bytes(Memory::Shared, at, 4, w);
            }
        }
        Ok(())
    }

    /// Checks the qualifiers `ldmatrix` and `stmatrix` share (`.sync.aligned.m8n8.num{.trans}
    /// .shared{::cta}.b16`); the number of matrices.
    fn matrix_form(&self, m: &Mods) -> LResult<u32> {
        m.only(&["sync", "aligned", "m8n8", "x1", "x2", "x4", "trans", "shared", "shared::cta"])?;
        let span = m.inst.span;
        let op = &m.inst.opcode.name;
        if !(m.has("sync") && m.has("aligned") && m.has("m8n8")) {
            return Err(Diagnostic::new(format!("`{}`: {op} needs .sync.aligned.m8n8", m.name()), span));
        }
        if m.ty()? != ScalarType::B16 {
            return Err(Diagnostic::new(format!("`{}`: {op} moves .b16 elements", m.name()), span));
        }
        let num = match m.one_of(&["x1", "x2", "x4"]) {
            Some("x1") => 1,
            Some("x2") => 2,
            Some(_) => 4,
            None => return Err(Diagnostic::new(format!("`{}` needs .x1, .x2 or .x4", m.name()), span)),
        };
        if !(m.has("shared") || m.has("shared::cta")) {
            return Err(unsupported(format!("`{}` with a generic address (only `.shared`)", m.name()), span));
        }
        self.no_matrix_under_scheduler(m)?;
        Ok(num)
    }

    /// The row addresses an `ldmatrix`/`stmatrix` lane needs, from the lanes that give them
    /// (the warp exchange), with the lane's groupID and threadID_in_group. Lanes 8·i..8·i+7
    /// give the row addresses of matrix i (later lanes' addresses are not used: "addresses
    /// contained in lower threads can be copied to higher threads"); one a lane gives must be
    /// 16-byte aligned ("a group of four consecutive threads loads 16 bytes. The matrix
    /// addresses must be naturally aligned accordingly"), otherwise the launch faults as
    /// misaligned. Per matrix: row `group`, or with `trans` rows `2·quad` and `2·quad + 1`.
    fn matrix_rows(&mut self, m: &Mods, a: &ast::Operand, num: u32, trans: bool) -> LResult<(Vec<Operand>, Operand, Operand)> {
        let Place::Fixed(Memory::Shared, row) = self.place(a, Space::Shared)? else {
            return Err(Diagnostic::new(format!("`{}` needs a shared-memory address", m.name()), a.span));
        };
        let u = FnLower::u32c;
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, u(31));
        let gives = self.cmp(CmpOp::LtU, Ty::U32, lane, u(8 * num));
        let low = self.bin(BinaryOp::And, Ty::U32, row, u(15));
        let misaligned = self.cmp(CmpOp::Ne, Ty::U32, low, u(0));
        let bad = self.bin(BinaryOp::And, Ty::Bool, gives, misaligned);
        self.emit_if(bad, Block { stmts: vec![Stmt::Fault { code: abi::FAULT_MISALIGNED }] }, Block::new());
        let group = self.bin(BinaryOp::ShrU, Ty::U32, lane, u(2));
        let quad = self.bin(BinaryOp::And, Ty::U32, lane, u(3));
        let pair = self.bin(BinaryOp::Shl, Ty::U32, quad, u(1));
        let mut reads = Vec::new();
        for i in 0..num {
            if trans {
                for r in 0..2 {
                    reads.push((0, self.bin(BinaryOp::Add, Ty::U32, pair, u(8 * i + r))));
                }
            } else {
                reads.push((0, self.bin(BinaryOp::Add, Ty::U32, group, u(8 * i))));
            }
        }
        Ok((self.warp_exchange(&[row], &reads, m.inst.span), group, quad))
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`
    /// (§9.7.15.4.14): D = A·B + C over the warp, each lane holding the fragments of
    /// §9.7.15.4.3/7/8. Lane (groupID g = lane >> 2, threadID_in_group q = lane % 4) computes
    /// its own D elements, rows g (and g + 8) and columns 2q, 2q + 1, from the A words of its
    /// group's four lanes and the B words of the lanes of columns 2q and 2q + 1, which the warp
    /// exchange brings (m16n8k16: 32 words per lane).
    ///
    /// Integer (`.s32.{s8,u8}.{s8,u8}.s32`): the exact dot product (at most 16·255² < 2^31)
    /// plus c, wrapped to 32 bits, or with `.satfinite` limited to MIN_INT32..MAX_INT32 ("on
    /// overflow, the accumulated value is limited"; read here as the exact c + Σ a·b clamped:
    /// the products' sum cannot overflow, so only adding c can).
    ///
    /// Floating point (`.f32.{f16,bf16}.{f16,bf16}.f32`): "The accumulation order, rounding,
    /// and handling of subnormal inputs are unspecified" (§9.7.15.4.14, Precision and
    /// rounding; products "with at least single precision", accumulation "with at least single
    /// precision"). Chosen here, deterministic: each product a·b in f32 (exact for f16, whose
    /// 11-bit significands and exponents ≥ -24 give products with ≤ 22 bits at ≥ 2^-48; for
    /// bf16 exact unless it leaves f32's range), then d = (((c + p_0) + p_1) + …) + p_{K-1} in
    /// order of k, each addition an f32 add rounded to nearest. An NVIDIA tensor core may sum
    /// in another order and rounding, so only results every order gives are the same bits.
    pub(super) fn mma(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["sync", "aligned", "m8n8k16", "m16n8k8", "m16n8k16", "row", "col", "satfinite"])?;
        let span = m.inst.span;
        let name = m.name();
        let refuse = || unsupported(format!("`{name}`"), span);
        let layout: Vec<&str> = m.inst.modifiers.iter().map(|x| x.text.as_str()).filter(|x| matches!(*x, "row" | "col")).collect();
        if !(m.has("sync") && m.has("aligned")) || layout != ["row", "col"] {
            return Err(refuse());
        }
        let shape = match m.one_of(&["m8n8k16", "m16n8k8", "m16n8k16"]) {
            Some("m8n8k16") => Shape::M8n8k16,
            Some("m16n8k8") => Shape::M16n8k8,
            Some(_) => Shape::M16n8k16,
            None => return Err(refuse()),
        };
        use ScalarType::*;
        let (at, bt) = match (shape, m.types().as_slice()) {
            (Shape::M8n8k16, [S32, a @ (S8 | U8), b @ (S8 | U8), S32]) => (*a, *b),
            (Shape::M16n8k8 | Shape::M16n8k16, [F32, a @ (F16 | Bf16), b, F32]) if a == b && !m.has("satfinite") => (*a, *b),
            _ => return Err(refuse()),
        };
        self.no_matrix_under_scheduler(m)?;
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a_regs, b_regs, c_regs) = shape.regs();
        let d = vector_operands(d, c_regs, m, "d")?;
        let a = vector_operands(a, a_regs, m, "a")?;
        let b = vector_operands(b, b_regs, m, "b")?;
        let c = vector_operands(c, c_regs, m, "c")?;
        let integer = shape == Shape::M8n8k16;
        let acc_t = if integer { S32 } else { F32 };
        let mut offered = Vec::new();
        for r in a.iter().chain(b) {
            offered.push(self.read(r, B32)?);
        }
        let c: Vec<Operand> = c.iter().map(|r| self.read(r, acc_t)).collect::<LResult<_>>()?;

        // The words to read: (offered word, From), each once.
        let u = FnLower::u32c;
        let per_word = 32 / shape.elem_bits();
        let rows = if c_regs == 4 { 2 } else { 1 };
        let mut wanted: Vec<(usize, From)> = Vec::new();
        let mut want = |w: usize, f: From| {
            if !wanted.contains(&(w, f)) {
                wanted.push((w, f));
            }
        };
        for k in 0..shape.k() {
            for high in 0..rows {
                let (tig, i) = shape.a_holder(high == 1, k);
                want((i / per_word) as usize, From::A { tig });
            }
            for j in 0..2 {
                let (tig, i) = shape.b_holder(k);
                want(a_regs + (i / per_word) as usize, From::B { j, tig });
            }
        }
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, u(31));
        let group_base = self.bin(BinaryOp::And, Ty::U32, lane, u(!3 & 31));
        let q8 = self.bin(BinaryOp::And, Ty::U32, lane, u(3));
        let q8 = self.bin(BinaryOp::Shl, Ty::U32, q8, u(3));
        let reads: Vec<(usize, Operand)> = wanted
            .iter()
            .map(|&(w, f)| match f {
                From::A { tig } => (w, self.bin(BinaryOp::Add, Ty::U32, group_base, u(tig))),
                From::B { j, tig } => (w, self.bin(BinaryOp::Add, Ty::U32, q8, u(4 * j + tig))),
            })
            .collect();
        let words = self.warp_exchange(&offered, &reads, span);
        let word: HashMap<(usize, From), Operand> = wanted.into_iter().zip(words).collect();

        let satfinite = m.has("satfinite");
        for (ci, dst) in d.iter().enumerate() {
            let (high, j) = ((ci / 2) as u32 % rows, if rows == 2 { ci as u32 % 2 } else { ci as u32 });
            // The distinct words this element reads, and per k where its a and b lie in them
            // (argument index, element index in the word).
            let mut args = vec![c[ci]];
            let mut at_k = Vec::new();
            for k in 0..shape.k() {
                let (tig, i) = shape.a_holder(high == 1, k);
                let ka = self.matrix_arg(&mut args, word[&((i / per_word) as usize, From::A { tig })]);
                let (tig, i2) = shape.b_holder(k);
                let kb = self.matrix_arg(&mut args, word[&(a_regs + (i2 / per_word) as usize, From::B { j, tig })]);
                at_k.push(((ka, i % per_word), (kb, i2 % per_word)));
            }
            let mut tys = vec![if integer { Ty::U32 } else { Ty::F32 }];
            tys.resize(args.len(), Ty::U32);
            let key = format!("mma_element,{at:?},{bt:?},{satfinite},{at_k:?}");
            let ret = tys[0];
            let bits = shape.elem_bits();
            let r = self.outlined(&key, &args, &tys, ret, |s, x| s.mma_element(x, &at_k, bits, at, bt, satfinite));
            self.write(dst, acc_t, r)?;
        }
        Ok(())
    }

    /// Index in `args` of `w`, appended if new.
    pub(super) fn matrix_arg(&mut self, args: &mut Vec<Operand>, w: Operand) -> usize {
        match args.iter().skip(1).position(|&x| x == w) {
            Some(i) => i + 1,
            None => {
                args.push(w);
                args.len() - 1
            }
        }
    }

    /// One element of D: `x[0]` is c, `at_k[k]` says where a_k and b_k lie in `x` (argument,
    /// element of `bits` bits in that word). See [`FnLower::mma`] for the rules.
    pub(super) fn mma_element(&mut self, x: &[Operand], at_k: &ElementPlaces, bits: u32, at: ScalarType, bt: ScalarType, satfinite: bool) -> Operand {
        use ScalarType::*;
        let u = FnLower::u32c;
        // Element `i` of word `w`, as an f32 or a 32-bit integer (sign- or zero-extended).
        let element = |s: &mut Self, w: Operand, i: u32, t: ScalarType| -> Operand {
            let pos = i * bits;
            match t {
                F16 | Bf16 => {
                    let h = s.bin(BinaryOp::ShrU, Ty::U32, w, u(pos));
                    let fmt = if t == F16 { super::half::F16 } else { super::half::BF16 };
                    s.half_to_f32(h, fmt)
                }
                _ => {
                    let l = s.bin(BinaryOp::Shl, Ty::U32, w, u(32 - pos - bits));
                    let op = if t == S8 { BinaryOp::ShrS } else { BinaryOp::ShrU };
                    s.bin(op, Ty::U32, l, u(32 - bits))
                }
            }
        };
        let integer = bits == 8;
        let mut acc = x[0];
        let mut dot = u(0);
        for &((ka, ia), (kb, ib)) in at_k {
            let a = element(self, x[ka], ia, at);
            let b = element(self, x[kb], ib, bt);
            if integer {
                let p = self.bin(BinaryOp::Mul, Ty::U32, a, b);
                dot = self.bin(BinaryOp::Add, Ty::U32, dot, p);
            } else {
                let p = self.f32_rn("mul", a, b);
                acc = self.f32_rn("add", acc, p);
            }
        }
        if !integer {
            return acc;
        }
        if satfinite {
            let wide_c = self.resize(acc, Ty::U32, Ty::U64, true);
            let wide_dot = self.resize(dot, Ty::U32, Ty::U64, true);
            let sum = self.bin(BinaryOp::Add, Ty::U64, wide_c, wide_dot);
            self.clamp_s64_to_s32(sum)
        } else {
            self.bin(BinaryOp::Add, Ty::U32, acc, dot)
        }
    }

    /// An f32 `add`/`mul` rounded to nearest, exact on a device that flushes f32 subnormals
    /// too (`inst::flushed`), as `add.f32`/`mul.f32` are lowered.
    fn f32_rn(&mut self, op: &str, a: Operand, b: Operand) -> Operand {
        if self.flushed_f32 {
            return self.f32_arith_flushed(op, &[a, b]);
        }
        let bop = if op == "add" { BinaryOp::FAdd } else { BinaryOp::FMul };
        self.bin(bop, Ty::F32, a, b)
    }
}
