//! Edge cases the instruction sweeps may miss (issue 9's adversarial pass), each a short
//! sequence run as one launch over many threads on both backends, against expectations
//! written here from the spec text (the rule is cited at each):
//! mixed-width `cvt`/`ld`/`st` operands (§9.4.1 "Operand Size Exceeding Instruction-Type
//! Size"), sub-word loads and stores at odd addresses, packing and unpacking sub-word vectors
//! with `mov`, `shf` shift amounts ≥ 32 in each mode, `prmt` with garbage in the selector's
//! upper half, `selp` with immediates, `.s16` arithmetic and shifts in 16-bit registers, min/max
//! of signed zeros, and `bfind` of 0 and -1.

use ptxcross_lower::LowerOptions;
use ptxcross_tests::sweep::{self, check_both, Expect, Rng, Sweep, Variant};

fn run(variant: Variant, inputs: &[u64], reference: &(dyn Fn(&[u64]) -> Vec<Expect> + Sync)) {
    run_with(variant, inputs, reference, LowerOptions::default());
}

fn run_with(variant: Variant, inputs: &[u64], reference: &(dyn Fn(&[u64]) -> Vec<Expect> + Sync), options: LowerOptions) {
    let Some(gpu) = sweep::gpu() else { return };
    let s = Sweep::with_options(&gpu, variant.clone(), options).unwrap_or_else(|e| panic!("`{}` does not translate: {e}", variant.body));
    check_both(&s, inputs, reference);
}

fn sext(x: u64, bits: u32) -> u64 {
    (((x << (64 - bits)) as i64) >> (64 - bits)) as u64
}

fn rows(arity: usize, edges: &[u64], random: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    sweep::rows(arity, edges, 1 << 14, random, &mut || {
        let x = rng.next_u64();
        // Random values with random-width magnitudes, so small and sign-extended ones occur.
        match x % 3 {
            0 => x >> (x % 61),
            1 => (x >> 8) | 0xffff_ffff_ffff_ff00u64.wrapping_shl((x % 7) as u32 * 8),
            _ => x,
        }
    })
}

const EDGES: &[u64] = &[
    0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x1_0000, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff,
    0x1_0000_0000, 0xffff_ffff_ffff_ff80, 0xffff_ffff_ffff_8000, 0x8000_0000_0000_0000, 0x7fff_ffff_ffff_ffff, u64::MAX,
    0xdead_beef_cafe_f00d, 0x0123_4567_89ab_cdef,
];

/// §9.4.1 and §9.7.10.20 (cvt): a source register wider than the type is chopped to the type's
/// width; a destination register wider than the type receives the result sign-extended for
/// signed types, zero-extended otherwise. `.sat` clamps to the destination type's range.
#[test]
fn cvt_with_operands_wider_than_the_type() {
    let insts: &[(&str, &str)] = &[
        ("cvt.s32.s8 %d0, %s0;", "b32"),
        ("cvt.u32.u8 %d1, %s0;", "b32"),
        ("cvt.s8.s32 %d2, %s0;", "b32"),
        ("cvt.u8.s32 %d3, %s0;", "b32"),
        ("cvt.u64.s8 %d4, %s0;", "b64"),
        ("cvt.s64.u16 %d5, %s0;", "b64"),
        ("cvt.s16.u32 %d6, %s0;", "b32"),
        ("cvt.u16.s64 %d7, %s1;", "b32"),
        ("cvt.s16.s64 %d8, %s1;", "b64"),
        ("cvt.sat.s8.s32 %d9, %s0;", "b32"),
        ("cvt.sat.u8.s16 %d10, %s0;", "b32"),
        ("cvt.sat.s16.u64 %d11, %s1;", "b64"),
        ("cvt.s32.s16 %d12, %s0;", "b32"),
        ("cvt.sat.u32.s8 %d13, %s0;", "b32"),
        ("cvt.s8.u64 %d14, %s1;", "b64"),
    ];
    let body: Vec<&str> = insts.iter().map(|(i, _)| *i).collect();
    let variant = Variant { body: body.join("\n    "), srcs: vec!["b32", "b64"], dsts: insts.iter().map(|(_, t)| *t).collect() };
    let inputs = rows(2, EDGES, 4096, 91);
    run(variant, &inputs, &|a| {
        let (x, y) = (a[0] & 0xffff_ffff, a[1]);
        let m32 = |v: u64| v & 0xffff_ffff;
        let s8 = sext(x, 8);
        let s16 = sext(x, 16);
        vec![
            Expect::Bits(m32(s8)),
            Expect::Bits(x & 0xff),
            Expect::Bits(m32(s8)),
            Expect::Bits(x & 0xff),
            Expect::Bits(s8),
            Expect::Bits(x & 0xffff),
            Expect::Bits(m32(s16)),
            Expect::Bits(y & 0xffff),
            Expect::Bits(sext(y, 16)),
            Expect::Bits(m32(((x as u32 as i32).clamp(-128, 127)) as i64 as u64)),
            Expect::Bits((s16 as i64).clamp(0, 255) as u64),
            Expect::Bits(y.min(0x7fff)),
            Expect::Bits(m32(s16)),
            Expect::Bits(m32((s8 as i64).max(0) as u64)),
            Expect::Bits(sext(y, 8)),
        ]
    });
}

