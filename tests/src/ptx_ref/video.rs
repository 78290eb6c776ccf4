//! Video instructions (spec §9.7.18), transcribed from the pseudo-code in i128 arithmetic.
//! Operands are 32-bit values in the low bits of `u64`; results are the 32-bit destination.
//!
//! The scalar ops ([`scalar`]) and [`vmad_hw`] follow NVIDIA's hardware where it differs from
//! the pseudo-code (each difference documented there); [`scalar_pseudo_code`] and [`vmad`] are
//! the pseudo-code.
//!
//! Readings where the spec is ambiguous (the same as `lower/src/inst/video.rs`, decided from the
//! text, not from that code):
//! - the `.s33`/`.s34` intermediates are taken as exact values: CLAMP, MIN and MAX act on the
//!   mathematical value, the low 32 bits are written (`vshl` by 32 of a 33-bit value does not
//!   fit the spec's `.s34`; its exact value is used);
//! - `optSecOp`'s c has the sign of dtype ("The sign of the third operand is based on dtype");
//!   `vset`'s c is unsigned;
//! - SIMD merge: `d |= mask[i] ? t[i] : Vc[i]` places lane i's low bits at lane i (the
//!   pseudo-code leaves the shift implicit), and unselected lanes come from c, also for
//!   `vset2/4` whose prose says "from source operand b";
//! - SIMD accumulate adds each selected lane's exact (signed) result to c;
//! - [`vmad`] (the pseudo-code) follows it literally: c is sign-extended whenever the final
//!   result is signed (the prose's "(u32 * u32) - u32" would zero-extend it), the scaled result
//!   is the low 64 bits of the 128-bit sum, read as signed for a signed final result when
//!   clamped. (NVIDIA's differs: [`vmad_hw`].)

/// `.b0..b3`, `.h0/.h1` or the whole word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sel {
    Word,
    B(u32),
    H(u32),
}

impl Sel {
    pub const ALL: [Sel; 7] = [Sel::Word, Sel::B(0), Sel::B(1), Sel::B(2), Sel::B(3), Sel::H(0), Sel::H(1)];
    /// The PTX suffix (`""` for the whole word).
    pub fn suffix(self) -> String {
        match self {
            Sel::Word => String::new(),
            Sel::B(i) => format!(".b{i}"),
            Sel::H(i) => format!(".h{i}"),
        }
    }
}

/// `partSelectSignExtend(x, signed, sel)`: the selected field, sign- or zero-extended.
pub fn part(x: u64, signed: bool, sel: Sel) -> i128 {
    let x = x as u32;
    let (v, bits) = match sel {
        Sel::Word => (x, 32),
        Sel::B(i) => ((x >> (8 * i)) & 0xff, 8),
        Sel::H(i) => ((x >> (16 * i)) & 0xffff, 16),
    };
    if signed && v >> (bits - 1) & 1 == 1 {
        v as i128 - (1i128 << bits)
    } else {
        v as i128
    }
}

fn clamp(v: i128, signed: bool, bits: u32) -> i128 {
    let (lo, hi) = if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    v.clamp(lo, hi)
}

/// The secondary operation of a scalar video instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Second {
    None,
    Add,
    Min,
    Max,
    /// Merge into field `dsel` of c.
    Merge(Sel),
}

/// The exact intermediate of a scalar op, before saturation (the spec's `tmp`).
#[allow(clippy::too_many_arguments)]
fn scalar_tmp(op: &str, asigned: bool, bsigned: bool, clamp_mode: bool, asel: Sel, bsel: Sel, a: u64, b: u64) -> i128 {
    let ta = part(a, asigned, asel);
    match op {
        "vadd" => ta + part(b, bsigned, bsel),
        "vsub" => ta - part(b, bsigned, bsel),
        "vabsdiff" => (ta - part(b, bsigned, bsel)).abs(),
        "vmin" => ta.min(part(b, bsigned, bsel)),
        "vmax" => ta.max(part(b, bsigned, bsel)),
        "vshl" | "vshr" => {
            let mut tb = part(b, false, bsel);
            if clamp_mode && tb > 32 {
                tb = 32;
            }
            if !clamp_mode {
                tb &= 0x1f;
            }
            if op == "vshl" {
                ta << tb
            } else {
                ta >> tb
            }
        }
        cmp => {
            let tb = part(b, bsigned, bsel);
            let r = match cmp.strip_prefix("vset.").expect("vset.<cmp>") {
                "eq" => ta == tb,
                "ne" => ta != tb,
                "lt" => ta < tb,
                "le" => ta <= tb,
                "gt" => ta > tb,
                "ge" => ta >= tb,
                other => panic!("comparison {other}"),
            };
            r as i128
        }
    }
}

