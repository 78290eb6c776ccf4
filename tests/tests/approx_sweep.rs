//! `.approx` transcendentals (§9.7.3.16–22 and §9.7.4.9/10): every result within the spec's
//! bound of the true value (computed in f64, `ptx_ref::approx`), the special-value tables
//! exact, and the two backends giving identical bits (they run the same IR of correctly
//! rounded operations).
//!
//! - `approx_f32_sampled` / `approx_half_exhaustive`: in CI. f32: the edge tables (zeros,
//!   subnormals, huge values, powers of two, multiples of π/2 near the range's ends, NaN
//!   payloads) and 2^18 sampled inputs per variant; halves: all 65,536 inputs of each lane.
//! - `approx_f32_exhaustive` (ignored): all 2^32 inputs of every f32 variant on both backends,
//!   printing the worst error of each; `cargo test -p ptxcross-tests --test
//!   approx_sweep approx_f32_exhaustive -- --ignored --nocapture` (filter a variant with
//!   `PTXCROSS_APPROX=ex2.approx.f32`).
//!
//! Each prints per variant and backend the values checked, the throughput, the worst error as
//! a fraction of the bound, and the worst absolute error.

use ptxcross::Backend;
use ptxcross_tests::ptx_ref::approx::{self as aref, Fmt, Want};
use ptxcross_tests::ptx_ref::float::ulp_f32_at;
use ptxcross_tests::sweep::{self, Rng, Sweep, Variant, F32_EDGES, F64_EDGES};
use std::time::Instant;

/// Sampled inputs per f32 variant in CI.
const SAMPLES: usize = 1 << 18;

type F32Ref = fn(u32, bool) -> Want;

/// The f32 variants: (instruction, reference, ftz).
fn f32_variants() -> Vec<(String, F32Ref, bool)> {
    let mut v: Vec<(String, F32Ref, bool)> = Vec::new();
    for ftz in [false, true] {
        let f = if ftz { ".ftz" } else { "" };
        v.push((format!("ex2.approx{f}.f32"), aref::ex2_f32, ftz));
        v.push((format!("lg2.approx{f}.f32"), aref::lg2_f32, ftz));
        v.push((format!("sin.approx{f}.f32"), |a, z| aref::sin_cos_f32(a, z, false), ftz));
        v.push((format!("cos.approx{f}.f32"), |a, z| aref::sin_cos_f32(a, z, true), ftz));
        v.push((format!("rsqrt.approx{f}.f32"), aref::rsqrt_f32, ftz));
    }
    v.push(("tanh.approx.f32".to_string(), |a, _| aref::tanh_f32(a), false));
    v
}

/// Edge inputs of every f32 variant.
fn f32_edges() -> Vec<u32> {
    let mut e: Vec<u32> = F32_EDGES.to_vec();
    // Powers of two and their neighbours, both signs.
    for k in 0..254u32 {
        let p = (k + 1) << 23;
        for b in [p, p - 1, p + 1] {
            e.push(b);
            e.push(b | 0x8000_0000);
        }
    }
    // ex2's range ends and integers; lg2 around 1 and √2; rsqrt over [1, 4).
    for x in [-152.0f32, -150.0, -149.5, -149.0, -126.5, -126.0, -125.9, 127.0, 127.99, 128.0, 129.0, 0.5, -0.5, 1.5] {
        e.push(x.to_bits());
    }
    for d in 0..64u32 {
        for c in [0x3f80_0000u32, 0x3fb5_04f3, 0x3f35_04f3, 0x4080_0000] {
            e.push(c.wrapping_add(d));
            e.push(c.wrapping_sub(d));
        }
    }
    // Multiples of π/2 (nearest f32 and neighbours), up to and past sin/cos's exact range.
    for k in (1..64).chain([100, 1000, 2000, 4000, 4095, 4096, 4097, 8191, 8192, 16384, 20860, 20861, 1 << 16, 1 << 20]) {
        let x = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        for d in [-2i32, -1, 0, 1, 2] {
            e.push((x.to_bits() as i32 + d) as u32);
            e.push((x.to_bits() as i32 + d) as u32 | 0x8000_0000);
        }
    }
    // tanh's switch point and saturation.
    for x in [0.55f32, 0.549_999_9, 0.550_000_1, 9.0, 9.1, 9.2, 2.441_406_2e-4, 2.441_406_5e-4] {
        e.push(x.to_bits());
        e.push((-x).to_bits());
    }
    // NaN payloads.
    e.extend([0x7f80_0001, 0xffff_ffff, 0x7fbf_ffff, 0xffc0_0001]);
    e
}

