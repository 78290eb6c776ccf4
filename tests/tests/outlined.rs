//! Long instruction expansions emitted once per module as functions and called at each use
//! (issue 11: `lower`'s outlined functions, `ir::Function`). A kernel with many uses of the same
//! expansion (24 `rcp.approx.f32`, then several `div.rn`, `sqrt.rn`, `fma`, `ex2.approx`) runs on
//! both backends against a CPU reference written from the spec text:
//!
//! - `rcp.rn` / `div.rn` / `sqrt.rn` are correctly rounded (§9.7.3.8/9/11), which is what Rust's
//!   f32 `/` and `sqrt` give; `rcp.approx.f32` allows 1 ulp (§9.7.3.9), and ptxcross gives the
//!   correctly rounded result (README "Accuracy of `.approx`"), checked here as such;
//! - `fma.rn.f32` rounds once (§9.7.3.6): Rust's `f32::mul_add`.
//!
//! NaN results are compared as NaN (PTX leaves their payload to the implementation).
//!
//! The benchmark (ignored) prints emitted sizes and first-launch pipeline-creation times of the
//! 24-`rcp` kernel on both backends:
//!
//! `MESA_SHADER_CACHE_DISABLE=true PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test outlined pipeline_time -- --ignored --nocapture`

use std::time::{Duration, Instant};

use ptxcross::{translate, Backend, Context, ContextOptions};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{bytes, gpu_or_skip, run, words, Launch, PER_THREAD_HEADER};
use ptxcross_tests::sweep::Expect;

/// `k(out, in)`: one f32 per thread, `body` computes `%f0` from `%f1` (the input) with
/// registers `%f1..%f40`.
fn kernel(body: &str) -> String {
    format!(
        "{PER_THREAD_HEADER}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n\
         .reg .b32 %r<8>;\n.reg .f32 %f<48>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd2, %rd5;\n add.s64 %rd7, %rd1, %rd5;\n\
         ld.global.f32 %f1, [%rd6];\n{body}\n st.global.f32 [%rd7], %f0;\n ret;\n}}\n"
    )
}

/// 24 `rcp.approx.f32`, each on the previous one's result.
fn rcp24() -> String {
    let mut body = String::new();
    for i in 1..=24 {
        body += &format!(" rcp.approx.f32 %f{}, %f{i};\n", i + 1);
    }
    body += " mov.f32 %f0, %f25;\n";
    kernel(&body)
}

fn rcp24_model(x: f32) -> f32 {
    (0..24).fold(x, |a, _| 1.0 / a)
}

/// Several uses each of `div.rn`, `sqrt.rn`, `rcp.rn` and `fma.rn` (two forms of the
/// division: by a register and by a constant), mixed.
fn mixed() -> String {
    kernel(
        " abs.f32 %f2, %f1;\n sqrt.rn.f32 %f3, %f2;\n div.rn.f32 %f4, %f1, %f3;\n rcp.rn.f32 %f5, %f4;\n\
         fma.rn.f32 %f6, %f5, %f1, %f4;\n sqrt.rn.f32 %f7, %f6;\n div.rn.f32 %f8, %f7, 0f40400000;\n\
         fma.rn.f32 %f9, %f8, %f3, %f1;\n div.rn.f32 %f10, %f9, %f8;\n rcp.rn.f32 %f11, %f10;\n\
         fma.rn.f32 %f12, %f11, %f11, %f10;\n sqrt.rn.f32 %f13, %f12;\n div.rn.f32 %f0, %f13, %f5;\n",
    )
}

fn mixed_model(x: f32) -> f32 {
    let f2 = x.abs();
    let f3 = f2.sqrt();
    let f4 = x / f3;
    let f5 = 1.0 / f4;
    let f6 = f5.mul_add(x, f4);
    let f7 = f6.sqrt();
    let f8 = f7 / 3.0;
    let f9 = f8.mul_add(f3, x);
    let f10 = f9 / f8;
    let f11 = 1.0 / f10;
    let f12 = f11.mul_add(f11, f10);
    let f13 = f12.sqrt();
    f13 / f5
}