/// `x` wrapped to a signed 34-bit value (the spec's `.s34` intermediate).
fn wrap_s34(x: i128) -> i128 {
    ((x as u128) << 94) as i128 >> 94
}

/// Scalar `vadd vsub vabsdiff vmin vmax` (§9.7.18.1.1), `vshl vshr` (§9.7.18.1.2: `clamp_mode`
/// true for `.clamp`), `vset` (§9.7.18.1.4: `op` is "vset.<cmp>", dsigned false), as NVIDIA's
/// hardware computes them (sm_90, driver 580.159.04, measured 2026-11-26 on an H100 with the
/// sweep's cases; the rules below reproduce every value of the first run's 397 scalar forms, see
/// `tests/tests/video_nvidia_replay.rs`). Where that differs from the spec's pseudo-code
/// ([`scalar_pseudo_code`]):
/// - `.sat` clamps the intermediate wrapped to 34 bits (the spec's `.s34`; only `vshl` reaches
///   beyond): spec §9.7.18.1 says the exact value is clamped; sm_90 gives e.g.
///   `vshl.s32.u32.u32.sat.wrap %d.h1, %s0.h0, %s1.b3, %s2` with 31 << 31 → 0x8000 in h1.
/// - `.sat` of a word result (no merge) of an unsigned `vadd/vsub/vabsdiff` clamps a negative
///   value to 0 but takes the low 32 bits of one at or above 2^32 (spec: clamps to U32_MAX):
///   `vadd.u32.u32.s32.sat` of a = 0xffffffff, b.b1 = 0x7f gives 0x7e, and
///   `vadd.u32.u32.u32.sat.max` of a.b0 = 1, b = 0xffffffff, c = 0 gives 0.
/// - `.add`: the low 32 bits of t + c, as the spec says (t saturated as above).
/// - `.min/.max` (spec §9.7.18.1: the `.s34` result and c with dtype's sign compare): sm_90
///   compares a 64-bit value k with c extended by dtype's sign (sign-extended for `.s32`, else
///   zero-extended), as signed for a signed dtype and as **unsigned** 64-bit patterns for an
///   unsigned one, and writes the low 32 bits of t or c. k is the low 32 bits of t as s32 for
///   `vadd/vsub` and for saturated `vshl/vshr`, the exact t (vshl's wrapped to 64 bits) for
///   `vmin/vmax/vabsdiff` and unsaturated shifts. So with an unsigned dtype a negative k lies
///   above every c: `vadd.u32.u32.u32.max` of a.b1 = 0, b = 0x80ffff20, c = 0xfe81ff81 gives
///   0x80ffff20 (k = sext(0x80ffff20)), and `vmax.s32.u32.u32.min` of 0, 0x80000000, c = 1
///   gives 1 (k = 2^31, exact). `vabsdiff` with an unsigned dtype, `.sat` and `.min/.max` is
///   not settled by the data (the compared and the written value of a result at or above 2^32
///   are not determined) and ptxcross refuses it. For `vset` c compares with atype's sign:
///   the low 32 bits as s32 for a signed atype, the exact result against c as u32 otherwise.
/// - merge `%d.b0-3/.h0` (without `.sat`): the low byte/half-word of the result into its field
///   of c, as the spec says; but `.h1` takes bits 16..31 of the result *in place* (spec: the
///   low half-word moved up).
/// - merge with `.sat`: spec says the result is clamped to the field's range (dtype's sign);
///   sm_90 clamps `vshl/vshr` to the 32-bit dtype range (then the field as above), and the
///   other ops' exact result, read as unsigned (negative: above the bound), to the field's
///   maximum only (`vadd.s32.s32.s32.sat %d.b2` of -1 gives 0x7f).
///
/// A second, wider H100 replay (2,898 forms, `PTXCROSS_VIDEO_STRIDE=23`) confirmed the merge
/// rules and `vset`'s `.min/.max` and disproved the first log's `.min/.max` rule for the other
/// ops and its `.sat` for mixed-signedness word operands; the rules above (fitted to it, 2026-11-26)
/// reproduce every known row of its 2,937 forms (the secondary operations' 712 and the plain
/// mixed-signedness `.sat` forms included) but the 17 refused `vabsdiff` forms.
#[allow(clippy::too_many_arguments)]
pub fn scalar(
    op: &str,
    dsigned: bool,
    asigned: bool,
    bsigned: bool,
    sat: bool,
    clamp_mode: bool,
    asel: Sel,
    bsel: Sel,
    second: Second,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let x = scalar_tmp(op, asigned, bsigned, clamp_mode, asel, bsel, a, b);
    let shift = matches!(op, "vshl" | "vshr");
    let sat32 = |x: i128| clamp(wrap_s34(x), dsigned, 32);
    // `.sat` of a word result: an unsigned vadd/vsub/vabsdiff clamps below at 0 but wraps at
    // 2^32 instead of clamping (`vadd.u32.u32.s32.sat` of a = 0xffffffff, b.b1 = 0x7f gives
    // 0x7e); the others as `sat32`.
    let sat_word = |x: i128| {
        if !dsigned && matches!(op, "vadd" | "vsub" | "vabsdiff") {
            if x < 0 {
                0
            } else {
                x & 0xffff_ffff
            }
        } else {
            sat32(x)
        }
    };
    let t = if sat { sat_word(x) } else { x };
    let c32 = c as u32;
    let d: u32 = match second {
        Second::None | Second::Merge(Sel::Word) => t as u32,
        Second::Add => (t as u32).wrapping_add(c32),
        Second::Min | Second::Max if op.starts_with("vset") => {
            let take_t = if asigned {
                let (t, c) = (t as u32 as i32, c32 as i32);
                (t < c) == (second == Second::Min)
            } else {
                let (t, c) = (t as u64, c32 as u64);
                (t < c) == (second == Second::Min)
            };
            if take_t {
                t as u32
            } else {
                c32
            }
        }
        Second::Min | Second::Max => {
            // The value compared with c (the written value is t's low 32 bits either way).
            // vadd/vsub (and saturated shifts): the low 32 bits as s32; vmin/vmax/vabsdiff and
            // unsaturated shifts: the exact value (vshl's wrapped to 64 bits).
            let key = if matches!(op, "vadd" | "vsub") || (sat && matches!(op, "vshl" | "vshr")) {
                t as u32 as i32 as i64
            } else {
                t as i64
            };
            let take_t = if dsigned {
                (key < c32 as i32 as i64) == (second == Second::Min)
            } else {
                ((key as u64) < c32 as u64) == (second == Second::Min)
            };
            if take_t {
                t as u32
            } else {
                c32
            }
        }
        Second::Merge(sel) => {
            let (w, i) = match sel {
                Sel::B(i) => (8, i),
                Sel::H(i) => (16, i),
                Sel::Word => unreachable!(),
            };
            let field = ((1u64 << w) - 1) as u32;
            let v = if !sat {
                x
            } else if shift {
                sat32(x)
            } else {
                let hi = if dsigned { field as i128 >> 1 } else { field as i128 };
                if x < 0 || x > hi {
                    hi
                } else {
                    x
                }
            } as u32;
            if sel == Sel::H(1) {
                (v & 0xffff_0000) | (c32 & 0xffff)
            } else {
                ((v & field) << (w * i)) | (c32 & !(field << (w * i)))
            }
        }
    };
    d as u64
}

