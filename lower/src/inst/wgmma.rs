//! Warpgroup matrix multiply-accumulate (ISA 8.5 §9.7.16): `wgmma.mma_async` for
//! `.m64nNk16` (N = 8..256 step 8) with `.f16`/`.bf16` A and B, `.f32` accumulators (and
//! `.f16` for f16 inputs), A and B from shared-memory matrix descriptors or A from registers;
//! `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`. tf32, fp8, integer and b1
//! variants, other shapes and `.sp` are refused by name.
//!
//! **Synchronous at issue.** The MMA runs when `wgmma.mma_async` is issued. That is one
//! allowed execution of the async form: reading its accumulator or A registers before a
//! `wgmma.wait_group` that covers it is undefined (§9.7.16.7.3), and so is writing its
//! shared-memory operands meanwhile (they are read by the async proxy at some point before
//! completion, §9.7.16.4); the shared-memory writes it reads were ordered before it by the
//! program's `fence.proxy.async` and a barrier, which hold here as a barrier does. So
//! `wgmma.fence`, `commit_group` and `wait_group` have nothing left to order: no-ops.
//!
//! **Each thread computes its own D elements** (fragment layout of §9.7.16.5.1.1.1, Figure
//! 123: warp w of the warpgroup holds rows 16w..16w+15; lane (groupID g = lane>>2,
//! threadID_in_group q = lane%4) holds d[4j + 2h + c] = D[16w + g + 8h][8j + 2q + c]), reading
//! A's rows and B's columns straight from shared memory through the descriptors. No lane
//! exchange and no collective, except for A in registers: a warp's D rows are its own A rows
//! (Figure 122 is mma.m16n8k16's A layout per warp), so its four-lane groups exchange A words
//! over the warp ([`FnLower::warp_exchange`]), as `mma.sync` does.
//!
//! **Descriptors** (§9.7.16.5.1.2.7) are run-time values: start address, leading and stride
//! byte offsets (LBO, SBO; encoded `(x & 0x3FFFF) >> 4`), base offset (bits 49–51) and
//! swizzle mode (bits 62–63: 0 none, 1 128-byte, 2 64-byte, 3 32-byte). The figures of
//! §9.7.16.5.1.2 (core matrices of 8 rows × 16 bytes; strides; swizzling) are images in the
//! ISA text; they are read here as CUTLASS states them in its canonical GMMA layouts
//! (`cute/atom/mma_traits_sm90_gmma.hpp`), with T = 8 elements (16 bytes) and W the swizzle
//! width in bytes (16 for none):
//! - K-major (no transpose: A row-major, B column-major): element (mn, k) at
//!   `(mn/8)·SBO + (mn%8)·W + (k%8)·2 + (k/8)·(W = 16 ? LBO : 16)`;
//! - MN-major (`imm-trans` = 1): `(mn%8)·2 + ((mn/8) % (W/16))·16 + (mn/(W/2))·(W = 16 ? SBO
//!   : LBO) + (k%8)·W + (k/8)·(W = 16 ? LBO : SBO)`;
//!
//! then the swizzle acts on the shared-memory address itself: bits 4.. (the 16-byte chunk)
//! XOR bits 7.. (the row within the repeating pattern), 1, 2 or 3 bits for 32, 64, 128 bytes.
//! That is why the repeating pattern must start at a 256/512/1024-byte boundary for base
//! offset 0. A non-zero base offset (a pattern starting elsewhere) is not decoded: the launch
//! faults (`abi::FAULT_MATRIX_DESCRIPTOR`) rather than guess.
//!
//! Arithmetic is `mma`'s ([`FnLower::mma_element`]): products in f32 (exact for f16, bf16),
//! added to c in order of k with f32 adds rounded to nearest ("The accumulation order,
//! rounding and handling of subnormal inputs are unspecified", §9.7.16.5.2); an `.f16`
//! accumulator is widened, and the f32 sum rounded to f16 once. `scale-d` false starts from
//! +0. `imm-scale-a/b` = -1 negate A/B (their sign bits flipped: exact).

use super::{imm_u64, operands, Mods};
use super::half::{self, Clamp, Rounding};
use super::matrix::vector_operands;
use crate::abi;
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, Block, CmpOp, ConvertOp, Expr, Memory, Operand, Stmt, Ty};
use ptxcross_frontend::ast::{self, ScalarType};
use ptxcross_frontend::Diagnostic;

/// K of every shape implemented.
const K: u32 = 16;