/// Inputs: a spread of magnitudes (subnormals to huge, both signs), zeros, infinities, NaN.
fn inputs(n: usize) -> Vec<f32> {
    let mut x = 0x2545_f491u32;
    let mut v: Vec<f32> = vec![0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 1e-40, -3e-39, 3.0, 0.1];
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(f32::from_bits(x));
    }
    v
}

fn check(name: &str, ptx: &str, model: fn(f32) -> f32) {
    let Some(gpu) = gpu_or_skip() else { return };
    let (block, grid) = (64u32, 8u32);
    let input = inputs((block * grid) as usize);
    let in_words: Vec<u32> = input.iter().map(|f| f.to_bits()).collect();
    for backend in Backend::ALL {
        let launch = Launch {
            ptx,
            kernel: "k",
            block: [block, 1, 1],
            grid: [grid, 1, 1],
            buffers: vec![vec![0; input.len() * 4], bytes(&in_words)],
        };
        let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{name} on {backend}: {e}"));
        let got = words(&out[0]);
        for (i, &x) in input.iter().enumerate() {
            let want = model(x);
            let ok = if want.is_nan() { f32::from_bits(got[i]).is_nan() } else { got[i] == want.to_bits() };
            assert!(ok, "{name} on {backend}: input {x:e} ({:#010x}): expected {want:e} ({:#010x}), got {:#010x}", x.to_bits(), want.to_bits(), got[i]);
        }
    }
}

/// The same kernels lowered for targets without 64-bit integers (`split_int64`, the WebGPU
/// profile's lowering: the f64-free emulations), with their functions (whose 64-bit integer
/// temporaries are split like the kernel's), run through both backends.
fn check_split(name: &str, ptx: &str, model: fn(f32) -> f32) {
    let Some(gpu) = gpu_or_skip() else { return };
    let (block, grid) = (64u32, 4u32);
    let input = inputs((block * grid) as usize);
    let in_words: Vec<u32> = input.iter().map(|f| f.to_bits()).collect();
    let file = SourceFile::new(format!("{name}.ptx"), ptx);
    let base = LowerOptions { block: Some([block, 1, 1]), kernel: Some("k".into()), split_int64: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let module = translate::frontend(&file, &base).expect("lower");
    assert!(!module.kernels[0].functions.is_empty() && !module.kernels[0].features.int64, "{name}: no functions, or 64-bit integers left");
    for backend in Backend::ALL {
        let options = LowerOptions { flushed_f32: gpu.flushes_f32(backend), ..base.clone() };
        let program = translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{name} on {backend}: {}", e.render()));
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context");
        let out = ctx.alloc(input.len() as u64 * 4).unwrap();
        let inp = ctx.alloc(input.len() as u64 * 4).unwrap();
        ctx.write(inp, &bytes(&in_words)).unwrap();
        let args = [out.to_le_bytes(), inp.to_le_bytes()];
        let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        ctx.launch(&program, "k", [grid, 1, 1], &arg_refs, backend).unwrap_or_else(|e| panic!("{name} on {backend}: {e}"));
        let got = words(&ctx.read(out, input.len() as u64 * 4).unwrap());
        for (i, &x) in input.iter().enumerate() {
            let want = model(x);
            let ok = if want.is_nan() { f32::from_bits(got[i]).is_nan() } else { got[i] == want.to_bits() };
            assert!(ok, "{name} (split) on {backend}: input {x:e} ({:#010x}): expected {want:e} ({:#010x}), got {:#010x}", x.to_bits(), want.to_bits(), got[i]);
        }
    }
}

/// Four `fma.rn.f32` (without 64-bit integers: the emulation on integers, `f32_fma_on_integers`).
/// (Correctly rounded division and square root need f64 and are refused there.)
fn fmas() -> String {
    kernel(
        " fma.rn.f32 %f2, %f1, %f1, %f1;\n fma.rn.f32 %f3, %f2, %f1, 0f3f000000;\n\
         fma.rn.f32 %f4, %f3, %f3, %f2;\n fma.rn.f32 %f0, %f4, %f2, %f3;\n",
    )
}

fn fmas_model(x: f32) -> f32 {
    let f2 = x.mul_add(x, x);
    let f3 = f2.mul_add(x, 0.5);
    let f4 = f3.mul_add(f3, f2);
    f4.mul_add(f2, f3)
}

#[test]
fn without_64_bit_integers() {
    check_split("fmas", &fmas(), fmas_model);
}

#[test]
fn fmas_inlined_and_outlined() {
    check("fmas", &fmas(), fmas_model);
}

#[test]
fn twenty_four_rcp_approx() {
    check("rcp24", &rcp24(), rcp24_model);
}

#[test]
fn mixed_divisions_roots_and_fmas() {
    check("mixed", &mixed(), mixed_model);
}

/// The 24 `rcp` are one function called 24 times, in a module of two kernels too (one
/// function in the module's code), and the code is a fraction of the inlined one's.
#[test]
fn one_function_per_module() {
    let ptx = rcp24();
    let two = ptx.clone() + &ptx[ptx.find(".visible").unwrap()..].replacen(".entry k(", ".entry k2(", 1);
    let lower = |src: &str, no_outline: bool| {
        let file = SourceFile::new("rcp24.ptx".to_string(), src);
        translate::frontend(&file, &LowerOptions { block: Some([64, 1, 1]), no_outline, ..Default::default() }).expect("lower")
    };
    let module = lower(&two, false);
    assert_eq!(module.kernels.len(), 2);
    for k in &module.kernels {
        assert_eq!(k.functions.len(), 1, "{}", k.name);
    }
    let wgsl = translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu).expect("wgsl");
    translate::validate_wgsl(&wgsl, ptxcross_wgsl::Profile::Wgpu).expect("naga");
    assert_eq!(wgsl.matches("\nfn px_fn").count(), 1, "{wgsl}");
    let spirv = translate::emit_spirv(&module).expect("spirv");
    if translate::spirv_validator_available() {
        translate::validate_spirv(&spirv).expect("spirv-val");
    }
    let inlined = lower(&ptx, true);
    assert!(inlined.kernels[0].functions.is_empty());
    let (a, b) = (wgsl_statements(&translate::emit_wgsl(&lower(&ptx, false), ptxcross_wgsl::Profile::Wgpu).unwrap()), wgsl_statements(&translate::emit_wgsl(&inlined, ptxcross_wgsl::Profile::Wgpu).unwrap()));
    assert!(a * 10 < b, "outlined {a} statements, inlined {b}");
}

