//! 64-bit integers on targets without them (`LowerOptions::split_int64`: WebGPU in browsers,
//! Vulkan devices without `shaderInt64`): every 64-bit integer instruction, lowered to 32-bit
//! halves, on both backends, against Rust's own 64-bit arithmetic and PTX's rules (§9.7.1
//! integer arithmetic, §9.7.9.21 cvt), over edge values (carries between the halves, signs,
//! extremes) and random operands. The sweep kernel's own address arithmetic is 64-bit too, so
//! every launch also exercises split pointers.

use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::ptx_ref::float as fref;
use ptxcross_tests::sweep::{self, check_both, rows, Expect, Reference, Rng, Sweep, Variant, F32_EDGES, U32_EDGES, U64_EDGES};

const SAMPLES: usize = 1 << 11;

fn split() -> LowerOptions {
    LowerOptions { split_int64: true, ..LowerOptions::default() }
}

fn sweep_split(variant: Variant, inputs: &[u64], reference: Reference) {
    let Some(gpu) = sweep::gpu() else { return };
    let body = variant.body.clone();
    // The split really happened: no kernel needs 64-bit integers any more.
    let module = translate::frontend(&SourceFile::new("sweep.ptx", variant.ptx()), &split())
        .unwrap_or_else(|e| panic!("`{body}`: {}", e.render()));
    assert!(module.kernels.iter().all(|k| !k.features.int64), "`{body}`: 64-bit integers left after the split");
    let s = Sweep::with_options(&gpu, variant, split()).unwrap_or_else(|e| panic!("`{body}` does not translate split: {e}"));
    sweep::assert_ok(&check_both(&s, inputs, reference));
}

fn pairs(seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    // Random halves as well as random words: carries and borrows between the halves.
    rows(2, U64_EDGES, 1 << 12, SAMPLES, &mut || match rng.next_u64() % 3 {
        0 => rng.next_u64(),
        1 => rng.next_u64() & 0xffff_ffff,
        _ => rng.next_u64() >> (rng.next_u64() % 64),
    })
}

fn bits(v: u64) -> Vec<Expect> {
    vec![Expect::Bits(v)]
}

#[test]
fn arithmetic_and_logic() {
    let two = pairs(1);
    type Op = fn(u64, u64) -> u64;
    let ops: [(&str, Op); 11] = [
        ("add.s64", |a, b| a.wrapping_add(b)),
        ("sub.s64", |a, b| a.wrapping_sub(b)),
        ("mul.lo.s64", |a, b| a.wrapping_mul(b)),
        ("mul.hi.u64", |a, b| ((a as u128 * b as u128) >> 64) as u64),
        ("mul.hi.s64", |a, b| ((a as i64 as i128 * b as i64 as i128) >> 64) as u64),
        ("and.b64", |a, b| a & b),
        ("or.b64", |a, b| a | b),
        ("xor.b64", |a, b| a ^ b),
        ("min.u64", |a, b| a.min(b)),
        ("max.s64", |a, b| (a as i64).max(b as i64) as u64),
        ("min.s64", |a, b| (a as i64).min(b as i64) as u64),
    ];
    for (inst, f) in ops {
        let ty = if inst.ends_with("u64") { "u64" } else if inst.ends_with("b64") { "b64" } else { "s64" };
        sweep_split(Variant::inst(inst, ty, &[ty, ty]), &two, &move |a| bits(f(a[0], a[1])));
    }
    let mut rng = Rng(2);
    let three = rows(3, U64_EDGES, 1 << 12, SAMPLES, &mut || rng.next_u64());
    sweep_split(Variant::inst("mad.lo.s64", "s64", &["s64", "s64", "s64"]), &three, &|a| {
        bits(a[0].wrapping_mul(a[1]).wrapping_add(a[2]))
    });
    let one: Vec<u64> = two.iter().step_by(2).copied().collect();
    sweep_split(Variant::inst("neg.s64", "s64", &["s64"]), &one, &|a| bits(a[0].wrapping_neg()));
    sweep_split(Variant::inst("not.b64", "b64", &["b64"]), &one, &|a| bits(!a[0]));
    sweep_split(Variant::inst("abs.s64", "s64", &["s64"]), &one, &|a| bits((a[0] as i64).wrapping_abs() as u64));
    sweep_split(Variant::inst("popc.b64", "u32", &["b64"]), &one, &|a| bits(a[0].count_ones() as u64));
    sweep_split(Variant::inst("clz.b64", "u32", &["b64"]), &one, &|a| bits(a[0].leading_zeros() as u64));
    sweep_split(Variant::inst("brev.b64", "b64", &["b64"]), &one, &|a| bits(a[0].reverse_bits()));
    let wide: Vec<u64> = two.iter().map(|&x| x & 0xffff_ffff).collect();
    sweep_split(Variant::inst("mul.wide.u32", "u64", &["u32", "u32"]), &wide, &|a| bits(a[0] * a[1]));
    sweep_split(Variant::inst("mul.wide.s32", "s64", &["s32", "s32"]), &wide, &|a| {
        bits((a[0] as u32 as i32 as i64 * a[1] as u32 as i32 as i64) as u64)
    });
}

