//! Instruction sweeps against the spec reference (`ptxcross_tests::ptx_ref`): each variant runs
//! as ONE launch over many threads on both backends, with an edge-case table (±0, ±inf, NaN
//! payloads, subnormals, integer extremes, carries) and a sampled slice of random inputs.
//!
//! The exhaustive sweeps (every 32-bit input) are ignored by default:
//!   cargo test -p ptxcross-tests --test inst_sweep -- --ignored --nocapture
//! Each prints values checked per second per backend. `PTXCROSS_SWEEP_VARIANT=cvt.rni.sat.f32.f32`
//! restricts them to the variants whose name contains that text.

use ptxcross_tests::ptx_ref::float::{self as fref, IntRound};
use ptxcross_tests::ptx_ref::int as iref;
use ptxcross_lower::LowerOptions;
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

/// [`sweep_one`] translated with `options`.
fn sweep_one_with(variant: Variant, inputs: &[u64], reference: Reference, options: LowerOptions) {
    let Some(gpu) = sweep::gpu() else { return };
    let body = variant.body.clone();
    let s = Sweep::with_options(&gpu, variant, options).unwrap_or_else(|e| panic!("`{body}` does not translate: {e}"));
    for (b, r) in ptxcross::Backend::ALL.iter().zip(check_both(&s, inputs, reference)) {
        eprintln!("{b:>5} {body:<48} {:>8} values {:>10.0}/s", r.checked, r.per_second());
    }
}

/// The two targets without 64-bit floats: `no_float64` (Vulkan without shaderFloat64) and
/// `split_int64` (WebGPU: no 64-bit integers either), with `gpu`'s f32 flushing.
fn without_f64_options(gpu: &std::sync::Arc<ptxcross::Gpu>) -> [LowerOptions; 2] {
    let flushed_f32 = ptxcross::Backend::ALL.iter().any(|&b| gpu.flushes_f32(b));
    [
        LowerOptions { no_float64: true, flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) },
        LowerOptions { split_int64: true, flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) },
    ]
}

/// [`sweep_one`] under `options` (one of [`without_f64_options`]): [`Sweep::without_f64`].
fn sweep_without_f64(variant: Variant, inputs: &[u64], reference: Reference, options: &LowerOptions) {
    let Some(gpu) = sweep::gpu() else { return };
    let body = variant.body.clone();
    let s = Sweep::without_f64(&gpu, variant, options);
    for (b, r) in ptxcross::Backend::ALL.iter().zip(check_both(&s, inputs, reference)) {
        eprintln!("{b:>5} {body:<48} {:>8} values {:>10.0}/s", r.checked, r.per_second());
    }
}

