//! Instruction semantics of the lowering, checked single-threaded in the reference
//! interpreter against Rust implementations of the spec's rules (never against ptxcross).
//!
//! Each case is a tiny kernel `k(.param .u64 out, .param .u64/.u32 a, b, c)` that computes one
//! instruction on its parameters and stores the result; the harness runs it for many inputs.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::interp::Machine;
use ptxcross_lower::{abi, lower, LowerOptions};

const OUT_WORDS: usize = 16;

/// Runs kernel `k` of `ptx` on params `(out, a, b, c)` (each 8 bytes) and returns the first
/// output words and the fault bits.
fn run(ptx: &str, a: u64, b: u64, c: u64) -> (Vec<u32>, u32) {
    let file = SourceFile::new("case.ptx", ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}\n{ptx}", e[0].render(&file)));
    let module = lower(&ast, &file, &LowerOptions { block: Some([1, 1, 1]), ..Default::default() })
        .unwrap_or_else(|e| panic!("lower: {}\n{ptx}", e[0].render(&file)));
    let k = &module.kernels[0];
    let mut m = Machine::new(k.vars.len());
    m.functions = k.functions.clone();
    let out_word = abi::HEAP_RESERVED_WORDS as usize;
    m.heap.resize(out_word + OUT_WORDS, 0);
    m.local.resize(k.local_words as usize, 0);
    m.shared.resize(k.shared_words as usize, 0);
    let out_addr = abi::HEAP_BASE + out_word as u64 * 4;
    // Keep the header `Machine::new` fills as the host does (the 1.0f word feeds the run-time
    // zeros of `misread_constants`); the four parameters follow it.
    m.params.resize(abi::PARAM_HEADER_WORDS as usize + 8, 0);
    for (i, v) in [out_addr, a, b, c].into_iter().enumerate() {
        let w = abi::PARAM_HEADER_WORDS as usize + 2 * i;
        m.params[w] = v as u32;
        m.params[w + 1] = (v >> 32) as u32;
    }
    m.run_block(&k.body);
    (m.heap[out_word..out_word + OUT_WORDS].to_vec(), m.faults)
}

/// A kernel computing `body` (which reads `%a`, `%b`, `%c` of type `ty` and writes `%d` of
/// type `dty`) and storing `%d`.
fn kernel(ty: &str, dty: &str, body: &str) -> String {
    let reg = |t: &str| match t {
        "pred" => "pred".to_string(),
        t => format!("b{}", bits(t)),
    };
    let load = |name: &str, t: &str| match bits(t) {
        64 => format!("ld.param.u64 %{name}, [k_param_{}];", idx(name)),
        _ => format!("ld.param.u32 %{name}, [k_param_{}];", idx(name)),
    };
    let store = match dty {
        "pred" => "selp.u32 %s, 1, 0, %d;\n    st.global.u32 [%o], %s;".to_string(),
        t if bits(t) == 64 => "st.global.u64 [%o], %d;".to_string(),
        t if bits(t) == 16 => "cvt.u32.u16 %s, %d;\n    st.global.u32 [%o], %s;".to_string(),
        _ => "st.global.u32 [%o], %d;".to_string(),
    };
    let in_reg = if bits(ty) == 16 { "b32".to_string() } else { reg(ty) };
    let (la, lb, lc) = (load("a", ty), load("b", ty), load("c", ty));
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2, .param .u64 k_param_3)\n{{\n\
         .reg .b64 %o;\n.reg .{in_reg} %a, %b, %c;\n.reg .{dreg} %d;\n.reg .b32 %s;\n.reg .pred %p, %q;\n.reg .b32 %u;\n\
         ld.param.u64 %o, [k_param_0];\n    {la}\n    {lb}\n    {lc}\n    {body}\n    {store}\n    ret;\n}}\n",
        dreg = reg(dty)
    )
}

