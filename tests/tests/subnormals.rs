//! Devices that flush subnormals: the probe's verdict, and the refusal of kernels whose results
//! depend on them (`Features::f32_subnormals`/`f64_subnormals`, decided by `lower`).
//!
//! - `lower_marks_what_depends_on_subnormals`: which PTX instructions set the flags (no GPU).
//! - `probe_verdict_agrees_with_the_device`: on every backend, a kernel adding subnormals either
//!   runs and gives the exact IEEE sum (the probe said "kept") or is refused (it said
//!   "flushed"); on lavapipe both backends keep them. Holds on any GPU.
//! - `forced_flush_refuses_only_what_depends_on_subnormals`: with the verdict forced to "f32
//!   flushed" (`Gpu::assume_subnormals`), the same kernel translated as the host does (in the
//!   exact mode for such devices, `LowerOptions::flushed_f32`) runs and gives the exact sum,
//!   while its translation without that mode is refused with an error naming the device,
//!   backend, reason, instruction and the other backend; kernels that are exact anyway (`.ftz`
//!   everywhere, f16 and bf16 arithmetic, f64, integers) run and match their CPU references.

use std::sync::Arc;

use ptxcross::runtime::{GpuOptions, Subnormals};
use ptxcross::{translate, Backend, Gpu};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::{self, bytes, gpu_or_skip, words, Launch};

/// Kernel `k(out, in)`: `%rd1` = out, `%rd2` = in; the body reads and writes words there.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         .reg .pred %p<4>;\n.reg .b16 %h<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<16>;\n.reg .f64 %fd<8>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [in];\n{body}\nret;\n}}\n"
    )
}

fn features(body: &str) -> (bool, bool) {
    let file = SourceFile::new("k.ptx", kernel(body));
    let module = translate::frontend(&file, &LowerOptions::default()).map_err(|e| e.render()).expect("translates");
    let f = &module.kernels[0].features;
    (f.f32_subnormals, f.f64_subnormals)
}

const ADD_F32: &str = "ld.global.f32 %f1, [%rd2];\nld.global.f32 %f2, [%rd2+4];\nadd.rn.f32 %f3, %f1, %f2;\nst.global.f32 [%rd1], %f3;";

#[test]
fn lower_marks_what_depends_on_subnormals() {
    let ld2 = "ld.global.f32 %f1, [%rd2];\nld.global.f32 %f2, [%rd2+4];\n";
    let cases: &[(&str, (bool, bool))] = &[
        (ADD_F32, (true, false)),
        ("ld.global.f32 %f1, [%rd2];\nneg.f32 %f2, %f1;\nst.global.f32 [%rd1], %f2;", (true, false)),
        (&format!("{ld2}setp.lt.f32 %p1, %f1, %f2;\nselp.u32 %r1, 1, 0, %p1;\nst.global.u32 [%rd1], %r1;"), (true, false)),
        ("ld.global.f32 %f1, [%rd2];\ncvt.rmi.s32.f32 %r1, %f1;\nst.global.u32 [%rd1], %r1;", (true, false)),
        // Toward zero and to nearest, a subnormal and a flushed zero give the same integer.
        ("ld.global.f32 %f1, [%rd2];\ncvt.rzi.s32.f32 %r1, %f1;\ncvt.rni.u32.f32 %r2, %f1;\nadd.u32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;", (false, false)),
        ("ld.global.f64 %fd1, [%rd2];\ncvt.rzi.s64.f64 %rd3, %fd1;\nst.global.u64 [%rd1], %rd3;", (false, false)),
        ("ld.global.f64 %fd1, [%rd2];\ncvt.rpi.s32.f64 %r1, %fd1;\nst.global.u32 [%rd1], %r1;", (false, true)),
        ("ld.global.f32 %f1, [%rd2];\ncvt.f64.f32 %fd1, %f1;\nst.global.f64 [%rd1], %fd1;", (true, false)),
        // bf16 min/max compare in f32 (a bf16 subnormal is an f32 subnormal) …
        ("ld.global.u16 %h1, [%rd2];\nmin.bf16 %h2, %h1, %h1;\nst.global.u16 [%rd1], %h2;", (true, false)),
        // … while bf16 arithmetic splits significands and exponents on the bits.
        ("ld.global.u16 %h1, [%rd2];\nadd.rn.bf16 %h2, %h1, %h1;\nfma.rn.bf16 %h3, %h2, %h1, %h1;\nst.global.u16 [%rd1], %h3;", (false, false)),
        // .ftz everywhere: operands and results are flushed by the rules themselves.
        (
            &format!(
                "{ld2}add.ftz.f32 %f3, %f1, %f2;\nmul.rn.ftz.f32 %f4, %f3, %f2;\nfma.rn.ftz.f32 %f5, %f4, %f1, %f2;\n\
                 div.rn.ftz.f32 %f6, %f5, %f1;\nsqrt.rn.ftz.f32 %f7, %f6;\nmin.ftz.f32 %f8, %f7, %f1;\n\
                 setp.gt.ftz.f32 %p1, %f8, %f2;\nselp.f32 %f9, %f8, %f1, %p1;\ncvt.rzi.ftz.s32.f32 %r1, %f9;\n\
                 cvt.ftz.f64.f32 %fd1, %f9;\ncvt.rn.ftz.f32.f64 %f10, %fd1;\nst.global.f32 [%rd1], %f10;\nst.global.u32 [%rd1+4], %r1;"
            ),
            (false, false),
        ),
        // f16 values, their products and sums are normal in f32.
        ("ld.global.u16 %h1, [%rd2];\nmul.rn.f16 %h2, %h1, %h1;\nfma.rn.f16 %h3, %h2, %h1, %h1;\nst.global.u16 [%rd1], %h3;", (false, false)),
        ("ld.global.f64 %fd1, [%rd2];\nadd.rn.f64 %fd2, %fd1, %fd1;\nst.global.f64 [%rd1], %fd2;", (false, true)),
        ("ld.global.u32 %r1, [%rd2];\nadd.u32 %r2, %r1, 7;\nst.global.u32 [%rd1], %r2;", (false, false)),
        // Half comparisons, 8-bit float and tf32 conversions work on the bits.
        (
            &format!(
                "{ld2}ld.global.u32 %r1, [%rd2+8];\nsetp.lt.bf16 %p1, %h1, %h2;\nsetp.gtu.bf16x2 %p2|%p3, %r1, %r1;\n\
                 cvt.rn.satfinite.e4m3x2.f32 %h3, %f1, %f2;\ncvt.rn.f16x2.e5m2x2 %r2, %h3;\ncvt.rna.tf32.f32 %r3, %f1;\n\
                 selp.u32 %r4, 1, 0, %p1;\nst.global.u32 [%rd1], %r4;\nst.global.u32 [%rd1+4], %r2;\nst.global.u32 [%rd1+8], %r3;"
            ),
            (false, false),
        ),
        // Moves, selects and bit operations on floats do not compute.
        (&format!("{ld2}mov.f32 %f3, %f1;\nabs.ftz.f32 %f4, %f2;\nst.global.f32 [%rd1], %f3;\nst.global.f32 [%rd1+4], %f4;"), (false, false)),
    ];
    for (body, want) in cases {
        assert_eq!(features(body), *want, "(f32, f64) subnormal dependence of:\n{body}");
    }
}