fn f32_rows(arity: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    rows(arity, &f32_edges(), 1 << 16, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
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
    let only = std::env::var("PTXCROSS_SWEEP_VARIANT").unwrap_or_default();
    for (name, round, ftz, sat) in cvt_f32_f32_variants().into_iter().filter(|v| v.0.contains(&only)) {
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
        rows(3, &f32_edges(), 1 << 15, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
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
                    if ftz && op == "mul" && fref::mul_ftz_tiny(f(0) as f64 * f(1) as f64, fref::F32_MIN_NORMAL as f64) {
                        r = f32::from_bits(r.to_bits() & 0x8000_0000);
                    }
                    if ftz && op == "fma" && fref::fma_ftz_tiny(&[f(0), f(1), f(2)]) {
                        r = f32::from_bits(r.to_bits() & 0x8000_0000);
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

/// `.target sm_1x`: single-precision instructions flush subnormal inputs and results as their
/// `.ftz` forms do (§9.7.3, §9.7.6 set/setp, §9.7.9.21 cvt), and `mad.f32` without a rounding
/// modifier is `fma.rn.ftz.f32` (§9.7.3.7: what sm_20 and later GPUs run for it). For sm_20 and
/// later, `mad.f32` without one is `mad.rn.f32` up to PTX ISA 3.1 (no flushing). Each variant is
/// written without `.ftz`; the reference is the `.ftz` rule.
#[test]
fn sm_1x_targets_flush_single_precision() {
    use rustc_apfloat::Round::NearestTiesToEven as Rn;
    let Some(gpu) = sweep::gpu() else { return };
    let run = |inst: &str, dst: &'static str, srcs: &[&'static str], version: &str, target: &str, inputs: &[u64], reference: Reference| {
        let s = Sweep::for_target(&gpu, Variant::inst(inst, dst, srcs), version, target).unwrap_or_else(|e| panic!("`{inst}` on {target}: {e}"));
        check_both(&s, inputs, reference);
    };
    let (one, two, three) = (f32_rows(1, 40), f32_rows(2, 41), {
        let mut rng = Rng(42);
        rows(3, &f32_edges(), 1 << 15, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
    });
    for op in ["add", "sub", "mul"] {
        run(&format!("{op}.f32"), "f32", &["f32", "f32"], "2.3", "sm_13", &two, &move |a| vec![fref::arith_f32(op, Rn, a, true, false)]);
    }
    run("mad.f32", "f32", &["f32", "f32", "f32"], "2.3", "sm_13", &three, &|a| vec![fref::arith_f32("fma", Rn, a, true, false)]);
    run("mad.f32", "f32", &["f32", "f32", "f32"], "3.1", "sm_20", &three, &|a| vec![fref::arith_f32("fma", Rn, a, false, false)]);
    for is_min in [true, false] {
        let inst = if is_min { "min.f32" } else { "max.f32" };
        run(inst, "f32", &["f32", "f32"], "2.3", "sm_13", &two, &move |a| vec![fref::min_max(is_min, 32, a[0], a[1], false, false, true)]);
    }
    let flushed = |x: u64| fref::ftz(f32::from_bits(x as u32)) as f64;
    run("setp.lt.f32", "pred", &["f32", "f32"], "2.3", "sm_13", &two, &move |a| {
        vec![Expect::Bits(fref::compare("lt", flushed(a[0]), flushed(a[1])) as u64)]
    });
    run("cvt.rmi.f32.f32", "f32", &["f32"], "2.3", "sm_13", &one, &|a| vec![fref::cvt_f32_f32(a[0] as u32, Some(IntRound::Rmi), true, false)]);
    run("cvt.f64.f32", "f64", &["f32"], "2.3", "sm_13", &one, &move |a| vec![fref::exact_f64(flushed(a[0]))]);
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
                    fref::div_approx_f32(a[0] as u32, a[1] as u32, !ftz.is_empty())
                } else {
                    fref::div_full_f32(a[0] as u32, a[1] as u32, !ftz.is_empty())
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
            inputs.extend([rng.next_u64(), rng.next_u64() & 0x1ff, rng.next_u64() & 0x1ff]);
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
                inputs.extend([rng.next_u64(), rng.next_u64(), p, l]);
            }
        }
        for _ in 0..SAMPLES {
            inputs.extend([rng.next_u64(), rng.next_u64(), rng.next_u64() & 0x1ff, rng.next_u64() & 0x1ff]);
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
    let inputs: Vec<u64> = (0..64).flat_map(|_| [rng.next_u64(), rng.next_u64()]).chain(U64_EDGES.iter().flat_map(|&x| [x, !x])).collect();
    for (ty, bits) in [("u64", 64u32), ("s64", 64), ("u32", 32), ("s32", 32)] {
        for (p, l) in [(47u64, 35u64), (60, 10), (64, 1), (255, 255), (31, 2), (5, 0)] {
            let signed = ty.starts_with('s');
            let v = Variant { body: format!("bfe.{ty} %d0, %s0, {p}, {l};"), srcs: vec![ty, ty], dsts: vec![ty] };
            sweep_one(v, &inputs, &move |a| vec![Expect::Bits(iref::bfe_immediate(bits, signed, a[0], p, l))]);
            let bty = if bits == 32 { "b32" } else { "b64" };
            let v = Variant { body: format!("bfi.{bty} %d0, %s0, %s1, {p}, {l};"), srcs: vec![bty, bty], dsts: vec![bty] };
            sweep_one(v, &inputs, &move |a| vec![Expect::Bits(iref::bfi(bits, a[0], a[1], p, l))]);
        }
    }
}

fn u32_rows(arity: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    let edges: Vec<u64> = U32_EDGES.iter().map(|&x| x as u64).collect();
    rows(arity, &edges, 1 << 16, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
}

#[test]
fn add_sub_sat_mul24_mad24_sad() {
    let two = u32_rows(2, 21);
    let three = u32_rows(3, 22);
    for sub in [false, true] {
        let name = if sub { "sub.sat.s32" } else { "add.sat.s32" };
        sweep_one(Variant::inst(name, "s32", &["s32", "s32"]), &two, &move |a| vec![Expect::Bits(iref::add_sat_s32(a[0], a[1], sub))]);
    }
    for ty in ["u32", "s32"] {
        let signed = ty == "s32";
        for hi in [false, true] {
            let mode = if hi { "hi" } else { "lo" };
            sweep_one(Variant::inst(&format!("mul24.{mode}.{ty}"), ty, &[ty, ty]), &two, &move |a| {
                vec![Expect::Bits(iref::mul24(signed, hi, a[0], a[1], None, false))]
            });
            sweep_one(Variant::inst(&format!("mad24.{mode}.{ty}"), ty, &[ty, ty, ty]), &three, &move |a| {
                vec![Expect::Bits(iref::mul24(signed, hi, a[0], a[1], Some(a[2]), false))]
            });
        }
    }
    sweep_one(Variant::inst("mad24.hi.sat.s32", "s32", &["s32", "s32", "s32"]), &three, &|a| {
        vec![Expect::Bits(iref::mul24(true, true, a[0], a[1], Some(a[2]), true))]
    });
    let mut rng = Rng(23);
    let three64 = rows(3, U64_EDGES, 1 << 16, SAMPLES, &mut || rng.next_u64());
    for (ty, bits) in [("u16", 16u32), ("s16", 16), ("u32", 32), ("s32", 32), ("u64", 64), ("s64", 64)] {
        let signed = ty.starts_with('s');
        let inputs = if bits == 64 { &three64 } else { &three };
        sweep_one(Variant::inst(&format!("sad.{ty}"), ty, &[ty, ty, ty]), inputs, &move |a| {
            vec![Expect::Bits(iref::sad(bits, signed, a[0], a[1], a[2]))]
        });
    }
}

#[test]
fn bfind_bmsk_szext_dp4a_dp2a() {
    let mut rng = Rng(24);
    let mut one: Vec<u64> = U64_EDGES.to_vec();
    one.extend(U32_EDGES.iter().map(|&x| x as u64));
    one.extend((0..64).map(|i| 1u64 << i).chain((0..64).map(|i| !(1u64 << i))).chain((0..64).map(|i| u64::MAX >> i)));
    one.extend((0..SAMPLES).map(|_| rng.next_u64() >> (rng.next_u64() % 64)));
    for (ty, bits) in [("u32", 32u32), ("s32", 32), ("u64", 64), ("s64", 64)] {
        for shiftamt in [false, true] {
            let name = format!("bfind{}.{ty}", if shiftamt { ".shiftamt" } else { "" });
            let signed = ty.starts_with('s');
            sweep_one(Variant::inst(&name, "u32", &[ty]), &one, &move |a| vec![Expect::Bits(iref::bfind(bits, signed, shiftamt, a[0]))]);
        }
    }
    // Positions and widths over 0..70 and beyond (all cases of the clamp/wrap rules).
    let small: Vec<u64> = (0..70).chain([127, 128, 255, 256, 0x8000_0000, 0xffff_ffff]).collect();
    let mut pairs = Vec::new();
    for &a in &small {
        for &b in &small {
            pairs.extend([a, b]);
        }
    }
    for clamp in [true, false] {
        let mode = if clamp { "clamp" } else { "wrap" };
        sweep_one(Variant::inst(&format!("bmsk.{mode}.b32"), "b32", &["u32", "u32"]), &pairs, &move |a| {
            vec![Expect::Bits(iref::bmsk(clamp, a[0], a[1]))]
        });
        let with_values: Vec<u64> = pairs.chunks(2).flat_map(|p| [rng.next_u64() & 0xffff_ffff, p[1]]).collect();
        for ty in ["u32", "s32"] {
            let signed = ty == "s32";
            sweep_one(Variant::inst(&format!("szext.{mode}.{ty}"), ty, &[ty, "u32"]), &with_values, &move |a| {
                vec![Expect::Bits(iref::szext(clamp, signed, a[0], a[1]))]
            });
        }
    }
    let three = u32_rows(3, 25);
    for at in ["u32", "s32"] {
        for bt in ["u32", "s32"] {
            let (asg, bsg) = (at == "s32", bt == "s32");
            let ct = if asg || bsg { "s32" } else { "u32" };
            sweep_one(Variant::inst(&format!("dp4a.{at}.{bt}"), ct, &["b32", "b32", ct]), &three, &move |a| {
                vec![Expect::Bits(iref::dot(false, asg, bsg, 0, a[0], a[1], a[2]))]
            });
            for (mode, sel) in [("lo", 0), ("hi", 2)] {
                sweep_one(Variant::inst(&format!("dp2a.{mode}.{at}.{bt}"), ct, &["b32", "b32", ct]), &three, &move |a| {
                    vec![Expect::Bits(iref::dot(true, asg, bsg, sel, a[0], a[1], a[2]))]
                });
            }
        }
    }
}

/// copysign (§9.7.3.2: "Copy sign bit of a into value of b"), testp (§9.7.3.1), and `set`
/// (§9.7.6.1: 0xffffffff or 1.0f for true, 0 for false) with the float comparisons.
#[test]
fn copysign_testp_set() {
    let f2 = f32_rows(2, 26);
    sweep_one(Variant::inst("copysign.f32", "f32", &["f32", "f32"]), &f2, &|a| {
        vec![Expect::Bits((a[0] & 0x8000_0000) | (a[1] & 0x7fff_ffff))]
    });
    let mut rng = Rng(27);
    let d2 = rows(2, ptxcross_tests::sweep::F64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
    sweep_one(Variant::inst("copysign.f64", "f64", &["f64", "f64"]), &d2, &|a| {
        vec![Expect::Bits((a[0] & (1 << 63)) | (a[1] & !(1 << 63)))]
    });
    let f1 = f32_rows(1, 28);
    let d1: Vec<u64> = d2.iter().step_by(2).copied().collect();
    // testp.normal: "As a special case, positive and negative zero are considered normal numbers"
    // (§9.7.3.1); observed the same on an NVIDIA H200, driver 580.
    for op in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"] {
        let class32 = move |a: &[u64]| vec![Expect::Bits(fref::testp(op, a[0], false) as u64)];
        sweep_one(Variant::inst(&format!("testp.{op}.f32"), "pred", &["f32"]), &f1, &class32);
        let class64 = move |a: &[u64]| vec![Expect::Bits(fref::testp(op, a[0], true) as u64)];
        sweep_one(Variant::inst(&format!("testp.{op}.f64"), "pred", &["f64"]), &d1, &class64);
    }
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"] {
        for dt in ["u32", "f32"] {
            let truth = if dt == "u32" { 0xffff_ffffu64 } else { 0x3f80_0000 };
            sweep_one(Variant::inst(&format!("set.{cmp}.{dt}.f32"), dt, &["f32", "f32"]), &f2, &move |a| {
                let (x, y) = (f32::from_bits(a[0] as u32), f32::from_bits(a[1] as u32));
                let r = fref::compare(cmp, x as f64, y as f64);
                vec![Expect::Bits(if r { truth } else { 0 })]
            });
        }
    }
    // set with an integer source and a BoolOp with a predicate.
    let three = u32_rows(3, 29);
    sweep_one(
        Variant { body: "set.lt.and.u32.s32 %d0, %s0, %s1, %s2;".into(), srcs: vec!["s32", "s32", "pred"], dsts: vec!["u32"] },
        &three,
        &|a| vec![Expect::Bits(if ((a[0] as i32) < (a[1] as i32)) && a[2] as u32 != 0 { 0xffff_ffff } else { 0 })],
    );
}

fn dst(n: usize, t: &'static str) -> Vec<&'static str> {
    vec![t; n]
}

/// The carry chain (§9.7.2): multi-word addition, subtraction and the spec's own 64×64→128
/// multiplication example, checked against u128 arithmetic; 64-bit words too.
#[test]
fn carry_chains() {
    let four = u32_rows(4, 31);
    let add = Variant {
        body: "add.cc.u32 %d0, %s0, %s2; addc.cc.u32 %d1, %s1, %s3; addc.u32 %d2, 0, 0;".into(),
        srcs: vec!["u32"; 4],
        dsts: dst(3, "u32"),
    };
    let w = |lo: u64, hi: u64| (hi << 32 | lo) as u128;
    sweep_one(add, &four, &move |a| {
        let s = w(a[0], a[1]) + w(a[2], a[3]);
        vec![Expect::Bits(s as u64 & 0xffff_ffff), Expect::Bits((s >> 32) as u64 & 0xffff_ffff), Expect::Bits((s >> 64) as u64)]
    });
    let sub = Variant {
        body: "sub.cc.u32 %d0, %s0, %s2; subc.cc.u32 %d1, %s1, %s3; subc.u32 %d2, 0, 0;".into(),
        srcs: vec!["u32"; 4],
        dsts: dst(3, "u32"),
    };
    sweep_one(sub, &four, &move |a| {
        // The borrow-out of the 64-bit subtraction, subtracted from 0 by the last subc.
        let (x, y) = (w(a[0], a[1]) as u64, w(a[2], a[3]) as u64);
        let d = x.wrapping_sub(y);
        let borrow = (x < y) as u64;
        vec![Expect::Bits(d & 0xffff_ffff), Expect::Bits(d >> 32), Expect::Bits(0u64.wrapping_sub(borrow) & 0xffff_ffff)]
    });
    // [r3,r2,r1,r0] = [r5,r4] * [r7,r6] (the madc example of §9.7.2.6).
    let mul = Variant {
        body: "mul.lo.u32 %d0, %s0, %s2; mul.hi.u32 %d1, %s0, %s2; mad.lo.cc.u32 %d1, %s1, %s2, %d1; \
               madc.hi.u32 %d2, %s1, %s2, 0; mad.lo.cc.u32 %d1, %s0, %s3, %d1; madc.hi.cc.u32 %d2, %s0, %s3, %d2; \
               addc.u32 %d3, 0, 0; mad.lo.cc.u32 %d2, %s1, %s3, %d2; madc.hi.u32 %d3, %s1, %s3, %d3;"
            .into(),
        srcs: vec!["u32"; 4],
        dsts: dst(4, "u32"),
    };
    sweep_one(mul, &four, &move |a| {
        let p = w(a[0], a[1]) * w(a[2], a[3]);
        (0..4).map(|i| Expect::Bits((p >> (32 * i)) as u64 & 0xffff_ffff)).collect()
    });
    let mut rng = Rng(32);
    let four64 = rows(4, U64_EDGES, 1 << 16, SAMPLES, &mut || rng.next_u64());
    let add64 = Variant {
        body: "add.cc.s64 %d0, %s0, %s2; addc.cc.s64 %d1, %s1, %s3; addc.u64 %d2, 0, 0;".into(),
        srcs: vec!["u64"; 4],
        dsts: dst(3, "u64"),
    };
    sweep_one(add64, &four64, &move |a| {
        let lo = a[0] as u128 + a[2] as u128;
        let hi = a[1] as u128 + a[3] as u128 + (lo >> 64);
        vec![Expect::Bits(lo as u64), Expect::Bits(hi as u64), Expect::Bits((hi >> 64) as u64)]
    });
    let mad64 = Variant {
        body: "mad.hi.cc.u64 %d0, %s0, %s1, %s2; madc.lo.u64 %d1, %s0, %s1, %s3;".into(),
        srcs: vec!["u64"; 4],
        dsts: dst(2, "u64"),
    };
    sweep_one(mad64, &four64, &move |a| {
        let p = a[0] as u128 * a[1] as u128;
        let s = (p >> 64) + a[2] as u128;
        let d1 = (p as u64).wrapping_add(a[3]).wrapping_add((s >> 64) as u64);
        vec![Expect::Bits(s as u64), Expect::Bits(d1)]
    });
}

/// `.rz/.rm/.rp` (and `.rn`) on f32 add/sub/mul/fma, with `.ftz`/`.sat`, and the directed
/// conversions to f32 (from f64 and 32-bit integers), against rustc_apfloat.
#[test]
fn f32_directed_rounding() {
    use ptxcross_tests::ptx_ref::half::round_of;
    let inputs2 = f32_rows(2, 41);
    let inputs3 = {
        let mut rng = Rng(42);
        rows(3, &f32_edges(), 1 << 14, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
    };
    for rnd in ["rn", "rz", "rm", "rp"] {
        for op in ["add", "sub", "mul", "fma"] {
            for (ftz, sat) in [(false, false), (true, true)] {
                let name = format!("{op}.{rnd}{}{}.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
                let round = round_of(rnd);
                let (srcs, inputs): (&[&str], _) =
                    if op == "fma" { (&["f32", "f32", "f32"], &inputs3) } else { (&["f32", "f32"], &inputs2) };
                sweep_one(Variant::inst(&name, "f32", srcs), inputs, &move |a| vec![fref::arith_f32(op, round, a, ftz, sat)]);
            }
        }
        let round = round_of(rnd);
        let mut rng = Rng(43);
        let mut d: Vec<u64> = ptxcross_tests::sweep::F64_EDGES.to_vec();
        d.extend((0..SAMPLES).map(|i| {
            let r = rng.next_u64();
            if i % 2 == 0 { r } else { (r & (1 << 63)) | ((1023 - 160 + (r >> 32) % 300) << 52) | (r & 0xf_ffff_ffff_ffff) }
        }));
        sweep_one(Variant::inst(&format!("cvt.{rnd}.f32.f64"), "f32", &["f64"]), &d, &move |a| vec![fref::cvt_f32_from("f64", round, a[0])]);
        let ints = u32_rows(1, 44);
        for src in ["s32", "u32"] {
            sweep_one(Variant::inst(&format!("cvt.{rnd}.f32.{src}"), "f32", &[src]), &ints, &move |a| {
                vec![fref::cvt_f32_from(src, round, a[0])]
            });
        }
    }
}

/// `fma.f32` whose exact result lies within one f64 rounding of a rounding boundary: `a·b` an
/// odd 25-bit significand (a midpoint between two f32s) or a 24-bit one (an f32) times a power
/// of two, plus a `c` of either sign far below it (or ±0). The exact emulation rounds the f64
/// sum to odd (`add_round_to_odd`) on the sign of its error, which decides exactly these
/// results (rounding the f64 sum to nearest first gives ties-to-even, or drops the sticky bit
/// for `.rz/.rm/.rp`); random operands almost never reach them. Translated with
/// `native_fma: false`, so the emulation runs on every device; every mode, against
/// rustc_apfloat.
#[test]
fn f32_fma_near_rounding_boundaries() {
    use ptxcross_tests::ptx_ref::half::round_of;
    let Some(gpu) = sweep::gpu() else { return };
    let options = LowerOptions { native_fma: false, ..gpu.lower_options(&ptxcross::Backend::ALL) };
    let mut rng = Rng(91);
    let mut inputs = Vec::new();
    while inputs.len() < 3 * SAMPLES {
        let r = rng.next_u64();
        // A in [2^11, 2^12), B in [2^12, 2^13): A·B has 24 or 25 bits; odd for a midpoint.
        let odd = r & 1;
        let a_sig = ((1u64 << 11) | ((r >> 1) & 0x7ff)) | odd;
        let b_sig = ((1u64 << 12) | ((r >> 12) & 0xfff)) | odd;
        let ea = ((r >> 24) % 120) as i32 - 60;
        let eb = ((r >> 32) % 120) as i32 - 60;
        let sign = |bit: u64| if (r >> bit) & 1 == 1 { -1.0f32 } else { 1.0 };
        let a = sign(40) * a_sig as f32 * 2f32.powi(ea);
        let b = sign(41) * b_sig as f32 * 2f32.powi(eb);
        // c: ±0, or a random 24-bit significand 26 to 90 binades below the product (from 54
        // on, the f64 sum is the product itself and only the error's sign is left of `c`).
        let below = 26 + ((r >> 42) % 65) as i32;
        let c_sig = ((1u64 << 23) | (rng.next_u64() & 0x7f_ffff)) as f64;
        let c = if (r >> 50) % 8 == 0 { 0.0 } else { (c_sig * 2f64.powi(ea + eb - below)) as f32 };
        let c = sign(43) * c;
        if !(a * b).is_finite() || (a * b) == 0.0 {
            continue;
        }
        inputs.extend([a.to_bits() as u64, b.to_bits() as u64, c.to_bits() as u64]);
    }
    for rnd in ["rn", "rz", "rm", "rp"] {
        let round = round_of(rnd);
        let variant = Variant::inst(&format!("fma.{rnd}.f32"), "f32", &["f32", "f32", "f32"]);
        sweep_one_with(variant, &inputs, &move |a| vec![fref::arith_f32("fma", round, a, false, false)], options.clone());
    }
}

/// Correctly rounded div / rcp / sqrt in every rounding mode (§9.7.3.8/9/11), and the
/// `.approx` forms of rcp and sqrt within their bounds (here: exact, which is within them).
#[test]
fn f32_div_rcp_sqrt_correctly_rounded() {
    div_rcp_sqrt_sweep(None, &["rn", "rz", "rm", "rp"], SAMPLES);
}

/// The same on targets without 64-bit floats (`LowerOptions::no_float64`: the 32-bit integer
/// path of `divsqrt_u32`), every mode; and without 64-bit integers either (`split_int64`, the
/// WebGPU profile), round-to-nearest.
#[test]
fn f32_div_rcp_sqrt_correctly_rounded_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let flushed_f32 = ptxcross::Backend::ALL.iter().any(|&b| gpu.flushes_f32(b));
    let no_f64 = LowerOptions { no_float64: true, flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    div_rcp_sqrt_sweep(Some(no_f64), &["rn", "rz", "rm", "rp"], SAMPLES);
    let no_64 = LowerOptions { split_int64: true, flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    div_rcp_sqrt_sweep(Some(no_64), &["rn"], SAMPLES);
}

/// `mul.ftz.f32` and `fma.rn.ftz.f32` flush a result tiny before rounding (mul) or after
/// rounding with an unbounded exponent (fma); without 64-bit floats that test runs on integers
/// (`lower`'s `f32_product_tiny_on_integers`, `f32_fma_ftz_on_integers`). Under `no_float64`
/// and `split_int64`, both backends, against rustc_apfloat with the spec's `.ftz` rule
/// (`fref::arith_f32`), over the edge table, random operands and products and sums that
/// straddle 2^-126. Each kernel must translate without f64 (`refuse_float64`).
#[test]
fn f32_mul_fma_ftz_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = without_f64_options(&gpu);
    let mut rng = Rng(71);
    // a·b within a factor 2 of 2^-126 (normal and subnormal operands), either sign.
    let near = |rng: &mut Rng| {
        let sign = |rng: &mut Rng| (rng.next_u64() & 1) << 31;
        let ea = rng.next_u64() % 200 + 27;
        let eb = 127 + (rng.next_u64() % 3) as i64 - ea as i64;
        let a = sign(rng) | (ea << 23) | (rng.next_u64() & 0x7f_ffff);
        let b = if eb >= 1 { sign(rng) | ((eb as u64) << 23) | (rng.next_u64() & 0x7f_ffff) } else { sign(rng) | (rng.next_u64() & 0x7f_ffff) };
        if rng.next_u64() & 1 == 0 { [a, b] } else { [b, a] }
    };
    let mut inputs2 = f32_rows(2, 72);
    let mut inputs3 = {
        let mut r = Rng(73);
        rows(3, &f32_edges(), 1 << 15, SAMPLES, &mut || r.next_u64() & 0xffff_ffff)
    };
    for _ in 0..SAMPLES {
        inputs2.extend(near(&mut rng));
        inputs3.extend(near(&mut rng));
        // c: zero, a tiny normal or subnormal, or one that cancels most of a normal product.
        let c = match rng.next_u64() % 4 {
            0 => (rng.next_u64() & 1) << 31,
            1 => (rng.next_u64() & 0x8000_0000) | (rng.next_u64() & 0x00ff_ffff),
            _ => rng.next_u64() & 0xffff_ffff,
        };
        inputs3.push(c);
    }
    // Results within a few ulps of 2^-126 (0x00800000 × 0x3f7fffff + 0 gives +0 on an NVIDIA
    // H200: tiny after rounding with an unbounded exponent), either sign.
    for j in 0..8u64 {
        for k in 0..4u64 {
            let (a, b) = (0x0080_0000 + k, 0x3f80_0000 - j);
            inputs2.extend([a, b | (j & 1) << 31]);
            for c in [0u64, 0x8000_0000, 1, 0x0080_0000, 0x8080_0000, 0x8000_0001] {
                inputs3.extend([a, b | (k & 1) << 31, c]);
            }
        }
    }
    for (i, name) in ["mul.ftz.f32", "mul.rn.ftz.f32", "mul.rn.ftz.sat.f32", "fma.rn.ftz.f32", "fma.rn.ftz.sat.f32"].into_iter().enumerate() {
        let op = if name.starts_with("mul") { "mul" } else { "fma" };
        let sat = name.contains(".sat");
        let (srcs, inputs): (&[&str], _) = if op == "fma" { (&["f32", "f32", "f32"], &inputs3) } else { (&["f32", "f32"], &inputs2) };
        for o in [&options[i % 2], &options[(i + 1) % 2]] {
            let reference = move |a: &[u64]| vec![fref::arith_f32(op, rustc_apfloat::Round::NearestTiesToEven, a, true, sat)];
            sweep_without_f64(Variant::inst(name, "f32", srcs), inputs, &reference, o);
        }
    }
}

/// `add/sub/mul/fma.{rz,rm,rp}.f32` (plain, `.ftz`, `.sat`, `.ftz.sat`) without 64-bit floats:
/// one fused multiply-add on integers per mode (`lower`'s `f32_fma_directed_on_integers`),
/// under `no_float64` and `split_int64`, both backends, against rustc_apfloat
/// (`fref::arith_f32`). Rows: the edge table, random operands, and the cases where directed
/// rounding decides: results that round across the overflow threshold, exact cancellations
/// (+0, or −0 under `.rm`), the 2^-126 boundary and results below the smallest subnormal.
/// Each kernel must translate without f64 (`refuse_float64`).
#[test]
fn f32_directed_rounding_without_f64() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = without_f64_options(&gpu);
    let mut rng = Rng(74);
    let mut inputs2 = f32_rows(2, 75);
    let mut inputs3 = {
        let mut r = Rng(76);
        rows(3, &f32_edges(), 1 << 14, SAMPLES, &mut || r.next_u64() & 0xffff_ffff)
    };
    let neg = |x: u64| x ^ 0x8000_0000;
    // Two operands: max finite plus half an ulp of it (2^103) and a little less or more; exact
    // cancellations; differences at 2^-126; products under the least subnormal (2^-150, 2^-298)
    // and just under 2^-126; each also negated.
    let mut pairs: Vec<[u64; 2]> = vec![
        [0x7f7f_ffff, 0x7300_0000],
        [0x7f7f_ffff, 0x72ff_ffff],
        [0x7f7f_ffff, 0x7300_0001],
        [0x7f7f_ffff, 0x7f7f_ffff],
        [0x7f7f_fffe, 0x7300_0000],
        [0x3f80_0000, 0xbf80_0000],
        [0x0000_0001, 0x8000_0001],
        [0x7f7f_ffff, 0xff7f_ffff],
        [0x0080_0000, 0x8000_0001],
        [0x0080_0001, 0x8000_0001],
        [0x0000_0001, 0x3f00_0000],
        [0x0000_0001, 0x0000_0001],
        [0x0000_0003, 0x3f00_0000],
        [0x0080_0000, 0x3f7f_ffff],
        [0x0100_0000, 0x3eff_ffff],
        [0x5f80_0000, 0x5f80_0000],
        [0x5f7f_ffff, 0x5f80_0000],
        [0x3f80_0001, 0x3380_0000],
    ];
    for p in pairs.clone() {
        pairs.extend([[neg(p[0]), neg(p[1])], [neg(p[0]), p[1]], [p[1], p[0]]]);
    }
    for _ in 0..SAMPLES {
        // x and a value within 2 ulps of −x (most bits cancel).
        let x = rng.next_u64() & 0x7fff_ffff;
        let near = (x + rng.next_u64() % 4).wrapping_sub(2) & 0x7fff_ffff;
        pairs.push([x, neg(near)]);
    }
    for p in &pairs {
        inputs2.extend(p);
    }
    // Three operands: a·b + c with c cancelling the product exactly or to a few ulps, a sum
    // crossing the overflow threshold, and tiny sums around 2^-126 and 2^-149.
    let mut triples: Vec<[u64; 3]> = vec![
        [0x4000_0000, 0x4040_0000, 0xc0c0_0000],
        [0x3f80_0001, 0x3f80_0001, 0xbf80_0002],
        [0x3f80_0001, 0x3f7f_ffff, 0xbf80_0000],
        [0x7f7f_ffff, 0x3f80_0000, 0x7300_0000],
        [0x7f7f_ffff, 0x3f80_0001, 0xf300_0000],
        [0x5f80_0000, 0x5f80_0000, 0xff7f_ffff],
        [0x0080_0000, 0x3f7f_ffff, 0x0000_0000],
        [0x0080_0000, 0x3f7f_ffff, 0x8000_0000],
        [0x0080_0000, 0x3f80_0000, 0x8000_0001],
        [0x0000_0001, 0x3f00_0000, 0x0000_0000],
        [0x0000_0001, 0x0000_0001, 0x8000_0000],
        [0x0000_0001, 0x0000_0001, 0x0000_0001],
        [0x8000_0000, 0x0000_0000, 0x0000_0000],
        [0x7f80_0000, 0x3f80_0000, 0xff80_0000],
    ];
    for t in triples.clone() {
        triples.extend([[neg(t[0]), t[1], neg(t[2])], [t[1], t[0], t[2]]]);
    }
    for _ in 0..SAMPLES {
        let (a, b) = (rng.next_u64() & 0xffff_ffff, rng.next_u64() & 0xffff_ffff);
        let p = f32::from_bits(a as u32) * f32::from_bits(b as u32);
        // The negated product rounded to nearest (an exact cancellation when it was exact),
        // moved by a few ulps.
        let c = ((-p).to_bits() as u64).wrapping_add(rng.next_u64() % 5).wrapping_sub(2) & 0xffff_ffff;
        triples.push([a, b, c]);
    }
    for t in &triples {
        inputs3.extend(t);
    }
    let flags = [(false, false), (true, false), (false, true), (true, true)];
    for (i, op) in ["add", "sub", "mul", "fma"].into_iter().enumerate() {
        let (srcs, inputs): (Vec<&'static str>, _) = if op == "fma" { (vec!["f32"; 3], &inputs3) } else { (vec!["f32"; 2], &inputs2) };
        let operands = (0..srcs.len()).map(|k| format!(", %s{k}")).collect::<String>();
        let mut body = Vec::new();
        let mut cases = Vec::new();
        for rnd in ["rz", "rm", "rp"] {
            for (ftz, sat) in flags {
                let name = format!("{op}.{rnd}{}{}.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
                body.push(format!("{name} %d{}{operands};", body.len()));
                cases.push((ptxcross_tests::ptx_ref::half::round_of(rnd), ftz, sat));
            }
        }
        let v = Variant { body: body.join("\n    "), srcs, dsts: dst(cases.len(), "f32") };
        let reference = move |a: &[u64]| cases.iter().map(|&(round, ftz, sat)| fref::arith_f32(op, round, a, ftz, sat)).collect();
        for o in [&options[i % 2], &options[(i + 1) % 2]] {
            sweep_without_f64(v.clone(), inputs, &reference, o);
        }
    }
}

/// The no-f64 path over many more random operands (each mode, `.ftz` or not):
///   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test inst_sweep f32_div_rcp_sqrt_without_f64_long -- --ignored --nocapture
#[test]
#[ignore]
fn f32_div_rcp_sqrt_without_f64_long() {
    let Some(gpu) = sweep::gpu() else { return };
    let flushed_f32 = ptxcross::Backend::ALL.iter().any(|&b| gpu.flushes_f32(b));
    let no_f64 = LowerOptions { no_float64: true, flushed_f32, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    div_rcp_sqrt_sweep(Some(no_f64), &["rn", "rz", "rm", "rp"], 1 << 23);
}

/// div / rcp / sqrt `.{modes}` (with and without `.ftz`) over edge tables and `samples` random
/// operands (and as many exact quotients and squares), translated with `options` (`None`: as
/// the host picks them).
fn div_rcp_sqrt_sweep(options: Option<LowerOptions>, modes: &[&str], samples: usize) {
    // Every variant is checked before failing (see `sweep::all_variants`).
    sweep::all_variants(|| {
        use ptxcross_tests::ptx_ref::half::round_of;
        let f32_rows = |arity: usize, seed: u64| {
            let mut rng = Rng(seed);
            rows(arity, &f32_edges(), 1 << 16, samples, &mut || rng.next_u64() & 0xffff_ffff)
        };
        let mut inputs2 = f32_rows(2, 51);
        // Quotients that are exact, ties-free hard cases and subnormal results.
        let mut rng = Rng(52);
        for _ in 0..samples {
            let b = (rng.next_u64() & 0x007f_ffff) | 0x3f80_0000;
            let q = (rng.next_u64() & 0x007f_ffff) | ((rng.next_u64() % 254 + 1) << 23);
            let p = f32::from_bits(q as u32) * f32::from_bits(b as u32);
            inputs2.extend([p.to_bits() as u64, b]);
        }
        let inputs1 = f32_rows(1, 53);
        let mut squares = inputs1.clone();
        squares.extend((0..samples).map(|_| {
            let x = f32::from_bits(((rng.next_u64() & 0x007f_ffff) | ((rng.next_u64() % 200 + 27) << 23)) as u32);
            (x * x).to_bits() as u64
        }));
        let one = |variant: Variant, inputs: &[u64], reference: Reference| match &options {
            None => sweep_one(variant, inputs, reference),
            Some(o) => sweep_one_with(variant, inputs, reference, o.clone()),
        };
        for &rnd in modes {
            for ftz in [false, true] {
                let f = if ftz { ".ftz" } else { "" };
                let round = round_of(rnd);
                one(Variant::inst(&format!("div.{rnd}{f}.f32"), "f32", &["f32", "f32"]), &inputs2, &move |a| {
                    vec![fref::div_rounded_f32(a[0], a[1], round, ftz)]
                });
                one(Variant::inst(&format!("rcp.{rnd}{f}.f32"), "f32", &["f32"]), &inputs1, &move |a| {
                    vec![fref::div_rounded_f32(1f32.to_bits() as u64, a[0], round, ftz)]
                });
                one(Variant::inst(&format!("sqrt.{rnd}{f}.f32"), "f32", &["f32"]), &squares, &move |a| {
                    vec![fref::sqrt_rounded_f32(a[0], round, ftz)]
                });
            }
        }
    });
}

/// `fma/div/rcp/sqrt.{rn,rz,rm,rp}.f64` and `add/sub/mul.{rz,rm,rp}.f64` (§9.7.3), correctly
/// rounded: edge tuples (zeros,
/// subnormals, extremes, infinities, NaNs), random bit patterns, and hard cases: exact quotients
/// and roots, quotients that land in the subnormal range or overflow, and near-ties (products
/// of a random significand with 1 ± 2^-53·k).
#[test]
fn f64_correctly_rounded() {
    use ptxcross_tests::ptx_ref::half::round_of;
    let mut rng = Rng(54);
    let mut two = rows(2, ptxcross_tests::sweep::F64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
    let mut one: Vec<u64> = ptxcross_tests::sweep::F64_EDGES.to_vec();
    one.extend((0..SAMPLES).map(|_| rng.next_u64()));
    for i in 0..SAMPLES as u64 {
        let r = rng.next_u64();
        let b = f64::from_bits((r & 0x000f_ffff_ffff_ffff) | (0x3ff0_0000_0000_0000 + ((r >> 52) % 64) * (1 << 52)));
        let q = f64::from_bits(rng.next_u64() & 0x000f_ffff_ffff_ffff | (rng.next_u64() % 2046 + 1) << 52);
        let a = match i % 4 {
            0 => q * b,                                 // exact or nearly exact quotients
            1 => f64::from_bits(rng.next_u64() >> 12), // subnormal dividends
            2 => f64::from_bits((rng.next_u64() >> 2) | 1 << 62), // huge: overflow
            _ => f64::from_bits(q.to_bits() ^ (rng.next_u64() & 7)),
        };
        let b = if i % 8 == 1 { f64::from_bits(rng.next_u64() | 0x7fe0_0000_0000_0000 & !(1 << 63)) } else { b };
        two.extend([a.to_bits(), b.to_bits()]);
        // Roots: exact squares, their neighbours, subnormals.
        let s = f64::from_bits(rng.next_u64() & 0x000f_ffff_ffff_ffff | (rng.next_u64() % 1000 + 500) << 52);
        let sq = s * s;
        one.push(match i % 3 {
            0 => sq.to_bits(),
            1 => sq.to_bits() ^ 1,
            _ => rng.next_u64() >> 12,
        });
    }
    // fma: edge triples, random bits, and hard cases: cancellation against the rounded product
    // (c = −RN(a·b), the exact error term remains), tiny products (subnormal results), huge ones.
    let mut three = rows(3, ptxcross_tests::sweep::F64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
    for i in 0..SAMPLES as u64 {
        let f = |r: u64, lo: u64, span: u64| f64::from_bits(r & 0x800f_ffff_ffff_ffff | ((r >> 52) % span + lo) << 52);
        let (x, y) = match i % 3 {
            0 => (f(rng.next_u64(), 900, 250), f(rng.next_u64(), 900, 250)),
            1 => (f(rng.next_u64(), 400, 200), f(rng.next_u64(), 400, 200)),
            _ => (f(rng.next_u64(), 1500, 300), f(rng.next_u64(), 1200, 100)),
        };
        let z = match i % 4 {
            0 => -(x * y),
            1 => f64::from_bits((x * y).to_bits() ^ (1 << 63) ^ (rng.next_u64() & 3)),
            2 => f64::from_bits(rng.next_u64() >> 12),
            _ => f(rng.next_u64(), 1, 2045),
        };
        three.extend([x.to_bits(), y.to_bits(), z.to_bits()]);
    }
    sweep::all_variants(|| {
        for rnd in ["rn", "rz", "rm", "rp"] {
            let round = round_of(rnd);
            sweep_one(Variant::inst(&format!("fma.{rnd}.f64"), "f64", &["f64", "f64", "f64"]), &three, &move |a| {
                vec![fref::fma_rounded_f64(a[0], a[1], a[2], round)]
            });
            if rnd != "rn" {
                // The .rn forms are the targets' own (correctly rounded) f64 add/sub/mul.
                for op in ["add", "sub", "mul"] {
                    sweep_one(Variant::inst(&format!("{op}.{rnd}.f64"), "f64", &["f64", "f64"]), &two, &move |a| {
                        vec![fref::arith_rounded_f64(op, a[0], a[1], round)]
                    });
                }
            }
            sweep_one(Variant::inst(&format!("div.{rnd}.f64"), "f64", &["f64", "f64"]), &two, &move |a| {
                vec![fref::div_rounded_f64(a[0], a[1], round)]
            });
            sweep_one(Variant::inst(&format!("rcp.{rnd}.f64"), "f64", &["f64"]), &one, &move |a| {
                vec![fref::div_rounded_f64(1f64.to_bits(), a[0], round)]
            });
            sweep_one(Variant::inst(&format!("sqrt.{rnd}.f64"), "f64", &["f64"]), &one, &move |a| {
                vec![fref::sqrt_rounded_f64(a[0], round)]
            });
        }
    });
}

/// `cvt.sat` between integer types (§9.7.9.21: "limits the result to MININT..MAXINT for the
/// size of the operation", the destination's range).
#[test]
fn cvt_integer_saturation() {
    let mut rng = Rng(61);
    let mut inputs: Vec<u64> = U64_EDGES.to_vec();
    inputs.extend(U32_EDGES.iter().map(|&x| x as u64));
    inputs.extend([0x7f, 0x80, 0xff, 0x100, 0xffff_ff80, 0xffff_ff7f, 0x7fff, 0x8000, 0xffff_8000, 0xffff_7fff]);
    inputs.extend((0..SAMPLES).map(|_| rng.next_u64() >> (rng.next_u64() % 64)));
    let range = |t: &str| -> (i128, i128) {
        let bits: u32 = t[1..].parse().unwrap();
        if t.starts_with('s') { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) }
    };
    for st in ["s32", "u32", "s64", "u64", "s16"] {
        for dt in ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"] {
            if st == dt {
                continue;
            }
            let (slo, shi) = range(st);
            let (dlo, dhi) = range(dt);
            if dlo <= slo && shi <= dhi {
                continue; // .sat is illegal where it cannot saturate
            }
            let sbits: u32 = st[1..].parse().unwrap();
            sweep_one(Variant::inst(&format!("cvt.sat.{dt}.{st}"), dt, &[st]), &inputs, &move |a| {
                let raw = a[0] & if sbits == 64 { u64::MAX } else { (1u64 << sbits) - 1 };
                let v: i128 = if st.starts_with('s') { ((raw << (64 - sbits)) as i64 >> (64 - sbits)) as i128 } else { raw as i128 };
                vec![Expect::Bits(v.clamp(dlo, dhi) as u64)]
            });
        }
    }
}

/// ld/st `.v8` (256-bit accesses): eight words stored and loaded back.
#[test]
fn ld_st_v8() {
    let mut rng = Rng(62);
    let inputs: Vec<u64> = (0..8 * 1024).map(|_| rng.next_u64() & 0xffff_ffff).collect();
    let regs = |p: &str| (0..8).map(|i| format!("%{p}{i}")).collect::<Vec<_>>().join(", ");
    let v = Variant {
        body: format!("st.global.v8.b32 [%rdin], {{{}}}; ld.global.v8.b32 {{{}}}, [%rdin];", regs("s"), regs("d")),
        srcs: vec!["b32"; 8],
        dsts: vec!["b32"; 8],
    };
    sweep_one(v, &inputs, &|a| a.iter().map(|&x| Expect::Bits(x)).collect());
}

/// Vector registers (`.reg .v4 .b32 %v;`, §5.4.2): elements by `.x/.y/.z/.w` and `.r/.g/.b/.a`,
/// whole-register ld/st (the store changes the first word, so a lost store shows).
#[test]
fn vector_registers() {
    let mut rng = Rng(63);
    let inputs: Vec<u64> = (0..2 * 4096).map(|_| rng.next_u64()).collect();
    let v = Variant {
        body: "{ .reg .v4 .b32 %v; .reg .v2 .f32 %w;\n\
               ld.global.v4.b32 %v, [%rdin];\n\
               mov.b32 %w.x, %v.y; mov.b32 %w.y, %v.b;\n\
               add.f32 %d0, %w.x, %w.y;\n\
               mov.b32 %v.x, %v.a;\n\
               st.global.v4.b32 [%rdin], %v;\n\
               ld.global.b32 %d1, [%rdin];\n\
               mov.b32 %d2, %v.a; }"
            .into(),
        srcs: vec!["b64", "b64"],
        dsts: vec!["f32", "b32", "b32"],
    };
    sweep_one(v, &inputs, &|a| {
        let sum = f32::from_bits((a[0] >> 32) as u32) + f32::from_bits(a[1] as u32);
        vec![fref::exact_f32(sum), Expect::Bits(a[1] >> 32), Expect::Bits(a[1] >> 32)]
    });
}

/// Audit of f32/f64 min/max (with `.ftz`, `.NaN`, `.xorsign.abs`), abs/neg, and f16 min/max
/// with `.xorsign.abs`.
#[test]
fn min_max_abs_neg() {
    // Every variant is checked before failing (see `sweep::all_variants`).
    sweep::all_variants(|| {
        let f2 = f32_rows(2, 71);
        let mut rng = Rng(72);
        let d2 = rows(2, ptxcross_tests::sweep::F64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
        for op in ["min", "max"] {
            for (mods, ftz, nan, xs) in [("", false, false, false), (".ftz", true, false, false), (".NaN", false, true, false), (".xorsign.abs", false, false, true), (".ftz.NaN.xorsign.abs", true, true, true)] {
                let is_min = op == "min";
                sweep_one(Variant::inst(&format!("{op}{mods}.f32"), "f32", &["f32", "f32"]), &f2, &move |a| {
                    vec![fref::min_max(is_min, 32, a[0], a[1], nan, xs, ftz)]
                });
            }
            let is_min = op == "min";
            sweep_one(Variant::inst(&format!("{op}.f64"), "f64", &["f64", "f64"]), &d2, &move |a| {
                vec![fref::min_max(is_min, 64, a[0], a[1], false, false, false)]
            });
            // f16 (§9.7.4.7/8): the same rules.
            let h2: Vec<u64> = f2.iter().map(|&x| x & 0xffff).collect();
            sweep_one(Variant::inst(&format!("{op}.xorsign.abs.f16"), "b16", &["b16", "b16"]), &h2, &move |a| {
                vec![fref::min_max(is_min, 16, a[0], a[1], false, true, false)]
            });
        }
        let f1 = f32_rows(1, 73);
        for (op, ftz) in [("abs", false), ("abs.ftz", true), ("neg", false), ("neg.ftz", true)] {
            sweep_one(Variant::inst(&format!("{op}.f32"), "f32", &["f32"]), &f1, &move |a| {
                let x = a[0] as u32;
                let x = if ftz && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
                // §9.7.3.8/9 give the sign only; NVIDIA's sm_90 returns the canonical NaN
                // 0x7fffffff for every NaN (measured through the CUDA driver, 2026-11-26).
                if x & 0x7fff_ffff > 0x7f80_0000 {
                    return vec![Expect::Bits(0x7fff_ffff)];
                }
                vec![Expect::Bits(if op.starts_with("abs") { x & 0x7fff_ffff } else { x ^ 0x8000_0000 } as u64)]
            });
        }
    });
}

/// `cvt.irnd.dt.{f32,f64}` of the value `x`: rounded, then clamped to the destination's range
/// (f64 → i128 saturates beyond ±2^127, far outside every range here); NaN gives NVIDIA's bits
/// (not the spec's 0, see `cvt_nan_to_int`).
fn float_to_int(round: IntRound, dt: &str, x: f64, from_f64: bool) -> Expect {
    let bits: u32 = dt[1..].parse().unwrap();
    let (lo, hi): (i128, i128) = if dt.starts_with('s') { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    if x.is_nan() {
        return Expect::Bits(fref::cvt_nan_to_int(if from_f64 { "f64" } else { "f32" }, dt));
    }
    let r = (round.f64(x) as i128).clamp(lo, hi) as u64;
    Expect::Bits(if bits == 64 { r } else { r & ((1u64 << bits) - 1) })
}

/// Audit of float → integer `cvt` (§9.7.9.21: integer rounding, saturation to the
/// destination's range, NaN → NVIDIA's bits, `cvt_nan_to_int`; `.ftz` flushes the f32 input).
#[test]
fn cvt_float_to_int() {
    // Every variant is checked before failing (see `sweep::all_variants`).
    sweep::all_variants(|| {
        let f1 = f32_rows(1, 81);
        let mut rng = Rng(82);
        let mut d1: Vec<u64> = ptxcross_tests::sweep::F64_EDGES.to_vec();
        d1.extend(F32_EDGES.iter().map(|&x| (f32::from_bits(x) as f64).to_bits()));
        d1.extend([0x41df_ffff_ffc0_0000, 0x41e0_0000_0000_0000, 0xc1e0_0000_0000_0000, 0xc1e0_0000_0020_0000, 0x43e0_0000_0000_0000, 0x43f0_0000_0000_0000]);
        d1.extend((0..SAMPLES).map(|i| {
            let r = rng.next_u64();
            if i % 2 == 0 { r } else { (r & (1 << 63)) | ((1023 - 4 + (r >> 40) % 70) << 52) | (r & 0xf_ffff_ffff_ffff) }
        }));
        for round in IntRound::ALL {
            for dt in ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"] {
                let expect = move |x: f64, from_f64: bool| float_to_int(round, dt, x, from_f64);
                for ftz in [false, true] {
                    let name = format!("cvt.{}{}.{dt}.f32", round.suffix(), if ftz { ".ftz" } else { "" });
                    sweep_one(Variant::inst(&name, dt, &["f32"]), &f1, &move |a| {
                        let x = f32::from_bits(a[0] as u32);
                        vec![expect(if ftz { fref::ftz(x) } else { x } as f64, false)]
                    });
                }
                let name = format!("cvt.{}.{dt}.f64", round.suffix());
                sweep_one(Variant::inst(&name, dt, &["f64"]), &d1, &move |a| vec![expect(f64::from_bits(a[0]), true)]);
            }
        }
    });
}

/// Audit of shifts, funnel shifts, bit counts, byte permute, multiplies, division, integer
/// min/max/abs/neg (§9.7.1, §9.7.8) against the spec's formulas.
#[test]
fn integer_and_bit_audit() {
    let two = u32_rows(2, 91);
    let three = u32_rows(3, 92);
    let mut rng = Rng(93);
    let two64 = rows(2, U64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
    let sh: Vec<u64> = two.chunks(2).flat_map(|p| [p[0], p[1] % 80]).collect();
    let sh64: Vec<u64> = two64.chunks(2).flat_map(|p| [p[0], p[1] % 140]).collect();
    // §9.7.8.7/8: shift amounts greater than the width clamp to the width.
    for (t, bits) in [("b32", 32u32), ("s32", 32), ("u32", 32), ("b64", 64), ("s64", 64), ("u16", 16), ("s16", 16)] {
        let inputs = if bits == 64 { &sh64 } else { &sh };
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        sweep_one(Variant::inst(&format!("shl.{t}"), t, &[t, "u32"]), inputs, &move |a| {
            let n = (a[1] as u32).min(bits);
            vec![Expect::Bits(if n >= bits { 0 } else { (a[0] << n) & mask })]
        });
        if t != "b64" || bits == 64 {
            sweep_one(Variant::inst(&format!("shr.{t}"), t, &[t, "u32"]), inputs, &move |a| {
                let n = (a[1] as u32).min(bits);
                let x = a[0] & mask;
                let r = if t.starts_with('s') {
                    let v = ((x << (64 - bits)) as i64) >> (64 - bits);
                    (v >> n.min(63)) as u64 & mask
                } else if n >= bits {
                    0
                } else {
                    x >> n
                };
                vec![Expect::Bits(r)]
            });
        }
    }
    // §9.7.8.9 shf: n = clamp ? min(c, 32) : c & 31, on the 64-bit b:a.
    let funnel: Vec<u64> = three.chunks(3).flat_map(|p| [p[0], p[1], p[2] % 70]).collect();
    for dir in ["l", "r"] {
        for mode in ["wrap", "clamp"] {
            sweep_one(Variant::inst(&format!("shf.{dir}.{mode}.b32"), "b32", &["b32", "b32", "u32"]), &funnel, &move |a| {
                let n = if mode == "clamp" { a[2].min(32) } else { a[2] & 31 };
                let x = (a[1] << 32) | a[0];
                let r = if dir == "l" { ((x << n) >> 32) & 0xffff_ffff } else { (x >> n) & 0xffff_ffff };
                vec![Expect::Bits(r)]
            });
        }
    }
    // §9.7.8.6 prmt (default mode): byte i of d is byte (c >> 4i) & 7 of b:a, replaced by
    // its sign when bit 3 of the selector is set.
    sweep_one(Variant::inst("prmt.b32", "b32", &["b32", "b32", "b32"]), &three, &|a| {
        let x = (a[1] << 32) | a[0];
        let mut d = 0u64;
        for i in 0..4 {
            let sel = (a[2] >> (4 * i)) & 0xf;
            let byte = (x >> (8 * (sel & 7))) & 0xff;
            let byte = if sel & 8 != 0 { if byte & 0x80 != 0 { 0xff } else { 0 } } else { byte };
            d |= byte << (8 * i);
        }
        vec![Expect::Bits(d)]
    });
    let one32: Vec<u64> = two.iter().copied().step_by(2).collect();
    let one64: Vec<u64> = two64.iter().copied().step_by(2).collect();
    for (t, inputs, bits) in [("b32", &one32, 32u32), ("b64", &one64, 64)] {
        sweep_one(Variant::inst(&format!("popc.{t}"), "u32", &[t]), inputs, &|a| vec![Expect::Bits(a[0].count_ones() as u64)]);
        sweep_one(Variant::inst(&format!("clz.{t}"), "u32", &[t]), inputs, &move |a| {
            vec![Expect::Bits(if bits == 32 { (a[0] as u32).leading_zeros() } else { a[0].leading_zeros() } as u64)]
        });
        sweep_one(Variant::inst(&format!("brev.{t}"), t, &[t]), inputs, &move |a| {
            vec![Expect::Bits(if bits == 32 { (a[0] as u32).reverse_bits() as u64 } else { a[0].reverse_bits() })]
        });
    }
    // Multiplies, division and remainder (nonzero divisors; §9.7.1.8 leaves x/0 unspecified).
    for (t, signed) in [("u32", false), ("s32", true)] {
        let v = move |x: u64| if signed { x as u32 as i32 as i64 } else { x as u32 as i64 };
        sweep_one(Variant::inst(&format!("mul.hi.{t}"), t, &[t, t]), &two, &move |a| {
            vec![Expect::Bits(((v(a[0]) as i128 * v(a[1]) as i128) >> 32) as u64 & 0xffff_ffff)]
        });
        let wt = if signed { "s64" } else { "u64" };
        sweep_one(Variant::inst(&format!("mul.wide.{t}"), wt, &[t, t]), &two, &move |a| vec![Expect::Bits((v(a[0]) as i128 * v(a[1]) as i128) as u64)]);
        let nz: Vec<u64> = two.chunks(2).filter(|p| p[1] as u32 != 0).flatten().copied().collect();
        sweep_one(Variant::inst(&format!("div.{t}"), t, &[t, t]), &nz, &move |a| {
            let (x, y) = (v(a[0]), v(a[1]));
            let q = if signed { (x as i32).wrapping_div(y as i32) as u32 as u64 } else { (x / y) as u64 };
            vec![Expect::Bits(q & 0xffff_ffff)]
        });
        sweep_one(Variant::inst(&format!("rem.{t}"), t, &[t, t]), &nz, &move |a| {
            let (x, y) = (v(a[0]), v(a[1]));
            let r = if signed { (x as i32).wrapping_rem(y as i32) as u32 as u64 } else { (x % y) as u64 };
            vec![Expect::Bits(r & 0xffff_ffff)]
        });
        for op in ["min", "max"] {
            sweep_one(Variant::inst(&format!("{op}.{t}"), t, &[t, t]), &two, &move |a| {
                let (x, y) = (v(a[0]), v(a[1]));
                vec![Expect::Bits((if op == "min" { x.min(y) } else { x.max(y) }) as u64 & 0xffff_ffff)]
            });
        }
    }
    for (t, bits) in [("u64", 64u32), ("s64", 64)] {
        let signed = t == "s64";
        let _ = bits;
        sweep_one(Variant::inst(&format!("mul.hi.{t}"), t, &[t, t]), &two64, &move |a| {
            let p = if signed { (a[0] as i64 as i128 * a[1] as i64 as i128) as u128 } else { a[0] as u128 * a[1] as u128 };
            vec![Expect::Bits((p >> 64) as u64)]
        });
        let nz: Vec<u64> = two64.chunks(2).filter(|p| p[1] != 0).flatten().copied().collect();
        sweep_one(Variant::inst(&format!("div.{t}"), t, &[t, t]), &nz, &move |a| {
            vec![Expect::Bits(if signed { (a[0] as i64).wrapping_div(a[1] as i64) as u64 } else { a[0] / a[1] })]
        });
        sweep_one(Variant::inst(&format!("rem.{t}"), t, &[t, t]), &nz, &move |a| {
            vec![Expect::Bits(if signed { (a[0] as i64).wrapping_rem(a[1] as i64) as u64 } else { a[0] % a[1] })]
        });
    }
    for t in ["s32", "s64"] {
        let inputs = if t == "s32" { &one32 } else { &one64 };
        let wide = t == "s64";
        sweep_one(Variant::inst(&format!("abs.{t}"), t, &[t]), inputs, &move |a| {
            vec![Expect::Bits(if wide { (a[0] as i64).wrapping_abs() as u64 } else { (a[0] as i32).wrapping_abs() as u32 as u64 })]
        });
        sweep_one(Variant::inst(&format!("neg.{t}"), t, &[t]), inputs, &move |a| {
            vec![Expect::Bits(if wide { a[0].wrapping_neg() } else { (a[0] as u32).wrapping_neg() as u64 })]
        });
    }
}

/// Audit of setp on integers and floats, every comparison (§9.7.6.2) and the `p|q` form.
#[test]
fn setp_all_comparisons() {
    let two = u32_rows(2, 95);
    for (cmp, f) in [
        ("eq", (|x: i64, y: i64| x == y) as fn(i64, i64) -> bool),
        ("ne", |x, y| x != y),
        ("lt", |x, y| x < y),
        ("le", |x, y| x <= y),
        ("gt", |x, y| x > y),
        ("ge", |x, y| x >= y),
    ] {
        for t in ["s32", "u32"] {
            let signed = t == "s32";
            let v = Variant { body: format!("setp.{cmp}.{t} %d0|%d1, %s0, %s1;"), srcs: vec![t, t], dsts: vec!["pred", "pred"] };
            sweep_one(v, &two, &move |a| {
                let c = |x: u64| if signed { x as u32 as i32 as i64 } else { x as u32 as i64 };
                let r = f(c(a[0]), c(a[1]));
                vec![Expect::Bits(r as u64), Expect::Bits(!r as u64)]
            });
        }
    }
    let f2 = f32_rows(2, 96);
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"] {
        for ftz in [false, true] {
            let name = format!("setp.{cmp}{}.f32", if ftz { ".ftz" } else { "" });
            sweep_one(Variant::inst(&name, "pred", &["f32", "f32"]), &f2, &move |a| {
                let g = |x: u64| {
                    let v = f32::from_bits(x as u32);
                    if ftz { fref::ftz(v) } else { v }
                };
                let r = fref::compare(cmp, g(a[0]) as f64, g(a[1]) as f64);
                vec![Expect::Bits(r as u64)]
            });
        }
    }
    // Halves compare by value (f16 and bf16).
    let h2: Vec<u64> = f2.iter().map(|&x| x & 0xffff).collect();
    for (fmt, t) in [(ptxcross_tests::ptx_ref::half::Fmt::F16, "f16"), (ptxcross_tests::ptx_ref::half::Fmt::Bf16, "bf16")] {
        sweep_one(Variant::inst(&format!("setp.ltu.{t}"), "pred", &["b16", "b16"]), &h2, &move |a| {
            let (x, y) = (fmt.to_f64(a[0] as u16), fmt.to_f64(a[1] as u16));
            vec![Expect::Bits((x.is_nan() || y.is_nan() || x < y) as u64)]
        });
    }
}

/// `lop3` (§9.7.9.6): all 256 truth tables (32 per launch), each against the spec's table
/// rule, plus the `.and`/`.or` predicate forms (with the `_` sink).
#[test]
fn lop3_every_table() {
    let three = u32_rows(3, 101);
    for chunk in 0..8u32 {
        let luts: Vec<u8> = (0..32).map(|i| (chunk * 32 + i) as u8).collect();
        let body: String = luts.iter().enumerate().map(|(k, l)| format!("lop3.b32 %d{k}, %s0, %s1, %s2, {l:#x};\n    ")).collect();
        let v = Variant { body, srcs: vec!["b32", "b32", "b32"], dsts: dst(32, "b32") };
        sweep_one(v, &three, &move |a| luts.iter().map(|&l| Expect::Bits(iref::lop3(l, a[0], a[1], a[2]))).collect());
    }
    // Sparse operands so that d == 0 happens often.
    let mut rng = Rng(102);
    let mut sparse = Vec::new();
    for _ in 0..SAMPLES {
        let x = rng.next_u64();
        sparse.extend([x & (1 << (x % 32)), (x >> 32) & (1 << ((x >> 8) % 32)), rng.next_u64() & 0xffff_ffff & (1 << (x % 7)), x >> 63]);
    }
    for op in ["and", "or"] {
        for lut in [0x80u8, 0xfe, 0x3f, 0x96, 0x00, 0xff] {
            let v = Variant {
                body: format!("lop3.{op}.b32 %d0|%d1, %s0, %s1, %s2, {lut:#x}, %s3;\n    lop3.{op}.b32 _|%d2, %s0, %s1, %s2, {lut:#x}, !%s3;"),
                srcs: vec!["b32", "b32", "b32", "pred"],
                dsts: vec!["b32", "pred", "pred"],
            };
            sweep_one(v, &sparse, &move |a| {
                let d = iref::lop3(lut, a[0], a[1], a[2]);
                let q = a[3] & 1 != 0;
                let f = |q: bool| if op == "and" { d != 0 && q } else { d != 0 || q };
                vec![Expect::Bits(d), Expect::Bits(f(q) as u64), Expect::Bits(f(!q) as u64)]
            });
        }
    }
}

/// `prmt` (§9.7.10.7) in the generic form (every 16-bit selector, i.e. every nibble
/// combination including the sign-replicate bits) and in the six modes (every c[1:0], random
/// upper bits of c, which the modes ignore).
#[test]
fn prmt_all_modes() {
    let mut rng = Rng(103);
    let mut generic = Vec::new();
    for sel in 0..1u64 << 16 {
        let r = rng.next_u64();
        generic.extend([r & 0xffff_ffff, r >> 32, sel | (rng.next_u64() & 0xffff_0000)]);
    }
    sweep_one(Variant::inst("prmt.b32", "b32", &["b32", "b32", "b32"]), &generic, &|a| vec![Expect::Bits(iref::prmt("", a[0], a[1], a[2]))]);
    let three = u32_rows(3, 104);
    for mode in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"] {
        sweep_one(Variant::inst(&format!("prmt.b32.{mode}"), "b32", &["b32", "b32", "b32"]), &three, &move |a| {
            vec![Expect::Bits(iref::prmt(mode, a[0], a[1], a[2]))]
        });
    }
}

/// `fns` (§9.7.1.17): every base 0..31 (and beyond) with offsets −34..34 and the extremes,
/// over edge and random masks.
#[test]
fn fns_find_nth_set_bit() {
    let mut rng = Rng(105);
    let masks: Vec<u64> = [0u64, 0xffff_ffff, 0xaaaa_aaaa, 0x5555_5555, 1, 0x8000_0000, 0x8000_0001]
        .into_iter()
        .chain((0..8).map(|_| rng.next_u64() & 0xffff_ffff))
        .collect();
    let bases: Vec<u64> = (0..34).chain([63, 0xffff_ffff]).collect();
    let offsets: Vec<u64> = (-34i64..=34).chain([i32::MIN as i64, i32::MAX as i64]).map(|o| o as u32 as u64).collect();
    let mut rows = Vec::new();
    for &m in &masks {
        for &b in &bases {
            for &o in &offsets {
                rows.extend([m, b, o]);
            }
        }
    }
    sweep_one(Variant::inst("fns.b32", "b32", &["b32", "u32", "s32"]), &rows, &|a| vec![Expect::Bits(iref::fns(a[0], a[1], a[2]))]);
    // The spec's examples, with immediates.
    let v = Variant {
        body: "fns.b32 %d0, 0xaaaaaaaa, 3, 1;\n    fns.b32 %d1, 0xaaaaaaaa, 3, -1;\n    fns.b32 %d2, 0xaaaaaaaa, 2, 1;\n    fns.b32 %d3, 0xaaaaaaaa, 2, -1;".into(),
        srcs: vec!["b32"],
        dsts: dst(4, "b32"),
    };
    sweep_one(v, &[0], &|_| vec![Expect::Bits(3), Expect::Bits(3), Expect::Bits(3), Expect::Bits(1)]);
}

/// Packed `.u16x2`/`.s16x2` `add`/`min`/`max` (± `.relu`), `min/max.relu.s32`,
/// `mad.hi.sat.s32` (§9.7.1.1/4/12/13), and `slct` (§9.7.7.4) with every destination width.
#[test]
fn packed_int_relu_mad_sat_slct() {
    let two = u32_rows(2, 106);
    let three = u32_rows(3, 107);
    for op in ["add", "min", "max"] {
        for (t, signed) in [("u16x2", false), ("s16x2", true)] {
            let reluable = op != "add" && signed;
            for relu in [false, true] {
                if relu && !reluable {
                    continue;
                }
                let name = format!("{op}{}.{t}", if relu { ".relu" } else { "" });
                sweep_one(Variant::inst(&name, "b32", &["b32", "b32"]), &two, &move |a| {
                    vec![Expect::Bits(iref::packed16(op, signed, relu, a[0], a[1]))]
                });
            }
        }
    }
    for max in [false, true] {
        let name = if max { "max.relu.s32" } else { "min.relu.s32" };
        sweep_one(Variant::inst(name, "s32", &["s32", "s32"]), &two, &move |a| vec![Expect::Bits(iref::min_max_relu_s32(max, a[0], a[1]))]);
    }
    sweep_one(Variant::inst("mad.hi.sat.s32", "s32", &["s32", "s32", "s32"]), &three, &|a| {
        vec![Expect::Bits(iref::mad_hi_sat_s32(a[0], a[1], a[2]))]
    });
    let mut rng = Rng(108);
    let f = f32_edges();
    let mut slct_rows = Vec::new();
    for &c in f.iter().chain(U32_EDGES.iter().map(|&x| x as u64).collect::<Vec<_>>().iter()) {
        slct_rows.extend([rng.next_u64(), rng.next_u64(), c]);
    }
    for _ in 0..SAMPLES {
        slct_rows.extend([rng.next_u64(), rng.next_u64(), rng.next_u64() & 0xffff_ffff]);
    }
    for (t, bits) in [("b16", 16u32), ("u32", 32), ("s64", 64), ("f32", 32), ("f64", 64)] {
        let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        sweep_one(Variant::inst(&format!("slct.{t}.s32"), t, &[t, t, "s32"]), &slct_rows, &move |a| {
            vec![Expect::Bits(if (a[2] as u32 as i32) >= 0 { a[0] & m } else { a[1] & m })]
        });
        for ftz in [false, true] {
            let name = format!("slct{}.{t}.f32", if ftz { ".ftz" } else { "" });
            sweep_one(Variant::inst(&name, t, &[t, t, "f32"]), &slct_rows, &move |a| {
                vec![Expect::Bits(iref::slct_f32(ftz, a[0], a[1], a[2]) & m)]
            });
        }
    }
}

/// `cvt.{rn,rz,rm,rp}.{f32,f64,bf16}.{u64,s64}` (§9.7.10.20), one launch per destination and
/// source with all four roundings, against rustc_apfloat: powers of two and their
/// neighbours, exact ties and near-ties at each format's rounding position, random widths.
#[test]
fn cvt_int64_to_float_every_rounding() {
    use ptxcross_tests::ptx_ref::half::round_of;
    let mut rng = Rng(109);
    let mut one: Vec<u64> = U64_EDGES.to_vec();
    for k in 0..64 {
        let p = 1u64 << k;
        one.extend([p, p.wrapping_sub(1), p.wrapping_add(1), p.wrapping_neg(), p.wrapping_neg().wrapping_sub(1)]);
    }
    // Ties and their neighbours where 53, 24 and 8 significant bits are kept.
    for keep in [53u32, 24, 8] {
        for top in [63u32, 62, 40, keep + 1, keep + 3].into_iter().filter(|&t| t >= keep && t < 64) {
            let shift = top + 1 - keep;
            for _ in 0..8 {
                let sig = (rng.next_u64() | (1 << 63)) >> (64 - keep);
                let half = 1u64 << (shift - 1);
                let x = sig << shift;
                one.extend([x | half, (x | half) - 1, (x | half) + 1, (x | half).wrapping_neg(), ((x | half) + 1).wrapping_neg()]);
            }
        }
    }
    one.extend((0..SAMPLES).map(|_| {
        let r = rng.next_u64();
        let s = rng.next_u64();
        if s & 1 == 0 { r >> (s % 64) } else { (r >> (s % 64)).wrapping_neg() }
    }));
    let modes = ["rn", "rz", "rm", "rp"];
    for to in ["f32", "f64", "bf16"] {
        for src in ["u64", "s64"] {
            let body = modes.iter().enumerate().map(|(k, r)| format!("cvt.{r}.{to}.{src} %d{k}, %s0;")).collect::<Vec<_>>().join("\n    ");
            let v = Variant { body, srcs: vec![src], dsts: dst(4, to) };
            sweep_one(v, &one, &move |a| {
                modes.iter().map(|r| Expect::Bits(fref::cvt_from_int64(to, src == "s64", round_of(r), a[0]))).collect()
            });
        }
    }
    let ints = int32_to_f32_rows(&mut rng);
    for src in ["u32", "s32"] {
        let body = modes.iter().enumerate().map(|(k, r)| format!("cvt.{r}.f32.{src} %d{k}, %s0;")).collect::<Vec<_>>().join("\n    ");
        sweep_one(Variant { body, srcs: vec![src], dsts: dst(4, "f32") }, &ints, &move |a| {
            modes.iter().map(|r| fref::cvt_f32_from(src, round_of(r), a[0])).collect()
        });
    }
}

/// 32-bit integers for conversion to f32: the edge table, ties and near-ties above 2^24, random.
fn int32_to_f32_rows(rng: &mut Rng) -> Vec<u64> {
    let mut ints: Vec<u64> = U32_EDGES.iter().map(|&x| x as u64).collect();
    for k in 24..32 {
        for d in [0u64, 1, 2, 3, 5] {
            let x = (1u64 << k) + (d << (k - 24));
            ints.extend([x & 0xffff_ffff, (x + 1) & 0xffff_ffff, (x - 1) & 0xffff_ffff, x.wrapping_neg() & 0xffff_ffff]);
        }
    }
    ints.extend((0..SAMPLES).map(|_| rng.next_u64() & 0xffff_ffff));
    ints
}

/// `cvt.{rz,rm,rp}.f32.{u32,s32}` round through f64 where it exists; without it (`lower`'s
/// `no_float64`, `split_int64`) on the integer widened to 64 bits. Ties and near-ties above
/// 2^24, the edge table and random values, both backends, against rustc_apfloat; each kernel
/// must translate without f64 (`refuse_float64`).
#[test]
fn cvt_int32_to_f32_directed_without_f64() {
    use ptxcross_tests::ptx_ref::half::round_of;
    let ints = int32_to_f32_rows(&mut Rng(111));
    let options = [LowerOptions { no_float64: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) }, LowerOptions { split_int64: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) }];
    let modes = ["rz", "rm", "rp"];
    for (i, src) in ["u32", "s32"].into_iter().enumerate() {
        for o in [&options[i], &options[1 - i]] {
            let body = modes.iter().enumerate().map(|(k, r)| format!("cvt.{r}.f32.{src} %d{k}, %s0;")).collect::<Vec<_>>().join("\n    ");
            let v = Variant { body, srcs: vec![src], dsts: vec!["f32"; 3] };
            let file = ptxcross_frontend::SourceFile::new("sweep.ptx", v.ptx());
            let module = ptxcross::translate::frontend(&file, o).unwrap_or_else(|e| panic!("{e}"));
            ptxcross::translate::refuse_float64(&module, &file).unwrap_or_else(|e| panic!("cvt.f32.{src}: {e}"));
            sweep_one_with(v, &ints, &move |a| modes.iter().map(|r| fref::cvt_f32_from(src, round_of(r), a[0])).collect(), o.clone());
        }
    }
}

/// `.relu` on a conversion to a half type takes only .f32 sources (§9.7.10.20; ptxas of CUDA 13
/// refuses the others, "Unexpected instruction types specified for 'cvt'"): refused, naming
/// the instruction's position.
#[test]
fn cvt_relu_from_non_f32_refused() {
    for (dst, src) in [("bf16", "s64"), ("f16", "s32"), ("bf16", "u16"), ("bf16", "f16"), ("f16", "f64")] {
        let body = format!("cvt.rz.relu.{dst}.{src} %d0, %s0;");
        let v = Variant { body: body.clone(), srcs: vec![src], dsts: vec![dst] };
        let text = v.ptx();
        let (line, col) = text.lines().enumerate().find_map(|(i, l)| l.find("cvt.rz.relu").map(|c| (i + 1, c + 1))).unwrap();
        let file = ptxcross_frontend::SourceFile::new("relu.ptx", text);
        let err = match ptxcross::translate::frontend(&file, &LowerOptions::default()) {
            Ok(_) => panic!("`{body}` translated"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(&format!("relu.ptx:{line}:{col}: invalid: `.relu`")), "`{body}`: {err}");
    }
}

/// `cvt.pack.sat` (§9.7.10.21), every destination type, and `.sat` on half → integer `cvt`
/// (redundant: float-to-integer conversions clamp anyway), every f16/bf16 input.
#[test]
fn cvt_pack_sat_and_half_to_int_sat() {
    let mut rng = Rng(110);
    let mut small: Vec<u64> = U32_EDGES.iter().map(|&x| x as u64).collect();
    small.extend((-300i64..300).map(|x| x as u32 as u64));
    let mut three = Vec::new();
    for _ in 0..SAMPLES {
        let pick = |r: &mut Rng| small[(r.next_u64() % small.len() as u64) as usize];
        three.extend([pick(&mut rng), pick(&mut rng), rng.next_u64() & 0xffff_ffff]);
    }
    for (ct, bits) in [("u16", 16u32), ("s16", 16), ("u8", 8), ("s8", 8), ("u4", 4), ("s4", 4), ("u2", 2), ("s2", 2)] {
        let signed = ct.starts_with('s');
        if bits == 16 {
            sweep_one(Variant::inst(&format!("cvt.pack.sat.{ct}.s32"), "b32", &["s32", "s32"]), &three.chunks(3).flat_map(|r| [r[0], r[1]]).collect::<Vec<_>>(), &move |a| {
                vec![Expect::Bits(iref::cvt_pack(bits, signed, a[0], a[1], None))]
            });
        } else {
            sweep_one(Variant::inst(&format!("cvt.pack.sat.{ct}.s32.b32"), "b32", &["s32", "s32", "b32"]), &three, &move |a| {
                vec![Expect::Bits(iref::cvt_pack(bits, signed, a[0], a[1], Some(a[2])))]
            });
        }
    }
    use ptxcross_tests::ptx_ref::half::Fmt;
    let halves: Vec<u64> = (0..1u64 << 16).collect();
    for (fmt, ft) in [(Fmt::F16, "f16"), (Fmt::Bf16, "bf16")] {
        for (it, bits, signed) in [("s8", 8u32, true), ("u16", 16, false), ("s32", 32, true), ("u64", 64, false)] {
            let v = Variant {
                body: format!("cvt.rzi.{it}.{ft} %d0, %s0;\n    cvt.rzi.sat.{it}.{ft} %d1, %s0;"),
                srcs: vec!["b16"],
                dsts: dst(2, it),
            };
            sweep_one(v, &halves, &move |a| {
                let x = fmt.to_f64(a[0] as u16).trunc();
                let (lo, hi) = if signed { (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1) - 1.0) } else { (0.0, 2f64.powi(bits as i32) - 1.0) };
                // `as` saturates: 2^64 − 1 is not an f64, its neighbour 2^64 becomes u64::MAX.
                let r = if x.is_nan() { fref::cvt_nan_to_int(ft, it) } else if signed { x.clamp(lo, hi) as i64 as u64 } else { x.clamp(lo, hi) as u64 };
                let r = if bits == 64 { r } else { r & ((1u64 << bits) - 1) };
                vec![Expect::Bits(r), Expect::Bits(r)]
            });
        }
    }
}

/// `isspacep` (§9.7.10.18) on generic addresses of a shared variable, a local variable and
/// global memory (at offsets inside them): each is in its own window only; no generic address
/// is a kernel parameter's. And `.L2::cache_hint` loads with a `createpolicy` policy
/// (§9.7.10.17): hints, the loaded value is the memory's.
#[test]
fn isspacep_windows_and_cache_hints() {
    let body = "{
    .shared .align 4 .b8 xs[16];
    .local .align 4 .b8 xl[16];
    .reg .b64 %a<5>;
    mov.u64 %a0, xs;
    cvta.shared.u64 %a0, %a0;
    mov.u64 %a1, xl;
    cvta.local.u64 %a1, %a1;
    cvt.u64.u32 %a3, %s0;
    and.b64 %a3, %a3, 15;
    add.u64 %a0, %a0, %a3;
    add.u64 %a1, %a1, %a3;
    add.u64 %a2, %rdin, %a3;
    isspacep.shared %d0, %a0;
    isspacep.global %d1, %a0;
    isspacep.local %d2, %a0;
    isspacep.shared::cluster %d3, %a0;
    isspacep.shared %d4, %a1;
    isspacep.global %d5, %a1;
    isspacep.local %d6, %a1;
    isspacep.shared::cta %d7, %a2;
    isspacep.global %d8, %a2;
    isspacep.local %d9, %a2;
    isspacep.param %d10, %a2;
    createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %a4, 0.5;
    ld.global.L2::cache_hint.L2::128B.u32 %d11, [%rdin], %a4;
    }";
    let mut dsts = dst(11, "pred");
    dsts.push("u32");
    let v = Variant { body: body.into(), srcs: vec!["u32"], dsts };
    let mut rng = Rng(111);
    let inputs: Vec<u64> = (0..256).map(|_| rng.next_u64() & 0xffff_ffff).collect();
    sweep_one(v, &inputs, &|a| {
        let mut e: Vec<Expect> = [1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0].iter().map(|&b| Expect::Bits(b)).collect();
        e.push(Expect::Bits(a[0]));
        e
    });
}

/// Every width of the plain integer arithmetic (§9.7.1.1–4, 8–13) and comparisons
/// (§9.7.7.2): one launch per type computing add, sub, mul/mad .lo/.hi/.wide, min, max, div,
/// rem, abs, neg and the six orderings, against i128 arithmetic on the spec's formulas.
/// Divisors are nonzero (§9.7.1.8 leaves x/0 unspecified).
#[test]
fn integer_every_width() {
    let mut rng = Rng(112);
    let edges: Vec<u64> = U64_EDGES.iter().copied().chain(U32_EDGES.iter().map(|&x| x as u64)).chain([0x7fff, 0x8000, 0xffff, 0x8001, 0xfffe]).collect();
    let three = rows(3, &edges, 1 << 15, SAMPLES, &mut || {
        let r = rng.next_u64();
        r >> (r % 64)
    });
    for (t, bits, signed) in [("u16", 16u32, false), ("s16", 16, true), ("u32", 32, false), ("s32", 32, true), ("u64", 64, false), ("s64", 64, true)] {
        let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let val = move |x: u64| -> i128 { if signed { (((x & m) << (64 - bits)) as i64 >> (64 - bits)) as i128 } else { (x & m) as i128 } };
        let inputs: Vec<u64> = three.chunks(3).filter(|r| r[1] & m != 0).flatten().copied().collect();
        let mut body = vec![
            format!("add.{t} %d0, %s0, %s1;"),
            format!("sub.{t} %d1, %s0, %s1;"),
            format!("mul.lo.{t} %d2, %s0, %s1;"),
            format!("mul.hi.{t} %d3, %s0, %s1;"),
            format!("mad.lo.{t} %d4, %s0, %s1, %s2;"),
            format!("mad.hi.{t} %d5, %s0, %s1, %s2;"),
            format!("min.{t} %d6, %s0, %s1;"),
            format!("max.{t} %d7, %s0, %s1;"),
            format!("div.{t} %d8, %s0, %s1;"),
            format!("rem.{t} %d9, %s0, %s1;"),
        ];
        let mut dsts = dst(10, t);
        for (k, c) in ["lt", "le", "gt", "ge", "eq", "ne"].iter().enumerate() {
            body.push(format!("setp.{c}.{t} %d{}, %s0, %s1;", 10 + k));
            dsts.push("pred");
        }
        if signed {
            body.push(format!("abs.{t} %d16, %s0;"));
            body.push(format!("neg.{t} %d17, %s0;"));
            dsts.extend([t, t]);
        }
        let wide = match t {
            "u16" => Some("u32"),
            "s16" => Some("s32"),
            "u32" => Some("u64"),
            "s32" => Some("s64"),
            _ => None,
        };
        if let Some(w) = wide {
            let n = dsts.len();
            body.push(format!("mul.wide.{t} %d{n}, %s0, %s1;"));
            body.push(format!("{{ .reg .{w} %wc; cvt.{w}.{t} %wc, %s2; mad.wide.{t} %d{}, %s0, %s1, %wc; }}", n + 1));
            dsts.extend([w, w]);
        }
        let v = Variant { body: body.join("\n    "), srcs: vec![t, t, t], dsts };
        sweep_one(v, &inputs, &move |a| {
            let (x, y, z) = (val(a[0]), val(a[1]), val(a[2]));
            let wrap = |v: i128| Expect::Bits(v as u64 & m);
            let p = x * y;
            let hi = p >> bits;
            let (q, r) = if signed && x == val(1u64 << (bits - 1)) && y == -1 { (x, 0) } else { (x / y, x % y) };
            let mut e = vec![wrap(x + y), wrap(x - y), wrap(p), wrap(hi), wrap(p + z), wrap(hi + z), wrap(x.min(y)), wrap(x.max(y)), wrap(q), wrap(r)];
            e.extend([x < y, x <= y, x > y, x >= y, x == y, x != y].map(|b| Expect::Bits(b as u64)));
            if signed {
                e.extend([wrap(x.abs()), wrap(-x)]);
            }
            if bits < 64 {
                let wm = if bits == 32 { u64::MAX } else { 0xffff_ffff };
                let wz = if signed { z } else { z & m as i128 };
                e.extend([Expect::Bits(p as u64 & wm), Expect::Bits((p + wz) as u64 & wm)]);
            }
            e
        });
    }
}

/// Logic at every width (§9.7.9.1–5): and/or/xor/not/cnot on .b16/.b32/.b64 and on
/// predicates, one launch per width.
#[test]
fn logic_every_width() {
    let mut rng = Rng(113);
    let edges: Vec<u64> = U64_EDGES.to_vec();
    let two = rows(2, &edges, 1 << 12, SAMPLES, &mut || {
        let r = rng.next_u64();
        if r & 3 == 0 { 0 } else { r >> (r % 64) }
    });
    for (t, bits) in [("b16", 16u32), ("b32", 32), ("b64", 64)] {
        let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let body = format!(
            "and.{t} %d0, %s0, %s1;\n    or.{t} %d1, %s0, %s1;\n    xor.{t} %d2, %s0, %s1;\n    not.{t} %d3, %s0;\n    cnot.{t} %d4, %s0;"
        );
        sweep_one(Variant { body, srcs: vec![t, t], dsts: dst(5, t) }, &two, &move |a| {
            let (x, y) = (a[0] & m, a[1] & m);
            [x & y, x | y, x ^ y, !x & m, (x == 0) as u64].map(Expect::Bits).to_vec()
        });
    }
    let preds: Vec<u64> = (0..4).flat_map(|k| [k & 1, k >> 1]).collect();
    let body = "and.pred %d0, %s0, %s1;\n    or.pred %d1, %s0, %s1;\n    xor.pred %d2, %s0, %s1;\n    not.pred %d3, %s0;\n    and.pred %d4, %s0, !%s1;";
    sweep_one(Variant { body: body.into(), srcs: vec!["pred", "pred"], dsts: dst(5, "pred") }, &preds, &|a| {
        let (x, y) = (a[0] != 0, a[1] != 0);
        [x & y, x | y, x ^ y, !x, x & !y].map(|b| Expect::Bits(b as u64)).to_vec()
    });
}

/// `mov` pack/unpack (§9.7.10.4): d = a.x | a.y << n …, the unpack's inverse, with `_` sinks.
#[test]
fn mov_pack_unpack() {
    let mut rng = Rng(114);
    let inputs: Vec<u64> = U64_EDGES.iter().copied().chain((0..SAMPLES).map(|_| rng.next_u64())).collect();
    let body = "mov.b64 {%d0, %d1, _, %d2}, %s0;\n    mov.b64 {_, %d3}, %s0;\n    mov.b32 {%d4, _}, %d3;\n    mov.b64 %d5, {%d2, %d0, %d1, %d0};\n    { .reg .b8 %q<4>; mov.b32 {%q0, %q1, %q2, %q3}, %d3; mov.b32 %d6, {%q3, %q2, %q1, %q0}; }";
    let v = Variant { body: body.into(), srcs: vec!["b64"], dsts: vec!["b16", "b16", "b16", "b32", "b16", "b64", "b32"] };
    sweep_one(v, &inputs, &|a| {
        let x = a[0];
        let h = |i: u32| (x >> (16 * i)) & 0xffff;
        let hi = x >> 32;
        vec![
            Expect::Bits(h(0)),
            Expect::Bits(h(1)),
            Expect::Bits(h(3)),
            Expect::Bits(hi),
            Expect::Bits(hi & 0xffff),
            Expect::Bits(h(3) | (h(0) << 16) | (h(1) << 32) | (h(0) << 48)),
            Expect::Bits((hi as u32).swap_bytes() as u64),
        ]
    });
}

/// The f64 forms the sweeps above leave out (audit of issue #9): `add/sub/mul.rn.f64` (and the
/// legacy forms without a rounding modifier, which are `.rn`, §9.7.3.3–5), `mad.rnd.f64` ("the
/// same as fma.f64", §9.7.3.7; a legacy `mad.f64` without a rounding modifier "will map to
/// mad.rn.f64"), `mad.rnd{.ftz}{.sat}.f32` ("the same as fma" on sm_20+), `abs/neg.f64` (NVIDIA's
/// sm_90 keeps an f64 NaN's payload and clears or flips its sign: measured through the CUDA
/// driver on an H100, driver 580, 2026-11-26, see `lower/src/inst/float.rs`), round to an
/// integral f64 (`cvt.irnd{.sat}.f64.f64`), and `setp` on f64 with all 14 comparisons and `p|q`
/// (§9.7.7.2).
#[test]
fn f64_rn_arith_mad_abs_neg_setp() {
    use ptxcross_tests::ptx_ref::half::round_of;
    sweep::all_variants(|| {
        let mut rng = Rng(120);
        let two = rows(2, ptxcross_tests::sweep::F64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
        let three = rows(3, ptxcross_tests::sweep::F64_EDGES, 1 << 14, SAMPLES, &mut || rng.next_u64());
        for (name, op) in [("add.rn.f64", "add"), ("sub.rn.f64", "sub"), ("mul.rn.f64", "mul"), ("add.f64", "add"), ("sub.f64", "sub"), ("mul.f64", "mul")] {
            sweep_one(Variant::inst(name, "f64", &["f64", "f64"]), &two, &move |a| {
                vec![fref::arith_rounded_f64(op, a[0], a[1], rustc_apfloat::Round::NearestTiesToEven)]
            });
        }
        for rnd in ["rn", "rz", "rm", "rp"] {
            let round = round_of(rnd);
            sweep_one(Variant::inst(&format!("mad.{rnd}.f64"), "f64", &["f64", "f64", "f64"]), &three, &move |a| {
                vec![fref::fma_rounded_f64(a[0], a[1], a[2], round)]
            });
        }
        sweep_one(Variant::inst("mad.f64", "f64", &["f64", "f64", "f64"]), &three, &|a| {
            vec![fref::fma_rounded_f64(a[0], a[1], a[2], rustc_apfloat::Round::NearestTiesToEven)]
        });
        let f3 = {
            let mut rng = Rng(121);
            rows(3, &f32_edges(), 1 << 14, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff)
        };
        for (rnd, ftz, sat) in [("rn", false, false), ("rn", true, true), ("rz", false, true), ("rm", true, false), ("rp", false, false)] {
            let name = format!("mad.{rnd}{}{}.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
            let round = round_of(rnd);
            sweep_one(Variant::inst(&name, "f32", &["f32", "f32", "f32"]), &f3, &move |a| vec![fref::arith_f32("fma", round, a, ftz, sat)]);
        }
        let one: Vec<u64> = two.iter().step_by(2).copied().collect();
        sweep_one(Variant { body: "abs.f64 %d0, %s0;\n    neg.f64 %d1, %s0;".into(), srcs: vec!["f64"], dsts: dst(2, "f64") }, &one, &|a| {
            // A NaN comes out quieted with its own sign (NVIDIA's `DADD R, -RZ, |x|`/`-x`;
            // §9.7.3.8: `abs.f64` passes a NaN through, §9.7.3.9: `neg`'s NaN unspecified).
            if f64::from_bits(a[0]).is_nan() {
                let quiet = a[0] | 1 << 51;
                return vec![Expect::Bits(quiet), Expect::Bits(quiet)];
            }
            vec![Expect::Bits(a[0] & !(1 << 63)), Expect::Bits(a[0] ^ (1 << 63))]
        });
        // Round to an integral f64 (§9.7.9.21 "Floating Point Notes"), with `.sat`.
        for round in IntRound::ALL {
            let body = format!("cvt.{r}.f64.f64 %d0, %s0;\n    cvt.{r}.sat.f64.f64 %d1, %s0;", r = round.suffix());
            sweep_one(Variant { body, srcs: vec!["f64"], dsts: dst(2, "f64") }, &one, &move |a| {
                let x = round.f64(f64::from_bits(a[0]));
                vec![fref::exact_f64(x), fref::exact_f64(fref::sat_f64(x))]
            });
        }
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"] {
            let v = Variant { body: format!("setp.{cmp}.f64 %d0|%d1, %s0, %s1;"), srcs: vec!["f64", "f64"], dsts: dst(2, "pred") };
            sweep_one(v, &two, &move |a| {
                let r = fref::compare(cmp, f64::from_bits(a[0]), f64::from_bits(a[1]));
                vec![Expect::Bits(r as u64), Expect::Bits(!r as u64)]
            });
        }
    });
}

/// `setp.CmpOp.BoolOp` (§9.7.7.2: "p = (a CmpOp b) BoolOp c; q = (!(a CmpOp b)) BoolOp c") on
/// integer and float operands, with `c` and `!c`, and `set.CmpOp.BoolOp` (§9.7.7.1) on f64.
#[test]
fn setp_set_bool_op_combining() {
    sweep::all_variants(|| {
        let mut rng = Rng(122);
        let f = f32_edges();
        let mut rows3 = Vec::new();
        for (i, &x) in f.iter().enumerate() {
            for &y in f.iter().skip(i % 3).step_by(3) {
                rows3.extend([x, y, (x ^ y) & 1]);
            }
        }
        for _ in 0..SAMPLES {
            let r = rng.next_u64();
            rows3.extend([r & 0xffff_ffff, if r & 0x100 == 0 { r >> 32 } else { r & 0xffff_ffff }, (r >> 9) & 1]);
        }
        let d3: Vec<u64> = {
            let mut rng = Rng(123);
            let e = ptxcross_tests::sweep::F64_EDGES;
            let mut v = Vec::new();
            for &x in e {
                for &y in e {
                    v.extend([x, y, (x ^ y ^ (x >> 7)) & 1]);
                }
            }
            for _ in 0..SAMPLES {
                let r = rng.next_u64();
                v.extend([r, if r & 2 == 0 { r } else { rng.next_u64() }, r & 1]);
            }
            v
        };
        for bop in ["and", "or", "xor"] {
            let combine = move |r: bool, c: bool| match bop {
                "and" => r && c,
                "or" => r || c,
                _ => r ^ c,
            };
            for (t, cmps) in [("s32", &["lt", "ge", "ne"][..]), ("u64", &["gt", "le", "eq"][..]), ("f32", &["ltu", "num", "eq"][..]), ("f64", &["gtu", "nan", "ne"][..])] {
                for &cmp in cmps {
                    let body = format!("setp.{cmp}.{bop}.{t} %d0|%d1, %s0, %s1, %s2;\n    setp.{cmp}.{bop}.{t} %d2|%d3, %s0, %s1, !%s2;");
                    let v = Variant { body, srcs: vec![t, t, "pred"], dsts: dst(4, "pred") };
                    let inputs = if t.ends_with("64") { &d3 } else { &rows3 };
                    sweep_one(v, inputs, &move |a| {
                        let r = match t {
                            "s32" => {
                                let (x, y) = (a[0] as u32 as i32, a[1] as u32 as i32);
                                match cmp {
                                    "lt" => x < y,
                                    "ge" => x >= y,
                                    _ => x != y,
                                }
                            }
                            "u64" => match cmp {
                                "gt" => a[0] > a[1],
                                "le" => a[0] <= a[1],
                                _ => a[0] == a[1],
                            },
                            "f32" => fref::compare(cmp, f32::from_bits(a[0] as u32) as f64, f32::from_bits(a[1] as u32) as f64),
                            _ => fref::compare(cmp, f64::from_bits(a[0]), f64::from_bits(a[1])),
                        };
                        let c = a[2] & 1 != 0;
                        [combine(r, c), combine(!r, c), combine(r, !c), combine(!r, !c)].map(|b| Expect::Bits(b as u64)).to_vec()
                    });
                }
            }
            let body = format!("set.leu.{bop}.u32.f64 %d0, %s0, %s1, %s2;\n    set.num.{bop}.f32.f64 %d1, %s0, %s1, !%s2;");
            let v = Variant { body, srcs: vec!["f64", "f64", "pred"], dsts: vec!["u32", "f32"] };
            sweep_one(v, &d3, &move |a| {
                let (x, y) = (f64::from_bits(a[0]), f64::from_bits(a[1]));
                let c = a[2] & 1 != 0;
                let p = combine(fref::compare("leu", x, y), c);
                let q = combine(fref::compare("num", x, y), !c);
                vec![Expect::Bits(if p { 0xffff_ffff } else { 0 }), Expect::Bits(if q { 0x3f80_0000 } else { 0 })]
            });
        }
    });
}

/// `ld/st` with `.v2/.v4` of 8-, 16-, 32- and 64-bit elements in the global, shared, local and
/// const spaces and through generic addresses (`cvta`), `ldu.global` (§9.7.10.10: an address
/// common to the warp, here a `.global` table), and the cache and eviction qualifiers that do
/// not change a single thread's values (§9.7.10.8/11: `.ca/.cg/.cs/.lu/.cv/.wb/.wt`, `.nc`,
/// `.L1::evict_*`, `.L1::no_allocate`, `.L2::{64,128,256}B`, `.volatile`, `.relaxed.gpu`). Each
/// thread moves its own 32 bytes through every space; the reference is where each byte must
/// land (vector element i at byte offset i·size, little-endian). Every access is aligned to its
/// whole size, as NVIDIA requires (§5.4.5).
#[test]
fn ld_st_vectors_every_space_and_qualifier() {
    let body = format!(
        "{{
    .shared .align 16 .b8 sh[{shared}];
    .local .align 16 .b8 lo[48];
    .const .align 16 .b32 ct[4] = {{0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00}};
    .global .align 16 .b32 gt[4] = {{0xcafef00d, 0x01234567, 0x89abcdef, 0xfedcba98}};
    .reg .b64 %m<8>;
    .reg .b32 %w<8>;
    .reg .b16 %h<8>;
    mul.wide.u32 %m0, %xtid, 32;
    mov.u64 %m1, sh;
    add.u64 %m0, %m0, %m1;
    ld.global.nc.v4.u32 {{%w0, %w1, %w2, %w3}}, [%rdin];
    ld.global.L1::evict_last.v2.u64 {{%m2, %m3}}, [%rdin+16];
    st.shared.v4.u32 [%m0], {{%w0, %w1, %w2, %w3}};
    st.shared.cg.v2.u64 [%m0+16], {{%m2, %m3}};
    ld.shared.v2.u64 {{%d0, %d1}}, [%m0];
    ld.shared.v4.u16 {{%h0, %h1, %h2, %h3}}, [%m0+16];
    mov.b64 %d2, {{%h0, %h1, %h2, %h3}};
    ld.shared.ca.v4.u8 {{%h4, %h5, %h6, %h7}}, [%m0+24];
    mov.b64 %d3, {{%h4, %h5, %h6, %h7}};
    st.local.wt.v2.u64 [lo], {{%s1, %s0}};
    st.local.cs.v4.b16 [lo+16], {{%h0, %h1, %h2, %h3}};
    st.local.v2.u32 [lo+24], {{%w2, %w3}};
    st.local.v2.b8 [lo+30], {{%h7, %h6}};
    ld.local.lu.v4.u32 {{%w4, %w5, %w6, %w7}}, [lo];
    mov.b64 %d4, {{%w4, %w5}};
    mov.b64 %d5, {{%w6, %w7}};
    ld.local.v2.b32 {{%w4, %w5}}, [lo+16];
    mov.b64 %d6, {{%w4, %w5}};
    ld.local.v2.u8 {{%h0, %h1}}, [lo+30];
    mov.b32 %d7, {{%h0, %h1}};
    mov.u64 %m4, lo;
    cvta.local.u64 %m5, %m4;
    st.v2.u32 [%m5+32], {{%w1, %w0}};
    // Strong 16-byte vectors take a lock (lower `wide_lock`, tested in simt_atomics), which
    // WGSL cannot express: the same words as two strong 8-byte loads.
    ld.volatile.u64 %m6, [%m5+16];
    ld.volatile.u64 %d8, [%m5+24];
    ld.local.v2.u32 {{%w4, %w5}}, [lo+32];
    mov.b64 %d9, {{%w5, %w4}};
    cvta.shared.u64 %m1, %m0;
    st.wb.v4.u32 [%m1], {{%w3, %w2, %w1, %w0}};
    ld.relaxed.gpu.shared.u64 %d10, [%m0];
    ld.relaxed.gpu.shared.u64 %m7, [%m0+8];
    ld.v2.u32 {{%w4, %w5}}, [%m1+8];
    mov.b64 %d11, {{%w4, %w5}};
    ld.const.v4.u32 {{%w0, %w1, %w2, %w3}}, [ct];
    mov.b64 %d12, {{%w1, %w3}};
    mov.u64 %m2, ct;
    cvta.const.u64 %m2, %m2;
    ld.v4.u16 {{%h0, %h1, %h2, %h3}}, [%m2+8];
    mov.b32 %d13, {{%h1, %h2}};
    ldu.global.v4.u32 {{%w0, %w1, %w2, %w3}}, [gt];
    mov.b64 %d14, {{%w2, %w0}};
    ldu.global.v2.u64 {{%m6, %m7}}, [gt];
    xor.b64 %d15, %m6, %m7;
    st.global.L1::evict_first.v4.u32 [%rdin], {{%w3, %w2, %w1, %w0}};
    ld.global.cv.L2::64B.v2.u32 {{%w0, %w1}}, [%rdin+8];
    mov.b64 %d16, {{%w0, %w1}};
    ld.relaxed.gpu.global.L2::128B.u64 %d17, [%rdin+16];
    ld.global.L1::no_allocate.L2::256B.v2.u64 {{%m6, %d18}}, [%rdin+16];
    }}",
        shared = 32 * sweep::BLOCK
    );
    let mut dsts = vec!["b64"; 19];
    dsts[7] = "b32";
    dsts[13] = "b32";
    let v = Variant { body, srcs: vec!["b64"; 4], dsts };
    let mut rng = Rng(124);
    let inputs: Vec<u64> = U64_EDGES.iter().copied().chain(U64_EDGES.iter().rev().copied()).chain((0..4 * SAMPLES).map(|_| rng.next_u64())).collect();
    let inputs = &inputs[..inputs.len() / 4 * 4];
    sweep_one(v, inputs, &|a| {
        let (s0, s1, s2, s3) = (a[0], a[1], a[2], a[3]);
        let lo = |x: u64| x & 0xffff_ffff;
        let hi = |x: u64| x >> 32;
        let byte = |x: u64, i: u32| (x >> (8 * i)) & 0xff;
        // The low four bytes of s3, each zero-extended into a 16-bit lane.
        let bytes16 = byte(s3, 0) | byte(s3, 1) << 16 | byte(s3, 2) << 32 | byte(s3, 3) << 48;
        // lo[30], lo[31] = bytes 3 and 2 of s3 (the low bytes of %h7, %h6), over s1's high
        // word stored at lo[28..32).
        let lo30 = byte(s3, 3) | byte(s3, 2) << 16;
        let lo24 = lo(s1) | (hi(s1) & 0xffff) << 32 | byte(s3, 3) << 48 | byte(s3, 2) << 56;
        let ct: [u64; 4] = [0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00];
        let gt: [u64; 4] = [0xcafef00d, 0x01234567, 0x89abcdef, 0xfedcba98];
        vec![
            Expect::Bits(s0),
            Expect::Bits(s1),
            Expect::Bits(s2),
            Expect::Bits(bytes16),
            Expect::Bits(s1),
            Expect::Bits(s0),
            Expect::Bits(s2),
            Expect::Bits(lo30),
            Expect::Bits(lo24),
            // The generic local store of (hi s0, lo s0), read back as (w5, w4).
            Expect::Bits(s0),
            // Shared after the generic store of (hi s1, lo s1, hi s0, lo s0).
            Expect::Bits(hi(s1) | lo(s1) << 32),
            Expect::Bits(hi(s0) | lo(s0) << 32),
            Expect::Bits(ct[1] | ct[3] << 32),
            // Bytes 10..14 of ct: ct[2]'s high half, ct[3]'s low half.
            Expect::Bits(ct[2] >> 16 | (ct[3] & 0xffff) << 16),
            Expect::Bits(gt[2] | gt[0] << 32),
            Expect::Bits((gt[0] | gt[1] << 32) ^ (gt[2] | gt[3] << 32)),
            // in[0..16) after the store of (gt[3], gt[2], gt[1], gt[0]).
            Expect::Bits(gt[1] | gt[0] << 32),
            Expect::Bits(s2),
            Expect::Bits(s3),
        ]
    });
}

/// One instruction of one 32-bit source (as `srcs`) and its reference, for the exhaustive sweep.
type Unary = (String, &'static str, &'static str, Box<dyn Fn(&[u64]) -> Vec<Expect> + Sync>);

/// Every single-source variant whose input is 32 bits (so an exhaustive sweep is 2^32 values)
/// and that the CI sweeps above only sample: correctly rounded `rcp`/`sqrt`, float → integer and
/// integer → float `cvt`, `cvt.f64.f32`, `cvt` to f16/bf16, `abs/neg`, `testp`, and the 32-bit
/// bit instructions. (`cvt.f32.f32`, `.approx`, tf32 and the 16-bit formats have their own
/// exhaustive sweeps.) The references are the CI sweeps' own.
fn unary_32_variants() -> Vec<Unary> {
    use ptxcross_tests::ptx_ref::half::{self as href, round_of, Fmt};
    let mut v: Vec<Unary> = Vec::new();
    for rnd in ["rn", "rz", "rm", "rp"] {
        for ftz in [false, true] {
            let f = if ftz { ".ftz" } else { "" };
            let round = round_of(rnd);
            v.push((format!("rcp.{rnd}{f}.f32"), "f32", "f32", Box::new(move |a| vec![fref::div_rounded_f32(1f32.to_bits() as u64, a[0], round, ftz)])));
            v.push((format!("sqrt.{rnd}{f}.f32"), "f32", "f32", Box::new(move |a| vec![fref::sqrt_rounded_f32(a[0], round, ftz)])));
        }
        for src in ["s32", "u32"] {
            v.push((format!("cvt.{rnd}.f32.{src}"), "f32", src, Box::new(move |a| vec![fref::cvt_f32_from(src, round_of(rnd), a[0])])));
        }
        for fmt in [Fmt::F16, Fmt::Bf16] {
            for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
                if (relu || satfinite) && !matches!(rnd, "rn" | "rz") {
                    continue;
                }
                let name = format!("cvt.{rnd}{}{}.{}.f32", if relu { ".relu" } else { "" }, if satfinite { ".satfinite" } else { "" }, fmt.suffix());
                let r = round_of(rnd);
                v.push((name, "b16", "f32", Box::new(move |a| vec![href::cvt_half_f32(a[0] as u32, fmt, r, relu, satfinite)])));
            }
        }
    }
    for round in IntRound::ALL {
        for dt in ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"] {
            for ftz in [false, true] {
                let name = format!("cvt.{}{}.{dt}.f32", round.suffix(), if ftz { ".ftz" } else { "" });
                v.push((name, dt, "f32", Box::new(move |a| {
                    let x = f32::from_bits(a[0] as u32);
                    vec![float_to_int(round, dt, if ftz { fref::ftz(x) } else { x } as f64, false)]
                })));
            }
        }
    }
    for ftz in [false, true] {
        for sat in [false, true] {
            let name = format!("cvt{}{}.f64.f32", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
            v.push((name, "f64", "f32", Box::new(move |a| {
                let x = f32::from_bits(a[0] as u32);
                let x = if ftz { fref::ftz(x) } else { x } as f64;
                vec![fref::exact_f64(if sat { fref::sat_f64(x) } else { x })]
            })));
        }
        let f = if ftz { ".ftz" } else { "" };
        v.push((format!("abs{f}.f32"), "f32", "f32", Box::new(move |a| {
            let x = a[0] as u32;
            let x = if ftz && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
            vec![Expect::Bits(if x & 0x7fff_ffff > 0x7f80_0000 { 0x7fff_ffff } else { x & 0x7fff_ffff } as u64)]
        })));
        v.push((format!("neg{f}.f32"), "f32", "f32", Box::new(move |a| {
            let x = a[0] as u32;
            let x = if ftz && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
            vec![Expect::Bits(if x & 0x7fff_ffff > 0x7f80_0000 { 0x7fff_ffff } else { x ^ 0x8000_0000 } as u64)]
        })));
    }
    for op in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"] {
        v.push((format!("testp.{op}.f32"), "pred", "f32", Box::new(move |a| vec![Expect::Bits(fref::testp(op, a[0], false) as u64)])));
    }
    v.push(("popc.b32".into(), "u32", "b32", Box::new(|a| vec![Expect::Bits(a[0].count_ones() as u64)])));
    v.push(("clz.b32".into(), "u32", "b32", Box::new(|a| vec![Expect::Bits((a[0] as u32).leading_zeros() as u64)])));
    v.push(("brev.b32".into(), "b32", "b32", Box::new(|a| vec![Expect::Bits((a[0] as u32).reverse_bits() as u64)])));
    v.push(("abs.s32".into(), "s32", "s32", Box::new(|a| vec![Expect::Bits((a[0] as i32).wrapping_abs() as u32 as u64)])));
    v.push(("neg.s32".into(), "s32", "s32", Box::new(|a| vec![Expect::Bits((a[0] as u32).wrapping_neg() as u64)])));
    v.push(("cnot.b32".into(), "b32", "b32", Box::new(|a| vec![Expect::Bits((a[0] as u32 == 0) as u64)])));
    for ty in ["u32", "s32"] {
        for shiftamt in [false, true] {
            let name = format!("bfind{}.{ty}", if shiftamt { ".shiftamt" } else { "" });
            v.push((name, "u32", ty, Box::new(move |a| vec![Expect::Bits(iref::bfind(32, ty == "s32", shiftamt, a[0]))])));
        }
    }
    for dt in ["u8", "s8", "u16", "s16", "u32"] {
        let (lo, hi): (i64, i64) = match dt {
            "u8" => (0, 255),
            "s8" => (-128, 127),
            "u16" => (0, 65535),
            "s16" => (-32768, 32767),
            _ => (0, u32::MAX as i64),
        };
        let bits: u32 = dt[1..].parse().unwrap();
        v.push((format!("cvt.sat.{dt}.s32"), dt, "s32", Box::new(move |a| {
            vec![Expect::Bits((a[0] as u32 as i32 as i64).clamp(lo, hi) as u64 & ((1u64 << bits) - 1))]
        })));
    }
    v
}

/// Every 32-bit input of each variant of [`unary_32_variants`], on both backends, in 1,024
/// launches of 2^22 threads. Long (all variants: see the README's "Instruction coverage" for
/// the measured rate); select with `PTXCROSS_SWEEP_VARIANT=<text>` (variants whose name
/// contains it), and run a spread slice with `PTXCROSS_SWEEP_CHUNKS=<k>` (k of the 1,024
/// launches, evenly spaced over the input space):
///   PTXCROSS_REQUIRE_GPU=1 PTXCROSS_SWEEP_VARIANT=rcp.rn.f32 cargo test -p ptxcross-tests
///     --test inst_sweep exhaustive_unary_32 -- --ignored --nocapture
#[test]
#[ignore = "exhaustive: 2^32 inputs per variant (see the doc comment)"]
fn exhaustive_unary_32() {
    let Some(gpu) = sweep::gpu() else { return };
    let only = std::env::var("PTXCROSS_SWEEP_VARIANT").unwrap_or_default();
    const CHUNKS: u64 = 1024;
    let step = (1u64 << 32) / CHUNKS;
    let k: u64 = std::env::var("PTXCROSS_SWEEP_CHUNKS").ok().and_then(|n| n.parse().ok()).unwrap_or(CHUNKS).clamp(1, CHUNKS);
    for (name, dt, st, reference) in unary_32_variants().into_iter().filter(|v| v.0.contains(&only)) {
        let s = Sweep::new(&gpu, Variant::inst(&name, dt, &[st])).unwrap_or_else(|e| panic!("`{name}` does not translate: {e}"));
        for b in ptxcross::Backend::ALL {
            let mut total = sweep::Report::default();
            for i in 0..k {
                let start = i * CHUNKS / k * step;
                let inputs: Vec<u64> = (start..start + step).collect();
                total.add(sweep::check(&s, b, &inputs, &*reference));
            }
            sweep::assert_ok(std::slice::from_ref(&total));
            eprintln!("{b:>5} {name:<32} {} values in {:.1} s: {:.0}/s", total.checked, total.seconds, total.per_second());
        }
    }
}