/// §9.4.1 (ld/st with wider registers: loads sign-extend for signed types, zero-extend
/// otherwise; stores take the low bits), sub-word vector loads and stores at every byte
/// offset their alignment allows (§6.4.1: an access is aligned to its whole size),
/// and stores of bytes that must leave their neighbours alone.
#[test]
fn sub_word_loads_and_stores_at_odd_offsets() {
    // Each thread's two source slots are 16 bytes of its own; the body reads them at odd
    // offsets, then overwrites single bytes and reads the words back.
    let body = "\
ld.global.s8 %d0, [%rdin+1];
    ld.global.u8 %d1, [%rdin+3];
    ld.global.s16 %d2, [%rdin+6];
    ld.global.v2.u8 {%d3, %d4}, [%rdin+6];
    ld.global.v4.s8 {%d5, %d6, %d7, %d8}, [%rdin+12];
    ld.global.v2.s16 {%d9, %d10}, [%rdin+4];
    ld.global.u8 %d11, [%rdin+15];
    st.global.u8 [%rdin+1], %s1;
    st.global.v2.u8 [%rdin+6], {%s1, %s0};
    st.global.u16 [%rdin+10], %s0;
    st.global.b8 [%rdin+13], %s0;
    ld.global.b64 %d12, [%rdin];
    ld.global.b64 %d13, [%rdin+8];";
    let variant = Variant {
        body: body.into(),
        srcs: vec!["b64", "b64"],
        dsts: vec!["s32", "s32", "b64", "b32", "b32", "b32", "b32", "b32", "b32", "s32", "s32", "b16", "b64", "b64"],
    };
    let inputs = rows(2, EDGES, 4096, 92);
    run(variant, &inputs, &|a| {
        let mut mem = [0u8; 16];
        mem[..8].copy_from_slice(&a[0].to_le_bytes());
        mem[8..].copy_from_slice(&a[1].to_le_bytes());
        let b = |i: usize| mem[i] as u64;
        let h = |i: usize| (mem[i] as u64) | ((mem[i + 1] as u64) << 8);
        let m32 = |v: u64| v & 0xffff_ffff;
        let mut out = vec![
            Expect::Bits(m32(sext(b(1), 8))),
            Expect::Bits(b(3)),
            Expect::Bits(sext(h(6), 16)),
            Expect::Bits(b(6)),
            Expect::Bits(b(7)),
            Expect::Bits(m32(sext(b(12), 8))),
            Expect::Bits(m32(sext(b(13), 8))),
            Expect::Bits(m32(sext(b(14), 8))),
            Expect::Bits(m32(sext(b(15), 8))),
            Expect::Bits(m32(sext(h(4), 16))),
            Expect::Bits(m32(sext(h(6), 16))),
            Expect::Bits(b(15)),
        ];
        let (s0, s1) = (a[0], a[1]);
        mem[1] = s1 as u8;
        mem[6] = s1 as u8;
        mem[7] = s0 as u8;
        mem[10] = s0 as u8;
        mem[11] = (s0 >> 8) as u8;
        mem[13] = s0 as u8;
        out.push(Expect::Bits(u64::from_le_bytes(mem[..8].try_into().unwrap())));
        out.push(Expect::Bits(u64::from_le_bytes(mem[8..].try_into().unwrap())));
        out
    });
}

/// `mov` packing and unpacking sub-word vectors (§9.7.10.3/4: `{a, b}` lists elements from the
/// least significant), with the element registers narrower than 32 bits.
#[test]
fn mov_of_sub_word_vector_elements() {
    let body = "\
{
    .reg .b8 %e<4>;
    .reg .b16 %h<2>;
    mov.b32 {%e0, %e1, %e2, %e3}, %s0;
    mov.b32 %d0, {%e3, %e2, %e1, %e0};
    mov.b32 {%h0, %h1}, %s0;
    mov.b32 %d1, {%h1, %h0};
    mov.b64 {%d2, %d3}, %s1;
    mov.b16 %h0, 0x8001;
    mov.b64 %d4, {%h0, %h1, %h0, %h1};
    cvt.u32.u8 %d5, %e2;
    }";
    let variant = Variant { body: body.into(), srcs: vec!["b32", "b64"], dsts: vec!["b32", "b32", "b32", "b32", "b64", "b32"] };
    let inputs = rows(2, EDGES, 2048, 93);
    run(variant, &inputs, &|a| {
        let x = a[0] & 0xffff_ffff;
        let hi16 = x >> 16;
        vec![
            Expect::Bits((x as u32).swap_bytes() as u64),
            Expect::Bits((x >> 16) | ((x & 0xffff) << 16)),
            Expect::Bits(a[1] & 0xffff_ffff),
            Expect::Bits(a[1] >> 32),
            Expect::Bits(0x8001 | (hi16 << 16) | (0x8001 << 32) | (hi16 << 48)),
            Expect::Bits((x >> 16) & 0xff),
        ]
    });
}

