//! Half-precision sweeps (f16, bf16, packed x2) against `ptx_ref::half` on both backends, one
//! launch per variant; also the 8-bit float and tf32 conversions and half comparisons
//! (`ptx_ref::fp8`). One-operand 16-bit variants run all 65,536 inputs in CI; wider inputs
//! run an edge table plus a sampled slice. Exhaustive sweeps (2^32 inputs: two-operand half
//! add/mul, every f32 through the tf32 conversions):
//!   cargo test -p ptxcross-tests --test half_sweep -- --ignored --nocapture
//! (`PTXCROSS_SWEEP_VARIANT=cvt.rna.tf32` restricts the tf32 one).

use ptxcross_tests::ptx_ref::fp8::{self, Fp8, Tf32Round};
use ptxcross_tests::ptx_ref::half::{self as href, Fmt};
use ptxcross_tests::sweep::{self, check_both, rows, Reference, Rng, Sweep, Variant, F32_EDGES, F64_EDGES};

const SAMPLES: usize = 1 << 13;
const ROUNDINGS: [&str; 4] = ["rn", "rz", "rm", "rp"];
const FMTS: [Fmt; 2] = [Fmt::F16, Fmt::Bf16];

const HALF_EDGES: &[u64] = &[
    0, 0x8000, 1, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3bff, 0x3c01, 0x3f80,
    0xbf80, 0x3f81, 0x0080, 0x007f, 0x807f, 0x7bff, 0xfbff, 0x7f7f, 0xff7f, 0x7c00, 0xfc00, 0x7f80, 0xff80, 0x7e00,
    0x7c01, 0xfe01, 0x7fc0, 0x7f81, 0x7fff, 0x4000, 0xc000, 0x3555, 0x5bff,
];

fn sweep_one(variant: Variant, inputs: &[u64], reference: Reference) {
    let Some(gpu) = sweep::gpu() else { return };
    let body = variant.body.clone();
    let s = Sweep::new(&gpu, variant).unwrap_or_else(|e| panic!("`{body}` does not translate: {e}"));
    for (b, r) in ptxcross::Backend::ALL.iter().zip(check_both(&s, inputs, reference)) {
        eprintln!("{b:>5} {body:<52} {:>8} values {:>10.0}/s", r.checked, r.per_second());
    }
}

/// f32 operands that stress narrowing: the f32 edge table, values near f16's range limits and
/// rounding ties, random bits, and random values inside f16's exponent range.
fn f32_inputs(seed: u64) -> Vec<u64> {
    let mut v: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    v.extend([
        0x477f_e000, 0x477f_efff, 0x477f_f000, 0x477f_f001, 0x4780_0000, 0x3380_0000, 0x3300_0000, 0x3300_0001,
        0x3380_0001, 0x3880_0000, 0x387f_ffff, 0x387f_e000, 0x387f_f000, 0x3f80_1000, 0x3f80_1001, 0x3f80_3000,
        0x3f80_8000, 0x3f81_8000, 0x7f7f_8000, 0x7f7f_7fff, 0x0000_8000, 0x0001_8000, 0x8001_8000,
    ]);
    let mut rng = Rng(seed);
    for i in 0..SAMPLES as u64 {
        let r = rng.next_u64();
        v.push(if i % 2 == 0 {
            r & 0xffff_ffff
        } else {
            let e = 127 - 30 + (r >> 40) % 48;
            (r & 0x8000_0000) | (e << 23) | ((r >> 8) & 0x7f_ffff & if i % 6 == 1 { 0x7f_e000 | 0x1000 } else { 0x7f_ffff })
        });
    }
    v
}

#[test]
fn cvt_half_from_f32_every_rounding_relu_satfinite() {
    let inputs = f32_inputs(11);
    for fmt in FMTS {
        for rnd in ROUNDINGS {
            for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
                if (relu || satfinite) && !matches!(rnd, "rn" | "rz") {
                    continue; // .relu/.satfinite take .rn/.rz only (§9.7.9.21 `.frnd2`)
                }
                let name = format!(
                    "cvt.{rnd}{}{}.{}.f32",
                    if relu { ".relu" } else { "" },
                    if satfinite { ".satfinite" } else { "" },
                    fmt.suffix()
                );
                let r = href::round_of(rnd);
                sweep_one(Variant::inst(&name, "b16", &["f32"]), &inputs, &move |a| {
                    vec![href::cvt_half_f32(a[0] as u32, fmt, r, relu, satfinite)]
                });
            }
        }
    }
}

#[test]
fn cvt_packed_halves_from_two_f32() {
    let one = f32_inputs(12);
    let mut rng = Rng(13);
    let inputs: Vec<u64> = one.iter().flat_map(|&a| [a, one[(rng.next_u64() % one.len() as u64) as usize]]).collect();
    for fmt in FMTS {
        for rnd in ["rn", "rz"] {
            for relu in [false, true] {
                let name = format!("cvt.{rnd}{}.{}x2.f32", if relu { ".relu" } else { "" }, fmt.suffix());
                let r = href::round_of(rnd);
                sweep_one(Variant::inst(&name, "b32", &["f32", "f32"]), &inputs, &move |a| {
                    // d[31:16] = convert(a), d[15:0] = convert(b).
                    let hi = href::cvt_half_f32(a[0] as u32, fmt, r, relu, false);
                    let lo = href::cvt_half_f32(a[1] as u32, fmt, r, relu, false);
                    vec![pack(hi, lo)]
                });
            }
        }
    }
}

/// Two 16-bit expectations as one for the packed 32-bit result.
fn pack(hi: sweep::Expect, lo: sweep::Expect) -> sweep::Expect {
    use sweep::Expect::*;
    match (hi, lo) {
        (Bits(h), Bits(l)) => Bits(h << 16 | l),
        (hi, lo) => Pair16(pair_part(hi), pair_part(lo)),
    }
}

fn pair_part(e: sweep::Expect) -> sweep::Half16 {
    match e {
        sweep::Expect::Bits(b) => sweep::Half16::Bits(b as u16),
        sweep::Expect::Either(a, b) => sweep::Half16::Either(a as u16, b as u16),
        sweep::Expect::AnyNanHalf(m) => sweep::Half16::AnyNan(m),
        e => panic!("no 16-bit lane expectation for {e:?}"),
    }
}

#[test]
fn cvt_half_from_f64() {
    let mut rng = Rng(14);
    let mut inputs: Vec<u64> = F64_EDGES.to_vec();
    for &x in F32_EDGES {
        inputs.push((f32::from_bits(x) as f64).to_bits());
    }
    for i in 0..SAMPLES as u64 {
        let r = rng.next_u64();
        inputs.push(if i % 2 == 0 { r } else { (r & (1 << 63)) | ((1023 - 140 + (r >> 32) % 290) << 52) | (r & 0xf_ffff_ffff_ffff) });
    }
    for fmt in FMTS {
        for rnd in ROUNDINGS {
            let name = format!("cvt.{rnd}.{}.f64", fmt.suffix());
            let r = href::round_of(rnd);
            sweep_one(Variant::inst(&name, "b16", &["f64"]), &inputs, &move |a| vec![href::cvt_half_f64(a[0], fmt, r)]);
        }
    }
}

