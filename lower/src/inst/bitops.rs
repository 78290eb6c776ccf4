//! Bit-level integer instructions whose semantics are tables or searches: `lop3` (§9.7.9.6),
//! `prmt` in every mode (§9.7.10.7), `fns` (§9.7.1.17), and the packed `.u16x2`/`.s16x2`
//! forms of `add`/`min`/`max` with `.relu` (§9.7.1.1, §9.7.1.12/13).

use super::{imm_u64, operands, Mods};
use crate::function::{FnLower, LResult};
use crate::ir::{BinaryOp, CmpOp, Operand, Ty, UnaryOp};
use ptxcross_frontend::ast::{OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// `prmt`'s specialized modes (§9.7.10.7 table): for selector `c[1:0]` = s, the source byte
/// index of destination byte i.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PrmtMode {
    /// Forward 4 extract: s + i.
    F4e,
    /// Backward 4 extract: (s − i) mod 8.
    B4e,
    /// Replicate 8: s.
    Rc8,
    /// Edge clamp left: max(i, s).
    Ecl,
    /// Edge clamp right: min(i, s).
    Ecr,
    /// Replicate 16: (i & 1) + 2·(s & 1).
    Rc16,
}

impl FnLower {
    /// `lop3{.BoolOp}.b32 d{|p}, a, b, c, immLut{, q}`: the Boolean function whose truth
    /// table is immLut (bit `4a + 2b + c` is F(a, b, c)), built by Shannon expansion on a, b,
    /// c with constant leaves folded, so common tables cost one or two operations.
    pub(super) fn lop3(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["and", "or"])?;
        let t = m.ty()?;
        if t != ScalarType::B32 {
            return Err(Diagnostic::new("`lop3` takes .b32", m.inst.span));
        }
        let bool_op = m.one_of(&["and", "or"]);
        let ops = operands(m.inst, if bool_op.is_some() { 6 } else { 5 })?;
        let lut = imm_u64(&ops[4])
            .filter(|&v| v <= 0xff)
            .ok_or_else(|| Diagnostic::new("`lop3`: immLut must be an integer constant in 0..255", ops[4].span))?;
        let (a, b, c) = (self.read(&ops[1], t)?, self.read(&ops[2], t)?, self.read(&ops[3], t)?);
        let r = self.truth_table(&[a, b, c], lut as u32);
        match (bool_op, &ops[0].kind) {
            (None, _) => self.write(&ops[0], t, r),
            (Some(op), OperandKind::Pair(d, p)) => {
                // p = (d != 0) BoolOp q
                let q = self.read(&ops[5], ScalarType::Pred)?;
                let nz = self.cmp(CmpOp::Ne, Ty::U32, r, FnLower::u32c(0));
                let op = if op == "and" { BinaryOp::And } else { BinaryOp::Or };
                let pv = self.bin(op, Ty::Bool, nz, q);
                self.write(d, t, r)?;
                self.write(p, ScalarType::Pred, pv)
            }
            (Some(_), _) => Err(Diagnostic::new("`lop3` with .and/.or writes `d|p`", ops[0].span)),
        }
    }

    /// The bitwise function of `vars` (first = most significant index bit) whose truth table
    /// has `1 << vars.len()` entries in `table`.
    fn truth_table(&mut self, vars: &[Operand], table: u32) -> Operand {
        let entries = 1u32 << vars.len();
        let full = if entries == 32 { u32::MAX } else { (1u32 << entries) - 1 };
        let table = table & full;
        if table == 0 {
            return FnLower::u32c(0);
        }
        if table == full {
            return FnLower::u32c(u32::MAX);
        }
        let half = entries / 2;
        let half_full = (1u32 << half) - 1;
        let (lo, hi) = (table & half_full, table >> half);
        let (x, rest) = (vars[0], &vars[1..]);
        if lo == hi {
            return self.truth_table(rest, lo);
        }
        let and = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::And, Ty::U32, p, q);
        let or = |s: &mut Self, p: Operand, q: Operand| s.bin(BinaryOp::Or, Ty::U32, p, q);
        let not = |s: &mut Self, p: Operand| s.un(UnaryOp::Not, Ty::U32, p);
        if hi == lo ^ half_full {
            let l = self.truth_table(rest, lo);
            return self.bin(BinaryOp::Xor, Ty::U32, x, l);
        }
        match (lo, hi) {
            (0, _) => {
                let h = self.truth_table(rest, hi);
                and(self, x, h)
            }
            (_, 0) => {
                let l = self.truth_table(rest, lo);
                let nx = not(self, x);
                and(self, nx, l)
            }
            (_, h) if h == half_full => {
                let l = self.truth_table(rest, lo);
                or(self, x, l)
            }
            (l, _) if l == half_full => {
                let h = self.truth_table(rest, hi);
                let nx = not(self, x);
                or(self, nx, h)
            }
            _ => {
                // x ? H : L = L ^ (x & (H ^ L))
                let l = self.truth_table(rest, lo);
                let h = self.truth_table(rest, hi);
                let diff = self.bin(BinaryOp::Xor, Ty::U32, h, l);
                let pick = and(self, x, diff);
                self.bin(BinaryOp::Xor, Ty::U32, l, pick)
            }
        }
    }

    /// `prmt.b32{.mode} d, a, b, c` (§9.7.10.7): bytes of {b, a} picked by the four selector
    /// nibbles of c (default: bit 3 replicates the byte's sign) or, in a mode, by the table
    /// row c[1:0].
    pub(super) fn prmt(&mut self, m: &Mods) -> LResult<()> {
        const MODES: [&str; 6] = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];
        m.only(&MODES)?;
        let t = m.ty()?;
        if t != ScalarType::B32 {
            return Err(Diagnostic::new("`prmt` takes .b32", m.inst.span));
        }
        let mode = m.one_of(&MODES).map(|s| match s {
            "f4e" => PrmtMode::F4e,
            "b4e" => PrmtMode::B4e,
            "rc8" => PrmtMode::Rc8,
            "ecl" => PrmtMode::Ecl,
            "ecr" => PrmtMode::Ecr,
            _ => PrmtMode::Rc16,
        });
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let (a, b, c) = (self.read(a, t)?, self.read(b, t)?, self.read(c, t)?);
        let u = FnLower::u32c;
        let lo = self.resize(a, Ty::U32, Ty::U64, false);
        let hi = self.resize(b, Ty::U32, Ty::U64, false);
        let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, u(32));
        let x = self.bin(BinaryOp::Or, Ty::U64, hi, lo);
        let s = self.bin(BinaryOp::And, Ty::U32, c, u(3));
        if mode == Some(PrmtMode::F4e) {
            // Bytes s+3..s of {b, a}: one funnel shift.
            let sh = self.bin(BinaryOp::Mul, Ty::U32, s, u(8));
            let r = self.bin(BinaryOp::ShrU, Ty::U64, x, sh);
            let r = self.resize(r, Ty::U64, Ty::U32, false);
            return self.write(d, t, r);
        }
        let mut r = u(0);
        for i in 0..4u32 {
            let (idx, replicate) = match mode {
                None => {
                    let sel = self.bin(BinaryOp::ShrU, Ty::U32, c, u(4 * i));
                    let idx = self.bin(BinaryOp::And, Ty::U32, sel, u(7));
                    let msb = self.bin(BinaryOp::And, Ty::U32, sel, u(8));
                    (idx, Some(self.cmp(CmpOp::Ne, Ty::U32, msb, u(0))))
                }
                Some(PrmtMode::B4e) => {
                    let v = self.bin(BinaryOp::Sub, Ty::U32, s, u(i));
                    (self.bin(BinaryOp::And, Ty::U32, v, u(7)), None)
                }
                Some(PrmtMode::Rc8) => (s, None),
                Some(PrmtMode::Ecl) => (self.bin(BinaryOp::MaxU, Ty::U32, s, u(i)), None),
                Some(PrmtMode::Ecr) => (self.bin(BinaryOp::MinU, Ty::U32, s, u(i)), None),
                Some(PrmtMode::Rc16) | Some(PrmtMode::F4e) => {
                    let s1 = self.bin(BinaryOp::And, Ty::U32, s, u(1));
                    let s2 = self.bin(BinaryOp::Shl, Ty::U32, s1, u(1));
                    (self.bin(BinaryOp::Or, Ty::U32, s2, u(i & 1)), None)
                }
            };
            let sh = self.bin(BinaryOp::Mul, Ty::U32, idx, u(8));
            let byte = self.bin(BinaryOp::ShrU, Ty::U64, x, sh);
            let byte = self.resize(byte, Ty::U64, Ty::U32, false);
            let byte = self.bin(BinaryOp::And, Ty::U32, byte, u(0xff));
            let byte = match replicate {
                Some(rep) => {
                    let sign = self.bin(BinaryOp::And, Ty::U32, byte, u(0x80));
                    let neg = self.cmp(CmpOp::Ne, Ty::U32, sign, u(0));
                    let fill = self.select(Ty::U32, neg, u(0xff), u(0));
                    self.select(Ty::U32, rep, fill, byte)
                }
                None => byte,
            };
            let placed = if i == 0 { byte } else { self.bin(BinaryOp::Shl, Ty::U32, byte, u(8 * i)) };
            r = if i == 0 { placed } else { self.bin(BinaryOp::Or, Ty::U32, r, placed) };
        }
        self.write(d, t, r)
    }

    /// `fns.b32 d, mask, base, offset` (§9.7.1.17): the position of the |offset|-th set bit of
    /// mask counted from bit `base` upwards (offset > 0, base included) or downwards
    /// (offset < 0), or whether bit `base` is set (offset = 0); 0xffffffff if there is none.
    /// A base above 31 is undefined behaviour in the spec; we give what its loop gives
    /// (`pos < 32` fails at once): 0xffffffff, as NVIDIA does — except for an offset of -2^31.
    pub(super) fn fns(&mut self, m: &Mods) -> LResult<()> {
        m.only(&[])?;
        let t = m.ty()?;
        if t != ScalarType::B32 {
            return Err(Diagnostic::new("`fns` takes .b32", m.inst.span));
        }
        let [d, mask, base, offset] = operands(m.inst, 4)? else { unreachable!() };
        let mask = self.read(mask, ScalarType::B32)?;
        // ptxas accepts any 32-bit register (a floating-point one too) for `base` and
        // `offset` (.u32 and .s32 in §9.7.8.9): their bits.
        let base = self.read(base, ScalarType::B32)?;
        let offset = self.read(offset, ScalarType::B32)?;
        let u = FnLower::u32c;
        let none = u(u32::MAX);
        let b = self.bin(BinaryOp::And, Ty::U32, base, u(31));
        // Upwards: the bits at and above base; downwards: at and below base, reversed so that
        // the search again runs from bit 0 up.
        let up_bits = self.bin(BinaryOp::Shl, Ty::U32, u(u32::MAX), b);
        let up = self.bin(BinaryOp::And, Ty::U32, mask, up_bits);
        let down_sh = self.bin(BinaryOp::Sub, Ty::U32, u(31), b);
        let down_bits = self.bin(BinaryOp::ShrU, Ty::U32, u(u32::MAX), down_sh);
        let down = self.bin(BinaryOp::And, Ty::U32, mask, down_bits);
        let down = self.un(UnaryOp::BitReverse, Ty::U32, down);
        let negative = self.cmp(CmpOp::LtS, Ty::U32, offset, u(0));
        let bits = self.select(Ty::U32, negative, down, up);
        let neg_off = self.un(UnaryOp::Neg, Ty::U32, offset);
        let n = self.select(Ty::U32, negative, neg_off, offset);
        // The n-th (1-based) set bit of `bits`: a binary search on population counts.
        let mut rank = n;
        let mut pos = u(0);
        for w in [16u32, 8, 4, 2, 1] {
            let shifted = self.bin(BinaryOp::ShrU, Ty::U32, bits, pos);
            let low = self.bin(BinaryOp::And, Ty::U32, shifted, u((1u32 << w) - 1));
            let count = self.un(UnaryOp::Popcount, Ty::U32, low);
            let past = self.cmp(CmpOp::GtU, Ty::U32, rank, count);
            let rank_next = self.bin(BinaryOp::Sub, Ty::U32, rank, count);
            rank = self.select(Ty::U32, past, rank_next, rank);
            let pos_next = self.bin(BinaryOp::Add, Ty::U32, pos, u(w));
            pos = self.select(Ty::U32, past, pos_next, pos);
        }
        let total = self.un(UnaryOp::Popcount, Ty::U32, bits);
        // n is unsigned here: |i32::MIN| = 2^31 exceeds every count.
        let missing = self.cmp(CmpOp::GtU, Ty::U32, n, total);
        let down_pos = self.bin(BinaryOp::Sub, Ty::U32, u(31), pos);
        let found = self.select(Ty::U32, negative, down_pos, pos);
        let searched = self.select(Ty::U32, missing, none, found);
        // offset = 0: base itself if its bit is set.
        let at = self.bin(BinaryOp::ShrU, Ty::U32, mask, b);
        let at = self.bin(BinaryOp::And, Ty::U32, at, u(1));
        let set = self.cmp(CmpOp::Ne, Ty::U32, at, u(0));
        let here = self.select(Ty::U32, set, b, none);
        let zero = self.cmp(CmpOp::Eq, Ty::U32, offset, u(0));
        let r = self.select(Ty::U32, zero, here, searched);
        let out_of_range = self.cmp(CmpOp::GtU, Ty::U32, base, u(31));
        let r = self.select(Ty::U32, out_of_range, none, r);
        // An offset of -2^31 gives 0 on NVIDIA's sm_90 whatever the mask and base (even a base
        // above 31), where the spec's loop gives 0xffffffff or a bit position (measured through
        // the CUDA driver's PTX JIT on an H100, driver 580, 2026-11-26; -2^31 + 1 follows the
        // spec). Kernels give NVIDIA's bits.
        let min_offset = self.cmp(CmpOp::Eq, Ty::U32, offset, u(0x8000_0000));
        let r = self.select(Ty::U32, min_offset, u(0), r);
        self.write(d, t, r)
    }

    /// `add`/`min`/`max` on `.u16x2`/`.s16x2` (and `min/max.relu` on `.s16x2`/`.s32`): each
    /// half-word lane on its own, wrapping for `add`; `.relu` clamps negative results to 0.
    /// Returns `None` when `m` has neither a packed type nor `.relu`.
    pub(super) fn packed_int(&mut self, m: &Mods) -> Option<LResult<()>> {
        let packed = m.one_of(&["u16x2", "s16x2"]);
        if packed.is_none() && !m.has("relu") {
            return None;
        }
        Some(self.packed_int_inner(m, packed))
    }

    fn packed_int_inner(&mut self, m: &Mods, packed: Option<&str>) -> LResult<()> {
        let name = m.inst.opcode.name.as_str();
        let span = m.inst.span;
        let relu = m.has("relu");
        let mut allowed = vec!["u16x2", "s16x2"];
        if name != "add" {
            allowed.push("relu");
        }
        m.only(&allowed)?;
        if !matches!(name, "add" | "min" | "max") {
            return Err(Diagnostic::new(format!("`{}`: only add/min/max have packed integer forms", m.name()), span));
        }
        let u = FnLower::u32c;
        let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
        let Some(pt) = packed else {
            // `.relu` on a scalar type: only `.s32` has it.
            if m.types() != [ScalarType::S32] {
                return Err(Diagnostic::new(format!("`{}`: .relu applies to .s32 and .s16x2", m.name()), span));
            }
            let (a, b) = (self.read(a, ScalarType::S32)?, self.read(b, ScalarType::S32)?);
            let op = if name == "min" { BinaryOp::MinS } else { BinaryOp::MaxS };
            let r = self.bin(op, Ty::U32, a, b);
            let r = self.bin(BinaryOp::MaxS, Ty::U32, r, u(0));
            return self.write(d, ScalarType::S32, r);
        };
        if !m.types().is_empty() || m.inst.modifiers.iter().filter(|x| x.text == "u16x2" || x.text == "s16x2").count() != 1 {
            return Err(Diagnostic::new(format!("`{}` takes one instruction type", m.name()), span));
        }
        let signed = pt == "s16x2";
        if relu && !signed {
            return Err(Diagnostic::new(format!("`{}`: .relu applies to .s32 and .s16x2", m.name()), span));
        }
        let (a, b) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?);
        let lane = |s: &mut Self, x: Operand, i: u32| {
            let l = if i == 0 { s.bin(BinaryOp::Shl, Ty::U32, x, u(16)) } else { x };
            s.bin(if signed { BinaryOp::ShrS } else { BinaryOp::ShrU }, Ty::U32, l, u(16))
        };
        let mut r = u(0);
        for i in 0..2 {
            let (x, y) = (lane(self, a, i), lane(self, b, i));
            let v = match (name, signed) {
                ("add", _) => self.bin(BinaryOp::Add, Ty::U32, x, y),
                ("min", true) => self.bin(BinaryOp::MinS, Ty::U32, x, y),
                ("min", false) => self.bin(BinaryOp::MinU, Ty::U32, x, y),
                (_, true) => self.bin(BinaryOp::MaxS, Ty::U32, x, y),
                (_, false) => self.bin(BinaryOp::MaxU, Ty::U32, x, y),
            };
            let v = if relu { self.bin(BinaryOp::MaxS, Ty::U32, v, u(0)) } else { v };
            let v = self.bin(BinaryOp::And, Ty::U32, v, u(0xffff));
            r = if i == 0 {
                v
            } else {
                let h = self.bin(BinaryOp::Shl, Ty::U32, v, u(16));
                self.bin(BinaryOp::Or, Ty::U32, r, h)
            };
        }
        self.write(d, ScalarType::B32, r)
    }
}