/// §9.7.9.7 shf: the shift amount is min(c, 32) with `.clamp`, c & 31 with `.wrap`; `.l`
/// gives the 32 most significant bits of [b, a] << n, `.r` the 32 least of [b, a] >> n.
#[test]
fn shf_with_shift_amounts_of_32_and_more() {
    let mut body = Vec::new();
    let mut dsts = Vec::new();
    let amounts = ["%s2", "0", "31", "32", "33", "63", "64", "255"];
    for dir in ["l", "r"] {
        for mode in ["clamp", "wrap"] {
            for c in amounts {
                body.push(format!("shf.{dir}.{mode}.b32 %d{}, %s0, %s1, {c};", dsts.len()));
                dsts.push("b32");
            }
        }
    }
    let variant = Variant { body: body.join("\n    "), srcs: vec!["b32", "b32", "u32"], dsts };
    let amounts_edges: Vec<u64> = (0..70).chain([127, 128, 255, 256, 0x8000_0000, 0xffff_ffff, 0x1_0000_0020]).collect();
    let mut rng = Rng(94);
    let mut inputs = Vec::new();
    for &c in &amounts_edges {
        for _ in 0..16 {
            inputs.extend([rng.next_u64() & 0xffff_ffff, rng.next_u64() & 0xffff_ffff, c & 0xffff_ffff]);
        }
    }
    run(variant, &inputs, &|a| {
        let (x, y) = (a[0], a[1]);
        let pair = (y << 32) | x;
        let mut out = Vec::new();
        for dir in ["l", "r"] {
            for clamp in [true, false] {
                for c in [a[2], 0, 31, 32, 33, 63, 64, 255] {
                    let n = if clamp { c.min(32) } else { c & 31 };
                    let d = if dir == "l" { ((pair as u128) << n >> 32) as u64 & 0xffff_ffff } else { (pair >> n) & 0xffff_ffff };
                    out.push(Expect::Bits(d));
                }
            }
        }
        out
    });
}

/// §9.7.10.7 prmt (default mode): only c's low 16 bits select, four 4-bit selectors, each the
/// byte index (low 3 bits) of [b, a] and a sign-replicate flag (bit 3); c's upper half is
/// ignored.
#[test]
fn prmt_ignores_the_selector_upper_half() {
    let variant = Variant::inst("prmt.b32", "b32", &["b32", "b32", "b32"]);
    let mut rng = Rng(95);
    let inputs: Vec<u64> = (0..1 << 14).flat_map(|_| [rng.next_u64() & 0xffff_ffff, rng.next_u64() & 0xffff_ffff, rng.next_u64() & 0xffff_ffff]).collect();
    run(variant, &inputs, &|a| {
        let bytes = ((a[1] & 0xffff_ffff) << 32) | (a[0] & 0xffff_ffff);
        let mut d = 0u64;
        for i in 0..4 {
            let s = (a[2] >> (4 * i)) & 0xf;
            let byte = (bytes >> (8 * (s & 7))) & 0xff;
            let byte = if s & 8 != 0 { if byte & 0x80 != 0 { 0xff } else { 0 } } else { byte };
            d |= byte << (8 * i);
        }
        vec![Expect::Bits(d)]
    });
}

/// §9.7.7.3 selp with immediate operands of every width and float immediates.
#[test]
fn selp_with_immediates() {
    let body = "\
selp.s32 %d0, -1, 5, %s0;
    selp.u64 %d1, 0xffffffffffffffff, 1, %s0;
    selp.f32 %d2, 0f3f800000, 0fbf800000, %s0;
    selp.b16 %d3, 0x8000, 1, %s0;
    selp.s16 %d4, -2, 3, %s0;
    selp.f64 %d5, 0d7ff0000000000000, 0dbff0000000000000, %s0;
    selp.u32 %d6, %s1, 0x80000000, %s0;";
    let variant = Variant { body: body.into(), srcs: vec!["pred", "b32"], dsts: vec!["s32", "u64", "f32", "b16", "s16", "f64", "u32"] };
    let inputs: Vec<u64> = [0u64, 1].iter().flat_map(|&p| EDGES.iter().flat_map(move |&x| [p, x & 0xffff_ffff])).collect();
    run(variant, &inputs, &|a| {
        let p = a[0] != 0;
        let pick = |t: u64, f: u64| Expect::Bits(if p { t } else { f });
        vec![
            pick(0xffff_ffff, 5),
            pick(u64::MAX, 1),
            pick(0x3f80_0000, 0xbf80_0000),
            pick(0x8000, 1),
            pick(0xfffe, 3),
            pick(0x7ff0_0000_0000_0000, 0xbff0_0000_0000_0000),
            pick(a[1], 0x8000_0000),
        ]
    });
}