/// Every 16-bit input of the widening conversions.
#[test]
fn cvt_widen_half_exhaustive() {
    let inputs: Vec<u64> = (0..1 << 16).collect();
    for fmt in FMTS {
        sweep_one(Variant::inst(&format!("cvt.f32.{}", fmt.suffix()), "f32", &["b16"]), &inputs, &move |a| {
            vec![href::cvt_f32_half(a[0] as u16, fmt)]
        });
        sweep_one(Variant::inst(&format!("cvt.f64.{}", fmt.suffix()), "f64", &["b16"]), &inputs, &move |a| {
            let x = fmt.to_f64(a[0] as u16);
            vec![ptxcross_tests::ptx_ref::float::exact_f64(x)]
        });
        // `.ftz` flushes single-precision results (§9.7.10.20): a bf16 subnormal widens to an
        // f32 subnormal, which becomes the zero of its sign (f16 subnormals are f32 normals).
        sweep_one(Variant::inst(&format!("cvt.ftz.f32.{}", fmt.suffix()), "f32", &["b16"]), &inputs, &move |a| {
            let h = a[0] as u16;
            let subnormal = h & 0x7fff != 0 && (fmt.to_f64(h).abs() as f32).to_bits() < 0x0080_0000;
            vec![if subnormal { sweep::Expect::Bits(u64::from(h & 0x8000) << 16) } else { href::cvt_f32_half(h, fmt) }]
        });
    }
}

/// Conversions between halves and f32 compute on the bits, so targets without 64-bit floats
/// (WebGPU in browsers, Vulkan devices without `shaderFloat64`) run them: translated with
/// `split_int64` (which refuses every f64 operation), every half input widens and the narrowing
/// inputs round exactly, on both backends.
#[test]
fn cvt_between_halves_and_f32_without_64_bit_types() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = ptxcross_lower::LowerOptions { split_int64: true, ..Default::default() };
    let halves: Vec<u64> = (0..1 << 16).collect();
    let singles = f32_inputs(29);
    for fmt in FMTS {
        let widen = Variant::inst(&format!("cvt.f32.{}", fmt.suffix()), "f32", &["b16"]);
        let narrow = Variant::inst(&format!("cvt.rz.{}.f32", fmt.suffix()), "b16", &["f32"]);
        let s = Sweep::with_options(&gpu, widen, options.clone()).unwrap_or_else(|e| panic!("widening: {e}"));
        check_both(&s, &halves, &move |a| vec![href::cvt_f32_half(a[0] as u16, fmt)]);
        let s = Sweep::with_options(&gpu, narrow, options.clone()).unwrap_or_else(|e| panic!("narrowing: {e}"));
        let rz = href::round_of("rz");
        check_both(&s, &singles, &move |a| vec![href::cvt_half_f32(a[0] as u32, fmt, rz, false, false)]);
    }
}

fn half_rows(arity: usize, seed: u64, samples: usize) -> Vec<u64> {
    let mut rng = Rng(seed);
    rows(arity, HALF_EDGES, 1 << 16, samples, &mut || rng.next_u64() & 0xffff)
}

fn arith_variants() -> Vec<(String, &'static str, Fmt, bool, bool, bool, usize)> {
    let mut v = Vec::new();
    for fmt in FMTS {
        for op in ["add", "sub", "mul", "fma"] {
            let arity = if op == "fma" { 3 } else { 2 };
            let mods: &[(bool, bool, bool)] = if fmt == Fmt::F16 {
                if op == "fma" {
                    &[(false, false, false), (true, false, false), (false, true, false), (true, true, false), (false, false, true)]
                } else {
                    &[(false, false, false), (true, false, false), (false, true, false), (true, true, false)]
                }
            } else if op == "fma" {
                &[(false, false, false), (false, false, true)]
            } else {
                &[(false, false, false)]
            };
            for &(ftz, sat, relu) in mods {
                let name = format!(
                    "{op}.rn{}{}{}.{}",
                    if ftz { ".ftz" } else { "" },
                    if sat { ".sat" } else { "" },
                    if relu { ".relu" } else { "" },
                    fmt.suffix()
                );
                v.push((name, op, fmt, ftz, sat, relu, arity));
            }
        }
    }
    v
}

#[test]
fn half_add_sub_mul_fma() {
    for (name, op, fmt, ftz, sat, relu, arity) in arith_variants() {
        let mut inputs = half_rows(arity, 15, SAMPLES);
        if op == "fma" {
            inputs.extend(fma_hard_rows(fmt, SAMPLES, 16));
        }
        let srcs = vec!["b16"; arity];
        sweep_one(Variant::inst(&name, "b16", &srcs), &inputs, &move |a| {
            let xs: Vec<u16> = a.iter().map(|&x| x as u16).collect();
            vec![href::arith(op, fmt, &xs, ftz, sat, relu)]
        });
        // The packed form applies the same operation to each half.
        let name2 = name.replace(".f16", ".f16x2").replace(".bf16", ".bf16x2");
        let mut rng = Rng(16);
        let packed: Vec<u64> = (0..SAMPLES * arity).map(|_| rng.next_u64() & 0xffff_ffff).collect();
        let srcs = vec!["b32"; arity];
        sweep_one(Variant::inst(&name2, "b32", &srcs), &packed, &move |a| {
            let lane = |sh: u32| {
                let xs: Vec<u16> = a.iter().map(|&x| (x >> sh) as u16).collect();
                href::arith(op, fmt, &xs, ftz, sat, relu)
            };
            vec![pack(lane(16), lane(0))]
        });
    }
}

/// `fma` operands where rounding twice to nearest (to f32, then to the format) goes wrong, and
/// cancelling ones. Near a midpoint: a = ±2^ea·(1 + k·2^-m), b = ±2^eb·(1 − k·2^-m) (m the
/// stored mantissa bits), so a·b = ±2^e·(1 − k²·2^-2m) lies just inside half an ulp of a c whose
/// ulp is 2^(e+1) (normal or subnormal, either sign): the exact sum is a hair off the midpoint,
/// which f32 cannot hold for f16 (an odd c must not round up). Cancelling: c = −(a·b rounded to
/// the format), the exact residual decides. Rows of three operands.
fn fma_hard_rows(fmt: Fmt, n: usize, seed: u64) -> Vec<u64> {
    let (m, bias, max_e) = match fmt {
        Fmt::F16 => (10i64, 15i64, 30i64),
        Fmt::Bf16 => (7, 127, 254),
    };
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < n * 3 {
        let r = rng.next_u64();
        let sign = |bit: u32| ((r >> bit) & 1) << 15;
        let k = 1 + (r >> 8) % 8;
        // Unbiased exponents over the whole normal range of a and b.
        let ea = ((r >> 16) % max_e as u64) as i64 + 1 - bias;
        let eb = ((r >> 32) % max_e as u64) as i64 + 2 - bias;
        // Biased exponent of c: ulp(c) = 2^(ea+eb+1) = 2^(E_c - bias - m).
        let ec = ea + eb + 1 + m + bias;
        let (eab, ebb) = (ea + bias, eb - 1 + bias);
        if !(1..=max_e).contains(&ec) || !(1..=max_e).contains(&eab) || !(1..=max_e).contains(&ebb) {
            continue;
        }
        let a = sign(0) | (eab << m) as u64 | k;
        let b = sign(1) | (ebb << m) as u64 | ((1 << m) - 2 * k);
        let j = (r >> 48) % (1 << m);
        // At the least normal exponent, the subnormals share its ulp.
        let c_exp = if ec == 1 && (r >> 3) & 1 == 1 { 0 } else { ec as u64 };
        let c = sign(2) | (c_exp << m) | j;
        out.extend([a, b, c]);
        // The same product against the format's rounding of its negation.
        let p = fmt.to_f64(a as u16) * fmt.to_f64(b as u16);
        out.extend([a, b, fmt.round(-p, rustc_apfloat::Round::NearestTiesToEven) as u64]);
    }
    out.truncate(n * 3);
    out
}

