//! Integer instructions (spec §9.7.1, §9.7.8). `bits` is the type's width; operands are the
//! low `bits` of the `u64`s, results are zero-extended.

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn bit(x: u64, i: u32) -> u64 {
    (x >> i) & 1
}

/// Position and length as the hardware reads them. The spec (§9.7.1.19/20) says "`b` and `c`
/// are restricted to the range 0..255" and takes their low 8 bits. Observed on an NVIDIA H200,
/// driver 580: that holds for the 32-bit forms, but the 64-bit forms use the whole 32-bit value
/// (position 256, length 1 extracts nothing; measured for values up to 511, so larger values are
/// assumed to behave the same).
fn pos_len(bits: u32, b: u64, c: u64) -> (u64, u64) {
    let m = if bits == 64 { 0xffff_ffff } else { 0xff };
    (b & m, c & m)
}

/// §9.7.1.19 `bfe`: the spec's bit loop, literally (with `pos_len`).
pub fn bfe(bits: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let msb = u64::from(bits - 1);
    let (pos, len) = pos_len(bits, b, c);
    let sbit = if !signed || len == 0 { 0 } else { bit(a, (pos + len - 1).min(msb) as u32) };
    let mut d = 0u64;
    for i in 0..=msb {
        let v = if i < len && pos + i <= msb { bit(a, (pos + i) as u32) } else { sbit };
        d |= v << i;
    }
    d
}

/// `bfe` with immediate position and length. Observed on an NVIDIA H200, driver 580: the PTX
/// JIT folds `bfe.s32` with an immediate position of 32 or more (and a nonzero immediate length)
/// to all ones whatever `a` is (the register form follows the spec: the sign bit of `a`). Every
/// other immediate form matches `bfe`.
pub fn bfe_immediate(bits: u32, signed: bool, a: u64, pos: u64, len: u64) -> u64 {
    if signed && bits == 32 && pos >= 32 && len != 0 {
        return 0xffff_ffff;
    }
    bfe(bits, signed, a, pos, len)
}

/// §9.7.1.20 `bfi`: the spec's bit loop, literally (with `pos_len`).
pub fn bfi(bits: u32, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let msb = u64::from(bits - 1);
    let (pos, len) = pos_len(bits, c, d);
    let mut f = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1u64 << (pos + i))) | (bit(a, i as u32) << (pos + i));
        i += 1;
    }
    f
}

fn sext(x: u64, bits: u32) -> i64 {
    ((x << (64 - bits)) as i64) >> (64 - bits)
}

/// §9.7.1.1/2 `add.sat.s32` / `sub.sat.s32`: "limits result to MININT..MAXINT".
pub fn add_sat_s32(a: u64, b: u64, sub: bool) -> u64 {
    let (a, b) = (sext(a, 32), sext(b, 32));
    let r = if sub { a - b } else { a + b };
    r.clamp(i32::MIN as i64, i32::MAX as i64) as u32 as u64
}

/// §9.7.1.5/6 mul24/mad24: "t = a * b" of the 24-bit values; .hi: t<47..16>, .lo: t<31..0>;
/// mad24 adds c; `.sat` (mad24.hi.s32) limits the 32-bit signed addition.
pub fn mul24(signed: bool, hi: bool, a: u64, b: u64, c: Option<u64>, sat: bool) -> u64 {
    let v = |x: u64| if signed { sext(x & 0xff_ffff, 24) as i128 } else { (x & 0xff_ffff) as i128 };
    let t = v(a) * v(b);
    let part = if hi { (t >> 16) as u64 & 0xffff_ffff } else { t as u64 & 0xffff_ffff };
    match c {
        None => part,
        Some(c) if sat => (sext(part, 32) + sext(c, 32)).clamp(i32::MIN as i64, i32::MAX as i64) as u32 as u64,
        Some(c) => (part + c) & 0xffff_ffff,
    }
}