fn bits(t: &str) -> u32 {
    t[1..].parse().unwrap_or(32)
}
fn idx(name: &str) -> usize {
    match name {
        "a" => 1,
        "b" => 2,
        _ => 3,
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Random values biased towards edge cases.
    fn value(&mut self, bits: u32) -> u64 {
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let edge = [0, 1, 2, 31, 32, 33, 63, 64, mask, mask >> 1, (mask >> 1) + 1, mask - 1];
        let r = self.next();
        if r % 3 == 0 {
            edge[(r >> 8) as usize % edge.len()] & mask
        } else {
            self.next() & mask
        }
    }
}

fn out64(w: &[u32]) -> u64 {
    w[0] as u64 | (w[1] as u64) << 32
}

#[test]
fn integer_arithmetic_32() {
    let cases: Vec<(&str, &str, fn(u32, u32, u32) -> u32)> = vec![
        ("add.s32 %d, %a, %b;", "s32", |a, b, _| a.wrapping_add(b)),
        ("sub.u32 %d, %a, %b;", "u32", |a, b, _| a.wrapping_sub(b)),
        ("mul.lo.s32 %d, %a, %b;", "s32", |a, b, _| a.wrapping_mul(b)),
        ("mul.hi.u32 %d, %a, %b;", "u32", |a, b, _| ((a as u64 * b as u64) >> 32) as u32),
        ("mul.hi.s32 %d, %a, %b;", "s32", |a, b, _| ((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
        ("mad.lo.s32 %d, %a, %b, %c;", "s32", |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
        ("min.s32 %d, %a, %b;", "s32", |a, b, _| (a as i32).min(b as i32) as u32),
        ("max.u32 %d, %a, %b;", "u32", |a, b, _| a.max(b)),
        // Spec §9.7.1: shift amounts beyond the width clamp to the width.
        ("shl.b32 %d, %a, %b;", "b32", |a, b, _| if b >= 32 { 0 } else { a << b }),
        ("shr.u32 %d, %a, %b;", "u32", |a, b, _| if b >= 32 { 0 } else { a >> b }),
        ("shr.s32 %d, %a, %b;", "s32", |a, b, _| ((a as i32) >> b.min(31)) as u32),
        // Division by zero: all ones / the dividend (our documented choice); MIN/-1 wraps.
        ("div.u32 %d, %a, %b;", "u32", |a, b, _| a.checked_div(b).unwrap_or(u32::MAX)),
        ("rem.u32 %d, %a, %b;", "u32", |a, b, _| a.checked_rem(b).unwrap_or(a)),
        ("div.s32 %d, %a, %b;", "s32", |a, b, _| if b == 0 { u32::MAX } else { (a as i32).wrapping_div(b as i32) as u32 }),
        ("rem.s32 %d, %a, %b;", "s32", |a, b, _| if b == 0 { a } else { (a as i32).wrapping_rem(b as i32) as u32 }),
        ("popc.b32 %d, %a;", "b32", |a, _, _| a.count_ones()),
        ("clz.b32 %d, %a;", "b32", |a, _, _| a.leading_zeros()),
        ("brev.b32 %d, %a;", "b32", |a, _, _| a.reverse_bits()),
        ("not.b32 %d, %a;", "b32", |a, _, _| !a),
        ("cnot.b32 %d, %a;", "b32", |a, _, _| (a == 0) as u32),
        ("neg.s32 %d, %a;", "s32", |a, _, _| a.wrapping_neg()),
        ("abs.s32 %d, %a;", "s32", |a, _, _| (a as i32).wrapping_abs() as u32),
        ("xor.b32 %d, %a, %b;", "b32", |a, b, _| a ^ b),
        ("shf.l.wrap.b32 %d, %a, %b, %c;", "b32", |a, b, c| {
            let n = c & 31;
            (((b as u64) << 32 | a as u64) << n >> 32) as u32
        }),
        ("shf.r.clamp.b32 %d, %a, %b, %c;", "b32", |a, b, c| {
            let n = c.min(32);
            (((b as u64) << 32 | a as u64) >> n) as u32
        }),
        ("bfe.u32 %d, %a, %b, %c;", "u32", |a, b, c| bfe(a as u64, b, c, 32, false) as u32),
        ("bfe.s32 %d, %a, %b, %c;", "s32", |a, b, c| bfe(a as u64, b, c, 32, true) as u32),
        ("prmt.b32 %d, %a, %b, %c;", "b32", prmt),
        ("selp.b32 %d, %a, %b, 1;", "b32", |a, _, _| a),
    ];
    let mut rng = Rng(0x1234_5678);
    for (body, ty, reference) in cases {
        let ptx = kernel(ty, ty, body);
        for _ in 0..60 {
            let (a, b, c) = (rng.value(32) as u32, rng.value(32) as u32, rng.value(32) as u32);
            let (b, c) = if body.starts_with("bfe") { (b & 0x3f, c & 0x3f) } else { (b, c) };
            let (out, _) = run(&ptx, a as u64, b as u64, c as u64);
            assert_eq!(out[0], reference(a, b, c), "{body} a={a:#x} b={b:#x} c={c:#x}");
        }
    }
}

/// `bfe` per spec §9.7.8.15 (bit by bit).
fn bfe(a: u64, b: u32, c: u32, w: u32, signed: bool) -> u64 {
    let (pos, len) = ((b & 0xff) as u64, (c & 0xff) as u64);
    let msb = w as u64 - 1;
    let bit = |i: u64| (a >> i) & 1;
    let sbit = if !signed || len == 0 { 0 } else { bit((pos + len - 1).min(msb)) };
    let mut d = 0u64;
    for i in 0..w as u64 {
        let v = if i < len && pos + i <= msb { bit(pos + i) } else { sbit };
        d |= v << i;
    }
    d
}

/// `prmt` default mode per spec (byte selectors, sign replication with bit 3).
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
    let mut d = 0u32;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let mut byte = bytes[(sel & 7) as usize] as u32;
        if sel & 8 != 0 {
            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
        }
        d |= byte << (8 * i);
    }
    d
}

#[test]
fn integer_arithmetic_64_and_wide() {
    let cases: Vec<(&str, &str, &str, fn(u64, u64, u64) -> u64)> = vec![
        ("add.s64 %d, %a, %b;", "s64", "s64", |a, b, _| a.wrapping_add(b)),
        ("mul.lo.u64 %d, %a, %b;", "u64", "u64", |a, b, _| a.wrapping_mul(b)),
        ("mul.hi.u64 %d, %a, %b;", "u64", "u64", |a, b, _| ((a as u128 * b as u128) >> 64) as u64),
        ("mul.hi.s64 %d, %a, %b;", "s64", "s64", |a, b, _| ((a as i64 as i128 * b as i64 as i128) >> 64) as u64),
        ("div.s64 %d, %a, %b;", "s64", "s64", |a, b, _| if b == 0 { u64::MAX } else { (a as i64).wrapping_div(b as i64) as u64 }),
        ("rem.u64 %d, %a, %b;", "u64", "u64", |a, b, _| a.checked_rem(b).unwrap_or(a)),
        ("shr.s64 %d, %a, %u;", "s64", "s64", |a, b, _| ((a as i64) >> (b as u32).min(63)) as u64),
        ("shl.b64 %d, %a, %u;", "b64", "b64", |a, b, _| if b as u32 >= 64 { 0 } else { a << (b as u32) }),
        ("popc.b64 %u, %a; cvt.u64.u32 %d, %u;", "b64", "u64", |a, _, _| a.count_ones() as u64),
        ("brev.b64 %d, %a;", "b64", "b64", |a, _, _| a.reverse_bits()),
    ];
    let mut rng = Rng(0x9876_5432_1);
    for (body, ty, dty, reference) in cases {
        // Shift amounts come from the low word of %b.
        let body = body.replace("%u;", "%u;").to_string();
        let body = if body.contains(", %u;") { format!("cvt.u32.u64 %u, %b; {body}") } else { body };
        let ptx = kernel(ty, dty, &body);
        for _ in 0..60 {
            let (a, b, c) = (rng.value(64), rng.value(64), rng.value(64));
            let b = if body.contains(", %u;") { b & 0x7f } else { b };
            let (out, _) = run(&ptx, a, b, c);
            assert_eq!(out64(&out), reference(a, b, c), "{body} a={a:#x} b={b:#x}");
        }
    }
    // mul.wide.s32 / mad.wide.u32: 32-bit inputs, 64-bit result.
    let ptx = kernel("s32", "s64", "mul.wide.s32 %d, %a, %b;");
    let ptx_u = kernel("u32", "u64", "mad.wide.u32 %d, %a, %b, %o;");
    for _ in 0..60 {
        let (a, b) = (rng.value(32) as u32, rng.value(32) as u32);
        let (out, _) = run(&ptx, a as u64, b as u64, 0);
        assert_eq!(out64(&out), (a as i32 as i64 * b as i32 as i64) as u64);
        let (out, _) = run(&ptx_u, a as u64, b as u64, 0);
        let o = abi::HEAP_BASE + abi::HEAP_RESERVED_WORDS as u64 * 4;
        assert_eq!(out64(&out), (a as u64 * b as u64).wrapping_add(o));
    }
}

#[test]
fn comparisons_and_predicates() {
    let mut rng = Rng(77);
    let ptx = kernel("s32", "pred", "setp.lt.s32 %p, %a, %b;\n mov.pred %d, %p;");
    let ptx_lo = kernel("u32", "pred", "setp.lo.u32 %p|%q, %a, %b;\n mov.pred %d, %q;");
    let ptx_and = kernel("u32", "pred", "setp.eq.u32 %q, %c, 0;\n setp.hs.and.u32 %d, %a, %b, !%q;");
    for _ in 0..100 {
        let (a, b, c) = (rng.value(32), rng.value(32), rng.next() & 1);
        assert_eq!(run(&ptx, a, b, 0).0[0], ((a as i32) < (b as i32)) as u32);
        assert_eq!(run(&ptx_lo, a, b, 0).0[0], !((a as u32) < (b as u32)) as u32);
        assert_eq!(run(&ptx_and, a, b, c).0[0], ((a as u32 >= b as u32) && c != 0) as u32);
    }
}

fn f32_values(rng: &mut Rng) -> u32 {
    let specials = [0u32, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x7fa0_0001, 0x4f00_0000, 0xcf00_0000, 0x4f80_0000, 0x3f00_0000, 0x3fc0_0000, 0x4020_0000, 0xc020_0000, 0x0000_0001];
    let r = rng.next();
    if r % 2 == 0 {
        specials[(r >> 8) as usize % specials.len()]
    } else {
        // Normal numbers of moderate magnitude.
        let e = 100 + (rng.next() % 60) as u32;
        (rng.next() as u32 & 0x807f_ffff) | (e << 23)
    }
}

#[test]
fn float_min_max_and_compare() {
    let mut rng = Rng(5);
    let min = kernel("f32", "f32", "min.f32 %d, %a, %b;");
    let max = kernel("f32", "f32", "max.f32 %d, %a, %b;");
    let ltu = kernel("f32", "pred", "setp.ltu.f32 %d, %a, %b;");
    let ne = kernel("f32", "pred", "setp.ne.f32 %d, %a, %b;");
    let nan = kernel("f32", "pred", "setp.nan.f32 %d, %a, %b;");
    // Spec §9.7.3.11: NaN operand → the other; both NaN → NaN; +0.0 > -0.0.
    let reference = |a: u32, b: u32, is_min: bool| -> Option<u32> {
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        match (fa.is_nan(), fb.is_nan()) {
            (true, true) => None,
            (true, false) => Some(b),
            (false, true) => Some(a),
            _ if fa == 0.0 && fb == 0.0 => Some(if is_min { a | b } else { a & b }),
            _ => Some(if (fa < fb) == is_min { a } else { b }),
        }
    };
    for _ in 0..400 {
        let (a, b) = (f32_values(&mut rng), f32_values(&mut rng));
        for (ptx, is_min) in [(&min, true), (&max, false)] {
            let got = run(ptx, a as u64, b as u64, 0).0[0];
            match reference(a, b, is_min) {
                Some(r) => assert_eq!(got, r, "min={is_min} {a:#x} {b:#x}"),
                None => assert!(f32::from_bits(got).is_nan()),
            }
        }
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        assert_eq!(run(&ltu, a as u64, b as u64, 0).0[0], (fa.is_nan() || fb.is_nan() || fa < fb) as u32);
        assert_eq!(run(&ne, a as u64, b as u64, 0).0[0], (!fa.is_nan() && !fb.is_nan() && fa != fb) as u32);
        assert_eq!(run(&nan, a as u64, b as u64, 0).0[0], (fa.is_nan() || fb.is_nan()) as u32);
    }
}

#[test]
fn float_to_int_conversions_saturate() {
    let mut rng = Rng(99);
    // Spec §9.7.9.21: float → integer saturates; NaN → 0 (NVIDIA: 1 << 63 into 64 bits).
    let cases: Vec<(&str, &str, fn(f32) -> u64)> = vec![
        ("cvt.rzi.s32.f32 %d, %a;", "s32", |x| x as i32 as u32 as u64),
        ("cvt.rni.s32.f32 %d, %a;", "s32", |x| x.round_ties_even() as i32 as u32 as u64),
        ("cvt.rmi.u32.f32 %d, %a;", "u32", |x| x.floor() as u32 as u64),
        ("cvt.rpi.u32.f32 %d, %a;", "u32", |x| x.ceil() as u32 as u64),
        ("cvt.rzi.s64.f32 %d, %a;", "s64", |x| x as i64 as u64),
        ("cvt.rni.u64.f32 %d, %a;", "u64", |x| x.round_ties_even() as u64),
    ];
    for (body, dty, reference) in cases {
        let ptx = kernel("f32", dty, body);
        for _ in 0..200 {
            let a = f32_values(&mut rng);
            let (out, _) = run(&ptx, a as u64, 0, 0);
            let got = if bits(dty) == 64 { out64(&out) } else { out[0] as u64 };
            // Rust's `as` saturates like PTX. NaN: the spec's 0, except that NVIDIA's hardware
            // gives 1 << 63 for 64-bit destinations (see `nan_to_int_bits` in lower).
            let x = f32::from_bits(a);
            let want = if x.is_nan() && bits(dty) == 64 { 1 << 63 } else { reference(x) };
            assert_eq!(got, want, "{body} {a:#x}");
        }
    }
    let i2f = kernel("s32", "f32", "cvt.rn.f32.s32 %d, %a;");
    let u2f = kernel("u64", "f32", "cvt.rn.f32.u64 %d, %a;");
    for _ in 0..200 {
        let a = rng.value(32);
        assert_eq!(run(&i2f, a, 0, 0).0[0], (a as u32 as i32 as f32).to_bits());
        let b = rng.value(64);
        assert_eq!(run(&u2f, b, 0, 0).0[0], (b as f32).to_bits());
    }
}

#[test]
fn integer_conversions_and_moves() {
    let mut rng = Rng(3);
    let sext = kernel("u32", "s64", "cvt.s64.s16 %d, %a;");
    let narrow = kernel("u32", "u32", "cvt.u8.u32 %d, %a;");
    let pack = kernel("u32", "b64", "mov.b64 %d, {%a, %b};");
    let unpack = kernel("b64", "b32", "mov.b64 {%u, %d}, %a;");
    for _ in 0..100 {
        let (a, b) = (rng.value(32), rng.value(32));
        assert_eq!(out64(&run(&sext, a, 0, 0).0), a as u16 as i16 as i64 as u64);
        assert_eq!(run(&narrow, a, 0, 0).0[0], a as u8 as u32);
        assert_eq!(out64(&run(&pack, a, b, 0).0), (b << 32) | a);
        let w = rng.value(64);
        assert_eq!(run(&unpack, w, 0, 0).0[0], (w >> 32) as u32);
    }
}

#[test]
fn sub_word_memory_and_local_windows() {
    // Byte stores/loads through local memory and a generic (cvta) address; sign extension.
    let ptx = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2, .param .u64 k_param_3)
{
    .local .align 4 .b8 buf[8];
    .reg .b64 %o, %a, %g;
    .reg .b32 %r<6>;
    .reg .b16 %h;
    ld.param.u64 %o, [k_param_0];
    ld.param.u64 %a, [k_param_1];
    cvt.u32.u64 %r0, %a;
    st.local.u32 [buf], 0;
    st.local.u32 [buf+4], 0;
    st.local.u8 [buf+1], %r0;
    shr.u32 %r1, %r0, 8;
    st.local.u16 [buf+6], %r1;
    ld.local.u32 %r2, [buf];
    ld.local.u32 %r3, [buf+4];
    mov.u64 %g, buf;
    cvta.local.u64 %g, %g;
    ld.s8 %r4, [%g+1];
    ld.u16 %h, [%g+6];
    cvt.u32.u16 %r5, %h;
    st.global.u32 [%o], %r2;
    st.global.u32 [%o+4], %r3;
    st.global.u32 [%o+8], %r4;
    st.global.u32 [%o+12], %r5;
    ret;
}";
    let mut rng = Rng(11);
    for _ in 0..50 {
        let a = rng.value(32);
        let (out, faults) = run(ptx, a, 0, 0);
        assert_eq!(faults, 0);
        assert_eq!(out[0], (a as u8 as u32) << 8);
        assert_eq!(out[1], ((a >> 8) as u16 as u32) << 16);
        assert_eq!(out[2], a as u8 as i8 as i32 as u32);
        assert_eq!(out[3], (a >> 8) as u16 as u32);
    }
}

#[test]
fn out_of_range_and_misaligned_accesses_fault() {
    let ptx = kernel("u64", "u32", "ld.global.u32 %d, [%a];");
    let (out, faults) = run(&ptx, 0x10, 0, 0);
    assert_eq!(out[0], 0);
    assert_eq!(faults & abi::FAULT_GLOBAL_OUT_OF_RANGE, abi::FAULT_GLOBAL_OUT_OF_RANGE);
    let ok = abi::HEAP_BASE + abi::HEAP_RESERVED_WORDS as u64 * 4;
    let (_, faults) = run(&ptx, ok + 2, 0, 0);
    assert_eq!(faults & abi::FAULT_MISALIGNED, abi::FAULT_MISALIGNED);
    let (_, faults) = run(&ptx, ok + 4, 0, 0);
    assert_eq!(faults, 0);
}

#[test]
fn unsupported_features_name_the_place() {
    // `mad.f32` without a rounding modifier is an error for sm_20+ from PTX ISA 3.2 on, as in
    // ptxas (§9.7.3.7; the sm_1x and ISA ≤ 3.1 meanings run in `inst_sweep
    // sm_1x_targets_flush_single_precision`).
    let ptx = kernel("f32", "f32", "mad.f32 %d, %a, %a, %a;");
    let file = SourceFile::new("case.ptx", ptx.as_str());
    let ast = parse(&file).expect("parses");
    let err = lower(&ast, &file, &LowerOptions::default()).expect_err("mad.f32 without rounding is an error");
    let msg = err[0].short(&file);
    assert!(msg.starts_with("case.ptx:"), "{msg}");
    assert!(msg.contains("`mad.f32` needs a rounding modifier"), "{msg}");
    // The packed integer types of later ISAs (`.u8x4`, `.s8x4`; the spec at hand, 8.5, has only
    // `.u16x2`/`.s16x2`, §5.2.3) parse and are refused by name, never guessed.
    for body in ["add.u8x4 %d, %a, %b;", "add.sat.s8x4 %d, %a, %b;", "min.u8x4 %d, %a, %b;"] {
        let ptx = kernel("u32", "u32", body);
        let file = SourceFile::new("case.ptx", ptx.as_str());
        let ast = parse(&file).unwrap_or_else(|e| panic!("{body} parses: {}", e[0].render(&file)));
        let err = lower(&ast, &file, &LowerOptions::default()).expect_err(body);
        let msg = err[0].short(&file);
        assert!(msg.contains("not supported yet") && msg.contains("8x4"), "{body}: {msg}");
    }
    // The narrow formats of later ISAs (their conversions are not in the spec at hand) and
    // `fma.oob` (its OOB-NaN encoding is not either) are refused by name.
    for (body, what) in [
        ("{ .reg .b8 %q; cvt.rn.satfinite.e2m1x2.f32 %q, %a, %b; }", "e2m1x2"),
        ("{ .reg .b16 %q; cvt.rn.satfinite.e2m3x2.f32 %q, %a, %b; }", "e2m3x2"),
        ("{ .reg .b16 %q; cvt.rn.satfinite.e3m2x2.f32 %q, %a, %b; }", "e3m2x2"),
        ("{ .reg .b16 %q; cvt.rz.satfinite.ue8m0x2.f32 %q, %a, %b; }", "ue8m0x2"),
        ("{ .reg .b16 %x; mov.b16 %x, 0; fma.rn.oob.f16 %x, %x, %x, %x; }", "oob"),
    ] {
        let ptx = kernel("f32", "u32", body);
        let file = SourceFile::new("case.ptx", ptx.as_str());
        let ast = parse(&file).unwrap_or_else(|e| panic!("{body} parses: {}", e[0].render(&file)));
        let err = lower(&ast, &file, &LowerOptions::default()).expect_err(body);
        let msg = err[0].short(&file);
        assert!(msg.contains("not supported yet") && msg.contains(what), "{body}: {msg}");
    }
}

/// bfe/bfi immediates above 255 are refused, as NVIDIA's PTX JIT refuses them (H200, driver 580:
/// CUDA_ERROR_INVALID_PTX for `bfe.u64 %d, %a, 303, 291;`); 255 itself is accepted.
#[test]
fn bit_field_immediates_above_255_are_refused() {
    for body in ["bfe.u64 %d, %a, 303, 1;", "bfe.s32 %d, %a, 0, 300;", "bfi.b64 %d, %a, %b, 1, 256;"] {
        let ty = if body.contains("32") { "u32" } else { "u64" };
        let ptx = kernel(ty, ty, body);
        let file = SourceFile::new("case.ptx", ptx.as_str());
        let ast = parse(&file).expect("parses");
        let err = lower(&ast, &file, &LowerOptions::default()).expect_err(body);
        let msg = err[0].short(&file);
        assert!(msg.starts_with("case.ptx:") && msg.contains("immediate out of range"), "{body}: {msg}");
    }
    let (out, _) = run(&kernel("u64", "u64", "bfe.u64 %d, %a, 255, 255;"), u64::MAX, 0, 0);
    assert_eq!(out64(&out), 0, "position 255 is past the width");
}

/// Threads past 5 leave before the barrier (`bar.sync` then waits for the others only, spec
/// §9.7.13.4): the barrier is made uniform (every invocation reaches it, the exit becomes a
/// flag), never emitted under the thread-dependent branch.
#[test]
fn barrier_after_divergent_exit_is_made_uniform() {
    let ptx = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k()
{
    .reg .b32 %r1;
    .reg .pred %p1;
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 5;
    @%p1 bra $L_done;
    bar.sync 0;
$L_done:
    ret;
}";
    let file = SourceFile::new("div.ptx", ptx);
    let ast = parse(&file).expect("parses");
    let module = lower(&ast, &file, &LowerOptions::default()).expect("divergent exit before a barrier");
    let body = &module.kernels[0].body.stmts;
    assert!(
        body.iter().any(|s| matches!(s, ptxcross_lower::ir::Stmt::Barrier | ptxcross_lower::ir::Stmt::SharedBarrier)),
        "barrier not at top level: {body:?}"
    );
    // The same shape with a uniform condition (block index) is accepted.
    let uniform = ptx.replace("%tid.x", "%ctaid.x");
    let file = SourceFile::new("uni.ptx", uniform.as_str());
    let ast = parse(&file).expect("parses");
    lower(&ast, &file, &LowerOptions::default()).expect("uniform branch around a barrier");
}

#[test]
fn fma_rounds_once() {
    // fma.rn.f32 must equal the correctly rounded a*b+c (Rust's mul_add), including the cases
    // an unfused multiply-add gets wrong and double rounding through f64 would get wrong.
    let ptx = kernel("f32", "f32", "fma.rn.f32 %d, %a, %b, %c;");
    let mut rng = Rng(2024);
    let mut cases: Vec<(u32, u32, u32)> = Vec::new();
    for _ in 0..3000 {
        let a = f32_values(&mut rng);
        let b = f32_values(&mut rng);
        // c near -(a*b) exposes the low bits of the product.
        let c = if rng.next() % 2 == 0 { (-(f32::from_bits(a) * f32::from_bits(b))).to_bits() ^ (rng.next() as u32 & 3) } else { f32_values(&mut rng) };
        cases.push((a, b, c));
    }
    let x = 1.0f32 + f32::EPSILON;
    cases.push((x.to_bits(), x.to_bits(), (-(x * x)).to_bits()));
    // A double-rounding case: the exact sum lies just beside an f32 midpoint.
    cases.push((0x3f80_0001, 0x3f80_0001, 0x3380_0000));
    for (a, b, c) in cases {
        let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        let want = fa.mul_add(fb, fc);
        let got = f32::from_bits(run(&ptx, a as u64, b as u64, c as u64).0[0]);
        if want.is_nan() {
            assert!(got.is_nan(), "fma({a:#x}, {b:#x}, {c:#x})");
        } else {
            assert_eq!(got.to_bits(), want.to_bits(), "fma({a:#x}, {b:#x}, {c:#x})");
        }
    }
}