/// Packed operands made of two rows of lanes: each word's low half from row i, its high half
/// from row i + 1 (so the edge and hard rows reach both lanes).
fn packed_from_rows(rows: &[u64], arity: usize) -> Vec<u64> {
    let n = rows.len() / arity;
    (0..n).flat_map(|i| (0..arity).map(move |j| rows[i * arity + j] | rows[(i + 1) % n * arity + j] << 16)).collect()
}

/// Half add/sub/mul/fma with every modifier on targets without 64-bit floats: translated with
/// `no_float64` (Vulkan devices without shaderFloat64) or with `split_int64` (WebGPU; it refuses
/// any f64 left), both backends, scalar and packed, against rustc_apfloat: every combination of
/// the edge table (subnormals, ties, overflow, NaN, signed zeros), `fma_hard_rows`, random
/// operands. The two options lower these instructions alike (f32 and 32-bit integers only), so
/// each variant runs scalar under one and packed under the other, alternating. Every native f32
/// operation also flushes subnormal operands and results (`simulate_flushed_f32`, as some
/// devices and browsers do): no f32 value of these lowerings is subnormal, so the results stay
/// exact without the exact mode (`flushed_f32`, on with `split_int64` as `--profile webgpu`
/// sets it, off with `no_float64`).
#[test]
fn half_arith_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let no_f64 = ptxcross_lower::LowerOptions { no_float64: true, simulate_flushed_f32: true, ..Default::default() };
    let split = ptxcross_lower::LowerOptions { split_int64: true, flushed_f32: true, simulate_flushed_f32: true, ..Default::default() };
    for (i, (name, op, fmt, ftz, sat, relu, arity)) in arith_variants().into_iter().enumerate() {
        let (scalar_options, packed_options) = if i % 2 == 0 { (&no_f64, &split) } else { (&split, &no_f64) };
        let mut inputs = half_rows(arity, 17, SAMPLES);
        if op == "fma" {
            inputs.extend(fma_hard_rows(fmt, SAMPLES, 19));
        }
        let srcs = vec!["b16"; arity];
        let s = Sweep::without_f64(&gpu, Variant::inst(&name, "b16", &srcs), scalar_options);
        check_both(&s, &inputs, &move |a| {
            let xs: Vec<u16> = a.iter().map(|&x| x as u16).collect();
            vec![href::arith(op, fmt, &xs, ftz, sat, relu)]
        });
        let name2 = name.replace(".f16", ".f16x2").replace(".bf16", ".bf16x2");
        let srcs = vec!["b32"; arity];
        let s = Sweep::without_f64(&gpu, Variant::inst(&name2, "b32", &srcs), packed_options);
        check_both(&s, &packed_from_rows(&inputs, arity), &move |a| {
            let lane = |sh: u32| {
                let xs: Vec<u16> = a.iter().map(|&x| (x >> sh) as u16).collect();
                href::arith(op, fmt, &xs, ftz, sat, relu)
            };
            vec![pack(lane(16), lane(0))]
        });
    }
}

/// The `cvt`s with a half side and no f64 side compute in f32 and 32-bit integers (`lower`'s
/// `cvt_half_in_f32`), so they translate without 64-bit floats: integer → f16/bf16 in every
/// rounding (f16's overflow thresholds, ties), half → integer and half → half with every
/// integer rounding (`.sat` too), f16 ↔ bf16, half → f32 `.sat`, f32 → half `.sat`. Each
/// variant under `no_float64` or under `split_int64` with the exact mode and simulated f32
/// flushing (alternating), both backends, against rustc_apfloat and f64 arithmetic on the exact
/// values; every 16-bit input.
#[test]
fn cvt_half_without_f64() {
    use ptxcross_tests::ptx_ref::float as fref;
    use ptxcross_tests::sweep::{Expect, U32_EDGES, U64_EDGES};
    let Some(gpu) = sweep::gpu() else { return };
    let options = [
        ptxcross_lower::LowerOptions { no_float64: true, ..Default::default() },
        // As `--profile webgpu` translates, on a device that flushes f32 subnormals.
        ptxcross_lower::LowerOptions { split_int64: true, flushed_f32: true, simulate_flushed_f32: true, ..Default::default() },
    ];
    let mut n = 0;
    let mut run = |v: Variant, inputs: &[u64], reference: Reference| {
        n += 1;
        check_both(&Sweep::without_f64(&gpu, v, &options[n % 2]), inputs, reference);
    };
    let all16: Vec<u64> = (0..1u64 << 16).collect();
    let modes = ["rn", "rz", "rm", "rp"];
    // Integer → half: f16's overflow thresholds (65504, 65520 = MAX_NORM + half an ulp), ties,
    // the ±2^17 clamp, the edge tables and random values.
    let mut ints: Vec<u64> = U64_EDGES.to_vec();
    ints.extend(U32_EDGES.iter().map(|&x| x as u64));
    for x in [2047i64, 2049, 2051, 4098, 4102, 65503, 65504, 65505, 65519, 65520, 65521, 65535, 65536, 131071, 131072, 131073, 1 << 24, (1 << 24) + 1] {
        ints.extend([x as u64, x.wrapping_neg() as u64]);
    }
    let mut rng = Rng(31);
    ints.extend((0..SAMPLES).map(|i| if i % 2 == 0 { rng.next_u64() } else { (rng.next_u64() % (1 << 19)).wrapping_sub(1 << 18) }));
    for fmt in FMTS {
        for src in ["s16", "u16", "s32", "u32", "s64", "u64"] {
            let body: String = modes.iter().enumerate().map(|(i, r)| format!("cvt.{r}.{}.{src} %d{i}, %s0;\n", fmt.suffix())).collect();
            let v = Variant { body, srcs: vec![src], dsts: vec!["b16"; 4] };
            let bits = sweep::width(src);
            let signed = src.starts_with('s');
            run(v, &ints, &move |a| {
                let x = if bits == 64 { a[0] } else if signed { ((a[0] << (64 - bits)) as i64 >> (64 - bits)) as u64 } else { a[0] & ((1 << bits) - 1) };
                modes.iter().map(|r| Expect::Bits(fref::cvt_from_int64(fmt.suffix(), signed, href::round_of(r), x))).collect()
            });
        }
    }
    let iround = |r: &str, x: f64| match r {
        "rni" => x.round_ties_even(),
        "rzi" => x.trunc(),
        "rmi" => x.floor(),
        _ => x.ceil(),
    };
    let rmodes = ["rni", "rzi", "rmi", "rpi"];
    for fmt in FMTS {
        let t = fmt.suffix();
        // Half → half, integral (and `.sat` for f16): exact.
        let sats: &[bool] = if fmt == Fmt::F16 { &[false, true] } else { &[false] };
        for &sat in sats {
            let body: String = rmodes.iter().enumerate().map(|(i, r)| format!("cvt.{r}{}.{t}.{t} %d{i}, %s0;\n", if sat { ".sat" } else { "" })).collect();
            run(Variant { body, srcs: vec!["b16"], dsts: vec!["b16"; 4] }, &all16, &move |a| {
                let x = fmt.to_f64(a[0] as u16);
                rmodes
                    .iter()
                    .map(|r| {
                        if x.is_nan() {
                            return if sat { Expect::Bits(0) } else { Expect::AnyNanHalf(fmt.exp_mask()) };
                        }
                        let y = iround(r, x);
                        let y = if sat { y.clamp(0.0, 1.0) } else { y };
                        // `clamp` keeps −0; `.sat` makes it +0.
                        let y = if sat && y == 0.0 { 0.0 } else { y };
                        Expect::Bits(fmt.round(y, rustc_apfloat::Round::NearestTiesToEven) as u64)
                    })
                    .collect()
            });
        }
        // Half → integer.
        for it in ["s16", "u16", "s32", "u32", "s64", "u64"] {
            let body: String = rmodes.iter().enumerate().map(|(i, r)| format!("cvt.{r}.{it}.{t} %d{i}, %s0;\n")).collect();
            let bits = sweep::width(it);
            let signed = it.starts_with('s');
            run(Variant { body, srcs: vec!["b16"], dsts: vec![it; 4] }, &all16, &move |a| {
                let x = fmt.to_f64(a[0] as u16);
                let (lo, hi) = if signed { (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1) - 1.0) } else { (0.0, 2f64.powi(bits as i32) - 1.0) };
                rmodes
                    .iter()
                    .map(|r| {
                        // `as` saturates: 2^64 − 1 is not an f64, its neighbour 2^64 becomes u64::MAX.
                        let y = iround(r, x);
                        let v = if x.is_nan() { fref::cvt_nan_to_int(t, it) } else if signed { y.clamp(lo, hi) as i64 as u64 } else { y.clamp(lo, hi) as u64 };
                        Expect::Bits(if bits == 64 { v } else { v & ((1u64 << bits) - 1) })
                    })
                    .collect()
            });
        }
        // Half → f32 `.sat` (exact, then clamped) and to the other half format in every mode.
        run(Variant::inst(&format!("cvt.sat.f32.{t}"), "f32", &["b16"]), &all16, &move |a| {
            let x = fmt.to_f64(a[0] as u16);
            vec![if x.is_nan() { Expect::Bits(0) } else { Expect::Bits((if x > 0.0 { x.min(1.0) } else { 0.0 } as f32).to_bits() as u64) }]
        });
        let other = if fmt == Fmt::F16 { Fmt::Bf16 } else { Fmt::F16 };
        let body: String = modes.iter().enumerate().map(|(i, r)| format!("cvt.{r}.{}.{t} %d{i}, %s0;\n", other.suffix())).collect();
        run(Variant { body, srcs: vec!["b16"], dsts: vec!["b16"; 4] }, &all16, &move |a| {
            let x = fmt.to_f64(a[0] as u16);
            modes.iter().map(|r| href::finish(other, x, other.round(x, href::round_of(r)), false, false)).collect()
        });
    }
    // f32 → f16 `.sat`: clamped, then rounded once.
    let f32s = f32_inputs(32);
    run(Variant::inst("cvt.rn.sat.f16.f32", "b16", &["f32"]), &f32s, &|a| {
        let x = f32::from_bits(a[0] as u32) as f64;
        let y = if x.is_nan() || x <= 0.0 { 0.0 } else { x.min(1.0) };
        vec![Expect::Bits(Fmt::F16.round(y, rustc_apfloat::Round::NearestTiesToEven) as u64)]
    });
}