/// 16-bit signed arithmetic: wrap-around (§9.7.1), `.hi`/`.wide` of the 32-bit product,
/// `abs`/`neg` of -32768 (wraps), `shr.s16` by 16 or more fills with the sign and `shl.b16`
/// by 16 or more gives 0 ("shift amounts greater than the register width N are clamped to
/// N", §9.7.9.8/9), comparisons as signed 16-bit values; the results read back through a
/// widening `cvt`.
#[test]
fn s16_arithmetic_and_shifts() {
    let body = "\
add.s16 %d0, %s0, %s1;
    sub.s16 %d1, %s0, %s1;
    mul.lo.s16 %d2, %s0, %s1;
    mul.hi.s16 %d3, %s0, %s1;
    mul.wide.s16 %d4, %s0, %s1;
    mad.lo.s16 %d5, %s0, %s1, %s0;
    min.s16 %d6, %s0, %s1;
    max.s16 %d7, %s0, %s1;
    abs.s16 %d8, %s0;
    neg.s16 %d9, %s0;
    shr.s16 %d10, %s0, %s2;
    shl.b16 %d11, %s0, %s2;
    shr.u16 %d12, %s0, %s2;
    setp.lt.s16 %d13, %s0, %s1;
    cvt.s32.s16 %d14, %d0;
    mad.wide.s16 %d15, %s0, %s1, %d4;";
    let variant = Variant {
        body: body.into(),
        srcs: vec!["s16", "s16", "u32"],
        dsts: vec!["s16", "s16", "s16", "s16", "s32", "s16", "s16", "s16", "s16", "s16", "s16", "b16", "u16", "pred", "s32", "s32"],
    };
    let e16: Vec<u64> = [0u64, 1, 2, 0x7fff, 0x8000, 0x8001, 0xffff, 0xfffe, 0x00ff, 0xff00, 0x1234, 0xedcb].to_vec();
    let mut rng = Rng(96);
    let mut inputs = Vec::new();
    for &x in &e16 {
        for &y in &e16 {
            for c in [0u64, 1, 15, 16, 17, 31, 32, 255, 0xffff_ffff] {
                inputs.extend([x, y, c]);
            }
        }
    }
    for _ in 0..4096 {
        inputs.extend([rng.next_u64() & 0xffff, rng.next_u64() & 0xffff, rng.next_u64() % 40]);
    }
    run(variant, &inputs, &|a| {
        let (x, y) = (a[0] as u16 as i16 as i64, a[1] as u16 as i16 as i64);
        let n = a[2].min(16) as u32;
        let w16 = |v: i64| v as u64 & 0xffff;
        let w32 = |v: i64| v as u64 & 0xffff_ffff;
        let shr_s = if n >= 16 { x >> 15 } else { x >> n };
        let shl = if n >= 16 { 0 } else { (x as u64) << n };
        let shr_u = if n >= 16 { 0 } else { (x as u64 & 0xffff) >> n };
        vec![
            Expect::Bits(w16(x + y)),
            Expect::Bits(w16(x - y)),
            Expect::Bits(w16(x * y)),
            Expect::Bits(w16((x * y) >> 16)),
            Expect::Bits(w32(x * y)),
            Expect::Bits(w16(x * y + x)),
            Expect::Bits(w16(x.min(y))),
            Expect::Bits(w16(x.max(y))),
            Expect::Bits(w16(x.abs())),
            Expect::Bits(w16(-x)),
            Expect::Bits(w16(shr_s)),
            Expect::Bits(shl & 0xffff),
            Expect::Bits(shr_u),
            Expect::Bits((x < y) as u64),
            Expect::Bits(w32(w16(x + y) as u16 as i16 as i64)),
            Expect::Bits(w32(2 * x * y)),
        ]
    });
}

/// §9.7.3.11/12 min/max: "If values of both inputs are 0.0, then +0.0 > -0.0"; a NaN operand
/// gives the other one; `.NaN` gives the canonical NaN. f32, f64, f16.
#[test]
fn min_max_of_signed_zeros() {
    let body = "\
min.f32 %d0, %s0, %s1;
    max.f32 %d1, %s0, %s1;
    min.ftz.f32 %d2, %s0, %s1;
    max.NaN.f32 %d3, %s0, %s1;
    {
    .reg .f64 %x, %y, %z;
    .reg .f16 %hx, %hy, %hz;
    cvt.f64.f32 %x, %s0;
    cvt.f64.f32 %y, %s1;
    min.f64 %z, %x, %y;
    mov.b64 %d4, %z;
    max.f64 %z, %x, %y;
    mov.b64 %d5, %z;
    cvt.rn.f16.f32 %hx, %s0;
    cvt.rn.f16.f32 %hy, %s1;
    min.f16 %hz, %hx, %hy;
    mov.b16 %d6, %hz;
    max.f16 %hz, %hx, %hy;
    mov.b16 %d7, %hz;
    }";
    let variant = Variant { body: body.into(), srcs: vec!["f32", "f32"], dsts: vec!["b32", "b32", "b32", "b32", "b64", "b64", "b16", "b16"] };
    let vals: [u32; 6] = [0, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x7fc0_0000, 0x4000_0000];
    let mut inputs = Vec::new();
    for &x in &vals {
        for &y in &vals {
            if x == 0x7fc0_0000 && y == 0x7fc0_0000 {
                continue; // two NaNs: the f64 result differs on NVIDIA (see README)
            }
            for _ in 0..8 {
                inputs.extend([x as u64, y as u64]);
            }
        }
    }
    run(variant, &inputs, &|a| {
        let (x, y) = (f32::from_bits(a[0] as u32), f32::from_bits(a[1] as u32));
        // Order with -0 below +0; a NaN operand yields the other operand.
        let less = |p: f32, q: f32| p < q || (p == 0.0 && q == 0.0 && p.is_sign_negative() && !q.is_sign_negative());
        let min = |p: f32, q: f32| if p.is_nan() { q } else if q.is_nan() || less(p, q) { p } else { q };
        let max = |p: f32, q: f32| if p.is_nan() { q } else if q.is_nan() || less(q, p) { p } else { q };
        let f16 = |v: f32| -> u64 {
            match v.to_bits() {
                0 => 0,
                0x8000_0000 => 0x8000,
                0x3f80_0000 => 0x3c00,
                0xbf80_0000 => 0xbc00,
                0x4000_0000 => 0x4000,
                b => panic!("no f16 for {b:#x}"),
            }
        };
        let nan_max = if x.is_nan() || y.is_nan() { 0x7fff_ffff } else { max(x, y).to_bits() as u64 };
        vec![
            Expect::Bits(min(x, y).to_bits() as u64),
            Expect::Bits(max(x, y).to_bits() as u64),
            Expect::Bits(min(x, y).to_bits() as u64),
            Expect::Bits(nan_max),
            Expect::Bits((min(x, y) as f64).to_bits()),
            Expect::Bits((max(x, y) as f64).to_bits()),
            Expect::Bits(f16(min(x, y))),
            Expect::Bits(f16(max(x, y))),
        ]
    });
}