/// Scalar video ops as the spec's pseudo-code (§9.7.18.1) reads, where it differs from NVIDIA's
/// hardware ([`scalar`]): kept to replay the log of NVIDIA's disagreements with it
/// (`tests/tests/video_nvidia_replay.rs`), whose unlogged values are this function's.
#[allow(clippy::too_many_arguments)]
pub fn scalar_pseudo_code(
    op: &str,
    dsigned: bool,
    asigned: bool,
    bsigned: bool,
    sat: bool,
    clamp_mode: bool,
    asel: Sel,
    bsel: Sel,
    second: Second,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let tmp = scalar_tmp(op, asigned, bsigned, clamp_mode, asel, bsel, a, b);
    // optSaturate (vset never saturates).
    let tmp = if sat {
        let bits = match second {
            Second::Merge(Sel::B(_)) => 8,
            Second::Merge(Sel::H(_)) => 16,
            _ => 32,
        };
        clamp(tmp, dsigned, bits)
    } else {
        tmp
    };
    let cv = part(c, dsigned, Sel::Word);
    let d: i128 = match second {
        Second::None | Second::Merge(Sel::Word) => tmp,
        Second::Add => tmp + cv,
        Second::Min => tmp.min(cv),
        Second::Max => tmp.max(cv),
        Second::Merge(sel) => {
            let (t, c) = (tmp as u64 as u32, c as u32);
            (match sel {
                Sel::H(0) => (t & 0xffff) | (0xffff_0000 & c),
                Sel::H(_) => ((t & 0xffff) << 16) | (0x0000_ffff & c),
                Sel::B(0) => (t & 0xff) | (0xffff_ff00 & c),
                Sel::B(1) => ((t & 0xff) << 8) | (0xffff_00ff & c),
                Sel::B(2) => ((t & 0xff) << 16) | (0xff00_ffff & c),
                Sel::B(_) => ((t & 0xff) << 24) | (0x00ff_ffff & c),
                Sel::Word => unreachable!(),
            }) as i128
        }
    };
    d as u64 & 0xffff_ffff
}