/// The bf16 arithmetic of a Triton-style kernel (`host/tests/data/triton_bf16_fma.ptx`: packed
/// `fma.rn{.relu}.bf16x2`, scalar fma with the 1.0 and −0.0 operands LLVM uses for bf16 add and
/// mul on sm_80, add/sub/mul scalar and packed, lanes moved between registers) run as one
/// chain under `split_int64` with simulated f32 flushing (a browser), both backends, against
/// the chain of `ptx_ref` results. Operands are bf16 of magnitude 2^-20 .. 2^20 (so nothing
/// overflows or underflows); rows where `.relu` meets a −0 (whose sign it leaves open) are left
/// out.
#[test]
fn triton_style_bf16_chain_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let body = "{
    .reg .b16 %rs<12>;
    .reg .b32 %r<16>;
    fma.rn.bf16x2 %r1, %s0, %s1, %s2;
    fma.rn.relu.bf16x2 %r2, %r1, %s1, %s2;
    mov.b32 {%rs1, %rs2}, %r2;
    mov.b16 %rs3, 0x3F80;
    fma.rn.bf16 %rs4, %rs1, %rs3, %rs2;
    mov.b16 %rs5, 0x8000;
    fma.rn.bf16 %rs6, %rs4, %rs2, %rs5;
    add.rn.bf16 %rs7, %rs6, %rs1;
    sub.rn.bf16 %rs8, %rs7, %rs2;
    mul.rn.bf16 %rs9, %rs8, %rs8;
    mov.b32 %r3, {%rs6, %rs9};
    add.rn.bf16x2 %r4, %r3, %r2;
    mul.rn.bf16x2 %r5, %r4, %r1;
    sub.rn.bf16x2 %d0, %r5, %s2;
    }";
    let v = Variant { body: body.into(), srcs: vec!["b32"; 3], dsts: vec!["b32"] };
    let bf = Fmt::Bf16;
    // One operation's result, or None where the spec leaves it open (NaN, relu of −0).
    let op = |name: &str, xs: &[u16], relu: bool| match href::arith(name, bf, xs, false, false, relu) {
        sweep::Expect::Bits(b) => Some(b as u16),
        _ => None,
    };
    let chain = move |s: [u32; 3]| -> Option<u32> {
        let lane = |w: u32, hi: bool| (if hi { w >> 16 } else { w }) as u16;
        let pair = |f: &dyn Fn(bool) -> Option<u16>| Some((f(true)? as u32) << 16 | f(false)? as u32);
        let r1 = pair(&|hi| op("fma", &[lane(s[0], hi), lane(s[1], hi), lane(s[2], hi)], false))?;
        let r2 = pair(&|hi| op("fma", &[lane(r1, hi), lane(s[1], hi), lane(s[2], hi)], true))?;
        let (rs1, rs2) = (lane(r2, false), lane(r2, true));
        let rs4 = op("fma", &[rs1, 0x3f80, rs2], false)?;
        let rs6 = op("fma", &[rs4, rs2, 0x8000], false)?;
        let rs7 = op("add", &[rs6, rs1], false)?;
        let rs8 = op("sub", &[rs7, rs2], false)?;
        let rs9 = op("mul", &[rs8, rs8], false)?;
        let r3 = (rs9 as u32) << 16 | rs6 as u32;
        let r4 = pair(&|hi| op("add", &[lane(r3, hi), lane(r2, hi)], false))?;
        let r5 = pair(&|hi| op("mul", &[lane(r4, hi), lane(r1, hi)], false))?;
        pair(&|hi| op("sub", &[lane(r5, hi), lane(s[2], hi)], false))
    };
    let mut rng = Rng(41);
    let mut bf16 = move || {
        let r = rng.next_u64();
        ((r & 0x8000) | ((127 - 20 + (r >> 16) % 41) << 7) | ((r >> 32) & 0x7f)) as u32
    };
    let mut inputs = Vec::new();
    while inputs.len() < SAMPLES * 3 {
        let s = [0; 3].map(|_| bf16() << 16 | bf16());
        if chain(s).is_some() {
            inputs.extend(s.map(|w| w as u64));
        }
    }
    let options = ptxcross_lower::LowerOptions { split_int64: true, simulate_flushed_f32: true, ..Default::default() };
    check_both(&Sweep::without_f64(&gpu, v, &options), &inputs, &move |a| {
        vec![sweep::Expect::Bits(chain([a[0] as u32, a[1] as u32, a[2] as u32]).expect("rows are filtered") as u64)]
    });
}