/// Sampled inputs: half uniformly random bits, half in the functions' working ranges.
fn f32_samples(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed);
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let r = rng.next_u64();
        v.push(match i % 4 {
            0 | 1 => r as u32,
            // |x| < 2^8: exponent field 0x60..0x86 (2^-31 … 2^7), either sign.
            2 => ((r as u32) & 0x807f_ffff) | ((0x60 + (r >> 40) as u32 % 40) << 23),
            // [-160, 160] uniformly, or (every 8th) [-32768, 32768] (sin/cos's range).
            _ => {
                let w = if i % 8 == 3 { 32768.0 } else { 160.0 };
                ((((r >> 11) as f64) / (1u64 << 53) as f64 * 2.0 * w - w) as f32).to_bits()
            }
        });
    }
    v
}

/// Worst error of a variant on one backend.
#[derive(Default)]
struct Stats {
    checked: u64,
    seconds: f64,
    worst_ratio: f64,
    worst_ratio_at: u32,
    worst_abs: f64,
    worst_ulps: f64,
    failures: Vec<String>,
    mismatches: u64,
}

impl Stats {
    fn note(&mut self, want: Want, got: u32, fmt: Fmt, input: u32, lane_bits: u32) {
        self.checked += 1;
        if !want.holds(got, fmt) {
            self.mismatches += 1;
            if self.failures.len() < 10 {
                self.failures.push(format!("input {input:#x}: got {got:#x}, expected {want:?}"));
            }
        }
        let r = want.error_ratio(got, fmt);
        if r > self.worst_ratio {
            self.worst_ratio = r;
            self.worst_ratio_at = input;
        }
        let a = want.abs_error(got, fmt);
        self.worst_abs = self.worst_abs.max(a);
        if fmt == Fmt::F32 && lane_bits == 32 {
            if let Want::Within { exact, .. } | Want::WithinOr { exact, .. } = want {
                if a > 0.0 && exact.abs() < 2f64.powi(128) {
                    self.worst_ulps = self.worst_ulps.max(a / ulp_f32_at(exact));
                }
            }
        }
    }
}

/// Runs `inputs` through `sweep` on both backends: the backends' bits must agree, and each
/// result must satisfy `reference` (per 16-bit lane for halves).
fn run(sweep: &Sweep, inputs: &[u32], fmt: Fmt, packed: bool, reference: &dyn Fn(u32) -> Want) -> Vec<Stats> {
    let rows: Vec<u64> = inputs.iter().map(|&x| x as u64).collect();
    let mut outs = Vec::new();
    let mut stats = Vec::new();
    for &backend in &Backend::ALL {
        let start = Instant::now();
        let got = sweep.run(backend, &rows);
        let mut s = Stats { seconds: start.elapsed().as_secs_f64(), ..Stats::default() };
        for (&x, &g) in inputs.iter().zip(&got) {
            if fmt == Fmt::F32 {
                s.note(reference(x), g as u32, fmt, x, 32);
            } else {
                let lanes: &[u32] = if packed { &[0, 16] } else { &[0] };
                for &l in lanes {
                    let (xl, gl) = ((x >> l) & 0xffff, ((g >> l) & 0xffff) as u32);
                    s.note(reference(xl), gl, fmt, xl, 16);
                }
                if !packed && g >> 16 != 0 {
                    s.mismatches += 1;
                }
            }
        }
        outs.push(got);
        stats.push(s);
    }
    let differ: Vec<String> = inputs
        .iter()
        .zip(outs[0].iter().zip(&outs[1]))
        .filter(|(_, (a, b))| a != b)
        .take(5)
        .map(|(x, (a, b))| format!("input {x:#x}: {a:#x} vs {b:#x}"))
        .collect();
    assert!(differ.is_empty(), "`{}`: the backends disagree: {differ:?}", sweep.variant.body);
    stats
}

