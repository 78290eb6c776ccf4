//! Instruction sweeps against the spec reference (`ptxcross_tests::ptx_ref`): each variant runs
//! as ONE launch over many threads on both backends, with an edge-case table (±0, ±inf, NaN
//! payloads, subnormals, integer extremes, carries) and a sampled slice of random inputs.
//!
//! The exhaustive sweeps (every 32-bit input) are ignored by default:
//!   cargo test --release -p ptxcross-tests --test inst_sweep -- --ignored --nocapture
//! Each prints values checked per second per backend.

use ptxcross_tests::ptx_ref::float::{self as fref, IntRound};
use ptxcross_tests::ptx_ref::int as iref;
use ptxcross_tests::sweep::{self, check_both, rows, Expect, Reference, Rng, Sweep, Variant, F32_EDGES, U32_EDGES, U64_EDGES};

/// Random operands per variant in CI (on top of the edge table).
const SAMPLES: usize = 1 << 12;

fn f32_edges() -> Vec<u64> {
    F32_EDGES.iter().map(|&x| x as u64).collect()
}

/// Runs `variant` over `inputs` on both backends against `reference`; prints throughput.
fn sweep_one(variant: Variant, inputs: &[u64], reference: Reference) {
    let Some(gpu) = sweep::gpu() else { return };
    let body = variant.body.clone();
    let s = Sweep::new(&gpu, variant).unwrap_or_else(|e| panic!("`{body}` does not translate: {e}"));
    for (b, r) in ptxcross::Backend::ALL.iter().zip(check_both(&s, inputs, reference)) {
        eprintln!("{b:>5} {body:<48} {:>8} values {:>10.0}/s", r.checked, r.per_second());
    }
}

fn f32_rows(arity: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    rows(arity, &f32_edges(), 1 << 16, SAMPLES, &mut || rng.next() & 0xffff_ffff)
}

fn cvt_f32_f32_variants() -> Vec<(String, Option<IntRound>, bool, bool)> {
    let mut v = Vec::new();
    for round in [None, Some(IntRound::Rni), Some(IntRound::Rzi), Some(IntRound::Rmi), Some(IntRound::Rpi)] {
        for ftz in [false, true] {
            for sat in [false, true] {
                if round.is_none() && !ftz && !sat {
                    continue;
                }
                let mut name = "cvt".to_string();
                if let Some(r) = round {
                    name += &format!(".{}", r.suffix());
                }
                if ftz {
                    name += ".ftz";
                }
                if sat {
                    name += ".sat";
                }
                name += ".f32.f32";
                v.push((name, round, ftz, sat));
            }
        }
    }
    v
}

#[test]
fn cvt_f32_f32_integer_rounding_ftz_sat() {
    let inputs = f32_rows(1, 1);
    for (name, round, ftz, sat) in cvt_f32_f32_variants() {
        sweep_one(Variant::inst(&name, "f32", &["f32"]), &inputs, &|a| {
            vec![fref::cvt_f32_f32(a[0] as u32, round, ftz, sat)]
        });
    }
}