#[test]
fn division() {
    // Non-zero divisors (division by zero is the instruction's own rule, swept elsewhere),
    // both 32-bit-sized (the fast path) and full-width operands (the long division).
    let nz: Vec<u64> = pairs(3).chunks(2).flat_map(|p| [p[0], if p[1] == 0 { 3 } else { p[1] }]).collect();
    sweep_split(Variant::inst("div.u64", "u64", &["u64", "u64"]), &nz, &|a| bits(a[0] / a[1]));
    sweep_split(Variant::inst("rem.u64", "u64", &["u64", "u64"]), &nz, &|a| bits(a[0] % a[1]));
    sweep_split(Variant::inst("div.s64", "s64", &["s64", "s64"]), &nz, &|a| bits((a[0] as i64).wrapping_div(a[1] as i64) as u64));
    sweep_split(Variant::inst("rem.s64", "s64", &["s64", "s64"]), &nz, &|a| bits((a[0] as i64).wrapping_rem(a[1] as i64) as u64));
}

#[test]
fn shifts_and_comparisons() {
    let mut rng = Rng(4);
    let sh: Vec<u64> = pairs(5).chunks(2).flat_map(|p| [p[0], p[1] % 80]).chain((0..70).flat_map(|s| [rng.next_u64(), s])).collect();
    // PTX clamps shift amounts above the width (§9.7.8.7/8).
    sweep_split(Variant::inst("shl.b64", "b64", &["b64", "u32"]), &sh, &|a| bits(if a[1] > 63 { 0 } else { a[0] << a[1] }));
    sweep_split(Variant::inst("shr.u64", "u64", &["u64", "u32"]), &sh, &|a| bits(if a[1] > 63 { 0 } else { a[0] >> a[1] }));
    sweep_split(Variant::inst("shr.s64", "s64", &["s64", "u32"]), &sh, &|a| bits(((a[0] as i64) >> a[1].min(63)) as u64));
    let two = pairs(6);
    // Equal high halves with different low halves, and the reverse.
    let mut close = two.clone();
    close.extend(two.chunks(2).flat_map(|p| [p[0], (p[0] & !0xffff_ffff) | (p[1] & 0xffff_ffff)]));
    close.extend(two.chunks(2).flat_map(|p| [p[0], (p[1] & !0xffff_ffff) | (p[0] & 0xffff_ffff)]));
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
        for ty in ["u64", "s64"] {
            let signed = ty == "s64";
            let f = move |a: u64, b: u64| {
                let ord = if signed { (a as i64).cmp(&(b as i64)) } else { a.cmp(&b) };
                match cmp {
                    "eq" => ord.is_eq(),
                    "ne" => ord.is_ne(),
                    "lt" => ord.is_lt(),
                    "le" => ord.is_le(),
                    "gt" => ord.is_gt(),
                    _ => ord.is_ge(),
                }
            };
            sweep_split(Variant::inst(&format!("setp.{cmp}.{ty}"), "pred", &[ty, ty]), &close, &move |a| bits(f(a[0], a[1]) as u64));
        }
    }
    let three: Vec<u64> = two.chunks(2).zip(0u64..).flat_map(|(p, i)| [p[0], p[1], i % 2]).collect();
    sweep_split(Variant::inst("selp.b64", "b64", &["b64", "b64", "pred"]), &three, &|a| bits(if a[2] != 0 { a[0] } else { a[1] }));
}

