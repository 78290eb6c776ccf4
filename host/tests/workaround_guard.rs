//! A kernel lowered without a driver workaround its device needs (hand-built `LowerOptions`
//! instead of `Gpu::lower_options`) is refused at launch (`Error::MissingWorkaround`), never
//! run to a silently wrong result: loops without the cut check where the driver cuts loops
//! (lavapipe), fences not emitted as sink atomics where fences lose threads (lavapipe 22.3).
//! The same kernels lowered with `Gpu::lower_options` run and give the right values.

mod common;
use common::gpu;

use std::sync::Arc;

use ptxcross::runtime::{Backend, Context, ContextOptions, Error, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

const BLOCK: u32 = 32;

/// `out[tid] = sum of (tid + i) for i < n`, in a loop (with a `fence.sc.gpu` in it where
/// `fence` is set).
fn ptx(fence: bool) -> String {
    format!(
        "
.version 7.0
.target sm_70
.address_size 64
.visible .entry sum(.param .u64 out, .param .u32 n)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
LOOP:
    add.u32 %r5, %r2, %r3;
    {}
    add.u32 %r4, %r4, %r5;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra LOOP;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}}
",
        if fence { "fence.sc.gpu;" } else { "" }
    )
}

/// `out[tid] = tid`: no loop, no fence.
const STRAIGHT: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry sum(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
";

fn build(ptx: &str, options: &LowerOptions, backend: Backend) -> Program {
    let file = SourceFile::new("guard.ptx", ptx);
    let options = LowerOptions { block: Some([BLOCK, 1, 1]), ..options.clone() };
    ptxcross::translate::build_program(&file, &options, &[backend], true).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// Launches `sum` with `n` on one block; the words written, or the launch's error.
fn run(gpu: &Arc<Gpu>, program: &Program, backend: Backend, n: u32) -> Result<Vec<u32>, Error> {
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 16, timeout: None, gpu: Some(gpu.clone()) })?;
    let out = ctx.alloc(BLOCK as u64 * 4)?;
    ctx.write(out, &vec![0xff; BLOCK as usize * 4])?;
    ctx.launch(program, "sum", [1, 1, 1], &[&out.0.to_le_bytes(), &n.to_le_bytes()], backend)?;
    let bytes = ctx.read(out, BLOCK as u64 * 4)?;
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// The CPU reference of the looping kernel.
fn expected(n: u32) -> Vec<u32> {
    (0..BLOCK).map(|t| (0..n).fold(0u32, |a, i| a.wrapping_add(t + i))).collect()
}

fn assert_refused(e: Error, option: &str) {
    let text = e.to_string();
    assert!(matches!(e, Error::MissingWorkaround { .. }), "{text}");
    for part in ["kernel `sum`", option, "Gpu::lower_options"] {
        assert!(text.contains(part), "`{part}` missing from: {text}");
    }
}

#[test]
fn a_loop_lowered_without_the_cut_check_is_refused_where_the_driver_cuts_loops() {
    let Some(gpu) = gpu() else { return };
    let n = 5;
    for backend in Backend::ALL {
        let unchecked = build(&ptx(false), &LowerOptions::default(), backend);
        let got = run(&gpu, &unchecked, backend, n);
        if gpu.cuts_long_loops(backend) {
            assert_refused(got.expect_err("a loop without the cut check ran"), "detect_cut_loops");
            // Ahead of the launch too.
            let ctx = Context::new(ContextOptions { heap_bytes: 1 << 16, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
            assert_refused(ctx.prepare(&unchecked, "sum", backend).expect_err("prepared"), "detect_cut_loops");
        } else {
            eprintln!("note: {backend} on this device does not cut loops; only the accepted cases are checked");
            assert_eq!(got.unwrap(), expected(n));
        }
        let host = build(&ptx(false), &gpu.lower_options(&[backend]), backend);
        assert_eq!(run(&gpu, &host, backend, n).unwrap_or_else(|e| panic!("{e}")), expected(n), "{backend}");
        // Without a loop nothing is missing.
        let straight = build(STRAIGHT, &LowerOptions::default(), backend);
        assert_eq!(run(&gpu, &straight, backend, n).unwrap_or_else(|e| panic!("{e}")), (0..BLOCK).collect::<Vec<_>>());
    }
}

#[test]
fn a_fence_lowered_without_sink_atomics_is_refused_where_fences_lose_threads() {
    let Some(gpu) = gpu() else { return };
    let (backend, n) = (Backend::Spirv, 5);
    // Only the fence workaround may be missing: the loop has its check.
    let checked = LowerOptions { detect_cut_loops: true, ..Default::default() };
    let unsunk = build(&ptx(true), &checked, backend);
    let got = run(&gpu, &unsunk, backend, n);
    if gpu.fences_lose_threads(backend) {
        assert_refused(got.expect_err("a fence without the workaround ran"), "fences_as_sink_atomics");
    } else {
        eprintln!("note: fences do not lose threads on this device; only the accepted case is checked");
        assert_eq!(got.unwrap_or_else(|e| panic!("{e}")), expected(n));
    }
    let host = build(&ptx(true), &gpu.lower_options(&[backend]), backend);
    assert_eq!(run(&gpu, &host, backend, n).unwrap_or_else(|e| panic!("{e}")), expected(n));
}