/// Half `fma` (every modifier) without 64-bit floats (`split_int64`) on many more operands:
/// 2^24 hard rows and 2^24 random triples per variant and backend.
///   cargo test -p ptxcross-tests --test half_sweep long_half_fma_without_f64 -- --ignored --nocapture
#[test]
#[ignore = "long: 2^25 triples per variant"]
fn long_half_fma_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let split = ptxcross_lower::LowerOptions { split_int64: true, ..Default::default() };
    for (name, op, fmt, ftz, sat, relu, arity) in arith_variants() {
        if op != "fma" {
            continue;
        }
        let s = Sweep::with_options(&gpu, Variant::inst(&name, "b16", &["b16"; 3]), split.clone()).unwrap();
        let reference = move |a: &[u64]| {
            let xs: Vec<u16> = a.iter().map(|&x| x as u16).collect();
            vec![href::arith(op, fmt, &xs, ftz, sat, relu)]
        };
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            for chunk in 0..32u64 {
                let mut inputs = fma_hard_rows(fmt, 1 << 19, 1000 + chunk);
                let mut rng = Rng(2000 + chunk);
                inputs.extend((0..(1 << 19) * arity).map(|_| rng.next_u64() & 0xffff));
                total.add(sweep::check(&s, b, &inputs, &reference));
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<24} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}