/// A decoded matrix descriptor (§9.7.16.5.1.2.7), all byte values in `U32`s.
struct Descriptor {
    start: Operand,
    /// K-major: bytes between groups of 8 rows (MN).
    sbo: Operand,
    /// Swizzle width in bytes: 16 (none), 32, 64, 128.
    width: Operand,
    /// log2 of `width`.
    width_log: Operand,
    /// `width / 16 - 1`: the address bits 7.. that the swizzle XORs into bits 4...
    mask: Operand,
    /// K-major: bytes between the core matrices of k and k + 8 (LBO unswizzled, else 16).
    k_major_k_step: Operand,
    /// MN-major: bytes between groups of `width / 2` MN elements (SBO unswizzled, else LBO)
    /// and between the core matrices of k and k + 8 (LBO unswizzled, else SBO).
    mn_major_mn_step: Operand,
    mn_major_k_step: Operand,
    /// log2 of `width / 2`, the MN elements of one swizzle row.
    mn_major_group_log: Operand,
}

/// N of a `m64nNk16` modifier.
fn shape_n(text: &str) -> Option<u32> {
    let n: u32 = text.strip_prefix("m64n")?.strip_suffix("k16")?.parse().ok()?;
    (n % 8 == 0 && (8..=256).contains(&n)).then_some(n)
}

impl FnLower {
    /// `wgmma.{mma_async, fence, commit_group, wait_group}` (§9.7.16).
    pub(super) fn wgmma(&mut self, m: &Mods) -> LResult<()> {
        let span = m.inst.span;
        let kind = m.one_of(&["mma_async", "fence", "commit_group", "wait_group"]);
        if !(m.has("sync") && m.has("aligned")) {
            return Err(Diagnostic::new(format!("`{}` needs .sync.aligned", m.name()), span));
        }
        match kind {
            Some("mma_async") => self.wgmma_mma(m),
            Some("fence") | Some("commit_group") => {
                // See the module header: synchronous at issue, nothing to order or commit.
                m.only(&["fence", "commit_group", "sync", "aligned"])?;
                operands(m.inst, 0).map(|_| ())
            }
            Some(_) => {
                m.only(&["wait_group", "sync", "aligned"])?;
                let [n] = operands(m.inst, 1)? else { unreachable!() };
                match imm_u64(n) {
                    Some(_) => Ok(()),
                    None => Err(Diagnostic::new(format!("`{}` takes an integer constant N", m.name()), n.span)),
                }
            }
            None => Err(unsupported(format!("`{}`", m.name()), span)),
        }
    }

    fn wgmma_mma(&mut self, m: &Mods) -> LResult<()> {
        let span = m.inst.span;
        let name = m.name();
        let refuse = || unsupported(format!("`{name}`"), span);
        let mut n = None;
        for x in &m.inst.modifiers {
            match x.text.as_str() {
                "mma_async" | "sync" | "aligned" => {}
                t if ScalarType::from_suffix(t).is_some() => {}
                t => match shape_n(t) {
                    Some(v) if n.is_none() => n = Some(v),
                    _ => return Err(unsupported(format!("`.{t}` on `{name}`"), x.span)),
                },
            }
        }
        let Some(n) = n else { return Err(refuse()) };
        use ScalarType::*;
        let (dt, it) = match m.types().as_slice() {
            [d @ (F32 | F16), F16, F16] => (*d, F16),
            [F32, Bf16, Bf16] => (F32, Bf16),
            _ => return Err(refuse()),
        };
        let ops = m.inst.operands.as_slice();
        let a_in_registers = match ops.len() {
            8 => false,
            7 => true,
            _ => return Err(Diagnostic::new(format!("`{name}` takes 8 operands (A by descriptor) or 7 (A in registers)"), span)),
        };
        let regs = if dt == F32 { n / 2 } else { n / 4 } as usize;
        let d = vector_operands(&ops[0], regs, m, "d")?;
        let scale_d = self.read(&ops[3], Pred)?;
        let imm = |op: &ast::Operand, what: &str, allowed: &[i64]| -> LResult<i64> {
            match imm_u64(op).map(|v| v as i64) {
                Some(v) if allowed.contains(&v) => Ok(v),
                _ => Err(Diagnostic::new(format!("`{name}`: {what} is an immediate {allowed:?} (§9.7.16.5.2)"), op.span)),
            }
        };
        let neg_a = imm(&ops[4], "imm-scale-a", &[1, -1])? == -1;
        let neg_b = imm(&ops[5], "imm-scale-b", &[1, -1])? == -1;
        let trans_a = if a_in_registers { false } else { imm(&ops[6], "imm-trans-a", &[0, 1])? == 1 };
        let trans_b = imm(ops.last().expect("7 or 8 operands"), "imm-trans-b", &[0, 1])? == 1;

        let u = FnLower::u32c;
        let t = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t, u(31));
        let warp = self.bin(BinaryOp::ShrU, Ty::U32, t, u(5));
        let warp = self.bin(BinaryOp::And, Ty::U32, warp, u(3));
        let g = self.bin(BinaryOp::ShrU, Ty::U32, lane, u(2));
        let q = self.bin(BinaryOp::And, Ty::U32, lane, u(3));
        let row0 = self.bin(BinaryOp::Shl, Ty::U32, warp, u(4));
        let row0 = self.bin(BinaryOp::Add, Ty::U32, row0, g);
        let col0 = self.bin(BinaryOp::Shl, Ty::U32, q, u(1));
        let sign = |neg: bool| if neg { 0x8000_8000u32 } else { 0 };

