//! Shared by the SIMT tests (atomics, barriers): translate PTX (both backends validated with
//! spirv-val and naga), run one launch on the shared GPU, read buffers back.
#![allow(dead_code)]

use ptxcross::translate;
use ptxcross::{Backend, Context, DevicePtr, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use std::sync::Arc;

/// The shared GPU, or `None` (test skipped) when there is none and `PTXCROSS_REQUIRE_GPU` is
/// not `1`.
pub fn gpu() -> Option<Arc<Gpu>> {
    ptxcross_tests::launch::gpu_or_skip()
}

/// Lowers `ptx` for `block` (panics with the diagnostic).
fn lower_ptx(name: &str, ptx: &str, block: [u32; 3]) -> ptxcross_lower::ir::Module {
    lower_kernel(name, ptx, block, None)
}

/// Lowers `kernel` of `ptx` (every kernel: `None`) for `block`, with native warp collectives
/// as the shared device asks (`Gpu::native_warps`: where its subgroups can hold whole warps,
/// or as `PTXCROSS_WARPS` says), so these tests run the native translation on such devices.
/// `PTXCROSS_WARPS_SIMULATE=1`: the native lowering with its subgroup operations simulated
/// through shared memory (`LowerOptions::simulate_native_warps`), on any device.
fn lower_kernel(name: &str, ptx: &str, block: [u32; 3], kernel: Option<&str>) -> ptxcross_lower::ir::Module {
    if std::env::var("PTXCROSS_WARPS_SIMULATE").as_deref() == Ok("1") {
        return lower_warps(name, ptx, block, kernel, true, true);
    }
    lower_warps(name, ptx, block, kernel, gpu().is_some_and(|g| g.native_warps()), false)
}

/// `PTXCROSS_MEETING_EVERYWHERE=1`: the warp meeting check at every collective, as before the
/// static proof (`lower/src/meeting.rs`); `PTXCROSS_MEETING=check`: the check in kernels that
/// may meet, instead of the CTA barrier scheduler (as before 2026-11-28); for timing
/// comparisons in one binary.
fn meeting() -> ptxcross_lower::Meeting {
    match (std::env::var("PTXCROSS_MEETING_EVERYWHERE").as_deref(), std::env::var("PTXCROSS_MEETING").as_deref()) {
        (Ok("1"), _) => ptxcross_lower::Meeting::CheckEverywhere,
        (_, Ok("check")) => ptxcross_lower::Meeting::Check,
        _ => ptxcross_lower::Meeting::default(),
    }
}

fn lower_warps(name: &str, ptx: &str, block: [u32; 3], kernel: Option<&str>, native_warps: bool, simulate_native_warps: bool) -> ptxcross_lower::ir::Module {
    lower_meeting(name, ptx, block, kernel, native_warps, simulate_native_warps, meeting())
}

fn lower_meeting(
    name: &str,
    ptx: &str,
    block: [u32; 3],
    kernel: Option<&str>,
    native_warps: bool,
    simulate_native_warps: bool,
    meeting: ptxcross_lower::Meeting,
) -> ptxcross_lower::ir::Module {
    assert!(translate::spirv_validator_available(), "a SPIR-V validator is needed (scripts/install-deps.sh)");
    let file = SourceFile::new(name, ptx);
    // As the runtime translates for the device (exact f32 where a backend flushes subnormals,
    // its shared-memory limit, …), with the warp path the test asks for.
    let options = LowerOptions {
        block: Some(block),
        kernel: kernel.map(str::to_string),
        native_warps,
        simulate_native_warps,
        meeting,
        ..ptxcross_tests::launch::device_options(&Backend::ALL)
    };
    translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

/// Translates `ptx` for `block` with native warp collectives beside the emulated ones
/// (`LowerOptions::native_warps`) whatever the device, validating both modules. Kernels whose
/// collectives may meet at different instructions keep the native lowering with the meeting
/// check (`Meeting::Check`, the scheduler's fallback) instead of the CTA barrier scheduler,
/// which has no native translation.
pub fn native_program(name: &str, ptx: &str, block: [u32; 3]) -> Program {
    let meeting = match meeting() {
        ptxcross_lower::Meeting::Meet => ptxcross_lower::Meeting::Check,
        m => m,
    };
    let module = lower_meeting(name, ptx, block, None, true, false, meeting);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Translates `ptx` for `block` with emulated warp collectives only, whatever the device.
pub fn emulated_program(name: &str, ptx: &str, block: [u32; 3]) -> Program {
    let module = lower_warps(name, ptx, block, None, false, false);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Translates `ptx` for `block` with the native warp collectives' lowering whose subgroup
/// operations are simulated through shared memory (`LowerOptions::simulate_native_warps`):
/// runs the native lowering on any device.
pub fn simulated_native_program(name: &str, ptx: &str, block: [u32; 3]) -> Program {
    let module = lower_warps(name, ptx, block, None, true, true);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// As [`simulated_native_program`], with only `kernel` of the file.
pub fn simulated_native_program_of(name: &str, ptx: &str, block: [u32; 3], kernel: &str) -> Program {
    let module = lower_warps(name, ptx, block, Some(kernel), true, true);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// As [`simulated_native_program`], keeping the layout check's protocol and the emulated twin
/// (the runtime treats it as a native-warps kernel) with a verdict chosen by the test: a CTA
/// passes where its workgroup x index is below `pass_below` (`LowerOptions::simulate_warp_layout`).
pub fn simulated_layout_program(name: &str, ptx: &str, block: [u32; 3], pass_below: u32) -> Program {
    assert!(translate::spirv_validator_available(), "a SPIR-V validator is needed (scripts/install-deps.sh)");
    let file = SourceFile::new(name, ptx);
    let options = LowerOptions {
        block: Some(block),
        native_warps: true,
        simulate_native_warps: true,
        simulate_warp_layout: Some(pass_below),
        meeting: meeting(),
        ..ptxcross_tests::launch::device_options(&Backend::ALL)
    };
    let module = translate::frontend(&file, &options).unwrap_or_else(|e| panic!("{name}: {}", e.render()));
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The translation a launch of a native-warps program must run on `gpu`: the native one where
/// every subgroup size is a multiple of 32 (NVIDIA, RDNA wave32, AMD wave64; the layout check
/// must pass there) or where `PTXCROSS_EXPECT_NATIVE_WARPS=1` says so (a device run that must
/// prove the native path, whatever sizes the adapter reports), else the emulated one
/// (lavapipe's 8, browsers' 4).
pub fn expected_warp_path(gpu: &Gpu) -> ptxcross::runtime::WarpPath {
    if gpu.subgroups_hold_warps() || std::env::var("PTXCROSS_EXPECT_NATIVE_WARPS").as_deref() == Ok("1") {
        ptxcross::runtime::WarpPath::Native
    } else {
        ptxcross::runtime::WarpPath::Emulated
    }
}

/// As [`program_of`], with warp collectives that may meet lowered as `meeting` says.
pub fn program_meeting(name: &str, ptx: &str, block: [u32; 3], kernel: &str, meeting: ptxcross_lower::Meeting) -> Program {
    let module = lower_meeting(name, ptx, block, Some(kernel), gpu().is_some_and(|g| g.native_warps()), false, meeting);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Translates `ptx` for `block` to both backends, validating each module.
pub fn program(name: &str, ptx: &str, block: [u32; 3]) -> Program {
    let module = lower_ptx(name, ptx, block);
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// As [`program`], with only `kernel` of the file (files with many kernels, each built for
/// its own block size).
pub fn program_of(name: &str, ptx: &str, block: [u32; 3], kernel: &str) -> Program {
    let module = lower_kernel(name, ptx, block, Some(kernel));
    translate::build_program_from_ir(name, module, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Translates `ptx` for `block` to the SPIR-V backend only (validated with spirv-val), and
/// returns the WGSL backend's error (for kernels WGSL cannot express).
pub fn spirv_program(name: &str, ptx: &str, block: [u32; 3]) -> (Program, String) {
    let module = lower_ptx(name, ptx, block);
    let wgsl = match translate::emit_wgsl(&module, ptxcross_wgsl::Profile::Wgpu) {
        Ok(_) => panic!("{name}: the WGSL backend accepted a kernel it cannot express"),
        Err(e) => e.to_string(),
    };
    let program = translate::build_program_from_ir(name, module, &[Backend::Spirv], true).unwrap_or_else(|e| panic!("{name}: {e}"));
    (program, wgsl)
}

pub struct Run {
    pub ctx: Context,
}

impl Run {
    pub fn new(gpu: &Arc<Gpu>) -> Run {
        let ctx = Context::new(ptxcross::ContextOptions { heap_bytes: 16 << 20, timeout: None, gpu: Some(gpu.clone()) })
            .expect("context");
        Run { ctx }
    }
    pub fn buffer(&mut self, bytes: &[u8]) -> DevicePtr {
        let p = self.ctx.alloc(bytes.len().max(4) as u64).expect("alloc");
        self.ctx.write(p, bytes).expect("write");
        p
    }
    pub fn zeros(&mut self, len: usize) -> DevicePtr {
        self.buffer(&vec![0u8; len])
    }
    pub fn read(&self, p: DevicePtr, len: usize) -> Vec<u8> {
        self.ctx.read(p, len as u64).expect("read")
    }
    pub fn read_u32(&self, p: DevicePtr, n: usize) -> Vec<u32> {
        self.read(p, n * 4).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }
    pub fn read_u64(&self, p: DevicePtr, n: usize) -> Vec<u64> {
        self.read(p, n * 8).chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    }
    /// Launches and checks that no fault was recorded.
    pub fn launch(&mut self, program: &Program, kernel: &str, grid: [u32; 3], args: &[&[u8]], backend: Backend) {
        self.ctx.launch(program, kernel, grid, args, backend).unwrap_or_else(|e| panic!("{kernel} on {backend}: {e}"));
    }
}

/// Seconds one loop iteration of `kernel` costs per warp: `kernel(out, n)` is launched once to
/// warm up (pipeline creation excluded), then timed at n = 0 and n = `iters`; `out` gets
/// `out_bytes` zeroed bytes. Returns (time at 0, time at `iters`, cost per iteration and warp).
pub fn loop_cost(gpu: &Arc<Gpu>, program: &Program, kernel: &str, grid: u32, block: u32, out_bytes: usize, iters: u32, backend: Backend) -> (f64, f64, f64) {
    let mut run = Run::new(gpu);
    let out = run.zeros(out_bytes);
    let mut time = |n: u32| {
        let t = std::time::Instant::now();
        run.launch(program, kernel, [grid, 1, 1], &[&out.to_le_bytes(), &n.to_le_bytes()], backend);
        t.elapsed().as_secs_f64()
    };
    time(1);
    let (t0, tn) = (time(0), time(iters));
    (t0, tn, (tn - t0) / (iters as f64 * (grid * block / 32) as f64))
}

pub fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Deterministic pseudo-random words (xorshift32).
pub fn words(seed: u32) -> impl Iterator<Item = u32> {
    std::iter::successors(Some(seed), |&x| {
        let x = x ^ (x << 13);
        let x = x ^ (x >> 17);
        Some(x ^ (x << 5))
    })
    .skip(1)
}
