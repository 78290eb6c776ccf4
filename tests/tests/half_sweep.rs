//! Half-precision sweeps (f16, bf16, packed x2) against `ptx_ref::half` on both backends, one
//! launch per variant. One-operand 16-bit variants run all 65,536 inputs in CI; wider inputs
//! run an edge table plus a sampled slice. Exhaustive two-operand sweeps (2^32 inputs):
//!   cargo test -p ptxcross-tests --test half_sweep -- --ignored --nocapture

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
        let inputs = half_rows(arity, 15, SAMPLES);
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