/// §9.7.1.16 bfind: "If no non-sign bit is found, d is set to 0xffffffff" — for 0 (and -1 in
/// the signed forms) with and without `.shiftamt`.
#[test]
fn bfind_of_zero_and_minus_one() {
    let body = "\
bfind.u32 %d0, %s0;
    bfind.shiftamt.u32 %d1, %s0;
    bfind.s32 %d2, %s0;
    bfind.shiftamt.s32 %d3, %s0;
    cvt.u64.u32 %rd3, %s0;
    bfind.shiftamt.u64 %d4, %rd3;
    cvt.s64.s32 %rd3, %s0;
    bfind.shiftamt.s64 %d5, %rd3;";
    let variant = Variant { body: body.into(), srcs: vec!["b32"], dsts: vec!["u32"; 6] };
    let inputs: Vec<u64> = [0u64, 0xffff_ffff, 1, 0x8000_0000, 0x7fff_ffff, 0xffff_fffe, 2].iter().flat_map(|&x| [x; 64]).collect();
    run(variant, &inputs, &|a| {
        let x = a[0] as u32;
        let msb = |v: u64, _bits: u32| -> u64 { if v == 0 { 0xffff_ffff } else { (63 - v.leading_zeros()) as u64 } };
        let shift = |m: u64, bits: u32| if m == 0xffff_ffff { m } else { bits as u64 - 1 - m };
        let s = if (x as i32) < 0 { !x } else { x } as u64;
        let s64 = if (x as i32) < 0 { !(x as i32 as i64 as u64) } else { x as u64 };
        vec![
            Expect::Bits(msb(x as u64, 32)),
            Expect::Bits(shift(msb(x as u64, 32), 32)),
            Expect::Bits(msb(s, 32)),
            Expect::Bits(shift(msb(s, 32), 32)),
            Expect::Bits(shift(msb(x as u64, 64), 64)),
            Expect::Bits(shift(msb(s64, 64), 64)),
        ]
    });
}

/// `mul.hi.s64`/`mul.hi.u64` of sign-extended 32-bit values (§9.7.1.3: the upper 64 bits of
/// the 128-bit product). A driver that knows the operands' upper halves are sign copies can
/// fold the sign tests of a 64-bit signed high multiply wrongly (lavapipe did, for the
/// WGSL backend's helper, see `lower/src/inst/video.rs`).
#[test]
fn mul_hi_64_of_sign_extended_values() {
    let body = "\
{
    .reg .b64 %x, %y;
    cvt.s64.s32 %x, %s0;
    cvt.s64.s32 %y, %s1;
    mul.hi.s64 %d0, %x, %y;
    mul.hi.u64 %d1, %x, %y;
    mad.hi.s64 %d2, %x, %y, %x;
    mul.hi.s64 %d3, %x, 3;
    mul.hi.s64 %d4, %x, -1;
    }";
    let variant = Variant { body: body.into(), srcs: vec!["s32", "s32"], dsts: vec!["b64"; 5] };
    let inputs = rows(2, EDGES, 4096, 97);
    let reference = |a: &[u64]| {
        let (x, y) = (a[0] as u32 as i32 as i128, a[1] as u32 as i32 as i128);
        let hi = |p: i128| (p >> 64) as u64;
        let ux = x as i64 as u64 as u128;
        let uy = y as i64 as u64 as u128;
        vec![
            Expect::Bits(hi(x * y)),
            Expect::Bits(((ux * uy) >> 64) as u64),
            Expect::Bits(hi(x * y).wrapping_add(x as u64)),
            Expect::Bits(hi(x * 3)),
            Expect::Bits(hi(-x)),
        ]
    };
    run(variant.clone(), &inputs, &reference);
    run_with(variant, &inputs, &reference, LowerOptions { split_int64: true, ..LowerOptions::default() });
}