fn one_thread(ptx: &str, input: Vec<u8>, out_bytes: usize) -> Launch<'_> {
    Launch { ptx, kernel: "k", block: [1, 1, 1], grid: [1, 1, 1], buffers: vec![vec![0; out_bytes], input] }
}

/// 3·2^-149 + 2^-149 = 4·2^-149 (exact in IEEE arithmetic; 0 where flushed).
fn add_subnormals(gpu: &Arc<Gpu>, backend: Backend) -> Result<u32, String> {
    let ptx = kernel(ADD_F32);
    let out = launch::run(gpu, &one_thread(&ptx, bytes(&[3, 1]), 4), backend)?;
    Ok(words(&out[0])[0])
}

#[test]
fn probe_verdict_agrees_with_the_device() {
    let Some(gpu) = gpu_or_skip() else { return };
    let lavapipe = gpu.adapter_info().name.contains("llvmpipe");
    for backend in Backend::ALL {
        let s = gpu.subnormals(backend);
        eprintln!("{backend}: {s:?} {:?}", s.failed_checks());
        if lavapipe {
            assert_eq!(s, Subnormals::KEPT, "{backend}: lavapipe keeps subnormals (failed: {:?})", s.failed_checks());
        }
        match add_subnormals(&gpu, backend) {
            Ok(bits) => {
                assert!(s.f32_kept, "{backend}: ran although the probe says f32 subnormals are flushed");
                assert_eq!(bits, 4, "{backend}: 3·2^-149 + 2^-149, the probe said kept");
            }
            Err(e) => {
                assert!(!s.f32_kept, "{backend}: refused although kept: {e}");
                assert!(e.contains("flushes f32 subnormals"), "{backend}: {e}");
            }
        }
    }
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

#[test]
fn forced_flush_refuses_only_what_depends_on_subnormals() {
    if gpu_or_skip().is_none() {
        return;
    }
    // A device of its own: the forced verdict must not leak into other tests' shared device.
    let gpu = Arc::new(Gpu::open(&GpuOptions::default()).expect("device"));
    let name = gpu.adapter_info().name.clone();
    for backend in Backend::ALL {
        gpu.assume_subnormals(backend, Subnormals::F32_FLUSHED);
        let other = if backend == Backend::Spirv { "wgsl" } else { "spirv" };
        assert_eq!(add_subnormals(&gpu, backend), Ok(4), "{backend}: the exact mode for a device that flushes");
        // Translated without that mode, the kernel would be wrong there: refused.
        let file = SourceFile::new("k.ptx", kernel(ADD_F32));
        let options = LowerOptions { kernel: Some("k".into()), block: Some([1, 1, 1]), ..LowerOptions::default() };
        let program = translate::build_program(&file, &options, &[backend], true).map_err(|e| e.render()).expect("translates");
        let e = gpu.check_subnormals(&program.module().kernels[0], backend).expect_err("refused without the mode").to_string();
        for part in [name.as_str(), &format!("{backend} backend"), "flushes f32 subnormals", "`add.rn.f32` at line", "flushed_f32", &format!("--backend {other}"), ".ftz"] {
            assert!(e.contains(part), "{backend}: the refusal should name `{part}`: {e}");
        }

        // .ftz everywhere: exact anyway, so it runs. Inputs: a subnormal, normals whose
        // product is subnormal (and negative), and a normal pair.
        let ftz = kernel(
            "ld.global.f32 %f1, [%rd2];\nld.global.f32 %f2, [%rd2+4];\nld.global.f32 %f3, [%rd2+8];\nld.global.f32 %f4, [%rd2+12];\n\
             add.ftz.f32 %f5, %f1, %f1;\nmul.rn.ftz.f32 %f6, %f2, %f3;\nmul.rn.ftz.f32 %f7, %f3, %f4;\n\
             setp.gt.ftz.f32 %p1, %f1, 0f00000000;\nselp.u32 %r1, 1, 0, %p1;\nsub.ftz.f32 %f8, %f4, %f2;\n\
             st.global.f32 [%rd1], %f5;\nst.global.f32 [%rd1+4], %f6;\nst.global.f32 [%rd1+8], %f7;\n\
             st.global.u32 [%rd1+12], %r1;\nst.global.f32 [%rd1+16], %f8;",
        );
        let x: [f32; 4] = [f32::from_bits(5), -(2f32.powi(-100)), 2f32.powi(-30), 1.5];
        let out = launch::run(&gpu, &one_thread(&ftz, bytes(&x.map(f32::to_bits)), 20), backend).expect(".ftz kernel runs");
        let want = [
            flush(flush(x[0]) + flush(x[0])).to_bits(),
            flush(x[1] * x[2]).to_bits(),
            flush(x[2] * x[3]).to_bits(),
            (flush(x[0]) > 0.0) as u32,
            flush(x[3] - x[1]).to_bits(),
        ];
        assert_eq!(words(&out[0]), want, "{backend}: .ftz kernel under a forced flush");
        assert_eq!(want[1], 0x8000_0000, "the reference flushes the tiny negative product to -0");

        // f16 arithmetic: f16 subnormals are normal in f32: exact.
        let f16 = kernel("ld.global.u16 %h1, [%rd2];\nld.global.u16 %h2, [%rd2+2];\nadd.rn.f16 %h3, %h1, %h2;\nst.global.u16 [%rd1], %h3;");
        let out = launch::run(&gpu, &one_thread(&f16, bytes(&[0x0001_0003]), 4), backend).expect("f16 kernel runs");
        assert_eq!(words(&out[0])[0] & 0xffff, 4, "{backend}: f16 3·2^-24 + 2^-24");
        // bf16 arithmetic normalizes on the bits: its subnormals (f32 subnormals) stay exact too.
        let bf16 = kernel("ld.global.u16 %h1, [%rd2];\nld.global.u16 %h2, [%rd2+2];\nadd.rn.bf16 %h3, %h1, %h2;\nst.global.u16 [%rd1], %h3;");
        let out = launch::run(&gpu, &one_thread(&bf16, bytes(&[0x0001_0003]), 4), backend).expect("bf16 kernel runs");
        assert_eq!(words(&out[0])[0] & 0xffff, 4, "{backend}: bf16 3·2^-133 + 2^-133");

        // f64 subnormals are kept by this forced verdict, and refused once they are not.
        let f64k = kernel("ld.global.f64 %fd1, [%rd2];\nld.global.f64 %fd2, [%rd2+8];\nadd.rn.f64 %fd3, %fd1, %fd2;\nst.global.f64 [%rd1], %fd3;");
        let launch = one_thread(&f64k, bytes(&[3, 0, 1, 0]), 8);
        match launch::run(&gpu, &launch, backend) {
            Err(e) if e.contains("SHADER_F64") => eprintln!("{backend}: no f64 on this device: {e}"),
            out => {
            let out = out.expect("f64 kernel runs");
            assert_eq!(words(&out[0]), [4, 0], "{backend}: f64 3·2^-1074 + 2^-1074");
            let f64_flushed = Subnormals { f64_kept: Some(false), failed: 1 << 16, ..Subnormals::KEPT };
            gpu.assume_subnormals(backend, f64_flushed);
            let e = launch::run(&gpu, &launch, backend).expect_err("refused where f64 subnormals are flushed");
            assert!(e.contains("flushes f64 subnormals") && e.contains(&format!("--backend {other}")), "{backend}: {e}");
            assert!(add_subnormals(&gpu, backend).is_ok(), "{backend}: f32 kept, so the f32 kernel runs");
            }
        }
    }
}