/// WGSL statements of function bodies (one statement per line, as the backend writes them).
fn wgsl_statements(text: &str) -> usize {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|t| t.ends_with(';') || t.starts_with("if ") || t.starts_with("loop") || t.starts_with("switch "))
        .count()
}

/// The 24-`rcp` kernel's emitted sizes and first-launch pipeline creation (first launch of a
/// fresh program on one block, minus the fastest of three more launches), per backend,
/// alternating the backends, `PTXCROSS_OUTLINE_REPS` (default 3) times.
#[test]
#[ignore]
fn pipeline_time() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = rcp24();
    let file = SourceFile::new("rcp24.ptx".to_string(), &ptx);
    let options = LowerOptions { block: Some([64, 1, 1]), kernel: Some("k".into()), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let module = translate::frontend(&file, &options).expect("lower");
    let spirv = translate::emit_spirv(&module).expect("spirv");
    let wgsl = translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu).expect("wgsl");
    println!("rcp24: SPIR-V {} words, WGSL {} bytes, {} statements", spirv.len(), wgsl.len(), wgsl_statements(&wgsl));
    let reps: usize = std::env::var("PTXCROSS_OUTLINE_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let input = inputs(64);
    let in_words: Vec<u32> = input.iter().map(|f| f.to_bits()).collect();
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context");
    let out = ctx.alloc(256).unwrap();
    let inp = ctx.alloc(256).unwrap();
    ctx.write(inp, &bytes(&in_words)).unwrap();
    let args = [out.to_le_bytes(), inp.to_le_bytes()];
    let arg_refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    for rep in 0..reps {
        for backend in Backend::ALL {
            let t = Instant::now();
            let program = translate::build_program(&file, &options, &[backend], false).expect("translate");
            let translate_time = t.elapsed();
            let mut launch = || {
                let t = Instant::now();
                ctx.launch(&program, "k", [1, 1, 1], &arg_refs, backend).expect("launch");
                ctx.read(out, 4).expect("read");
                t.elapsed()
            };
            let first = launch();
            let again = (0..3).map(|_| launch()).min().unwrap_or(Duration::ZERO);
            let got = words(&ctx.read(out, 256).unwrap());
            for (i, &x) in input.iter().enumerate() {
                let want = rcp24_model(x);
                assert!(if want.is_nan() { f32::from_bits(got[i]).is_nan() } else { got[i] == want.to_bits() }, "{backend}: input {x:e}");
            }
            println!(
                "rep {rep} {backend}: translate {:.1} ms, first-launch pipeline {:.1} ms",
                translate_time.as_secs_f64() * 1e3,
                first.saturating_sub(again).as_secs_f64() * 1e3
            );
        }
    }
}