#[test]
fn conversions() {
    let mut rng = Rng(7);
    let one: Vec<u64> = pairs(8).into_iter().chain((0..64).map(|i| (1u64 << i) + 1)).chain((0..64).map(|i| (1u64 << i) - 1)).collect();
    let u32s: Vec<u64> = U32_EDGES.iter().map(|&x| x as u64).chain((0..SAMPLES).map(|_| rng.next_u64() & 0xffff_ffff)).collect();
    sweep_split(Variant::inst("cvt.u64.u32", "u64", &["u32"]), &u32s, &|a| bits(a[0]));
    sweep_split(Variant::inst("cvt.s64.s32", "s64", &["s32"]), &u32s, &|a| bits(a[0] as u32 as i32 as i64 as u64));
    sweep_split(Variant::inst("cvt.u32.u64", "u32", &["u64"]), &one, &|a| bits(a[0] & 0xffff_ffff));
    // Integer → f32, round to nearest even (ties at every scale: (1 << i) + 1 above 2^24).
    for src in ["u64", "s64"] {
        sweep_split(Variant::inst(&format!("cvt.rn.f32.{src}"), "f32", &[src]), &one, &move |a| {
            vec![fref::cvt_f32_from(src, rustc_apfloat::Round::NearestTiesToEven, a[0])]
        });
        // The directed roundings (and bf16) round on the split integer itself.
        let modes = ["rz", "rm", "rp"];
        let body = modes.iter().enumerate().map(|(k, r)| format!("cvt.{r}.f32.{src} %d{k}, %s0;")).collect::<Vec<_>>().join("\n    ");
        let body = format!("{body}\n    cvt.rn.bf16.{src} %d3, %s0;");
        let v = Variant { body, srcs: vec![src], dsts: vec!["f32", "f32", "f32", "bf16"] };
        sweep_split(v, &one, &move |a| {
            let r = |m: &str| ptxcross_tests::ptx_ref::half::round_of(m);
            let mut e: Vec<Expect> = modes.iter().map(|m| Expect::Bits(fref::cvt_from_int64("f32", src == "s64", r(m), a[0]))).collect();
            e.push(Expect::Bits(fref::cvt_from_int64("bf16", src == "s64", r("rn"), a[0])));
            e
        });
    }
    // f32 → 64-bit integer, truncating: out-of-range values saturate (§9.7.9.21); NaN gives
    // NVIDIA's bits (`cvt_nan_to_int`), not the spec's 0.
    let mut f1: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    f1.extend((0..SAMPLES).map(|_| {
        let r = rng.next_u64();
        // Magnitudes around 2^0 .. 2^70: both sides of 2^32, 2^63 and 2^64.
        ((r & (1 << 31)) | ((127 + (r >> 40) % 70) << 23) | (r & 0x7f_ffff)) & 0xffff_ffff
    }));
    for (dt, lo, hi) in [("u64", 0i128, u64::MAX as i128), ("s64", i64::MIN as i128, i64::MAX as i128)] {
        sweep_split(Variant::inst(&format!("cvt.rzi.{dt}.f32"), dt, &["f32"]), &f1, &move |a| {
            let x = f32::from_bits(a[0] as u32);
            bits(if x.is_nan() { fref::cvt_nan_to_int("f32", dt) } else { (x.trunc() as i128).clamp(lo, hi) as u64 })
        });
    }
}

/// The WebGPU profile (`ptxcross translate --to wgsl --profile webgpu`: `split_int64` and
/// `flushed_f32`) translates correctly rounded f32 division, reciprocal and square root
/// (nvcc's `a / b`, `1.0f / x`, `sqrtf`) without 64-bit floats; `no_float64` alone (Vulkan
/// devices without `shaderFloat64`) leaves no f64 either. Their results: `inst_sweep`'s
/// `f32_div_rcp_sqrt_correctly_rounded_without_f64`.
#[test]
fn webgpu_profile_translates_f32_division_and_sqrt() {
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n    .reg .f32 %f<8>;\n    .reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [p];\n    ld.global.f32 %f1, [%rd1];\n    ld.global.f32 %f2, [%rd1+4];\n\
    div.rn.f32 %f3, %f1, %f2;\n    rcp.rn.f32 %f4, %f3;\n    sqrt.rn.f32 %f5, %f4;\n\
    div.full.f32 %f6, %f5, %f1;\n    div.rz.ftz.f32 %f7, %f6, %f2;\n    st.global.f32 [%rd1], %f7;\n    ret;\n}\n";
    let file = SourceFile::new("div.ptx", ptx.to_string());
    let webgpu = LowerOptions { split_int64: true, flushed_f32: true, ..LowerOptions::default() };
    let module = translate::frontend(&file, &webgpu).unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(module.kernels.iter().all(|k| !k.features.float64 && !k.features.int64), "64-bit values left");
    let text = translate::emit_wgsl(&module, translate::Profile::WebGpu).unwrap_or_else(|e| panic!("{}", e.render()));
    translate::validate_wgsl(&text, translate::Profile::WebGpu).unwrap_or_else(|e| panic!("{}", e.render()));
    let no_f64 = LowerOptions { no_float64: true, ..LowerOptions::default() };
    let module = translate::frontend(&file, &no_f64).unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(module.kernels.iter().all(|k| !k.features.float64), "64-bit floats left under no_float64");
}

