//! Exact f32 on devices that flush subnormals (issue #9; `LowerOptions::flushed_f32`,
//! `lower/src/inst/flushed.rs`), checked adversarially on a device that keeps them: the
//! simulation `LowerOptions::simulate_flushed_f32` makes every native f32 operation flush its
//! operands and result (sign kept), as the host's probe models a flushing device. The sweeps'
//! variants and spec references (`ptx_ref`) then must give PTX's bits with the exact mode, and
//! must NOT without it (which shows that the simulation bites).
//!
//!   PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test flushed_f32

use ptxcross::Backend;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::ptx_ref::float::{self as fref, IntRound};
use ptxcross_tests::ptx_ref::half::{self as href, round_of};
use ptxcross_tests::sweep::{self, rows, Expect, Rng, Sweep, Variant, F32_EDGES};

/// Random operands per variant (on top of the edge table); half of them tiny.
const SAMPLES: usize = 1 << 10;

/// Edge rows plus random rows, every other one with an exponent field of 0..=3 (subnormals and
/// the smallest normals, where flushing shows).
fn f32_rows(arity: usize, seed: u64) -> Vec<u64> {
    let edges: Vec<u64> = F32_EDGES.iter().map(|&x| x as u64).collect();
    let mut rng = Rng(seed);
    let mut k = 0u64;
    rows(arity, &edges, 1 << 14, SAMPLES, &mut || {
        k += 1;
        let r = rng.next_u64() & 0xffff_ffff;
        if k.is_multiple_of(2) {
            (r & 0x807f_ffff) | ((r >> 8) % 4) << 23
        } else {
            r
        }
    })
}

type Reference = Box<dyn Fn(&[u64]) -> Vec<Expect> + Sync>;