/// WGSL statements of the `kernel_speed` kernels, inlined and outlined, in the default mode and
/// in the exact mode for devices that flush f32 subnormals (`flushed_f32`, NVIDIA's WGSL path):
///
/// `cargo test -p ptxcross-tests --test outlined sizes -- --ignored --nocapture`
#[test]
#[ignore]
fn sizes() {
    for path in ["corpus/ptx/saxpy.sm80.ptx", "corpus/ptx/transpose.sm80.ptx", "corpus/ptx/reduce.sm80.ptx", "corpus/ptx/mandelbrot.sm80.ptx", "speed/ptx/matmul.sm80.ptx"] {
        let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("ptx");
        let file = SourceFile::new(path.to_string(), &text);
        let mut line = format!("{path:32}");
        for flushed_f32 in [false, true] {
            for no_outline in [true, false] {
                let options = LowerOptions { flushed_f32, no_outline, ..Default::default() };
                let module = translate::frontend(&file, &options).expect("lower");
                let wgsl = translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu).expect("wgsl");
                let spirv = translate::emit_spirv(&module).expect("spirv");
                line += &format!(" | {} stm {} words", wgsl_statements(&wgsl), spirv.len());
            }
        }
        println!("{line}   (default: inlined, outlined | flushed_f32: inlined, outlined)");
    }
}