/// 64-bit signed operations on sign-extended 32-bit values (the operand shape that lavapipe
/// mis-folds): division and remainder (§9.7.1.8/9, nonzero divisors), min/max, abs, shifts,
/// comparisons, clz/popc, sad, and conversion to f64 (exact for these values).
#[test]
fn sign_extended_64_bit_operations() {
    let body = "\
{
    .reg .b64 %x, %y;
    .reg .pred %q;
    .reg .f64 %f;
    cvt.s64.s32 %x, %s0;
    cvt.s64.s32 %y, %s1;
    div.s64 %d0, %x, %y;
    rem.s64 %d1, %x, %y;
    min.s64 %d2, %x, %y;
    max.u64 %d3, %x, %y;
    abs.s64 %d4, %x;
    shr.s64 %d5, %x, 40;
    setp.lt.s64 %q, %x, %y;
    selp.u64 %d6, 1, 0, %q;
    setp.ge.s64 %q, %x, -5;
    selp.u64 %d7, 1, 0, %q;
    clz.b64 %r0, %x;
    cvt.u64.u32 %d8, %r0;
    popc.b64 %r0, %x;
    cvt.u64.u32 %d9, %r0;
    sad.s64 %d10, %x, %y, 7;
    cvt.rn.f64.s64 %f, %x;
    mov.b64 %d11, %f;
    div.u64 %d12, %x, %y;
    min.s64 %d13, %x, 3;
    }";
    let variant = Variant {
        body: body.replace("%r0", "%xtid"),
        srcs: vec!["s32", "s32"],
        dsts: vec!["b64"; 14],
    };
    // Nonzero divisors, and not MIN / -1 (impossible here: 64-bit MIN is not a sign-extended
    // 32-bit value).
    let inputs: Vec<u64> = rows(2, EDGES, 4096, 98).chunks(2).filter(|r| r[1] as u32 != 0).flatten().copied().collect();
    let reference = |a: &[u64]| {
        let (x, y) = (a[0] as u32 as i32 as i64, a[1] as u32 as i32 as i64);
        let b = |v: bool| v as u64;
        vec![
            Expect::Bits((x / y) as u64),
            Expect::Bits((x % y) as u64),
            Expect::Bits(x.min(y) as u64),
            Expect::Bits((x as u64).max(y as u64)),
            Expect::Bits(x.unsigned_abs()),
            Expect::Bits((x >> 40) as u64),
            Expect::Bits(b(x < y)),
            Expect::Bits(b(x >= -5)),
            Expect::Bits((x as u64).leading_zeros() as u64),
            Expect::Bits((x as u64).count_ones() as u64),
            Expect::Bits(((x - y).unsigned_abs()).wrapping_add(7)),
            Expect::Bits((x as f64).to_bits()),
            Expect::Bits((x as u64) / (y as u64)),
            Expect::Bits(x.min(3) as u64),
        ]
    };
    run(variant.clone(), &inputs, &reference);
    // With 64-bit integers split into halves (no f64 then: the conversion is left out).
    let body = variant.body.replace(".reg .f64 %f;", "").replace("cvt.rn.f64.s64 %f, %x;", "").replace("mov.b64 %d11, %f;", "mov.b64 %d11, 0;");
    let split = Variant { body, ..variant };
    let reference_split = |a: &[u64]| {
        let mut v = reference(a);
        v[11] = Expect::Bits(0);
        v
    };
    run_with(split, &inputs, &reference_split, LowerOptions { split_int64: true, ..LowerOptions::default() });
}

/// More 64-bit operations on sign-extended 32-bit values: conversions to f32 (§9.7.10.20:
/// `.rn`, `.rz`), saturating narrowing (`.sat` clamps to the destination range), `bfe.s64`
/// (§9.7.1.19 bit-field extract, sign-extended), `slct` on the sign of c, `neg`, `cnot`,
/// shifts by a register amount, `mad.lo`.
#[test]
fn sign_extended_64_bit_conversions() {
    let body = "\
{
    .reg .b64 %x, %y;
    .reg .f32 %f;
    cvt.s64.s32 %x, %s0;
    cvt.s64.s32 %y, %s1;
    cvt.rn.f32.s64 %f, %x;
    mov.b32 %d0, %f;
    cvt.rz.f32.s64 %f, %x;
    mov.b32 %d1, %f;
    cvt.sat.s32.s64 %d2, %x;
    cvt.sat.u32.s64 %d3, %x;
    cvt.sat.s16.s64 %d4, %x;
    bfe.s64 %d5, %x, 4, 40;
    slct.s64.s32 %d6, %x, %y, %s1;
    neg.s64 %d7, %x;
    cnot.b64 %d8, %x;
    and.b32 %xtid, %s1, 63;
    shr.s64 %d9, %x, %xtid;
    shl.b64 %d10, %x, %xtid;
    mad.lo.s64 %d11, %x, %y, -7;
    }";
    let variant = Variant {
        body: body.into(),
        srcs: vec!["s32", "s32"],
        dsts: vec!["b32", "b32", "b32", "b32", "b32", "b64", "b64", "b64", "b64", "b64", "b64", "b64"],
    };
    let inputs = rows(2, EDGES, 4096, 99);
    let reference = |a: &[u64]| {
        let (x, y) = (a[0] as u32 as i32 as i64, a[1] as u32 as i32 as i64);
        let rn = x as f32;
        let rz = if (rn as f64).abs() > (x as f64).abs() { f32::from_bits(rn.to_bits() - 1) } else { rn };
        let n = (y & 63) as u32;
        let bfe = ((x as u64) >> 4) & ((1u64 << 40) - 1);
        vec![
            Expect::Bits(rn.to_bits() as u64),
            Expect::Bits(rz.to_bits() as u64),
            Expect::Bits(x as u32 as u64),
            Expect::Bits(x.max(0) as u64),
            Expect::Bits(x.clamp(-32768, 32767) as u64 & 0xffff_ffff),
            Expect::Bits(sext(bfe, 40)),
            Expect::Bits(if y >= 0 { x as u64 } else { y as u64 }),
            Expect::Bits(x.wrapping_neg() as u64),
            Expect::Bits((x == 0) as u64),
            Expect::Bits((x >> n) as u64),
            Expect::Bits((x as u64) << n),
            Expect::Bits((x.wrapping_mul(y) - 7) as u64),
        ]
    };
    run(variant.clone(), &inputs, &reference);
    run_with(variant, &inputs, &reference, LowerOptions { split_int64: true, ..LowerOptions::default() });
}