fn report(body: &str, stats: &[Stats]) {
    for (b, s) in Backend::ALL.iter().zip(stats) {
        eprintln!(
            "{b:>5} {body:<28} {:>10} values {:>10.0}/s  worst {:.3} of bound (at {:#010x}), abs {:.3e} = 2^{:.2}, {:.2} ulp",
            s.checked,
            s.checked as f64 / s.seconds.max(1e-9),
            s.worst_ratio,
            s.worst_ratio_at,
            s.worst_abs,
            s.worst_abs.log2(),
            s.worst_ulps
        );
    }
    let fails: Vec<&String> = stats.iter().flat_map(|s| s.failures.iter()).collect();
    let n: u64 = stats.iter().map(|s| s.mismatches).sum();
    assert!(n == 0, "`{body}`: {n} results outside the bound, the first:\n{fails:#?}");
}

fn f32_variant(name: &str) -> Variant {
    Variant::inst(name, "f32", &["f32"])
}

#[test]
fn approx_f32_sampled() {
    let Some(gpu) = sweep::gpu() else { return };
    let mut inputs = f32_edges();
    inputs.extend(f32_samples(SAMPLES, 9));
    for (name, reference, ftz) in f32_variants() {
        let s = Sweep::new(&gpu, f32_variant(&name)).unwrap_or_else(|e| panic!("`{name}` does not translate: {e}"));
        let stats = run(&s, &inputs, Fmt::F32, false, &|a| reference(a, ftz));
        report(&name, &stats);
    }
}

/// All 2^32 inputs of each f32 variant (set `PTXCROSS_APPROX` to one instruction to run only
/// it). On lavapipe (2 shared cores): 6–8.5 million values per second per backend, about 35
/// minutes per variant for both backends and the reference (`ex2.approx.f32`: 2,096 s).
#[test]
#[ignore]
fn approx_f32_exhaustive() {
    let Some(gpu) = sweep::gpu() else { return };
    let only = std::env::var("PTXCROSS_APPROX").ok();
    for (name, reference, ftz) in f32_variants() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let s = Sweep::new(&gpu, f32_variant(&name)).unwrap();
        let mut total: Vec<Stats> = Vec::new();
        let chunk = 1u64 << 24;
        for start in (0..1u64 << 32).step_by(chunk as usize) {
            let inputs: Vec<u32> = (start..start + chunk).map(|x| x as u32).collect();
            let stats = run(&s, &inputs, Fmt::F32, false, &|a| reference(a, ftz));
            if (start >> 24) % 16 == 15 {
                let (n, t) = (start + chunk, stats.iter().map(|s| s.seconds).sum::<f64>());
                eprintln!("{name}: {n:#x} of 2^32 inputs, {:.1} million values/s per backend", 2.0 * chunk as f64 / t / 1e6);
            }
            if total.is_empty() {
                total = stats;
                continue;
            }
            for (t, s) in total.iter_mut().zip(stats) {
                t.checked += s.checked;
                t.seconds += s.seconds;
                t.mismatches += s.mismatches;
                if s.worst_ratio > t.worst_ratio {
                    t.worst_ratio = s.worst_ratio;
                    t.worst_ratio_at = s.worst_ratio_at;
                }
                t.worst_abs = t.worst_abs.max(s.worst_abs);
                t.worst_ulps = t.worst_ulps.max(s.worst_ulps);
                t.failures.extend(s.failures.into_iter().take(10usize.saturating_sub(t.failures.len())));
            }
        }
        report(&name, &total);
    }
}

/// Half-precision ex2/tanh: every 16-bit input of each lane (packed forms: the low lane runs
/// through all 65,536 values while the high lane runs through them in another order).
#[test]
fn approx_half_exhaustive() {
    let Some(gpu) = sweep::gpu() else { return };
    let variants: &[(&str, Fmt, bool)] = &[
        ("ex2.approx.f16", Fmt::F16, false),
        ("ex2.approx.f16x2", Fmt::F16, false),
        ("ex2.approx.ftz.bf16", Fmt::Bf16, true),
        ("ex2.approx.ftz.bf16x2", Fmt::Bf16, true),
        ("tanh.approx.f16", Fmt::F16, false),
        ("tanh.approx.f16x2", Fmt::F16, false),
        ("tanh.approx.bf16", Fmt::Bf16, false),
        ("tanh.approx.bf16x2", Fmt::Bf16, false),
    ];
    for &(name, fmt, ftz) in variants {
        let packed = name.ends_with("x2");
        let ty = match (fmt, packed) {
            (Fmt::F16, false) => "f16",
            (Fmt::F16, true) => "f16x2",
            (_, false) => "bf16",
            (_, true) => "bf16x2",
        };
        let inputs: Vec<u32> = (0..1u32 << 16)
            .map(|i| if packed { i | (i.wrapping_mul(40503) & 0xffff) << 16 } else { i })
            .collect();
        let s = Sweep::new(&gpu, Variant::inst(name, ty, &[ty])).unwrap_or_else(|e| panic!("`{name}` does not translate: {e}"));
        let reference = move |h: u32| {
            if name.starts_with("ex2") {
                aref::ex2_half(h as u16, fmt, ftz)
            } else {
                aref::tanh_half(h as u16, fmt)
            }
        };
        let stats = run(&s, &inputs, fmt, packed, &reference);
        report(name, &stats);
    }
}