#[test]
#[ignore = "exhaustive: 2^32 inputs per variant"]
fn exhaustive_half_add_mul() {
    let Some(gpu) = sweep::gpu() else { return };
    for (name, op, fmt, ftz, sat, relu, arity) in arith_variants() {
        if arity != 2 {
            continue;
        }
        let s = Sweep::new(&gpu, Variant::inst(&name, "b16", &["b16", "b16"])).unwrap();
        let reference = move |a: &[u64]| vec![href::arith(op, fmt, &[a[0] as u16, a[1] as u16], ftz, sat, relu)];
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            for hi in (0..1u64 << 16).step_by(64) {
                let inputs: Vec<u64> = (hi..hi + 64).flat_map(|x| (0..1u64 << 16).flat_map(move |y| [x, y])).collect();
                total.add(sweep::check(&s, b, &inputs, &reference));
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<24} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}

#[test]
fn half_min_max_neg_abs() {
    let inputs = half_rows(2, 17, SAMPLES);
    for fmt in FMTS {
        for op in ["min", "max"] {
            for nan in [false, true] {
                let name = format!("{op}{}.{}", if nan { ".NaN" } else { "" }, fmt.suffix());
                sweep_one(Variant::inst(&name, "b16", &["b16", "b16"]), &inputs, &move |a| {
                    vec![href::min_max(op == "min", fmt, a[0] as u16, a[1] as u16, nan)]
                });
            }
        }
        let all: Vec<u64> = (0..1 << 16).collect();
        for op in ["neg", "abs"] {
            let name = format!("{op}.{}", fmt.suffix());
            sweep_one(Variant::inst(&name, "b16", &["b16"]), &all, &move |a| {
                vec![sweep::Expect::Bits(href::neg_abs(op == "neg", fmt, a[0] as u16) as u64)]
            });
        }
    }
}

/// f32 operands around every 8-bit value of both formats and every midpoint between
/// neighbours (the rounding ties; above MAX_NORM the overflow threshold), ±0 and one f32 ulp
/// around each, both signs; the f32 edge table; random values in and around the 8-bit range.
fn fp8_f32_inputs(seed: u64) -> Vec<u64> {
    let mut points = Vec::new();
    for f in [Fp8::E4m3, Fp8::E5m2] {
        for b in 0..=f.max_norm() {
            let v = f.to_f64(b);
            // Within a binade the spacing is constant: MAX_NORM's would-be successor is
            // 2·MAX_NORM − its predecessor.
            let next = if b == f.max_norm() { 2.0 * v - f.to_f64(b - 1) } else { f.to_f64(b + 1) };
            points.extend([v, (v + next) / 2.0]);
        }
    }
    let mut v: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    for p in points {
        let bits = (p as f32).to_bits();
        assert_eq!((p as f32) as f64, p, "8-bit values and their midpoints are exact in f32");
        for b in [bits, bits.wrapping_sub(1), bits + 1] {
            if b <= 0x7f80_0000 {
                v.extend([b as u64, (b | 0x8000_0000) as u64]);
            }
        }
    }
    let mut rng = Rng(seed);
    for i in 0..SAMPLES as u64 {
        let r = rng.next_u64();
        v.push(if i % 2 == 0 {
            r & 0xffff_ffff
        } else {
            let e = 127 - 20 + (r >> 40) % 40;
            (r & 0x8000_0000) | (e << 23) | ((r >> 8) & 0x7f_ffff)
        });
    }
    v
}

#[test]
fn cvt_fp8_from_f32_and_f16x2() {
    let one = fp8_f32_inputs(21);
    let mut rng = Rng(22);
    let pairs: Vec<u64> = one.iter().flat_map(|&a| [a, one[(rng.next_u64() % one.len() as u64) as usize]]).collect();
    // Every f16 in each lane: the high lane counts up, the low one runs through a permutation.
    let f16x2: Vec<u64> = (0..1u64 << 16).map(|i| i << 16 | (i * 0x9e37 + 0x1234) & 0xffff).collect();
    sweep::all_variants(|| {
        for f in [Fp8::E4m3, Fp8::E5m2] {
            for relu in [false, true] {
                let r = if relu { ".relu" } else { "" };
                let name = format!("cvt.rn.satfinite{r}.{}.f32", f.suffix());
                // d[15:8] = convert(a), d[7:0] = convert(b).
                sweep_one(Variant::inst(&name, "b16", &["f32", "f32"]), &pairs, &move |a| {
                    vec![fp8::pack8(fp8::f32_to_fp8(a[0] as u32, f, relu), fp8::f32_to_fp8(a[1] as u32, f, relu))]
                });
                let name = format!("cvt.rn.satfinite{r}.{}.f16x2", f.suffix());
                sweep_one(Variant::inst(&name, "b16", &["b32"]), &f16x2, &move |a| {
                    let (hi, lo) = ((a[0] >> 16) as u16, a[0] as u16);
                    vec![fp8::pack8(fp8::f16_to_fp8(hi, f, relu), fp8::f16_to_fp8(lo, f, relu))]
                });
            }
        }
    });
}

/// Every 16-bit input (every pair of 8-bit values).
#[test]
fn cvt_f16x2_from_fp8_exhaustive() {
    let inputs: Vec<u64> = (0..1 << 16).collect();
    for f in [Fp8::E4m3, Fp8::E5m2] {
        for relu in [false, true] {
            let name = format!("cvt.rn{}.f16x2.{}", if relu { ".relu" } else { "" }, f.suffix());
            sweep_one(Variant::inst(&name, "b32", &["b16"]), &inputs, &move |a| {
                // d[31:16] from a[15:8], d[15:0] from a[7:0].
                let (hi, lo) = (fp8::fp8_to_f16((a[0] >> 8) as u8, f, relu), fp8::fp8_to_f16(a[0] as u8, f, relu));
                vec![match (hi, lo) {
                    (sweep::Half16::Bits(h), sweep::Half16::Bits(l)) => sweep::Expect::Bits((h as u64) << 16 | l as u64),
                    (h, l) => sweep::Expect::Pair16(h, l),
                }]
            });
        }
    }
}

const TF32_VARIANTS: [(&str, Tf32Round, bool, bool); 8] = [
    ("cvt.rna.tf32.f32", Tf32Round::Rna, false, false),
    ("cvt.rna.satfinite.tf32.f32", Tf32Round::Rna, false, true),
    ("cvt.rn.tf32.f32", Tf32Round::Rn, false, false),
    ("cvt.rn.relu.tf32.f32", Tf32Round::Rn, true, false),
    ("cvt.rz.tf32.f32", Tf32Round::Rz, false, false),
    ("cvt.rz.relu.tf32.f32", Tf32Round::Rz, true, false),
    // .satfinite with .rn/.rz comes with later ISAs; its meaning is the same.
    ("cvt.rn.satfinite.tf32.f32", Tf32Round::Rn, false, true),
    ("cvt.rz.relu.satfinite.tf32.f32", Tf32Round::Rz, true, true),
];

#[test]
fn cvt_tf32_from_f32() {
    let mut inputs: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    let mut rng = Rng(23);
    // Every exponent (subnormals and the top binade included) with the 13 dropped bits at
    // zero, just below/at/above the tie, and all ones.
    for e in 0..255u64 {
        for low in [0u64, 1, 0xfff, 0x1000, 0x1001, 0x1fff] {
            let hi = rng.next_u64() & 0x7f_e000;
            let hi = if e % 3 == 0 { 0x7f_e000 } else { hi };
            let s = (rng.next_u64() & 1) << 31;
            inputs.push(s | e << 23 | hi | low);
        }
    }
    for _ in 0..SAMPLES {
        inputs.push(rng.next_u64() & 0xffff_ffff);
    }
    sweep::all_variants(|| {
        for (name, mode, relu, satfinite) in TF32_VARIANTS {
            sweep_one(Variant::inst(name, "b32", &["f32"]), &inputs, &move |a| {
                vec![fp8::cvt_tf32(a[0] as u32, mode, relu, satfinite)]
            });
        }
    });
}

#[test]
#[ignore = "exhaustive: 2^32 inputs per variant"]
fn exhaustive_cvt_tf32() {
    let Some(gpu) = sweep::gpu() else { return };
    for (name, mode, relu, satfinite) in TF32_VARIANTS {
        if let Ok(only) = std::env::var("PTXCROSS_SWEEP_VARIANT") {
            if !name.contains(&only) {
                continue;
            }
        }
        let s = Sweep::new(&gpu, Variant::inst(name, "b32", &["f32"])).unwrap();
        let reference = move |a: &[u64]| vec![fp8::cvt_tf32(a[0] as u32, mode, relu, satfinite)];
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            for start in (0..1u64 << 32).step_by(1 << 22) {
                let inputs: Vec<u64> = (start..start + (1 << 22)).collect();
                total.add(sweep::check(&s, b, &inputs, &reference));
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<32} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}

const CMPS: [&str; 14] = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

/// Packed operand pairs whose lanes run through every pair of the half edge table (in the
/// low lanes of some rows and the high lanes of others), then random bits.
fn packed_pairs(seed: u64) -> Vec<u64> {
    let h = half_rows(2, seed, SAMPLES);
    let n = h.len() / 2;
    let mut v = Vec::new();
    for i in 0..n {
        let j = (i + 1) % n;
        v.extend([h[2 * i] | h[2 * j] << 16, h[2 * i + 1] | h[2 * j + 1] << 16]);
    }
    v
}

/// Rows of two packed operands and a predicate (0 or 1).
fn with_pred(pairs: &[u64], seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    pairs.chunks(2).flat_map(|p| [p[0], p[1], rng.next_u64() & 1]).collect()
}

fn lane(x: u64, i: u32) -> u16 {
    (x >> (16 * i)) as u16
}

#[test]
fn setp_set_packed_halves() {
    let pairs = packed_pairs(24);
    let triples = with_pred(&pairs, 25);
    sweep::all_variants(|| {
        for (fmt, t) in [(Fmt::F16, "f16x2"), (Fmt::Bf16, "bf16x2")] {
            let ftzs: &[bool] = if fmt == Fmt::F16 { &[false, true] } else { &[false] };
            for &ftz in ftzs {
                // Every comparison in one launch: p|q = (low lanes', high lanes') results.
                let f = if ftz { ".ftz" } else { "" };
                let body: String =
                    CMPS.iter().enumerate().map(|(i, c)| format!("setp.{c}{f}.{t} %d{}|%d{}, %s0, %s1;\n", 2 * i, 2 * i + 1)).collect();
                let v = Variant { body, srcs: vec!["b32", "b32"], dsts: vec!["pred"; 28] };
                sweep_one(v, &pairs, &move |a| {
                    CMPS.iter()
                        .flat_map(|c| (0..2).map(move |l| href_cmp(c, fmt, lane(a[0], l), lane(a[1], l), ftz)))
                        .collect()
                });
            }
            // BoolOp with c and !c: each lane's result combined with the same predicate.
            let f = if fmt == Fmt::F16 { ".ftz" } else { "" };
            let body = format!(
                "setp.lt.and.{t} %d0|%d1, %s0, %s1, %s2;\nsetp.gtu.or{f}.{t} %d2|%d3, %s0, %s1, !%s2;\n\
                 setp.nan.xor.{t} %d4|%d5, %s0, %s1, %s2;\n"
            );
            let ftz = fmt == Fmt::F16;
            sweep_one(Variant { body, srcs: vec!["b32", "b32", "pred"], dsts: vec!["pred"; 6] }, &triples, &move |a| {
                let c = a[2] != 0;
                let mut out = Vec::new();
                for l in 0..2 {
                    out.push(hbool(fref_cmp("lt", fmt, lane(a[0], l), lane(a[1], l), false) && c));
                }
                for l in 0..2 {
                    out.push(hbool(fref_cmp("gtu", fmt, lane(a[0], l), lane(a[1], l), ftz) || !c));
                }
                for l in 0..2 {
                    out.push(hbool(fref_cmp("nan", fmt, lane(a[0], l), lane(a[1], l), false) ^ c));
                }
                out
            });
            // set: 0xffff lanes for .u32/.s32, 1.0 lanes for the packed dtype.
            let one = if fmt == Fmt::F16 { 0x3c00u64 } else { 0x3f80 };
            for (dt, truth) in [("u32", 0xffffu64), ("s32", 0xffff), (t, one)] {
                let body: String = CMPS.iter().enumerate().map(|(i, c)| format!("set.{c}.{dt}.{t} %d{i}, %s0, %s1;\n")).collect();
                sweep_one(Variant { body, srcs: vec!["b32", "b32"], dsts: vec!["b32"; 14] }, &pairs, &move |a| {
                    CMPS.iter()
                        .map(|c| {
                            let r = |l| if fref_cmp(c, fmt, lane(a[0], l), lane(a[1], l), false) { truth } else { 0 };
                            sweep::Expect::Bits(r(1) << 16 | r(0))
                        })
                        .collect()
                });
            }
            let body = format!("set.le.or.{t}.{t} %d0, %s0, %s1, !%s2;\nset.neu.xor.u32.{t} %d1, %s0, %s1, %s2;\n");
            sweep_one(Variant { body, srcs: vec!["b32", "b32", "pred"], dsts: vec!["b32"; 2] }, &triples, &move |a| {
                let c = a[2] != 0;
                let d = |cmp: &str, truth: u64, comb: &dyn Fn(bool) -> bool| {
                    let r = |l| if comb(fref_cmp(cmp, fmt, lane(a[0], l), lane(a[1], l), false)) { truth } else { 0 };
                    sweep::Expect::Bits(r(1) << 16 | r(0))
                };
                vec![d("le", one, &|x| x || !c), d("neu", 0xffff, &|x| x ^ c)]
            });
        }
    });
}

/// Scalar half comparisons (on integers since packed comparisons came): every comparison of
/// `setp` on f16 (± .ftz) and bf16, and `set` with half, 16-bit and 32-bit destinations.
#[test]
fn setp_set_scalar_halves() {
    let pairs = half_rows(2, 26, SAMPLES);
    let triples = with_pred(&pairs, 27);
    sweep::all_variants(|| {
        for (fmt, ftz) in [(Fmt::F16, false), (Fmt::F16, true), (Fmt::Bf16, false)] {
            let (t, f) = (fmt.suffix(), if ftz { ".ftz" } else { "" });
            let body: String = CMPS.iter().enumerate().map(|(i, c)| format!("setp.{c}{f}.{t} %d{i}, %s0, %s1;\n")).collect();
            sweep_one(Variant { body, srcs: vec!["b16", "b16"], dsts: vec!["pred"; 14] }, &pairs, &move |a| {
                CMPS.iter().map(|c| href_cmp(c, fmt, a[0] as u16, a[1] as u16, ftz)).collect()
            });
        }
        // §9.7.8.1's examples and their destinations: 1.0 in f16/bf16, 0xffff, 0xffffffff.
        let body = "set.lt.and.f16.f16 %d0, %s0, %s1, %s2;\nset.ltu.or.bf16.f16 %d1, %s0, %s1, %s2;\n\
                    set.lt.and.u16.f16 %d2, %s0, %s1, %s2;\nset.num.xor.s32.bf16 %d3, %s0, %s1, %s2;\n\
                    set.ge.ftz.u32.f16 %d4, %s0, %s1;\nset.neu.bf16.bf16 %d5, %s0, %s1;\n"
            .to_string();
        let v = Variant { body, srcs: vec!["b16", "b16", "pred"], dsts: vec!["b16", "b16", "b16", "b32", "b32", "b16"] };
        sweep_one(v, &triples, &move |a| {
            let c = a[2] != 0;
            let (x, y) = (a[0] as u16, a[1] as u16);
            let f16 = |cmp, ftz| fref_cmp(cmp, Fmt::F16, x, y, ftz);
            let bf = |cmp| fref_cmp(cmp, Fmt::Bf16, x, y, false);
            let b = |v: bool, t: u64| sweep::Expect::Bits(if v { t } else { 0 });
            vec![
                b(f16("lt", false) && c, 0x3c00),
                b(f16("ltu", false) || c, 0x3f80),
                b(f16("lt", false) && c, 0xffff),
                b(bf("num") ^ c, 0xffff_ffff),
                b(f16("ge", true), 0xffff_ffff),
                b(bf("neu"), 0x3f80),
            ]
        });
        // A half destination from an f32 comparison.
        let f2: Vec<u64> = {
            let mut rng = Rng(28);
            rows(2, &F32_EDGES.iter().map(|&x| x as u64).collect::<Vec<_>>(), 1 << 12, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
        };
        sweep_one(Variant::inst("set.gtu.f16.f32", "b16", &["f32", "f32"]), &f2, &move |a| {
            let (x, y) = (f32::from_bits(a[0] as u32) as f64, f32::from_bits(a[1] as u32) as f64);
            vec![sweep::Expect::Bits(if ptxcross_tests::ptx_ref::float::compare("gtu", x, y) { 0x3c00 } else { 0 })]
        });
    });
}

fn fref_cmp(cmp: &str, fmt: Fmt, a: u16, b: u16, ftz: bool) -> bool {
    fp8::half_compare(cmp, fmt, a, b, ftz)
}

fn href_cmp(cmp: &str, fmt: Fmt, a: u16, b: u16, ftz: bool) -> sweep::Expect {
    hbool(fref_cmp(cmp, fmt, a, b, ftz))
}

fn hbool(v: bool) -> sweep::Expect {
    sweep::Expect::Bits(v as u64)
}

/// nvcc's FP8 quantization (cuda_fp8.h's inline PTX: `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`,
/// `cvt.rn.f16x2.{e4m3x2,e5m2x2}`, `cvt.rna.tf32.f32`, `set.lt.f16x2.f16x2`,
/// `set.le.u32.f16x2`) as one kernel, `tests/fp8/src/fp8_roundtrip.cu` (regenerate with
/// `tests/fp8/regen.sh`), on both backends against the CUDA source's meaning computed with
/// `ptx_ref::fp8`. A partial last block; outputs start with a sentinel that must survive
/// past the end.
#[test]
fn nvcc_fp8_kernel() {
    use ptxcross_tests::launch::{self, Launch};
    let Some(gpu) = sweep::gpu() else { return };
    let ptx = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fp8/ptx/fp8_roundtrip.sm90.ptx")).unwrap();
    let singles = fp8_f32_inputs(29);
    let n = singles.len() / 2;
    let input: Vec<u8> = singles[..2 * n].iter().flat_map(|&x| (x as u32).to_le_bytes()).collect();
    let sentinel = |elems: usize, size: usize| vec![0xde; (elems + 2) * size];
    let buffers = vec![
        input,
        sentinel(n, 2),
        sentinel(n, 2),
        sentinel(n, 4),
        sentinel(n, 4),
        sentinel(n, 4),
        sentinel(n, 4),
        (n as u32).to_le_bytes().to_vec(),
    ];
    let block = 256;
    let grid = (n as u32).div_ceil(block);
    assert!(!(n as u32).is_multiple_of(block), "the last block is partial");
    let l = Launch { ptx: &ptx, kernel: "fp8_roundtrip", block: [block, 1, 1], grid: [grid, 1, 1], buffers };
    for backend in ptxcross::Backend::ALL {
        let out = launch::run(&gpu, &l, backend).unwrap_or_else(|e| panic!("{e}"));
        let h16 = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]) as u64;
        let w32 = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) as u64;
        let mut bad = Vec::new();
        let mut check = |what: &str, i: usize, want: sweep::Expect, got: u64, bits: u32| {
            if !want.holds(got, bits) && bad.len() < 10 {
                bad.push(format!("{backend} {what}[{i}] (x {:#x}, y {:#x}): {got:#x}, expected {want:x?}", singles[2 * i], singles[2 * i + 1]));
            }
        };
        for i in 0..n {
            let (x, y) = (singles[2 * i] as u32, singles[2 * i + 1] as u32);
            let f16x2 = |q: u64, f: Fp8| {
                let (hi, lo) = (fp8::fp8_to_f16((q >> 8) as u8, f, false), fp8::fp8_to_f16(q as u8, f, false));
                match (hi, lo) {
                    (sweep::Half16::Bits(h), sweep::Half16::Bits(l)) => sweep::Expect::Bits((h as u64) << 16 | l as u64),
                    (h, l) => sweep::Expect::Pair16(h, l),
                }
            };
            for (k, f) in [(1, Fp8::E4m3), (2, Fp8::E5m2)] {
                // x to the low byte, y to the high one (cuda_fp8.h).
                let q = h16(&out[k], i);
                check("q", i, fp8::pack8(fp8::f32_to_fp8(y, f, false), fp8::f32_to_fp8(x, f, false)), q, 16);
                // The round trip from the 8 bits the device gave (checked just above).
                check("back", i, f16x2(q, f), w32(&out[k + 2], i), 32);
            }
            check("tf", i, fp8::cvt_tf32(x, Tf32Round::Rna, false, false), w32(&out[5], i), 32);
            let (b4, b5) = (w32(&out[3], i), w32(&out[4], i));
            let lane = |v: u64, l: u32| (v >> (16 * l)) as u16;
            let lt = |l| fp8::half_compare("lt", Fmt::F16, lane(b4, l), lane(b5, l), false);
            let le = |l| fp8::half_compare("le", Fmt::F16, lane(b4, l), lane(b5, l), false);
            let want = (if lt(1) { 0x3c00u64 << 16 } else { 0 } | if lt(0) { 0x3c00 } else { 0 }) ^ if le(0) && le(1) { 1 << 31 } else { 0 };
            check("cmp", i, sweep::Expect::Bits(want), w32(&out[6], i), 32);
        }
        for (k, size) in [(1, 2), (2, 2), (3, 4), (4, 4), (5, 4), (6, 4)] {
            assert!(out[k][n * size..].iter().all(|&b| b == 0xde), "{backend}: buffer {k} written past the end");
        }
        assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
        eprintln!("{backend:>5} fp8_roundtrip: {n} threads, 6 outputs each match");
    }
}