/// §9.7.1.7 sad: d = c + ((a<b) ? b-a : a-b).
pub fn sad(bits: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let lt = if signed { sext(a, bits) < sext(b, bits) } else { a & mask(bits) < b & mask(bits) };
    let d = if lt { b.wrapping_sub(a) } else { a.wrapping_sub(b) };
    c.wrapping_add(d) & mask(bits)
}

/// §9.7.1.16 bfind: the spec's loop.
pub fn bfind(bits: u32, signed: bool, shiftamt: bool, a: u64) -> u64 {
    let msb = bits - 1;
    let mut a = a & mask(bits);
    if signed && bit(a, msb) == 1 {
        a = !a & mask(bits);
    }
    let mut d = 0xffff_ffffu64;
    for i in (0..=msb).rev() {
        if bit(a, i) == 1 {
            d = i as u64;
            break;
        }
    }
    if shiftamt && d != 0xffff_ffff {
        d = msb as u64 - d;
    }
    d
}

/// §9.7.1.22 bmsk: the spec's semantics.
pub fn bmsk(clamp: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let a1 = a & 0x1f;
    let mut mask0 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { !0u32 << sum };
    let sum_overflow = sum >= 32;
    let mut pos_overflow = false;
    let mut width_overflow = false;
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    (mask0 & !mask1) as u64
}