/// One variant, its inputs, its reference, and whether its result is independent of the
/// device's subnormals without the exact mode (`.ftz`; rounding done on the bits; a subnormal
/// rounding to 0 either way): then the simulation alone must not change it.
struct Case {
    variant: Variant,
    inputs: Vec<u64>,
    reference: Reference,
    independent: bool,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let two = f32_rows(2, 1);
    let three = f32_rows(3, 2);
    for op in ["add", "sub", "mul", "fma"] {
        for rnd in ["rn", "rz", "rm", "rp"] {
            for (mods, ftz, sat) in [("", false, false), (".sat", false, true), (".ftz.sat", true, true)] {
                if ftz && rnd != "rn" {
                    continue;
                }
                let round = round_of(rnd);
                let (srcs, inputs): (&[&'static str], _) =
                    if op == "fma" { (&["f32", "f32", "f32"], three.clone()) } else { (&["f32", "f32"], two.clone()) };
                v.push(Case {
                    variant: Variant::inst(&format!("{op}.{rnd}{mods}.f32"), "f32", srcs),
                    inputs,
                    reference: Box::new(move |a| vec![fref::arith_f32(op, round, a, ftz, sat)]),
                    independent: ftz,
                });
            }
        }
    }
    // `add.f32` without a rounding modifier is `.rn`; `mad.rn` is `fma.rn`.
    v.push(Case {
        variant: Variant::inst("add.f32", "f32", &["f32", "f32"]),
        inputs: two.clone(),
        reference: Box::new(|a| vec![fref::arith_f32("add", round_of("rn"), a, false, false)]),
        independent: false,
    });
    v.push(Case {
        variant: Variant::inst("mad.rn.f32", "f32", &["f32", "f32", "f32"]),
        inputs: three.clone(),
        reference: Box::new(|a| vec![fref::arith_f32("fma", round_of("rn"), a, false, false)]),
        independent: false,
    });
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"] {
        for ftz in [false, true] {
            v.push(Case {
                variant: Variant::inst(&format!("setp.{cmp}{}.f32", if ftz { ".ftz" } else { "" }), "pred", &["f32", "f32"]),
                inputs: two.clone(),
                reference: Box::new(move |a| {
                    let g = |x: u64| {
                        let v = f32::from_bits(x as u32);
                        if ftz { fref::ftz(v) } else { v }
                    };
                    vec![Expect::Bits(fref::compare(cmp, g(a[0]) as f64, g(a[1]) as f64) as u64)]
                }),
                // `num`/`nan` test for NaN only.
                independent: ftz || cmp == "num" || cmp == "nan",
            });
        }
    }
    for is_min in [true, false] {
        let op = if is_min { "min" } else { "max" };
        for (mods, ftz, nan, xs) in [("", false, false, false), (".ftz", true, false, false), (".NaN.xorsign.abs", false, true, true)] {
            v.push(Case {
                variant: Variant::inst(&format!("{op}{mods}.f32"), "f32", &["f32", "f32"]),
                inputs: two.clone(),
                reference: Box::new(move |a| vec![fref::min_max(is_min, 32, a[0], a[1], nan, xs, ftz)]),
                independent: ftz,
            });
        }
    }
    let one = f32_rows(1, 3);
    for op in ["abs", "neg"] {
        v.push(Case {
            variant: Variant::inst(&format!("{op}.f32"), "f32", &["f32"]),
            inputs: one.clone(),
            reference: Box::new(move |a| {
                let x = a[0] as u32;
                // NVIDIA's sm_90 gives the canonical NaN for every NaN (as `inst_sweep`).
                if x & 0x7fff_ffff > 0x7f80_0000 {
                    return vec![Expect::Bits(0x7fff_ffff)];
                }
                vec![Expect::Bits(if op == "abs" { x & 0x7fff_ffff } else { x ^ 0x8000_0000 } as u64)]
            }),
            independent: false,
        });
    }
    v.push(Case {
        variant: Variant::inst("cvt.f64.f32", "f64", &["f32"]),
        inputs: one.clone(),
        reference: Box::new(|a| vec![fref::exact_f64(f32::from_bits(a[0] as u32) as f64)]),
        independent: false,
    });
    // f64 operands around f32's subnormal range (and the edge table widened).
    let mut rng = Rng(4);
    let mut wide: Vec<u64> = F32_EDGES.iter().map(|&x| (f32::from_bits(x) as f64).to_bits()).collect();
    wide.extend((0..SAMPLES).map(|_| {
        let r = rng.next_u64();
        (r & (1 << 63)) | ((1023 - 152 + (r >> 40) % 30) << 52) | (r & 0xf_ffff_ffff_ffff)
    }));
    for rnd in ["rn", "rz", "rm", "rp"] {
        let round = round_of(rnd);
        v.push(Case {
            variant: Variant::inst(&format!("cvt.{rnd}.f32.f64"), "f32", &["f64"]),
            inputs: wide.clone(),
            reference: Box::new(move |a| vec![fref::cvt_f32_from("f64", round, a[0])]),
            independent: rnd != "rn",
        });
    }
    for round in IntRound::ALL {
        v.push(Case {
            variant: Variant::inst(&format!("cvt.{}.f32.f32", round.suffix()), "f32", &["f32"]),
            inputs: one.clone(),
            reference: Box::new(move |a| vec![fref::cvt_f32_f32(a[0] as u32, Some(round), false, false)]),
            independent: matches!(round, IntRound::Rni | IntRound::Rzi),
        });
        v.push(Case {
            variant: Variant::inst(&format!("cvt.{}.s32.f32", round.suffix()), "s32", &["f32"]),
            inputs: one.clone(),
            reference: Box::new(move |a| {
                let x = f32::from_bits(a[0] as u32) as f64;
                if x.is_nan() {
                    return vec![Expect::Bits(fref::cvt_nan_to_int("f32", "s32"))];
                }
                let r = (round.f64(x) as i128).clamp(i32::MIN as i128, i32::MAX as i128);
                vec![Expect::Bits(r as u64 & 0xffff_ffff)]
            }),
            independent: matches!(round, IntRound::Rni | IntRound::Rzi),
        });
    }
    // `atom.add.f32`: a CAS loop whose add is exact in the mode on shared memory; on global
    // memory it flushes subnormals by the spec (§9.7.14.5), so flushing cannot change it. d0:
    // the location's new value, d1: the old one the atom returns.
    for (space, addr, ftz) in [("shared", "%sa", false), ("global", "%rdin", true)] {
        let setup = if space == "shared" {
            ".shared .align 4 .b32 sh[256];\n    .reg .b32 %sa;\n    mov.u32 %sa, sh;\n    shl.b32 %t, %xtid, 2;\n    add.u32 %sa, %sa, %t;\n    "
        } else {
            ""
        };
        v.push(Case {
            variant: Variant {
                body: format!(
                    "{setup}st.{space}.f32 [{addr}], %s0;\n    atom.{space}.add.f32 %d1, [{addr}], %s1;\n    ld.{space}.f32 %d0, [{addr}];"
                ),
                srcs: vec!["f32", "f32"],
                dsts: vec!["f32", "f32"],
            },
            inputs: two.clone(),
            reference: Box::new(move |a| vec![fref::arith_f32("add", round_of("rn"), a, ftz, false), Expect::Bits(a[0] & 0xffff_ffff)]),
            independent: ftz,
        });
    }
    // bf16 has f32's exponent range: its subnormals are f32 subnormals where the lowering
    // computes in f32 (the top halves of the f32 rows: bf16 edges and tiny values).
    let h2: Vec<u64> = two.iter().map(|&x| (x >> 16) & 0xffff).collect();
    let h3: Vec<u64> = three.iter().map(|&x| (x >> 16) & 0xffff).collect();
    let bf = href::Fmt::Bf16;
    for op in ["add", "mul", "fma"] {
        let (srcs, inputs): (&[&'static str], _) = if op == "fma" { (&["b16", "b16", "b16"], h3.clone()) } else { (&["b16", "b16"], h2.clone()) };
        v.push(Case {
            variant: Variant::inst(&format!("{op}.rn.bf16"), "b16", srcs),
            inputs,
            reference: Box::new(move |a| {
                let xs: Vec<u16> = a.iter().map(|&x| x as u16).collect();
                vec![href::arith(op, bf, &xs, false, false, false)]
            }),
            // Split into significand and exponent on the bits, the significands' products and
            // sums (rounded to odd) normal f32s, rounded on the bits (`inst::half_arith`).
            independent: true,
        });
    }
    for is_min in [true, false] {
        v.push(Case {
            variant: Variant::inst(if is_min { "min.bf16" } else { "max.bf16" }, "b16", &["b16", "b16"]),
            inputs: h2.clone(),
            reference: Box::new(move |a| vec![href::min_max(is_min, bf, a[0] as u16, a[1] as u16, false)]),
            independent: false,
        });
    }
    let h1: Vec<u64> = one.iter().map(|&x| (x >> 16) & 0xffff).collect();
    v.push(Case {
        variant: Variant::inst("cvt.f32.bf16", "f32", &["b16"]),
        inputs: h1.clone(),
        // Widened on the bits (no float operation), so no flushing can touch a subnormal.
        reference: Box::new(move |a| vec![href::cvt_f32_half(a[0] as u16, bf)]),
        independent: true,
    });
    // bf16 → integer with each integer rounding: a bf16 subnormal is an f32 subnormal, so
    // `.rpi`/`.rmi` of one give ±1 where a flushing device's ceil/floor would give 0.
    for round in IntRound::ALL {
        v.push(Case {
            variant: Variant::inst(&format!("cvt.{}.s32.bf16", round.suffix()), "s32", &["b16"]),
            inputs: h1.clone(),
            reference: Box::new(move |a| {
                let x = f32::from_bits((a[0] as u32) << 16) as f64;
                if x.is_nan() {
                    return vec![Expect::Bits(fref::cvt_nan_to_int("bf16", "s32"))];
                }
                let r = (round.f64(x) as i128).clamp(i32::MIN as i128, i32::MAX as i128);
                vec![Expect::Bits(r as u64 & 0xffff_ffff)]
            }),
            independent: matches!(round, IntRound::Rni | IntRound::Rzi),
        });
    }
    v.push(Case {
        variant: Variant::inst("neg.bf16", "b16", &["b16"]),
        inputs: h1,
        reference: Box::new(move |a| vec![Expect::Bits(href::neg_abs(true, bf, a[0] as u16) as u64)]),
        // On the bits.
        independent: true,
    });
    // Computed on the bits or in f64 already (no f32 operation of the device): unchanged by
    // flushing, and exact in the mode (whose exact f32 ↔ f64 conversions they then use).
    let mut quotients = two.clone();
    let mut rng = Rng(5);
    for _ in 0..SAMPLES {
        let b = (rng.next_u64() & 0x007f_ffff) | 0x3f80_0000;
        let q = rng.next_u64() & 0x80ff_ffff;
        let p = f32::from_bits(q as u32) * f32::from_bits(b as u32);
        quotients.extend([p.to_bits() as u64, b]);
    }
    for rnd in ["rn", "rz"] {
        let round = round_of(rnd);
        v.push(Case {
            variant: Variant::inst(&format!("div.{rnd}.f32"), "f32", &["f32", "f32"]),
            inputs: quotients.clone(),
            reference: Box::new(move |a| vec![fref::div_rounded_f32(a[0], a[1], round, false)]),
            independent: true,
        });
        v.push(Case {
            variant: Variant::inst(&format!("sqrt.{rnd}.f32"), "f32", &["f32"]),
            inputs: one.clone(),
            reference: Box::new(move |a| vec![fref::sqrt_rounded_f32(a[0], round, false)]),
            independent: true,
        });
    }
    v.push(Case {
        variant: Variant::inst("rcp.rn.f32", "f32", &["f32"]),
        inputs: one.clone(),
        reference: Box::new(|a| vec![fref::div_rounded_f32(1f32.to_bits() as u64, a[0], round_of("rn"), false)]),
        independent: true,
    });
    // Within the spec's bounds; without the mode `div.approx` multiplies a by a zero on the
    // device, which a device that keeps the sign of a flushed operand gets right (the mode does
    // it on the bits, since Vulkan and WebGPU do not promise that sign).
    v.push(Case {
        variant: Variant::inst("div.approx.f32", "f32", &["f32", "f32"]),
        inputs: quotients.clone(),
        reference: Box::new(|a| fref::div_approx_f32(a[0] as u32, a[1] as u32, false)),
        independent: true,
    });
    v.push(Case {
        variant: Variant::inst("div.full.f32", "f32", &["f32", "f32"]),
        inputs: quotients,
        reference: Box::new(|a| fref::div_full_f32(a[0] as u32, a[1] as u32, false)),
        independent: true,
    });
    // Narrowing to halves rounds the f32's bits with integer operations, so the device's
    // flushing never sees a subnormal (bf16 has f32's exponent range and keeps them).
    for (fmt, t) in [(href::Fmt::F16, "f16"), (href::Fmt::Bf16, "bf16")] {
        v.push(Case {
            variant: Variant::inst(&format!("cvt.rn.{t}.f32"), "b16", &["f32"]),
            inputs: one.clone(),
            reference: Box::new(move |a| vec![href::cvt_half_f32(a[0] as u32, fmt, round_of("rn"), false, false)]),
            independent: true,
        });
    }
    v
}

/// Mismatches of `case` on each backend when translated with `options`.
fn mismatches(gpu: &std::sync::Arc<ptxcross::Gpu>, case: &Case, options: &LowerOptions) -> Vec<sweep::Report> {
    let body = case.variant.body.clone();
    let s = Sweep::with_options(gpu, case.variant.clone(), options.clone())
        .unwrap_or_else(|e| panic!("`{body}` does not translate: {e}"));
    Backend::ALL.iter().map(|&b| sweep::check(&s, b, &case.inputs, &*case.reference)).collect()
}

/// With the exact mode, every variant gives PTX's bits although every native f32 operation
/// flushes.
#[test]
fn exact_mode_gives_ptx_bits_under_simulated_flushing() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = LowerOptions { flushed_f32: true, simulate_flushed_f32: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let mut failures = Vec::new();
    for case in cases() {
        for r in mismatches(&gpu, &case, &options) {
            failures.extend(r.failures);
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The same where the target has no 64-bit types (WebGPU in browsers: `split_int64`), whose
/// rare path for products and fma computes on 32-bit integers only (`f32_fma_on_integers`),
/// and so do correctly rounded division and square root (`divsqrt_u32`): the variants without
/// f64 operands.
#[test]
fn exact_mode_without_64_bit_types_under_simulated_flushing() {
    let Some(gpu) = sweep::gpu() else { return };
    let options =
        LowerOptions { flushed_f32: true, simulate_flushed_f32: true, split_int64: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let mut failures = Vec::new();
    // (`mul/fma.ftz` decide tininess in f64: not for such targets yet, with or without the mode.)
    let plain = |c: &Case| {
        let b = &c.variant.body;
        let ftz_product = (b.starts_with("mul") || b.starts_with("fma")) && b.contains(".ftz");
        !ftz_product
            && ["add.rn", "sub.rn", "mul.rn", "fma.rn", "mad.rn", "add.f32", "setp.", "min", "max", "abs", "neg", "cvt.rmi.s32", "div.", "sqrt.", "rcp."]
                .iter()
                .any(|p| b.starts_with(p))
    };
    for case in cases().into_iter().filter(plain) {
        for r in mismatches(&gpu, &case, &options) {
            failures.extend(r.failures);
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Without it, the simulation changes every variant that depends on subnormals (on both
/// backends), and none that `.ftz` makes independent of them.
#[test]
fn simulated_flushing_alone_breaks_results_that_need_subnormals() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = LowerOptions { simulate_flushed_f32: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let mut wrong = Vec::new();
    for case in cases() {
        for (b, r) in Backend::ALL.iter().zip(mismatches(&gpu, &case, &options)) {
            if gpu.flushes_f32(*b) {
                // A device that really flushes refuses these translations there (`subnormals`).
                continue;
            }
            let expect_some = !case.independent;
            if expect_some != (r.mismatches > 0) {
                wrong.push(format!("{b}: `{}`: {} mismatches", case.variant.body, r.mismatches));
            }
        }
    }
    assert!(wrong.is_empty(), "the simulation does not act as a flushing device:\n{}", wrong.join("\n"));
}

/// The exact mode is exact on a device that keeps subnormals too (no simulation): a host may
/// set it for a module that runs on several devices.
#[test]
fn exact_mode_on_a_device_that_keeps_subnormals() {
    let Some(gpu) = sweep::gpu() else { return };
    let options = LowerOptions { flushed_f32: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let mut failures = Vec::new();
    for case in cases().into_iter().filter(|c| c.variant.body.starts_with("fma.rn.f32") || c.variant.body.starts_with("mul.rz")) {
        for r in mismatches(&gpu, &case, &options) {
            failures.extend(r.failures);
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// A kernel whose results depend on f32 subnormals names the first instruction that makes it
/// so, with its line (the host's refusal on a flushing device says it); in the mode, none of a
/// list of f32, bf16 and mixed instructions leaves the kernel so marked (each lowering then
/// uses no native f32 operation that a flushing device could spoil, see `inst::flushed`).
const TEX_2D: &str = "tex.2d.v4.f32.f32 {%f2, %f2, %f2, %f2}, [%rd, {%f1, %f1}];";
const TEX_3D: &str = "tex.3d.v4.f32.f32 {%f2, %f2, %f2, %f2}, [%rd, {%f1, %f1, %f1, %f1}];";
/// Integer coordinates, normalized-float reads (a division on the bits).
const TEX_FETCH: &str = "tex.1d.v4.f32.s32 {%f2, %f2, %f2, %f2}, [%rd, {%r}];";

#[test]
fn uncovered_instructions_are_named_for_the_refusal() {
    let ptx = |body: &str| {
        format!(
            ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
    .reg .f32 %f<4>;\n    .reg .pred %p;\n    .reg .b64 %rd;\n    .reg .b16 %h; .reg .b8 %c;\n    .reg .b32 %r;\n    ld.param.u64 %rd, [p];\n    ld.global.f32 %f1, [%rd];\n\
    ld.global.u32 %r, [%rd];\n    ld.global.u16 %h, [%rd];\n{body}\n    st.global.f32 [%rd], %f2;\n    st.global.u32 [%rd], %r;\n    st.global.u16 [%rd], %h;\n\
    selp.u32 %r, 1, 0, %p;\n    st.global.u32 [%rd], %r;\n    ret;\n}}\n"
        )
    };
    let lower = |body: &str, flushed: bool| {
        let file = SourceFile::new("k.ptx", ptx(body));
        let options = LowerOptions { flushed_f32: flushed, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
        let module = ptxcross::translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{}", e.render()));
        module.kernels[0].clone()
    };
    let f32_insts = "    add.rn.f32 %f2, %f1, %f1;\n    mul.f32 %f2, %f2, %f1;\n    fma.rn.f32 %f2, %f2, %f1, %f1;\n    \
                     setp.lt.f32 %p, %f2, %f1;\n    selp.f32 %f2, %f2, %f1, %p;\n    max.f32 %f2, %f2, %f1;\n    neg.f32 %f2, %f2;";
    let k = lower(f32_insts, false);
    assert!(k.features.f32_subnormals, "without the mode the kernel depends on subnormals");
    let site = &k.fault_sites[k.features.f32_subnormals_site.expect("a site") as usize - 1];
    assert_eq!((site.instruction.as_str(), site.line, site.col), ("add.rn.f32", 15, 5));
    let k = lower("    mov.f32 %f2, %f1;\n    atom.shared.add.f32 %f2, [%r], %f1;", false);
    let site = &k.fault_sites[k.features.f32_subnormals_site.expect("a site") as usize - 1];
    assert_eq!((site.instruction.as_str(), site.line, site.col), ("atom.shared.add.f32", 16, 5));
    // Sampling (point and linear: the filter mode is the descriptor's) depends on subnormals
    // without the mode: coordinates, texels and weighted terms go through native f32 arithmetic.
    for tex in [TEX_2D, TEX_3D, TEX_FETCH] {
        let k = lower(&format!("    {tex}"), false);
        let site = &k.fault_sites[k.features.f32_subnormals_site.expect("a site") as usize - 1];
        assert_eq!(site.instruction, tex.split(' ').next().unwrap());
    }
    let mut all = vec![f32_insts.to_string()];
    all.extend(
        [
            "div.rn.f32 %f2, %f1, %f1;", "div.approx.f32 %f2, %f1, %f1;", "sqrt.rn.f32 %f2, %f1;", "ex2.approx.f32 %f2, %f1;",
            "atom.global.add.f32 %f2, [%rd], %f1;", "atom.shared.add.f32 %f2, [%r], %f1;", "red.global.add.f32 [%rd], %f1;",
            "cvt.rmi.u64.f32 %rd, %f1;", "cvt.rn.f16.f32 %h, %f1;", "cvt.rn.bf16.f32 %h, %f1;", "cvt.f32.f16 %f2, %h;",
            "cvt.f32.bf16 %f2, %h;", "cvt.rpi.s8.bf16 %c, %h;", "cvt.rmi.u32.bf16 %r, %h;", "set.lt.u32.f32 %r, %f1, %f1;", "cvt.sat.f32.f32 %f2, %f1;", "min.bf16x2 %r, %r, %r;",
            "max.NaN.bf16x2 %r, %r, %r;", "add.rn.bf16 %h, %h, %h;", "setp.lt.bf16 %p, %h, %h;", "min.NaN.xorsign.abs.f32 %f2, %f1, %f1;",
            TEX_2D, TEX_3D, TEX_FETCH,
        ]
        .map(|i| format!("    {i}")),
    );
    for body in all {
        assert!(!lower(&body, true).features.f32_subnormals, "in the mode, `{}` still depends on f32 subnormals", body.trim());
    }
}



/// Operands known to the translation, for which the exact mode tests less (`f32_arith_flushed`
/// and `f32_compare_exact` in `lower/src/inst/flushed.rs`): a value times itself, a product or
/// sum with a constant, a comparison with a constant. One-operand rows: the edge table, tiny
/// values, and values around 2^-63 and 2^-102 (where a square or a sum with a small constant
/// becomes tiny) and around the constants' own thresholds.
fn known_operand_cases() -> Vec<Case> {
    let mut rng = Rng(5);
    let mut one = f32_rows(1, 6);
    one.extend((0..SAMPLES as u64).map(|k| {
        let r = rng.next_u64() & 0xffff_ffff;
        // Exponent fields 60..=67 (2^-67 … 2^-60: squares around 2^-126) and 22..=29
        // (around 2^-102), and 0..=3 once more.
        let e = match k % 3 {
            0 => 60 + (r >> 9) % 8,
            1 => 22 + (r >> 9) % 8,
            _ => (r >> 9) % 4,
        };
        (r & 0x807f_ffff) | (e << 23)
    }));
    let rn = round_of("rn");
    let mut v = Vec::new();
    let fmt = |c: u32| format!("0f{c:08X}");
    v.push(Case {
        variant: Variant { body: "mul.rn.f32 %d0, %s0, %s0;".into(), srcs: vec!["f32"], dsts: vec!["f32"] },
        inputs: one.clone(),
        reference: Box::new(move |a| vec![fref::arith_f32("mul", rn, &[a[0], a[0]], false, false)]),
        independent: false,
    });
    // 2, 1, −1, ±0, ∞ (the test on the other factor only); 0.5, 2^-126, 2^-24, 1 − ulp, a
    // subnormal, NaN (the general test).
    let factors = [0x4000_0000u32, 0x3f80_0000, 0xbf80_0000, 0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x3f00_0000, 0x0080_0000, 0x3380_0000, 0x3f7f_ffff, 0x0000_0003, 0x7fc0_0000];
    for c in factors {
        for (body, swap) in [(format!("mul.rn.f32 %d0, %s0, {};", fmt(c)), false), (format!("mul.rn.f32 %d0, {}, %s0;", fmt(c)), true)] {
            v.push(Case {
                variant: Variant { body, srcs: vec!["f32"], dsts: vec!["f32"] },
                inputs: one.clone(),
                reference: Box::new(move |a| {
                    let xs = if swap { [c as u64, a[0]] } else { [a[0], c as u64] };
                    vec![fref::arith_f32("mul", rn, &xs, false, false)]
                }),
                independent: false,
            });
        }
    }
    // 2^-102 and above, zeros (harmless: the other operand alone is tested); 2^-103, a
    // subnormal, the least normal (the general test).
    let addends = [0x0c80_0000u32, 0x8c80_0000, 0x3f80_0000, 0, 0x8000_0000, 0x0c00_0000, 0x0000_0001, 0x8080_0000, 0x7f80_0000];
    for op in ["add", "sub"] {
        for c in addends {
            for swap in [false, true] {
                let body = if swap { format!("{op}.rn.f32 %d0, {}, %s0;", fmt(c)) } else { format!("{op}.rn.f32 %d0, %s0, {};", fmt(c)) };
                v.push(Case {
                    variant: Variant { body, srcs: vec!["f32"], dsts: vec!["f32"] },
                    inputs: one.clone(),
                    reference: Box::new(move |a| {
                        let xs = if swap { [c as u64, a[0]] } else { [a[0], c as u64] };
                        vec![fref::arith_f32(op, rn, &xs, false, false)]
                    }),
                    independent: false,
                });
            }
        }
    }
    // Normal constants (native comparison) and zeros, subnormals, infinity, NaN (on the bits).
    let bounds = [0x4080_0000u32, 0x0080_0000, 0x8080_0000, 0x0080_0001, 0xbf80_0000, 0, 0x8000_0000, 0x0000_0001, 0x807f_ffff, 0x7f80_0000, 0x7fc0_0000];
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu"] {
        for c in bounds {
            for swap in [false, true] {
                let body = if swap { format!("setp.{cmp}.f32 %d0, {}, %s0;", fmt(c)) } else { format!("setp.{cmp}.f32 %d0, %s0, {};", fmt(c)) };
                v.push(Case {
                    variant: Variant { body, srcs: vec!["f32"], dsts: vec!["pred"] },
                    inputs: one.clone(),
                    reference: Box::new(move |a| {
                        let (x, y) = (f32::from_bits(a[0] as u32) as f64, f32::from_bits(c) as f64);
                        let (x, y) = if swap { (y, x) } else { (x, y) };
                        vec![Expect::Bits(fref::compare(cmp, x, y) as u64)]
                    }),
                    independent: false,
                });
            }
        }
    }
    v
}

/// The exact mode's cheaper tests for known operands (a square, a constant factor, addend or
/// comparison bound) miss no case a flushing device gets wrong: PTX's bits under simulated
/// flushing, with and without 64-bit types.
#[test]
fn exact_mode_with_known_operands_under_simulated_flushing() {
    let Some(gpu) = sweep::gpu() else { return };
    let base = LowerOptions { flushed_f32: true, simulate_flushed_f32: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let mut failures = Vec::new();
    for options in [base.clone(), LowerOptions { split_int64: true, ..base }] {
        for case in known_operand_cases() {
            for r in mismatches(&gpu, &case, &options) {
                failures.extend(r.failures);
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