        // A: per row half h (rows g, g + 8) and k, (word, element index).
        let mut a_words: Vec<Vec<(Operand, u32)>> = Vec::new();
        if a_in_registers {
            self.no_matrix_under_scheduler(m)?;
            let a = vector_operands(&ops[1], 4, m, "a")?;
            let offered: Vec<Operand> = a.iter().map(|r| self.read(r, B32)).collect::<LResult<_>>()?;
            // Figure 122 (mma.m16n8k16's A per warp): register r of lane 4g + q holds row
            // g + 8·(r % 2), columns 2q, 2q + 1 (+ 8 for r ≥ 2).
            let base = self.bin(BinaryOp::And, Ty::U32, lane, u(!3 & 31));
            let mut reads = Vec::new();
            for r in 0..4 {
                for tig in 0..4 {
                    reads.push((r, self.bin(BinaryOp::Add, Ty::U32, base, u(tig))));
                }
            }
            let got = self.warp_exchange(&offered, &reads, span);
            let got: Vec<Operand> = got.into_iter().map(|w| self.bin(BinaryOp::Xor, Ty::U32, w, u(sign(neg_a)))).collect();
            for h in 0..2u32 {
                a_words.push((0..K).map(|k| (got[((h + 2 * (k / 8)) * 4 + (k % 8) / 2) as usize], k % 2)).collect());
            }
        } else {
            let desc = self.read(&ops[1], B64)?;
            let desc = self.decode_descriptor(desc);
            for h in 0..2u32 {
                let row = self.bin(BinaryOp::Add, Ty::U32, row0, u(8 * h));
                a_words.push(self.operand_line(&desc, row, trans_a, sign(neg_a)));
            }
        }
        let b_desc = self.read(&ops[2], B64)?;
        let b_desc = self.decode_descriptor(b_desc);
        // B: per column (8j + 2q + c), (word, element) per k. N-major B holds both columns of
        // a pair in one word: loaded once, for c = 0.
        let mut b_words: Vec<Vec<(Operand, u32)>> = Vec::new();
        for j in 0..n / 8 {
            let col = self.bin(BinaryOp::Add, Ty::U32, col0, u(8 * j));
            if trans_b {
                let pair = self.operand_pair_line(&b_desc, col, sign(neg_b));
                b_words.push(pair.iter().map(|&w| (w, 0)).collect());
                b_words.push(pair.iter().map(|&w| (w, 1)).collect());
            } else {
                for c in 0..2 {
                    let col = self.bin(BinaryOp::Add, Ty::U32, col, u(c));
                    b_words.push(self.operand_line(&b_desc, col, false, sign(neg_b)));
                }
            }
        }