/// §9.7.1.21 szext: the spec's semantics.
pub fn szext(clamp: bool, signed: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { !0u32 << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = if b1 == 0 || too_large || !signed { false } else { (a >> sign_pos) & 1 == 1 };
    ((a & !mask) | if sign_bit { mask } else { 0 }) as u64
}

/// §9.7.1.23/24 dp4a / dp2a (`b_select` 0 for dp4a and dp2a.lo, 2 for dp2a.hi).
pub fn dot(dp2: bool, a_signed: bool, b_signed: bool, b_select: u32, a: u64, b: u64, c: u64) -> u64 {
    let ext = |x: u64, i: u32, w: u32, s: bool| {
        let v = (x >> (i * w)) & mask(w);
        if s {
            sext(v, w)
        } else {
            v as i64
        }
    };
    let mut d = c as i64;
    let (n, aw) = if dp2 { (2, 16) } else { (4, 8) };
    for i in 0..n {
        d = d.wrapping_add(ext(a, i, aw, a_signed).wrapping_mul(ext(b, b_select + i, 8, b_signed)));
    }
    d as u64 & 0xffff_ffff
}

/// §9.7.9.6 lop3: bit i of d is bit `(a_i << 2) | (b_i << 1) | c_i` of immLut (the table the
/// spec builds from ta = 0xF0, tb = 0xCC, tc = 0xAA).
pub fn lop3(lut: u8, a: u64, b: u64, c: u64) -> u64 {
    let mut d = 0;
    for i in 0..32 {
        let idx = (bit(a, i) << 2) | (bit(b, i) << 1) | bit(c, i);
        d |= u64::from((lut >> idx) & 1) << i;
    }
    d
}

/// §9.7.10.7 prmt's mode table, copied from the spec: for each mode (f4e, b4e, rc8, ecl, ecr,
/// rc16) and selector c[1:0], the source bytes of d.b3, d.b2, d.b1, d.b0.
const PRMT_TABLE: [(&str, [[u8; 4]; 4]); 6] = [
    ("f4e", [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
    ("b4e", [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
    ("rc8", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecl", [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecr", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
    ("rc16", [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
];

/// §9.7.10.7 prmt: `mode` is "" (generic form: four selector nibbles, bit 3 replicates the
/// byte's sign) or one of the table's modes (selector c[1:0], no sign replication).
pub fn prmt(mode: &str, a: u64, b: u64, c: u64) -> u64 {
    let tmp64 = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |i: u64| (tmp64 >> (8 * i)) & 0xff;
    let mut d = 0;
    for i in 0..4 {
        let v = if mode.is_empty() {
            let ctl = (c >> (4 * i)) & 0xf;
            let v = byte(ctl & 7);
            if ctl & 8 != 0 {
                if v & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                v
            }
        } else {
            let row = PRMT_TABLE.iter().find(|(m, _)| *m == mode).expect("prmt mode").1[(c & 3) as usize];
            byte(u64::from(row[3 - i as usize]))
        };
        d |= v << (8 * i);
    }
    d
}

/// §9.7.1.17 fns: the spec's loop, literally. A base above 31 is undefined in the spec; the
/// loop's `pos < 32` test gives 0xffffffff for it (what ptxcross pins).
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let (mask, base, offset) = (mask as u32, base as u32 as i64, offset as u32 as i32 as i64);
    // Not in the spec: NVIDIA's sm_90 gives 0 for an offset of -2^31, whatever the mask and the
    // base (measured through the CUDA driver's PTX JIT, 2026-11-26).
    if offset == i32::MIN as i64 {
        return 0;
    }
    let mut d = 0xffff_ffffu64;
    if base > 31 {
        return d;
    }
    if offset == 0 {
        if (mask >> base) & 1 == 1 {
            d = base as u64;
        }
    } else {
        let mut pos = base;
        let mut count = offset.abs() - 1;
        let inc = if offset > 0 { 1 } else { -1 };
        while (0..32).contains(&pos) {
            if (mask >> pos) & 1 == 1 {
                if count == 0 {
                    d = pos as u64;
                    break;
                } else {
                    count -= 1;
                }
            }
            pos += inc;
        }
    }
    d
}

/// §9.7.1.1/12/13 `add`/`min`/`max` on `.u16x2`/`.s16x2` (with `.relu`: negative lanes become
/// 0): each half word on its own.
pub fn packed16(op: &str, signed: bool, relu: bool, a: u64, b: u64) -> u64 {
    let lane = |x: u64, i: u32| {
        let v = (x >> (16 * i)) & 0xffff;
        if signed {
            sext(v, 16)
        } else {
            v as i64
        }
    };
    let mut d = 0;
    for i in 0..2 {
        let (x, y) = (lane(a, i), lane(b, i));
        let mut v = match op {
            "add" => x + y,
            "min" => x.min(y),
            _ => x.max(y),
        };
        if relu && v < 0 {
            v = 0;
        }
        d |= (v as u64 & 0xffff) << (16 * i);
    }
    d
}

/// §9.7.1.12/13 `min.relu.s32` / `max.relu.s32`.
pub fn min_max_relu_s32(max: bool, a: u64, b: u64) -> u64 {
    let (x, y) = (sext(a, 32), sext(b, 32));
    (if max { x.max(y) } else { x.min(y) }).max(0) as u64 & 0xffff_ffff
}

/// §9.7.1.4 `mad.hi.sat.s32`: t<63..32> + c limited to MININT..MAXINT.
pub fn mad_hi_sat_s32(a: u64, b: u64, c: u64) -> u64 {
    let t = sext(a, 32) as i128 * sext(b, 32) as i128;
    let hi = (t >> 32) as i64;
    (hi + sext(c, 32)).clamp(i32::MIN as i64, i32::MAX as i64) as u32 as u64
}

/// §9.7.7.4 slct with an .f32 comparison operand: a if c ≥ 0 (−0 equals 0; with `.ftz` a
/// subnormal c is a signed zero), b otherwise and for NaN.
pub fn slct_f32(ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let mut f = f32::from_bits(c as u32);
    if ftz && f.is_subnormal() {
        f = 0.0;
    }
    if f >= 0.0 {
        a
    } else {
        b
    }
}

/// §9.7.10.21 cvt.pack.sat: a and b (s32) clamped to the `bits`-wide type's range, packed
/// as d's low 2·bits bits (a above b); with c, d's remaining bits are c's low bits.
pub fn cvt_pack(bits: u32, signed: bool, a: u64, b: u64, c: Option<u64>) -> u64 {
    let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let t = |x: u64| (sext(x, 32).clamp(lo, hi) as u64) & mask(bits);
    let td = t(b) | (t(a) << bits);
    match c {
        None => td,
        Some(c) => (td | (c << (2 * bits))) & 0xffff_ffff,
    }
}