/// Every pair of 16-bit operands (2^32 inputs) of the two-operand 16-bit variants the CI sweeps
/// only sample: f16/bf16 `min/max` (± `.NaN`), `setp` on f16 (± `.ftz`) and bf16 (14
/// comparisons per launch), and `.u16/.s16` `add/sub/mul.lo/mul.hi/mul.wide/min/max` with the
/// six orderings (one launch per type; `div/rem` stay sampled: x/0 is unspecified, §9.7.1.8).
/// 1,024 launches of 2^22 pairs per variant and backend; `PTXCROSS_SWEEP_VARIANT=<text>`
/// selects variants by name, `PTXCROSS_SWEEP_CHUNKS=<k>` runs k evenly spaced launches only:
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test half_sweep exhaustive_binary_16
///     -- --ignored --nocapture
#[test]
#[ignore = "exhaustive: 2^32 inputs per variant"]
fn exhaustive_binary_16() {
    type Ref = Box<dyn Fn(&[u64]) -> Vec<sweep::Expect> + Sync>;
    let Some(gpu) = sweep::gpu() else { return };
    let mut variants: Vec<(String, Variant, Ref)> = Vec::new();
    for fmt in FMTS {
        for op in ["min", "max"] {
            for nan in [false, true] {
                let name = format!("{op}{}.{}", if nan { ".NaN" } else { "" }, fmt.suffix());
                let v = Variant::inst(&name, "b16", &["b16", "b16"]);
                variants.push((name, v, Box::new(move |a| vec![href::min_max(op == "min", fmt, a[0] as u16, a[1] as u16, nan)])));
            }
        }
    }
    for (fmt, ftz) in [(Fmt::F16, false), (Fmt::F16, true), (Fmt::Bf16, false)] {
        let (t, f) = (fmt.suffix(), if ftz { ".ftz" } else { "" });
        let body: String = CMPS.iter().enumerate().map(|(i, c)| format!("setp.{c}{f}.{t} %d{i}, %s0, %s1;\n")).collect();
        let v = Variant { body, srcs: vec!["b16", "b16"], dsts: vec!["pred"; 14] };
        variants.push((format!("setp{f}.{t}"), v, Box::new(move |a| CMPS.iter().map(|c| href_cmp(c, fmt, a[0] as u16, a[1] as u16, ftz)).collect())));
    }
    for (t, signed) in [("u16", false), ("s16", true)] {
        let w = if signed { "s32" } else { "u32" };
        let body = format!(
            "add.{t} %d0, %s0, %s1;\nsub.{t} %d1, %s0, %s1;\nmul.lo.{t} %d2, %s0, %s1;\nmul.hi.{t} %d3, %s0, %s1;\n\
             min.{t} %d4, %s0, %s1;\nmax.{t} %d5, %s0, %s1;\nmul.wide.{t} %d6, %s0, %s1;\n\
             setp.lt.{t} %d7, %s0, %s1;\nsetp.le.{t} %d8, %s0, %s1;\nsetp.gt.{t} %d9, %s0, %s1;\n\
             setp.ge.{t} %d10, %s0, %s1;\nsetp.eq.{t} %d11, %s0, %s1;\nsetp.ne.{t} %d12, %s0, %s1;\n"
        );
        let mut dsts = vec![t; 6];
        dsts.push(w);
        dsts.extend(["pred"; 6]);
        let v = Variant { body, srcs: vec![t, t], dsts };
        variants.push((format!("integer.{t}"), v, Box::new(move |a| {
            let val = |x: u64| if signed { x as u16 as i16 as i64 } else { x as u16 as i64 };
            let (x, y) = (val(a[0]), val(a[1]));
            let h = |v: i64| sweep::Expect::Bits(v as u64 & 0xffff);
            let p = x * y;
            let mut e = vec![h(x + y), h(x - y), h(p), h(p >> 16), h(x.min(y)), h(x.max(y)), sweep::Expect::Bits(p as u64 & 0xffff_ffff)];
            e.extend([x < y, x <= y, x > y, x >= y, x == y, x != y].map(hbool));
            e
        })));
    }
    let only = std::env::var("PTXCROSS_SWEEP_VARIANT").unwrap_or_default();
    const CHUNKS: u64 = 1024;
    let k: u64 = std::env::var("PTXCROSS_SWEEP_CHUNKS").ok().and_then(|n| n.parse().ok()).unwrap_or(CHUNKS).clamp(1, CHUNKS);
    for (name, v, reference) in variants.into_iter().filter(|v| v.0.contains(&only)) {
        let s = Sweep::new(&gpu, v).unwrap_or_else(|e| panic!("`{name}` does not translate: {e}"));
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            for i in 0..k {
                // Launch i: first operands 64·i' .. 64·i' + 63 (i' spread over the 1,024), every
                // second operand.
                let hi = (i * CHUNKS / k) * 64;
                let inputs: Vec<u64> = (hi..hi + 64).flat_map(|x| (0..1u64 << 16).flat_map(move |y| [x, y])).collect();
                total.add(sweep::check(&s, b, &inputs, &*reference));
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<24} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}