/// Misaligned accesses (§6.4.1 "The address must be naturally aligned to a multiple of the
/// access size. If an address is not properly aligned, the resulting behavior is undefined"):
/// ptxcross faults the launch when an element of a vector access is misaligned, never reading
/// or writing other bytes, and when the vector is misaligned as a whole although each element
/// is aligned (§5.4.5: the access size of `ld.v4.b32` is 16 bytes; NVIDIA GPUs fault there
/// too), e.g. `ld.v4.b16` at 2 mod 8, `ld.v4.u32` at 8 mod 16, `st.v2.u32` at 4 mod 8.
#[test]
fn misaligned_vector_elements_fault() {
    use ptxcross_tests::launch::{self, Launch};
    let Some(gpu) = sweep::gpu() else { return };
    for (inst, off) in [
        ("ld.global.v2.u16 {%h0, %h1}, [%rd2];", 1),
        ("ld.global.v4.b16 {%h0, %h1, %h0, %h1}, [%rd2];", 3),
        ("st.global.v2.b16 [%rd2], {%h0, %h1};", 5),
        ("ld.global.v2.u32 {%r0, %r1}, [%rd2];", 2),
        ("ld.global.v4.b16 {%h0, %h1, %h0, %h1}, [%rd2];", 2),
        ("ld.global.v4.u32 {%r0, %r1, %r0, %r1}, [%rd2];", 8),
        ("ld.global.v2.u64 {%rd0, %rd1}, [%rd2];", 8),
        ("st.global.v2.u32 [%rd2], {%r0, %r1};", 4),
        ("st.global.v4.b16 [%rd2], {%h0, %h1, %h0, %h1};", 6),
    ] {
        let ptx = format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b16 %h<2>;\n    .reg .b32 %r<2>;\n    .reg .b64 %rd<3>;\n    ld.param.u64 %rd1, [p];\n    add.s64 %rd2, %rd1, {off};\n    mov.b16 %h0, 1;\n    mov.b16 %h1, 2;\n    {inst}\n    ret;\n}}\n"
        );
        for backend in ptxcross::Backend::ALL {
            let l = Launch { ptx: &ptx, kernel: "k", block: [1, 1, 1], grid: [1, 1, 1], buffers: vec![vec![0u8; 64]] };
            let e = launch::run(&gpu, &l, backend).expect_err("a misaligned access must fault");
            assert!(e.contains("misaligned"), "`{inst}` on {backend}: {e}");
        }
    }
}

/// Signed division and remainder (§9.7.1.8/9: truncating; the remainder has the dividend's
/// sign) of narrow values widened by sign extension, and of `.s16`/`.s8`-typed registers:
/// the sign tests of the magnitude-based division see sign-extended operands here too.
#[test]
fn signed_division_of_sign_extended_narrow_values() {
    let body = "\
{
    .reg .b32 %x, %y, %u, %v;
    cvt.s32.s16 %x, %s0;
    cvt.s32.s16 %y, %s1;
    div.s32 %d0, %x, %y;
    rem.s32 %d1, %x, %y;
    div.s16 %d2, %s0, %s1;
    rem.s16 %d3, %s0, %s1;
    cvt.s32.s8 %u, %s0;
    cvt.s32.s8 %v, %s1;
    div.s32 %d4, %u, %v;
    rem.s32 %d5, %u, %v;
    setp.lt.s32 %d6, %u, 0;
    }";
    let variant = Variant { body: body.into(), srcs: vec!["s16", "s16"], dsts: vec!["b32", "b32", "s16", "s16", "b32", "b32", "pred"] };
    let e16: Vec<u64> = [1u64, 2, 3, 7, 0x7f, 0x80, 0x81, 0xff, 0xfe, 0x7fff, 0x8000, 0x8001, 0xffff, 0xfffe, 0xff80, 0x0180].to_vec();
    let mut rng = Rng(100);
    let mut inputs = Vec::new();
    for &x in &e16 {
        for &y in &e16 {
            inputs.extend([x, y]);
        }
    }
    for _ in 0..4096 {
        inputs.extend([rng.next_u64() & 0xffff, rng.next_u64() & 0xffff]);
    }
    // Divisors that are 0 (as 16 or 8 bits) have no defined result: leave them out.
    let inputs: Vec<u64> = inputs.chunks(2).filter(|r| r[1] & 0xff != 0).flatten().copied().collect();
    run(variant, &inputs, &|a| {
        let (x, y) = (a[0] as u16 as i16 as i32, a[1] as u16 as i16 as i32);
        let (u, v) = (a[0] as u8 as i8 as i32, a[1] as u8 as i8 as i32);
        let w32 = |r: i32| r as u32 as u64;
        let w16 = |r: i32| r as u16 as u64;
        vec![
            Expect::Bits(w32(x / y)),
            Expect::Bits(w32(x % y)),
            Expect::Bits(w16(x.wrapping_div(y))),
            Expect::Bits(w16(x.wrapping_rem(y))),
            Expect::Bits(w32(u / v)),
            Expect::Bits(w32(u % v)),
            Expect::Bits((u < 0) as u64),
        ]
    });
}