/// `vmad` (§9.7.18.1.3) as the spec's pseudo-code reads. `scale` is 0, 7 or 15. NVIDIA's
/// hardware differs ([`vmad_hw`], what ptxcross follows); kept to replay the first log of
/// NVIDIA's disagreements (`tests/tests/video_nvidia_replay.rs`).
#[allow(clippy::too_many_arguments)]
pub fn vmad(
    asigned: bool,
    bsigned: bool,
    aneg: bool,
    bneg: bool,
    cneg: bool,
    po: bool,
    sat: bool,
    scale: u32,
    asel: Sel,
    bsel: Sel,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let ta = part(a, asigned, asel);
    let tb = part(b, bsigned, bsel);
    let signed_final = asigned || bsigned || (aneg ^ bneg) || cneg;
    // tmp[127:0] = ta * tb, as 128-bit two's complement.
    let mut tmp = (ta * tb) as u128;
    let mut c = c as u32;
    let lsb: u128 = if po {
        1
    } else if aneg ^ bneg {
        tmp = !tmp;
        1
    } else if cneg {
        c = !c;
        1
    } else {
        0
    };
    let c128: u128 = if signed_final { c as i32 as i128 as u128 } else { c as u128 };
    let tmp = tmp.wrapping_add(c128).wrapping_add(lsb);
    let result = (tmp >> scale) as u64;
    let result = if sat {
        if signed_final {
            (result as i64).clamp(i32::MIN as i64, i32::MAX as i64) as u64
        } else {
            result.min(u32::MAX as u64)
        }
    } else {
        result
    };
    result & 0xffff_ffff
}