        let c: Vec<Operand> = d.iter().map(|r| self.read(r, B32)).collect::<LResult<_>>()?;
        let zero = Operand::Const(crate::ir::Const::F32(0.0f32.to_bits()));
        let mut results = Vec::new();
        for i in 0..n / 2 {
            let (j, h, cc) = (i / 4, (i / 2) % 2, i % 2);
            let c_i = if dt == F16 {
                let w = self.bin(BinaryOp::ShrU, Ty::U32, c[(i / 2) as usize], u(16 * (i % 2)));
                self.half_to_f32(w, half::F16)
            } else {
                self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, c[i as usize])
            };
            let c_i = self.select(Ty::F32, scale_d, c_i, zero);
            let mut args = vec![c_i];
            let mut at_k = Vec::new();
            for k in 0..K as usize {
                let (wa, ia) = a_words[h as usize][k];
                let (wb, ib) = b_words[(2 * j + cc) as usize][k];
                let ka = self.matrix_arg(&mut args, wa);
                let kb = self.matrix_arg(&mut args, wb);
                at_k.push(((ka, ia), (kb, ib)));
            }
            let mut tys = vec![Ty::F32];
            tys.resize(args.len(), Ty::U32);
            let key = format!("mma_element,{it:?},{it:?},false,{at_k:?}");
            results.push(self.outlined(&key, &args, &tys, Ty::F32, |s, x| s.mma_element(x, &at_k, 16, it, it, false)));
        }
        for (w, dst) in d.iter().enumerate() {
            let v = if dt == F32 {
                self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, results[w])
            } else {
                let mut v = u(0);
                for h in 0..2 {
                    let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, results[2 * w + h]);
                    let r = self.round_to_format(bits, half::F32, half::F16, Rounding::Nearest, Clamp::default());
                    let r = self.bin(BinaryOp::Shl, Ty::U32, r, u(16 * h as u32));
                    v = self.bin(BinaryOp::Or, Ty::U32, v, r);
                }
                v
            };
            self.write(dst, B32, v)?;
        }
        Ok(())
    }

    /// The fields of descriptor `desc` (a `U64`); faults the launch where its base offset is
    /// not 0 in a swizzled mode (not decoded, see the module header).
    fn decode_descriptor(&mut self, desc: Operand) -> Descriptor {
        let u = FnLower::u32c;
        let lo = self.resize(desc, Ty::U64, Ty::U32, false);
        let hi = self.bin(BinaryOp::ShrU, Ty::U64, desc, u(32));
        let hi = self.resize(hi, Ty::U64, Ty::U32, false);
        let field = |s: &mut Self, w: Operand, at: u32| {
            let f = s.bin(BinaryOp::ShrU, Ty::U32, w, u(at));
            let f = s.bin(BinaryOp::And, Ty::U32, f, u(0x3fff));
            s.bin(BinaryOp::Shl, Ty::U32, f, u(4))
        };
        let start = field(self, lo, 0);
        let lbo = field(self, lo, 16);
        let sbo = field(self, hi, 0);
        let mode = self.bin(BinaryOp::ShrU, Ty::U32, hi, u(30));
        let base = self.bin(BinaryOp::ShrU, Ty::U32, hi, u(17));
        let base = self.bin(BinaryOp::And, Ty::U32, base, u(7));
        let swizzled = self.cmp(CmpOp::Ne, Ty::U32, mode, u(0));
        let based = self.cmp(CmpOp::Ne, Ty::U32, base, u(0));
        let bad = self.bin(BinaryOp::And, Ty::Bool, swizzled, based);
        self.emit_if(bad, Block { stmts: vec![Stmt::Fault { code: abi::FAULT_MATRIX_DESCRIPTOR }] }, Block::new());
        // Mode 0, 1, 2, 3 → width 16, 128, 64, 32: log2 = 4 for 0, else 8 - mode.
        let log = self.bin(BinaryOp::Sub, Ty::U32, u(8), mode);
        let width_log = self.select(Ty::U32, swizzled, log, u(4));
        let width = self.bin(BinaryOp::Shl, Ty::U32, u(1), width_log);
        let chunks = self.bin(BinaryOp::ShrU, Ty::U32, width, u(4));
        let mask = self.bin(BinaryOp::Sub, Ty::U32, chunks, u(1));
        let k_major_k_step = self.select(Ty::U32, swizzled, u(16), lbo);
        let mn_major_mn_step = self.select(Ty::U32, swizzled, lbo, sbo);
        let mn_major_k_step = self.select(Ty::U32, swizzled, sbo, lbo);
        let mn_major_group_log = self.bin(BinaryOp::Sub, Ty::U32, width_log, u(1));
        Descriptor { start, sbo, width, width_log, mask, k_major_k_step, mn_major_mn_step, mn_major_k_step, mn_major_group_log }
    }

    /// Byte address of element (mn, k) of the matrix `d` describes (see the module header for
    /// the layouts and the swizzle). `k_major`: rows of K elements (A row-major, B
    /// column-major); otherwise MN-major.
    fn element_address(&mut self, d: &Descriptor, mn: Operand, k: u32, k_major: bool) -> Operand {
        let u = FnLower::u32c;
        let mn8 = self.bin(BinaryOp::ShrU, Ty::U32, mn, u(3));
        let mn_in = self.bin(BinaryOp::And, Ty::U32, mn, u(7));
        let (a, b, c, e) = if k_major {
            let a = self.bin(BinaryOp::Mul, Ty::U32, mn8, d.sbo);
            let b = self.bin(BinaryOp::Shl, Ty::U32, mn_in, d.width_log);
            let c = self.bin(BinaryOp::Mul, Ty::U32, d.k_major_k_step, u(k / 8));
            (a, b, c, u(2 * (k % 8)))
        } else {
            let a = self.bin(BinaryOp::Shl, Ty::U32, mn_in, u(1));
            let chunk = self.bin(BinaryOp::And, Ty::U32, mn8, d.mask);
            let b = self.bin(BinaryOp::Shl, Ty::U32, chunk, u(4));
            let group = self.bin(BinaryOp::ShrU, Ty::U32, mn, d.mn_major_group_log);
            let c = self.bin(BinaryOp::Mul, Ty::U32, group, d.mn_major_mn_step);
            let k8 = self.bin(BinaryOp::Mul, Ty::U32, d.mn_major_k_step, u(k / 8));
            let row = self.bin(BinaryOp::Mul, Ty::U32, d.width, u(k % 8));
            (a, b, c, self.bin(BinaryOp::Add, Ty::U32, k8, row))
        };
        let ab = self.bin(BinaryOp::Add, Ty::U32, a, b);
        let ce = self.bin(BinaryOp::Add, Ty::U32, c, e);
        let off = self.bin(BinaryOp::Add, Ty::U32, ab, ce);
        let addr = self.bin(BinaryOp::Add, Ty::U32, d.start, off);
        let row = self.bin(BinaryOp::ShrU, Ty::U32, addr, u(7));
        let row = self.bin(BinaryOp::And, Ty::U32, row, d.mask);
        let row = self.bin(BinaryOp::Shl, Ty::U32, row, u(4));
        self.bin(BinaryOp::Xor, Ty::U32, addr, row)
    }

    /// The shared word holding byte `at`, shifted so that the 16 bits at `at` are its low half
    /// when `half`. No alignment check: descriptor addresses are 16-byte aligned and every
    /// offset here keeps words (pairs along the contiguous dimension) and halves aligned.
    fn operand_word(&mut self, at: Operand, half: bool) -> Operand {
        let u = FnLower::u32c;
        let index = self.bin(BinaryOp::ShrU, Ty::U32, at, u(2));
        let w = self.value(Ty::U32, Expr::LoadWord { memory: Memory::Shared, index });
        if !half {
            return w;
        }
        let bit = self.bin(BinaryOp::And, Ty::U32, at, u(2));
        let shift = self.bin(BinaryOp::Shl, Ty::U32, bit, u(3));
        self.bin(BinaryOp::ShrU, Ty::U32, w, shift)
    }

    /// The K elements of line `mn` (a row of A, a column of B) as (word, element index) per
    /// k, their sign bits XOR-ed with `sign`. K-major: one word holds k and k + 1. MN-major:
    /// each element loaded alone (16 bits).
    fn operand_line(&mut self, d: &Descriptor, mn: Operand, mn_major: bool, sign: u32) -> Vec<(Operand, u32)> {
        let mut line = Vec::new();
        for k in 0..K {
            if mn_major {
                let at = self.element_address(d, mn, k, false);
                let w = self.operand_word(at, true);
                line.push((self.bin(BinaryOp::Xor, Ty::U32, w, FnLower::u32c(sign & 0xffff)), 0));
            } else if k % 2 == 0 {
                let at = self.element_address(d, mn, k, true);
                let w = self.operand_word(at, false);
                let w = self.bin(BinaryOp::Xor, Ty::U32, w, FnLower::u32c(sign));
                line.push((w, 0));
                line.push((w, 1));
            }
        }
        line
    }

    /// The words holding columns `mn` (even) and `mn + 1` of an MN-major matrix, per k: they
    /// are adjacent (a pair never straddles a 16-byte chunk, the swizzle's unit).
    fn operand_pair_line(&mut self, d: &Descriptor, mn: Operand, sign: u32) -> Vec<Operand> {
        (0..K)
            .map(|k| {
                let at = self.element_address(d, mn, k, false);
                let w = self.operand_word(at, false);
                self.bin(BinaryOp::Xor, Ty::U32, w, FnLower::u32c(sign))
            })
            .collect()
    }
}