/// `fma.rn.f32` where the device's fma is not fused and it has no 64-bit floats either (WebGPU):
/// the exact emulation runs on integers only (`f32_fma_on_integers`), against rustc_apfloat's
/// fused multiply-add, over the f32 edge table (subnormals, infinities, NaNs, signed zeros,
/// cancellation) and random operands.
#[test]
fn fma_without_64_bit_floats() {
    let Some(gpu) = sweep::gpu() else { return };
    let variant = Variant::inst("fma.rn.f32", "f32", &["f32", "f32", "f32"]);
    let module = translate::frontend(&SourceFile::new("sweep.ptx", variant.ptx()), &split()).unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(module.kernels.iter().all(|k| !k.features.float64 && !k.features.int64), "64-bit values left");
    let mut rng = Rng(9);
    let edges: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    let mut inputs = rows(3, &edges, 1 << 14, SAMPLES, &mut || rng.next_u64() & 0xffff_ffff);
    // a·b nearly cancelling c: c = −(a·b rounded), the exact remainder decides.
    inputs.extend((0..SAMPLES).flat_map(|_| {
        let (a, b) = (f32::from_bits(rng.next_u64() as u32 & 0x7fff_ffff) % 1e10, f32::from_bits(rng.next_u64() as u32 & 0x7fff_ffff) % 1e10);
        [a.to_bits() as u64, b.to_bits() as u64, (-(a * b)).to_bits() as u64]
    }));
    // Exact results just past a tie of f32 whose 53-bit truncation IS the tie: a·b = 1 − 2^-46
    // and c = −(2^24 + 2) give −(2^24 + 1) − 2^-46, which rounds to −(2^24 + 2); rounding to
    // f64 without the odd bit, then to f32, gives −2^24. Scaled over many binades.
    for k in -100..100 {
        let scale = 2f32.powi(k);
        let (a, b, c) = (f32::from_bits(0x3f80_0001) * scale, f32::from_bits(0x3f7f_fffe), -16777218.0f32 * scale);
        inputs.extend([a.to_bits() as u64, b.to_bits() as u64, c.to_bits() as u64]);
    }
    let s = Sweep::with_options(&gpu, variant, split()).unwrap();
    sweep::assert_ok(&check_both(&s, &inputs, &|a| {
        vec![fref::arith_f32("fma", rustc_apfloat::Round::NearestTiesToEven, a, false, false)]
    }));
}

/// The 8-bit float and tf32 conversions and packed-half comparisons compute on 32-bit
/// integers only, so they run split unchanged (against `ptx_ref::fp8`).
#[test]
fn fp8_tf32_half_compares_split() {
    use ptxcross_tests::ptx_ref::fp8::{self, Fp8, Tf32Round};
    use ptxcross_tests::ptx_ref::half::Fmt;
    let mut rng = Rng(40);
    let f2 = rows(2, &F32_EDGES.iter().map(|&x| x as u64).collect::<Vec<_>>(), 1 << 12, SAMPLES, &mut || {
        let r = rng.next_u64();
        // Half the samples inside e4m3's and e5m2's exponent ranges.
        if r & 1 == 0 { r >> 32 } else { (r & 0x8000_0000) | ((107 + (r >> 40) % 40) << 23) | (r & 0x7f_ffff) }
    });
    sweep_split(Variant::inst("cvt.rn.satfinite.relu.e4m3x2.f32", "b16", &["f32", "f32"]), &f2, &|a| {
        vec![fp8::pack8(fp8::f32_to_fp8(a[0] as u32, Fp8::E4m3, true), fp8::f32_to_fp8(a[1] as u32, Fp8::E4m3, true))]
    });
    let all16: Vec<u64> = (0..1 << 16).collect();
    sweep_split(Variant::inst("cvt.rn.f16x2.e5m2x2", "b32", &["b16"]), &all16, &|a| {
        match (fp8::fp8_to_f16((a[0] >> 8) as u8, Fp8::E5m2, false), fp8::fp8_to_f16(a[0] as u8, Fp8::E5m2, false)) {
            (sweep::Half16::Bits(h), sweep::Half16::Bits(l)) => vec![Expect::Bits((h as u64) << 16 | l as u64)],
            (h, l) => vec![Expect::Pair16(h, l)],
        }
    });
    let one: Vec<u64> = f2.iter().step_by(2).copied().collect();
    sweep_split(Variant::inst("cvt.rna.satfinite.tf32.f32", "b32", &["f32"]), &one, &|a| {
        vec![fp8::cvt_tf32(a[0] as u32, Tf32Round::Rna, false, true)]
    });
    let v = Variant { body: "setp.ltu.f16x2 %d0|%d1, %s0, %s1;".into(), srcs: vec!["b32", "b32"], dsts: vec!["pred", "pred"] };
    sweep_split(v, &f2, &|a| {
        (0..2).map(|l| Expect::Bits(fp8::half_compare("ltu", Fmt::F16, (a[0] >> (16 * l)) as u16, (a[1] >> (16 * l)) as u16, false) as u64)).collect()
    });
}