/// Outlined calls in divergent control flow and in a loop: four iterations, each taking one
/// of four branches by two bits of the thread's input (so neighbouring threads call different
/// functions in the same iteration), with `div.rn`, `div.rp`, `div.rz.ftz`, `sqrt.rm`, `fma.rn.sat` of
/// f32 and `div.rm`, `fma.rp` of f64, each from two call sites (so each is a function, not
/// inlined back), the operands rotated every iteration. Every result is stored and checked
/// against `ptx_ref` (§9.7.3.6/8/11: one rounding in the given direction; `.ftz` flushes
/// inputs and result; `.sat` clamps to [+0, 1], NaN to +0; §9.7.4 for f64; `cvt.f64.f32`
/// is exact, §9.7.9.21).
fn divergent_loop_kernel() -> String {
    format!(
        "{PER_THREAD_HEADER}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .f32 %f<12>;\n.reg .f64 %fd<8>;\n.reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd2, %rd5;\n mul.wide.u32 %rd8, %r4, 128;\n add.s64 %rd7, %rd1, %rd8;\n\
         ld.global.u32 %r6, [%rd6];\n mov.b32 %f1, %r6;\n mul.lo.u32 %r7, %r6, -1640531527;\n mov.b32 %f2, %r7;\n\
         mul.lo.u32 %r8, %r7, -2048144789;\n mov.b32 %f3, %r8;\n mov.u32 %r10, 0;\n\
         L:\n shl.b32 %r11, %r10, 1;\n shr.u32 %r12, %r6, %r11;\n and.b32 %r12, %r12, 3;\n\
         cvt.f64.f32 %fd1, %f1;\n cvt.f64.f32 %fd2, %f2;\n cvt.f64.f32 %fd3, %f3;\n\
         setp.eq.u32 %p1, %r12, 0;\n @%p1 bra S0;\n setp.eq.u32 %p1, %r12, 1;\n @%p1 bra S1;\n setp.eq.u32 %p1, %r12, 2;\n @%p1 bra S2;\n\
         sqrt.rm.f32 %f4, %f1;\n div.rz.ftz.f32 %f5, %f3, %f2;\n div.rp.f32 %f7, %f3, %f1;\n fma.rp.f64 %fd4, %fd3, %fd2, %fd1;\n bra E;\n\
         S0:\n div.rn.f32 %f4, %f1, %f2;\n sqrt.rm.f32 %f5, %f3;\n div.rp.f32 %f7, %f2, %f1;\n div.rm.f64 %fd4, %fd1, %fd2;\n bra E;\n\
         S1:\n div.rn.f32 %f4, %f3, %f1;\n fma.rn.sat.f32 %f5, %f2, %f3, %f1;\n div.rp.f32 %f7, %f1, %f2;\n fma.rp.f64 %fd4, %fd1, %fd2, %fd3;\n bra E;\n\
         S2:\n fma.rn.sat.f32 %f4, %f1, %f2, %f3;\n div.rz.ftz.f32 %f5, %f2, %f3;\n div.rp.f32 %f7, %f3, %f2;\n div.rm.f64 %fd4, %fd2, %fd1;\n\
         E:\n st.global.f32 [%rd7], %f4;\n st.global.f32 [%rd7+4], %f5;\n st.global.f32 [%rd7+8], %f7;\n st.global.f64 [%rd7+16], %fd4;\n\
         mov.f32 %f6, %f1;\n mov.f32 %f1, %f2;\n mov.f32 %f2, %f3;\n mov.f32 %f3, %f6;\n\
         add.s64 %rd7, %rd7, 32;\n add.u32 %r10, %r10, 1;\n setp.lt.u32 %p2, %r10, 4;\n @%p2 bra L;\n ret;\n}}\n"
    )
}

/// What [`divergent_loop_kernel`] stores for input word `x`: per iteration two f32 and one
/// f64 expectation.
fn divergent_loop_model(x: u32) -> Vec<[Expect; 4]> {
    use ptxcross_tests::ptx_ref::float::{arith_f32, div_rounded_f32, div_rounded_f64, fma_rounded_f64, sqrt_rounded_f32};
    use rustc_apfloat::Round::*;
    let b = x.wrapping_mul(0x9e37_79b9);
    let c = b.wrapping_mul(0x85eb_ca6b);
    let (mut f1, mut f2, mut f3) = (x, b, c);
    let wide = |v: u32| (f32::from_bits(v) as f64).to_bits();
    let mut out = Vec::new();
    for j in 0..4 {
        let sel = (x >> (2 * j)) & 3;
        let (d1, d2, d3) = (wide(f1), wide(f2), wide(f3));
        let (a, b, c) = (f1 as u64, f2 as u64, f3 as u64);
        out.push(match sel {
            0 => [div_rounded_f32(a, b, NearestTiesToEven, false), sqrt_rounded_f32(c, TowardNegative, false), div_rounded_f32(b, a, TowardPositive, false), div_rounded_f64(d1, d2, TowardNegative)],
            1 => [div_rounded_f32(c, a, NearestTiesToEven, false), arith_f32("fma", NearestTiesToEven, &[b, c, a], false, true), div_rounded_f32(a, b, TowardPositive, false), fma_rounded_f64(d1, d2, d3, TowardPositive)],
            2 => [arith_f32("fma", NearestTiesToEven, &[a, b, c], false, true), div_rounded_f32(b, c, TowardZero, true), div_rounded_f32(c, b, TowardPositive, false), div_rounded_f64(d2, d1, TowardNegative)],
            _ => [sqrt_rounded_f32(a, TowardNegative, false), div_rounded_f32(c, b, TowardZero, true), div_rounded_f32(c, a, TowardPositive, false), fma_rounded_f64(d3, d2, d1, TowardPositive)],
        });
        (f1, f2, f3) = (f2, f3, f1);
    }
    out
}