/// The instructions do not depend on the device keeping f32 subnormals (lower/src/inst/
/// approx.rs argues why), so flushing devices run them too.
#[test]
fn approx_is_independent_of_subnormal_flushing() {
    use ptxcross_frontend::SourceFile;
    use ptxcross_lower::LowerOptions;
    let mut names: Vec<String> = f32_variants().into_iter().map(|v| v.0).collect();
    names.extend(["ex2.approx.f16x2", "tanh.approx.bf16x2", "rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64"].map(String::from));
    for name in names {
        let ty = match name.rsplit('.').next() {
            Some("f64") => "f64",
            Some("bf16x2") => "bf16x2",
            Some("f16x2") => "f16x2",
            _ => "f32",
        };
        let v = Variant::inst(&name, ty, &[ty]);
        let file = SourceFile::new("k.ptx", v.ptx());
        let module = ptxcross::translate::frontend(&file, &LowerOptions::default()).map_err(|e| e.render()).expect("translates");
        let f = &module.kernels[0].features;
        assert!(!f.f32_subnormals && !f.f64_subnormals, "`{name}` is marked as depending on subnormals");
    }
}

/// nvcc's `-use_fast_math` kernels `tests/fastmath/src/fastmath.cu` (regenerate with
/// `tests/fastmath/regen.sh`): `__expf`, `__logf`, `__sincosf`, `rsqrtf`, `tanhf`, `__powf`, a
/// sigmoid and a row softmax, i.e. `ex2/lg2/sin/cos/rsqrt/tanh .approx` with `rcp.approx`,
/// `div.approx` and `.ftz` arithmetic around them, on both backends against an f64 CPU
/// reference. Each tolerance is derived from the spec's bounds (see `tol_*`), not measured.
#[test]
fn nvcc_fast_math_kernels() {
    use ptxcross_tests::launch::{self, bytes, words, Launch};
    let Some(gpu) = sweep::gpu() else { return };
    let ptx = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fastmath/ptx/fastmath.sm80.ptx")).unwrap();
    let u = 2f64.powi(-24); // half an ulp of 1, relative rounding of one f32 operation
    // ex2.approx.ftz(t) relative to 2^t: 2^-22.5·2^⌊t⌋/2^t ≤ 2^-22.5. __expf(a) = ex2(fl(a·log2e)):
    // the product's rounding (u) and the constant's (u/2) move t by 1.5u|t|, 2^t by ln2 of that.
    let rel_exp = |a: f64| 2f64.powf(-22.5) + 2.0 * u * a.abs();
    // lg2.approx: 2^-22.6 absolute plus half an ulp of the result; times ln2 (rounded) for log.
    let tol_log = |b: f64| std::f64::consts::LN_2 * (2f64.powf(-22.6) + u * b.log2().abs()) + 2.0 * u * b.ln().abs();
    let mut rng = Rng(77);
    let mut uni = |lo: f64, hi: f64| lo + (hi - lo) * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
    let n = 4096 + 37;
    let xs: Vec<f32> = (0..n).map(|_| uni(-10.0, 10.0) as f32).collect();
    let ys: Vec<f32> = (0..n).map(|_| uni(-10.0, 10.0).exp2() as f32).collect();
    let ts: Vec<f32> = (0..n).map(|i| if i % 2 == 0 { uni(-4.0, 4.0) } else { uni(-3000.0, 3000.0) } as f32).collect();
    let rows = 1024 + 5;
    let vs: Vec<f32> = (0..8 * rows).map(|_| uni(-20.0, 20.0) as f32).collect();
    let fw = |v: &[f32]| bytes(&v.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    for backend in Backend::ALL {
        let l = Launch {
            ptx: &ptx,
            kernel: "pointwise",
            block: [256, 1, 1],
            grid: [(n as u32).div_ceil(256), 1, 1],
            buffers: vec![fw(&xs), fw(&ys), fw(&ts), vec![0; 32 * n], (n as u32).to_le_bytes().to_vec()],
        };
        let out = launch::run(&gpu, &l, backend).unwrap_or_else(|e| panic!("{e}"));
        let out: Vec<f64> = words(&out[3]).into_iter().map(|w| f32::from_bits(w) as f64).collect();
        let mut bad = Vec::new();
        for i in 0..n {
            let (a, b, t) = (xs[i] as f64, ys[i] as f64, ts[i] as f64);
            let e = (-a).exp();
            // sin/cos.approx: 2^-20.9 absolute (ptxcross: for |t| < 32768); products and sums round.
            let d = 2f64.powf(-20.9);
            let rot = (a.abs() + b.abs()) * (d + 3.0 * u);
            let lg = b.log2();
            let ulp = |v: f64| ulp_f32_at(v);
            let want: [(f64, f64); 8] = [
                (a.exp(), a.exp() * rel_exp(a)),
                (b.ln(), tol_log(b)),
                // 1/(1 + e): e's error scaled by e/(1+e), the add (u), rcp.approx (spec: 2^-23
                // absolute on [1, 2), i.e. 2u relative).
                (1.0 / (1.0 + e), (rel_exp(a) + 3.0 * u) / (1.0 + e)),
                (a * t.cos() - b * t.sin(), rot),
                (a * t.sin() + b * t.cos(), rot),
                // rsqrt.approx: 2^-22.4·2^-j with 2^-j ≤ 2/√m·… ≤ 2·result.
                (1.0 / b.sqrt(), 2f64.powf(-21.4) / b.sqrt()),
                // tanh.approx.f32: the spec states no bound; ptxcross's own (2 ulp).
                (a.tanh(), aref::TANH_F32_ULPS * ulp(a.tanh())),
                // ex2(fl(0.75·lg2 b)): lg2's error (and the product's rounding) times 0.75, in the
                // exponent; then ex2's own.
                (b.powf(0.75), b.powf(0.75) * (std::f64::consts::LN_2 * (0.75 * (2f64.powf(-22.6) + u * lg.abs()) + u * 0.75 * lg.abs()) + rel_exp(0.0))),
            ];
            for (k, (w, tol)) in want.iter().enumerate() {
                let g = out[8 * i + k];
                if ((g - w).abs() > *tol || g.is_nan()) && bad.len() < 10 {
                    bad.push(format!("{backend} pointwise[{i}].{k} (x {a}, y {b}, θ {t}): {g}, expected {w} ± {tol:e}"));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        let l = Launch {
            ptx: &ptx,
            kernel: "softmax8",
            block: [128, 1, 1],
            grid: [(rows as u32).div_ceil(128), 1, 1],
            buffers: vec![fw(&vs), vec![0; 32 * rows], (rows as u32).to_le_bytes().to_vec()],
        };
        let out = launch::run(&gpu, &l, backend).unwrap_or_else(|e| panic!("{e}"));
        let out: Vec<f64> = words(&out[1]).into_iter().map(|w| f32::from_bits(w) as f64).collect();
        for r in 0..rows {
            let v: Vec<f64> = vs[8 * r..8 * r + 8].iter().map(|&x| x as f64).collect();
            let m = v.iter().cloned().fold(f64::MIN, f64::max);
            let sum: f64 = v.iter().map(|x| (x - m).exp()).sum();
            // e_k = __expf(fl(v_k − m)): the subtraction's rounding (u|d|) and rel_exp(d);
            // the sum of 8 adds 7u, div.approx 2 ulp (4u).
            let worst_e = v.iter().map(|x| u * (x - m).abs() + rel_exp(x - m)).fold(0.0, f64::max);
            for k in 0..8 {
                let w = (v[k] - m).exp() / sum;
                let tol = w * (2.0 * worst_e + 7.0 * u + 4.0 * u);
                let g = out[8 * r + k];
                if ((g - w).abs() > tol || g.is_nan()) && bad.len() < 10 {
                    bad.push(format!("{backend} softmax8[{r}][{k}]: {g}, expected {w} ± {tol:e}"));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        eprintln!("{backend:>5} fastmath: pointwise ({n} threads × 8 results) and softmax8 ({rows} rows) within the spec-derived bounds");
    }
}

/// `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` (§9.7.3.14/17): the upper word's function
/// within ptxcross's bound (`ptx_ref::approx::F64_HI_REL`; the spec states none), the lower
/// word zero, the special-value tables exact; `rsqrt.approx.f64` within
/// `ptx_ref::approx::RSQRT_F64_REL`, subnormals included; both backends alike.
#[test]
fn approx_f64_hi_word() {
    let Some(gpu) = sweep::gpu() else { return };
    let mut rng = Rng(64);
    let mut inputs: Vec<u64> = F64_EDGES.to_vec();
    // Every exponent with a few fractions, both signs; then random bits and random low words.
    for e in 0..2048u64 {
        for f in [0u64, 1, 0xf_ffff, 0x8_0000, 0x6_a09e] {
            for s in [0u64, 1 << 63] {
                inputs.push(s | e << 52 | f << 32 | (rng.next_u64() & 0xffff_ffff));
            }
        }
    }
    inputs.extend((0..1 << 16).map(|_| rng.next_u64()));
    for name in ["rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64"] {
        let reference = |a: u64| match name {
            "rsqrt.approx.f64" => aref::rsqrt_f64(a),
            _ => aref::hi_word_f64(a, name.starts_with("rsqrt")),
        };
        let low_zero = name.contains("ftz");
        let s = Sweep::new(&gpu, Variant::inst(name, "f64", &["f64"])).unwrap_or_else(|e| panic!("`{name}` does not translate: {e}"));
        let mut outs = Vec::new();
        for backend in Backend::ALL {
            let got = s.run(backend, &inputs);
            let mut bad = Vec::new();
            let mut worst = 0f64;
            for (&a, &g) in inputs.iter().zip(&got) {
                let ok = match reference(a) {
                    Ok(bits) => g == bits,
                    Err((t, tol)) => {
                        let r = (f64::from_bits(g) - t).abs();
                        worst = worst.max(r / t.abs());
                        (!low_zero || g & 0xffff_ffff == 0) && r <= tol
                    }
                };
                if !ok && bad.len() < 10 {
                    bad.push(format!("{backend} `{name}` {a:#018x}: got {g:#018x}, expected {:?}", reference(a)));
                }
            }
            assert!(bad.is_empty(), "{}", bad.join("\n"));
            eprintln!("{backend:>5} {name:<24} {} values, worst relative error 2^{:.2}", inputs.len(), worst.log2());
            outs.push(got);
        }
        assert!(outs[0] == outs[1], "`{name}`: the backends disagree");
    }
}

/// Forms the spec does not define are plain errors (not "not supported yet"), and nothing
/// panics: `.ftz` on f16 `ex2` and its absence on bf16 (§9.7.4.10), `.ftz` on `tanh`,
/// a missing `.approx`, `rcp.approx.f64` without `.ftz` (§9.7.3.14).
#[test]
fn approx_invalid_forms_are_errors() {
    use ptxcross_frontend::SourceFile;
    use ptxcross_lower::LowerOptions;
    for (inst, ty) in [
        ("ex2.approx.ftz.f16", "f16"),
        ("ex2.approx.bf16", "bf16"),
        ("tanh.approx.ftz.f32", "f32"),
        ("tanh.approx.ftz.bf16", "bf16"),
        ("sin.f32", "f32"),
        ("ex2.ftz.f32", "f32"),
        ("rcp.approx.f64", "f64"),
        ("lg2.approx.f64", "f64"),
    ] {
        let v = Variant::inst(inst, ty, &[ty]);
        let file = SourceFile::new("k.ptx", v.ptx());
        let err = match ptxcross::translate::frontend(&file, &LowerOptions::default()) {
            Ok(_) => panic!("`{inst}` translates"),
            Err(e) => e.render(),
        };
        assert!(err.contains(inst.split('.').next().unwrap()), "`{inst}`: {err}");
        assert!(!err.contains("not supported yet"), "`{inst}` is an error, not a missing feature: {err}");
    }
}