/// Float-to-integer `cvt` into a register wider than the destination type (§9.7.10.20: the
/// result "is sign-extended to the destination register width for signed integers, and is
/// zero-extended … for unsigned"): the clamped value (float-to-integer conversions saturate;
/// NaN gives NVIDIA's bits, `cvt_nan_to_int`) widened by the type's signedness.
#[test]
fn cvt_float_to_narrow_int_into_wide_registers() {
    let body = "\
cvt.rzi.s8.f32 %d0, %s0;
    cvt.rni.u8.f32 %d1, %s0;
    cvt.rmi.s16.f32 %d2, %s0;
    cvt.rpi.sat.s8.f32 %d3, %s0;
    cvt.rzi.u16.f32 %d4, %s0;
    {
    .reg .f64 %x;
    cvt.f64.f32 %x, %s0;
    cvt.rzi.s16.f64 %d5, %x;
    }";
    let variant = Variant { body: body.into(), srcs: vec!["f32"], dsts: vec!["b32", "b32", "b32", "b32", "b32", "b64"] };
    let vals: Vec<f32> = vec![0.0, -0.0, 1.5, -1.5, -3.0, 127.4, 127.6, -128.4, -128.6, 200.0, -200.0, 255.5, 256.0, 32767.5, -32768.5, 40000.0, -40000.0, 65535.4, 70000.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e30, 0.49, -0.51];
    let inputs: Vec<u64> = vals.iter().flat_map(|v| [v.to_bits() as u64; 8]).collect();
    run(variant, &inputs, &|a| {
        let x = f32::from_bits(a[0] as u32) as f64;
        let conv = |r: f64, lo: i64, hi: i64, bits: u32, signed: bool, wide: u32, source: &str| -> Expect {
            let dst = format!("{}{bits}", if signed { 's' } else { 'u' });
            let v = if x.is_nan() { ptxcross_tests::ptx_ref::float::cvt_nan_to_int(source, &dst) as i64 } else { (r as i64).clamp(lo, hi) };
            let v = if signed { v as u64 } else { v as u64 & ((1u64 << bits) - 1) };
            Expect::Bits(if wide == 64 { v } else { v & 0xffff_ffff })
        };
        vec![
            conv(x.trunc(), -128, 127, 8, true, 32, "f32"),
            conv(x.round_ties_even(), 0, 255, 8, false, 32, "f32"),
            conv(x.floor(), -32768, 32767, 16, true, 32, "f32"),
            conv(x.ceil(), -128, 127, 8, true, 32, "f32"),
            conv(x.trunc(), 0, 65535, 16, false, 32, "f32"),
            conv(x.trunc(), -32768, 32767, 16, true, 64, "f64"),
        ]
    });
}

/// Half-precision min/max of signed zeros (§9.7.4.7/8: `d = (a < b) ? a : b` after the NaN
/// cases, and the note "If values of both inputs are 0.0, then +0.0 > -0.0"), per lane of
/// `.f16x2`/`.bf16x2`, both orders.
#[test]
fn half_min_max_of_signed_zeros() {
    let body = "\
min.f16x2 %d0, %s0, %s1;
    max.f16x2 %d1, %s0, %s1;
    min.bf16x2 %d2, %s0, %s1;
    max.bf16x2 %d3, %s0, %s1;";
    let variant = Variant { body: body.into(), srcs: vec!["b32", "b32"], dsts: vec!["b32"; 4] };
    // Lane values: +0, -0, and ±1 of each format (f16 0x3c00, bf16 0x3f80).
    let lanes: [u32; 6] = [0x0000, 0x8000, 0x3c00, 0xbc00, 0x3f80, 0xbf80];
    let mut inputs = Vec::new();
    for &a0 in &lanes {
        for &a1 in &lanes {
            for &b0 in &lanes {
                inputs.extend([(a0 | (a1 << 16)) as u64, (b0 | (a0 << 16)) as u64]);
            }
        }
    }
    run(variant, &inputs, &|a| {
        // Both formats order these lane values by sign, then magnitude (+1 > +0 > -0 > -1).
        let key = |h: u32| -> i32 {
            let mag = (h & 0x7fff) as i32 + 1;
            if h & 0x8000 != 0 {
                -mag
            } else {
                mag
            }
        };
        let lane = |x: u64, i: u32| ((x >> (16 * i)) & 0xffff) as u32;
        let pick = |max: bool| -> u64 {
            (0..2u32)
                .map(|i| {
                    let (p, q) = (lane(a[0], i), lane(a[1], i));
                    let r = if (key(p) < key(q)) != max { p } else { q };
                    (r as u64) << (16 * i)
                })
                .sum()
        };
        vec![Expect::Bits(pick(false)), Expect::Bits(pick(true)), Expect::Bits(pick(false)), Expect::Bits(pick(true))]
    });
}