#[test]
#[ignore = "exhaustive: 2^32 inputs per variant (see the file's doc comment)"]
fn exhaustive_cvt_f32_f32() {
    let Some(gpu) = sweep::gpu() else { return };
    for (name, round, ftz, sat) in cvt_f32_f32_variants() {
        let s = Sweep::new(&gpu, Variant::inst(&name, "f32", &["f32"])).unwrap();
        let reference = |a: &[u64]| vec![fref::cvt_f32_f32(a[0] as u32, round, ftz, sat)];
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            let step = 1u64 << 22;
            let mut start = 0u64;
            while start < 1 << 32 {
                let inputs: Vec<u64> = (start..start + step).collect();
                total.add(sweep::check(&s, b, &inputs, &reference));
                start += step;
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<32} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}

/// add/sub/mul with `.rn`, `.ftz`, `.sat` (§9.7.3.1–3) and fma.rn (§9.7.3.5).
#[test]
fn f32_add_sub_mul_fma_ftz_sat() {
    let inputs2 = f32_rows(2, 2);
    let inputs3 = {
        let mut rng = Rng(3);
        rows(3, &f32_edges(), 1 << 15, SAMPLES, &mut || rng.next() & 0xffff_ffff)
    };
    for op in ["add", "sub", "mul", "fma"] {
        for ftz in [false, true] {
            for sat in [false, true] {
                let name = format!("{op}.rn{}{}.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
                let reference = move |a: &[u64]| {
                    let f = |i: usize| {
                        let x = f32::from_bits(a[i] as u32);
                        if ftz {
                            fref::ftz(x)
                        } else {
                            x
                        }
                    };
                    let mut r = match op {
                        "add" => f(0) + f(1),
                        "sub" => f(0) - f(1),
                        "mul" => f(0) * f(1),
                        _ => f(0).mul_add(f(1), f(2)),
                    };
                    if ftz {
                        r = fref::ftz(r);
                    }
                    if sat {
                        r = fref::sat_f32(r);
                    }
                    vec![fref::exact_f32(r)]
                };
                let (srcs, inputs): (&[&str], _) =
                    if op == "fma" { (&["f32", "f32", "f32"], &inputs3) } else { (&["f32", "f32"], &inputs2) };
                sweep_one(Variant::inst(&name, "f32", srcs), inputs, &reference);
            }
        }
    }
}

/// cvt.f64.f32 with `.ftz`/`.sat` (§9.7.9.21: `.ftz` applies to the f32 input, `.sat` clamps
/// the f64 result to [+0.0, 1.0]).
#[test]
fn cvt_f64_f32_ftz_sat() {
    let inputs = f32_rows(1, 4);
    for ftz in [false, true] {
        for sat in [false, true] {
            let name = format!("cvt{}{}.f64.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
            sweep_one(Variant::inst(&name, "f64", &["f32"]), &inputs, &move |a| {
                let x = f32::from_bits(a[0] as u32);
                let x = if ftz { fref::ftz(x) } else { x } as f64;
                vec![fref::exact_f64(if sat { fref::sat_f64(x) } else { x })]
            });
        }
    }
}

/// div.approx / div.full (§9.7.3.8), with and without `.ftz`.
#[test]
fn f32_div_approx_full() {
    let inputs = f32_rows(2, 5);
    for mode in ["approx", "full"] {
        for ftz in ["", ".ftz"] {
            let name = format!("div.{mode}{ftz}.f32");
            sweep_one(Variant::inst(&name, "f32", &["f32", "f32"]), &inputs, &move |a| {
                if mode == "approx" {
                    fref::div_approx_f32(a[0] as u32, a[1] as u32)
                } else {
                    fref::div_full_f32(a[0] as u32, a[1] as u32)
                }
            });
        }
    }
}

/// bfe / bfi for every type, positions and lengths across 0..512 (§9.7.1.19/20: only their
/// low 8 bits count; bits past the width read as the sign bit or 0).
#[test]
fn bfe_bfi_all_widths_and_positions() {
    let mut rng = Rng(6);
    let small: Vec<u64> = (0..70).chain([127, 128, 200, 255, 256, 257, 291, 303, 319, 320, 511]).collect();
    for (ty, bits) in [("u32", 32u32), ("s32", 32), ("u64", 64), ("s64", 64)] {
        let edges: Vec<u64> = if bits == 32 { U32_EDGES.iter().map(|&x| x as u64).collect() } else { U64_EDGES.to_vec() };
        let mut inputs = Vec::new();
        for (i, &a) in edges.iter().enumerate() {
            for &p in &small {
                for &l in small.iter().skip(i % 3).step_by(3) {
                    inputs.extend([a, p, l]);
                }
            }
        }
        for _ in 0..SAMPLES {
            inputs.extend([rng.next(), rng.next() & 0x1ff, rng.next() & 0x1ff]);
        }
        let signed = ty.starts_with('s');
        sweep_one(Variant::inst(&format!("bfe.{ty}"), ty, &[ty, "u32", "u32"]), &inputs, &move |a| {
            vec![Expect::Bits(iref::bfe(bits, signed, a[0], a[1] & 0xffff_ffff, a[2] & 0xffff_ffff))]
        });
    }
    for (ty, bits) in [("b32", 32u32), ("b64", 64)] {
        let mut inputs = Vec::new();
        for &p in &small {
            for &l in &small {
                inputs.extend([rng.next(), rng.next(), p, l]);
            }
        }
        for _ in 0..SAMPLES {
            inputs.extend([rng.next(), rng.next(), rng.next() & 0x1ff, rng.next() & 0x1ff]);
        }
        sweep_one(Variant::inst(&format!("bfi.{ty}"), ty, &[ty, ty, "u32", "u32"]), &inputs, &move |a| {
            vec![Expect::Bits(iref::bfi(bits, a[0], a[1], a[2] & 0xffff_ffff, a[3] & 0xffff_ffff))]
        });
    }
}

/// bfe/bfi with immediate positions and lengths beyond the width (constant operands take the
/// lowering's folding path).
#[test]
fn bfe_bfi_immediate_positions() {
    let mut rng = Rng(7);
    let inputs: Vec<u64> = (0..64).flat_map(|_| [rng.next(), rng.next()]).chain(U64_EDGES.iter().flat_map(|&x| [x, !x])).collect();
    for (ty, bits) in [("u64", 64u32), ("s64", 64), ("u32", 32), ("s32", 32)] {
        for (p, l) in [(303u64, 291u64), (47, 35), (60, 10), (0, 300), (64, 1), (255, 255), (31, 2), (5, 0)] {
            let signed = ty.starts_with('s');
            let v = Variant { body: format!("bfe.{ty} %d0, %s0, {p}, {l};"), srcs: vec![ty, ty], dsts: vec![ty] };
            sweep_one(v, &inputs, &move |a| vec![Expect::Bits(iref::bfe(bits, signed, a[0], p, l))]);
            let bty = if bits == 32 { "b32" } else { "b64" };
            let v = Variant { body: format!("bfi.{bty} %d0, %s0, %s1, {p}, {l};"), srcs: vec![bty, bty], dsts: vec![bty] };
            sweep_one(v, &inputs, &move |a| vec![Expect::Bits(iref::bfi(bits, a[0], a[1], p, l))]);
        }
    }
}