/// `vmad` as NVIDIA's hardware computes it (sm_90, driver 580.159.04, measured 2026-11-26 on an
/// H100: every row of 576 forms, 8,704 rows each, reproduced; the fixture
/// `tests/nvidia/video_measured.bin` keeps a sample, checked by `video_nvidia_fixture`).
/// Spec §9.7.18.1.3 (the pseudo-code: [`vmad`]) forms a 128-bit product of the `.s33` operands,
/// complements it for a negated product, adds c sign- or zero-extended by the final sign, and
/// saturates the low 64 bits of the scaled sum. sm_90 instead:
/// - multiplies the selected, extended operands as **32-bit signed** values: a `.u32` word
///   operand with bit 31 set counts as negative (`vmad.u32.u32.u32.shr7` of a = 0x80000000,
///   b.b3 = 0x7f gives 0x81000000, the spec 0x7f000000); a byte or half-word is extended by its
///   type as the spec says, so only word operands differ;
/// - negates the product (`-prod`, i.e. `~prod + 1`, the spec's lsb) or c (`-c`), and `.po`
///   adds 1; c is always **sign-extended** from 32 bits (the spec: zero-extended for an
///   unsigned final result);
/// - sums in 64 bits (exact: |a·b| ≤ 2^62), shifts `.shr7/.shr15` arithmetically for a signed
///   final result and **logically** for an unsigned one (the 64-bit sum read as unsigned), and
///   `.sat` clamps that 64-bit value, read as signed, to the final sign's 32-bit range: an
///   unsigned final result that is negative saturates to 0 unscaled, but to 0xffffffff once
///   shifted (its logical shift is a large positive number);
/// - the final sign is the spec's (signed if a or b is signed, or exactly one of them or c is
///   negated); dtype does not enter.
#[allow(clippy::too_many_arguments)]
pub fn vmad_hw(
    asigned: bool,
    bsigned: bool,
    aneg: bool,
    bneg: bool,
    cneg: bool,
    po: bool,
    sat: bool,
    scale: u32,
    asel: Sel,
    bsel: Sel,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let ta = part(a, asigned, asel) as u32 as i32 as i64;
    let tb = part(b, bsigned, bsel) as u32 as i32 as i64;
    let signed_final = asigned || bsigned || (aneg ^ bneg) || cneg;
    let product = if aneg ^ bneg { -(ta * tb) } else { ta * tb };
    let c = if cneg { -(c as u32 as i32 as i64) } else { c as u32 as i32 as i64 };
    let sum = product + c + po as i64;
    let scaled = if signed_final { sum >> scale } else { ((sum as u64) >> scale) as i64 };
    let result = if !sat {
        scaled
    } else if signed_final {
        scaled.clamp(i32::MIN as i64, i32::MAX as i64)
    } else {
        scaled.clamp(0, u32::MAX as i64)
    };
    result as u64 & 0xffff_ffff
}

/// SIMD `vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2/vset2` (`lanes` 2) and the `4` forms
/// (§9.7.18.2). `op` is the name without the lane count (`vset.<cmp>` for vset);
/// `asel`/`bsel` name each lane's element of b:a (lane 0 first); `mask` the lanes written;
/// `add` accumulates into c.
#[allow(clippy::too_many_arguments)]
pub fn simd(
    op: &str,
    lanes: u32,
    dsigned: bool,
    asigned: bool,
    bsigned: bool,
    sat: bool,
    add: bool,
    asel: &[u32],
    bsel: &[u32],
    mask: &[bool],
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let w = 32 / lanes;
    let ab = (a & 0xffff_ffff) | (b << 32);
    let elem = |k: u32, signed: bool| -> i64 {
        let v = (ab >> (w * k)) & ((1 << w) - 1);
        if signed && v >> (w - 1) & 1 == 1 {
            v as i64 - (1 << w)
        } else {
            v as i64
        }
    };
    let mut d: u32 = if add { c as u32 } else { 0 };
    for i in 0..lanes as usize {
        let (va, vb) = (elem(asel[i], asigned), elem(bsel[i], bsigned));
        let mut t = match op {
            "vadd" => va + vb,
            "vsub" => va - vb,
            "vavrg" => {
                if va + vb >= 0 {
                    (va + vb + 1) >> 1
                } else {
                    (va + vb) >> 1
                }
            }
            "vabsdiff" => (va - vb).abs(),
            "vmin" => va.min(vb),
            "vmax" => va.max(vb),
            cmp => (match cmp.strip_prefix("vset.").expect("vset.<cmp>") {
                "eq" => va == vb,
                "ne" => va != vb,
                "lt" => va < vb,
                "le" => va <= vb,
                "gt" => va > vb,
                "ge" => va >= vb,
                other => panic!("comparison {other}"),
            }) as i64,
        };
        if sat {
            t = clamp(t as i128, dsigned, w) as i64;
        }
        let field = (1u32 << w).wrapping_sub(1);
        let shift = w * i as u32;
        if add {
            if mask[i] {
                d = d.wrapping_add(t as u32);
            }
        } else if mask[i] {
            d |= ((t as u32) & field) << shift;
        } else {
            d |= (c as u32) & (field << shift);
        }
    }
    d as u64
}