#[test]
fn call_sites_in_divergent_branches_and_loops() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = divergent_loop_kernel();
    // Each of the six expansions is a function of the kernel (two call sites each).
    let file = SourceFile::new("divergent.ptx".to_string(), ptx.clone());
    let module = translate::frontend(&file, &LowerOptions { block: Some([64, 1, 1]), ..Default::default() }).expect("lower");
    let names: Vec<&str> = module.kernels[0].functions.iter().map(|f| f.name.as_str()).collect();
    eprintln!("functions: {names:?}");
    assert!(names.len() >= 6, "{names:?}");
    let (block, grid) = (64u32, 8u32);
    let mut input: Vec<u32> = inputs((block * grid) as usize).iter().map(|f| f.to_bits()).collect();
    // Threads whose selector bits walk every branch order in the first 256.
    for (i, w) in input.iter_mut().enumerate().take(256) {
        *w = (*w & !0xff) | i as u32;
    }
    for backend in Backend::ALL {
        let launch = Launch { ptx: &ptx, kernel: "k", block: [block, 1, 1], grid: [grid, 1, 1], buffers: vec![vec![0; input.len() * 128], bytes(&input)] };
        let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = words(&out[0]);
        for (t, &x) in input.iter().enumerate() {
            for (j, e) in divergent_loop_model(x).into_iter().enumerate() {
                let w = &got[32 * t + 8 * j..32 * t + 8 * j + 8];
                let d = w[4] as u64 | (w[5] as u64) << 32;
                assert!(
                    e[0].holds(w[0] as u64, 32) && e[1].holds(w[1] as u64, 32) && e[2].holds(w[2] as u64, 32) && e[3].holds(d, 64),
                    "{backend}: thread {t}, input {x:#010x}, iteration {j} (branch {}): expected {e:?}, got {:#010x} {:#010x} {:#010x} {d:#018x}",
                    (x >> (2 * j)) & 3,
                    w[0],
                    w[1],
                    w[2]
                );
            }
        }
    }
}

/// The exact paths for devices that flush f32 subnormals (`inst::flushed`: the rare path of
/// `add`/`sub`/`mul`/`fma.rn.f32` is an outlined function), called from divergent branches in
/// a loop, each op from several call sites, lowered with `flushed_f32` and run with
/// `simulate_flushed_f32` (every native f32 operation flushes, as on such a device), on inputs
/// that are mostly subnormal or tiny: the results must be PTX's (§9.7.3.3–6: one rounding,
/// subnormals kept), by `ptx_ref::float::arith_f32`.
fn flushed_loop_kernel() -> String {
    format!(
        "{PER_THREAD_HEADER}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .f32 %f<12>;\n.reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 16;\n add.s64 %rd6, %rd2, %rd5;\n mul.wide.u32 %rd8, %r4, 64;\n add.s64 %rd7, %rd1, %rd8;\n\
         ld.global.u32 %r6, [%rd6];\n ld.global.f32 %f1, [%rd6+4];\n ld.global.f32 %f2, [%rd6+8];\n ld.global.f32 %f3, [%rd6+12];\n mov.u32 %r10, 0;\n\
         L:\n shl.b32 %r11, %r10, 1;\n shr.u32 %r12, %r6, %r11;\n and.b32 %r12, %r12, 3;\n\
         setp.eq.u32 %p1, %r12, 0;\n @%p1 bra S0;\n setp.eq.u32 %p1, %r12, 1;\n @%p1 bra S1;\n setp.eq.u32 %p1, %r12, 2;\n @%p1 bra S2;\n\
         add.rn.f32 %f4, %f1, %f2;\n fma.rn.f32 %f5, %f3, %f2, %f1;\n mul.rn.f32 %f7, %f2, %f3;\n bra E;\n\
         S0:\n sub.rn.f32 %f4, %f1, %f2;\n add.rn.f32 %f5, %f3, %f1;\n fma.rn.f32 %f7, %f1, %f2, %f3;\n bra E;\n\
         S1:\n mul.rn.f32 %f4, %f3, %f1;\n sub.rn.f32 %f5, %f2, %f3;\n add.rn.f32 %f7, %f2, %f1;\n bra E;\n\
         S2:\n fma.rn.f32 %f4, %f2, %f3, %f1;\n mul.rn.f32 %f5, %f1, %f1;\n sub.rn.f32 %f7, %f3, %f2;\n\
         E:\n st.global.f32 [%rd7], %f4;\n st.global.f32 [%rd7+4], %f5;\n st.global.f32 [%rd7+8], %f7;\n\
         mov.f32 %f6, %f1;\n mov.f32 %f1, %f2;\n mov.f32 %f2, %f3;\n mov.f32 %f3, %f6;\n\
         add.s64 %rd7, %rd7, 16;\n add.u32 %r10, %r10, 1;\n setp.lt.u32 %p2, %r10, 4;\n @%p2 bra L;\n ret;\n}}\n"
    )
}

