//! Refusals name the instruction: the WGSL backend's refusal of a fence (an `.acquire` or
//! `.release` atomic) says which instruction needs it and where, as `lower` recorded it.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

const PTX: &str = ".version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .u32 %r<3>;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd1, [p];
    atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;
    st.global.u32 [%rd1+4], %r1;
    ret;
}
";

#[test]
fn wgsl_fence_refusal_names_the_instruction() {
    let file = SourceFile::new("fence.ptx", PTX);
    let ast = parse(&file).expect("parses");
    let module = lower(&ast, &file, &LowerOptions { block: Some([32, 1, 1]), ..Default::default() }).expect("lowers");
    let err = ptxcross_wgsl::emit(&module, ptxcross_wgsl::Profile::Wgpu).expect_err("WGSL has no fence").to_string();
    assert!(err.contains("memory fence outside a barrier"), "{err}");
    assert!(err.contains("`atom.acquire.gpu.global.add.u32` at line 9:5"), "{err}");
}

/// A `--split-int64` refusal (a target without 64-bit integers: WebGPU) points at the
/// instruction whose value could not be split, not at the kernel.
#[test]
fn split_int64_refusal_names_the_instruction() {
    let src = ".version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .u64 %rd<5>;
    ld.param.u64 %rd1, [p];
    ld.global.u64 %rd2, [%rd1];
    atom.global.add.u64 %rd3, [%rd1], %rd2;
    st.global.u64 [%rd1], %rd3;
    ret;
}
";
    let file = SourceFile::new("split.ptx", src);
    let ast = parse(&file).expect("parses");
    let options = LowerOptions { block: Some([32, 1, 1]), split_int64: true, ..Default::default() };
    let errors = lower(&ast, &file, &options).expect_err("a 64-bit atomic's old value cannot be split");
    let e = errors[0].render(&file);
    assert!(e.contains("a 64-bit atomic whose old value is used") && e.contains("split.ptx:9:5"), "{e}");
}

/// A `--no-float64` refusal (a target without 64-bit floats) names the first instruction that
/// needs them and its place, not only the kernel; the f32 instructions before it (directed
/// rounding included) are computed on integers and need none.
#[test]
fn no_float64_refusal_names_the_instruction() {
    let src = ".version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .u64 %rd<2>;
    .reg .f32 %f<4>;
    .reg .f64 %fd<3>;
    ld.param.u64 %rd1, [p];
    ld.global.f32 %f1, [%rd1];
    fma.rm.f32 %f2, %f1, %f1, %f1;
    mul.rp.f64 %fd1, %fd2, %fd2;
    cvt.rn.f32.f64 %f3, %fd1;
    st.global.f32 [%rd1], %f3;
    ret;
}
";
    let file = SourceFile::new("f64.ptx", src);
    let ast = parse(&file).expect("parses");
    let options = LowerOptions { block: Some([32, 1, 1]), no_float64: true, ..Default::default() };
    let module = lower(&ast, &file, &options).expect("lowers (the host refuses it)");
    let err = ptxcross::translate::refuse_float64(&module, &file).expect_err("mul.rp.f64 needs f64").to_string();
    assert!(err.contains("f64.ptx:12:5: `mul.rp.f64`"), "{err}");
}

/// The runtime's refusal on a device without 64-bit floats (`SHADER_F64` masked off, as a
/// Vulkan device without `shaderFloat64`) names the first instruction that needs them and its
/// place, as the CLI's `--no-float64` refusal does, not only the kernel.
#[test]
fn runtime_float64_refusal_names_the_instruction() {
    use ptxcross::runtime::{Backend, Context, Gpu, GpuOptions, WANTED_FEATURES};
    use std::sync::Arc;
    let Some(_) = ptxcross_tests::launch::gpu_or_skip() else { return };
    let options = GpuOptions { feature_mask: Some(WANTED_FEATURES.difference(wgpu::Features::SHADER_F64)), ..Default::default() };
    let limited = Arc::new(Gpu::open(&options).expect("the adapter opens"));
    assert!(!limited.features().contains(wgpu::Features::SHADER_F64));
    let src = ".version 7.0
.target sm_70
.address_size 64
.visible .entry dadd(.param .u64 p)
{
    .reg .f64 %fd<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.f64 %fd1, [%rd1];
    add.f64 %fd2, %fd1, %fd1;
    st.global.f64 [%rd1], %fd2;
    ret;
}
";
    let file = SourceFile::new("f64.ptx", src);
    // As the runtime translates for this device: `no_float64`, which records the site.
    let lower_options = limited.lower_options(&[Backend::Wgsl]);
    assert!(lower_options.no_float64);
    let program = ptxcross::translate::build_program(&file, &lower_options, &[Backend::Wgsl], true).expect("translates");
    let mut ctx = Context::new(ptxcross::ContextOptions { heap_bytes: 1 << 20, gpu: Some(limited), ..Default::default() })
        .expect("a context");
    let buf = ctx.alloc(8).expect("alloc");
    let err = ctx.launch(&program, "dadd", [1, 1, 1], &[&buf.to_le_bytes()], Backend::Wgsl).expect_err("no f64").to_string();
    assert_eq!(err, "f64.ptx:9:5: `ld.global.f64` (kernel `dadd`) uses 64-bit floats but the adapter lacks SHADER_F64");
}
