//! GPU timestamps around launches (`Context::last_kernel_time`; the driver library's events use
//! them): present where the device has timestamp queries (lavapipe has), within the host's own
//! measurement of the launch, and growing with the work.

use std::time::Instant;

use ptxcross::{translate, Backend, Context, ContextOptions};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch;

/// Every thread runs `n` iterations of an integer hash (kept below lavapipe's loop cap).
const SPIN: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %i, %n, %h, %t;
    .reg .b64 %rd;
    ld.param.u32 %n, [n];
    mov.u32 %h, %tid.x;
    mov.u32 %i, 0;
LOOP:
    setp.ge.u32 %p, %i, %n;
    @%p bra DONE;
    mul.lo.u32 %h, %h, 1664525;
    add.u32 %h, %h, 1013904223;
    shr.u32 %t, %h, 13;
    xor.b32 %h, %h, %t;
    add.u32 %i, %i, 1;
    bra LOOP;
DONE:
    ld.param.u64 %rd, [out];
    atom.global.xor.b32 %t, [%rd], %h;
    ret;
}
";

#[test]
fn launches_report_their_gpu_time() {
    let Some(gpu) = launch::gpu_or_skip() else { return };
    if !gpu.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        return eprintln!("skipped: the device has no timestamp queries");
    }
    let file = SourceFile::new("spin.ptx", SPIN);
    let options = LowerOptions { block: Some([64, 1, 1]), ..ptxcross_tests::launch::device_options(&Backend::ALL) };
    let program = translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 16, timeout: None, gpu: Some(gpu.clone()) }).unwrap();
    let out = ctx.alloc(4).unwrap();
    // Untimed by default (timing costs about as much as a small launch).
    ctx.launch(&program, "spin", [1, 1, 1], &[&out.to_le_bytes(), &1u32.to_le_bytes()], Backend::Wgsl).unwrap();
    assert_eq!(ctx.last_kernel_time(), None, "launches are untimed unless asked");
    ctx.time_launches(true);
    for backend in Backend::ALL {
        let mut time = |blocks: u32, n: u32| {
            // Once untimed: the first launch creates the pipeline.
            ctx.launch(&program, "spin", [1, 1, 1], &[&out.to_le_bytes(), &1u32.to_le_bytes()], backend).unwrap();
            let t0 = Instant::now();
            ctx.launch(&program, "spin", [blocks, 1, 1], &[&out.to_le_bytes(), &n.to_le_bytes()], backend).unwrap();
            let host = t0.elapsed();
            let gpu_time = ctx.last_kernel_time().expect("a device with timestamp queries times every launch");
            assert!(gpu_time <= host, "{backend}: GPU time {gpu_time:?} exceeds the launch's host time {host:?}");
            gpu_time
        };
        let small = time(1, 10);
        let large = time(512, 5_000);
        eprintln!("{backend}: 1 block x 10 iterations {small:?}, 512 blocks x 5,000 iterations {large:?}");
        assert!(large > small * 10, "{backend}: 2^20 times the work took {large:?} against {small:?}");
    }
}