fn flushed_loop_model(w: &[u32]) -> Vec<[Expect; 3]> {
    use ptxcross_tests::ptx_ref::float::arith_f32;
    use rustc_apfloat::Round::NearestTiesToEven as Rn;
    let x = w[0];
    let (mut a, mut b, mut c) = (w[1] as u64, w[2] as u64, w[3] as u64);
    let f = |op: &str, xs: &[u64]| arith_f32(op, Rn, xs, false, false);
    let mut out = Vec::new();
    for j in 0..4 {
        out.push(match (x >> (2 * j)) & 3 {
            0 => [f("sub", &[a, b]), f("add", &[c, a]), f("fma", &[a, b, c])],
            1 => [f("mul", &[c, a]), f("sub", &[b, c]), f("add", &[b, a])],
            2 => [f("fma", &[b, c, a]), f("mul", &[a, a]), f("sub", &[c, b])],
            _ => [f("add", &[a, b]), f("fma", &[c, b, a]), f("mul", &[b, c])],
        });
        (a, b, c) = (b, c, a);
    }
    out
}

#[test]
fn flushed_exact_paths_called_in_divergent_branches_and_loops() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = flushed_loop_kernel();
    let options = LowerOptions { block: Some([64, 1, 1]), flushed_f32: true, simulate_flushed_f32: true, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let file = SourceFile::new("flushed_loop.ptx".to_string(), ptx.clone());
    let module = translate::frontend(&file, &options).expect("lower");
    let names: Vec<&str> = module.kernels[0].functions.iter().map(|f| f.name.as_str()).collect();
    assert!(names.iter().filter(|n| n.starts_with("f32_flushed_exact_")).count() == 4, "{names:?}");
    let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    let threads = 512usize;
    // Per thread: the branch selector, then a, b, c: subnormal or tiny (exponent field 0..3)
    // three times in four, any value otherwise; each sign.
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let input: Vec<u32> = (0..threads * 4)
        .map(|i| {
            let r = next();
            match (i % 4, r >> 62) {
                (0, _) => (r >> 16) as u32 ^ (i / 4) as u32,
                (_, 3) => (r >> 8) as u32,
                _ => (r as u32 & 0x807f_ffff) | (((r >> 40) % 4) as u32) << 23,
            }
        })
        .collect();
    for backend in Backend::ALL {
        let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
        let inp = ctx.alloc((threads * 16) as u64).unwrap();
        let out = ctx.alloc((threads * 64) as u64).unwrap();
        ctx.write(inp, &bytes(&input)).unwrap();
        ctx.launch(&program, "k", [threads as u32 / 64, 1, 1], &[&out.0.to_le_bytes(), &inp.0.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = words(&ctx.read(out, (threads * 64) as u64).unwrap());
        for t in 0..threads {
            let w = &input[4 * t..4 * t + 4];
            for (j, e) in flushed_loop_model(w).into_iter().enumerate() {
                let g = &got[16 * t + 4 * j..16 * t + 4 * j + 3];
                assert!(
                    (0..3).all(|i| e[i].holds(g[i] as u64, 32)),
                    "{backend}: thread {t}, inputs {w:#010x?}, iteration {j} (branch {}): expected {e:?}, got {g:#010x?}",
                    (w[0] >> (2 * j)) & 3
                );
            }
        }
    }
}
