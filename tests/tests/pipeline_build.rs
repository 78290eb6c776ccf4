//! First-launch pipeline creation of big kernels on the device (issue 11): how long the driver
//! takes to compile what ptxcross emits, against the size of the code, for the kernels of
//! `kernel_speed`, two CUB kernels and Triton's tensor-core matmul. A measurement, not a check
//! of results (the kernels' numbers are checked by `kernel_speed`, `simt_kernels` and
//! `triton_e2e`); every module is validated (spirv-val, naga) as it is translated.
//!
//!   `MESA_SHADER_CACHE_DISABLE=true PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross-tests --test pipeline_build -- --ignored --nocapture`
//!
//! For each kernel and backend it prints the code's size (SPIR-V words, WGSL bytes), the
//! translation time, `create` (the module and pipeline, [`Context::prepare`]) and `dispatch`
//! (the first launch of one block minus a second one: lavapipe compiles with LLVM at the first
//! dispatch, not at pipeline creation), with every parameter zero (pointers are null: such
//! a launch faults, which is fine here; loops bounded by a parameter do not run).
//!
//! - `PTXCROSS_BUILD_KERNELS=saxpy,triton_matmul` picks cases by name (default: all but the
//!   Triton matmul, whose pipelines take minutes on lavapipe).
//! - `PTXCROSS_BUILD_BACKENDS=spirv|wgsl` one backend only.
//! - `PTXCROSS_BUILD_VARIANTS=DIR`: every `DIR/<case>.<label>.spvasm|wgsl` (hand edits of what
//!   `ptxcross translate` emits; `.spvasm` assembled with `spirv-as`) is timed as one more side
//!   with the case's kernel interface, to bisect which shape of the code costs the time.
//! - `PTXCROSS_BUILD_DUMP=DIR` writes the code timed (`<case>.spv`, `<case>.wgsl`).
//! - `PTXCROSS_BUILD_PTX=FILE` translates FILE instead of the case's PTX (a hand-cut slice of
//!   it, e.g. Triton's matmul with some of its 64 `mma` removed, for a size/time curve).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::gpu_or_skip;

struct Case {
    name: &'static str,
    path: &'static str,
    kernel: &'static str,
    block: [u32; 3],
    dynamic_shared: u32,
    /// Only when named in `PTXCROSS_BUILD_KERNELS`.
    opt_in: bool,
}

const CASES: &[Case] = &[
    Case { name: "saxpy", path: "corpus/ptx/saxpy.sm80.ptx", kernel: "saxpy", block: [256, 1, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "transpose", path: "corpus/ptx/transpose.sm80.ptx", kernel: "transpose", block: [32, 8, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "reduce", path: "corpus/ptx/reduce.sm80.ptx", kernel: "reduce", block: [256, 1, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "mandelbrot", path: "corpus/ptx/mandelbrot.sm80.ptx", kernel: "mandelbrot", block: [16, 16, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "matmul", path: "speed/ptx/matmul.sm80.ptx", kernel: "matmul", block: [16, 16, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "cub_block_scan_128", path: "simt/ptx/cub.sm80.ptx", kernel: "cub_block_scan_128", block: [128, 1, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "cub_radix_sort_128", path: "simt/ptx/cub.sm80.ptx", kernel: "cub_radix_sort_128", block: [128, 1, 1], dynamic_shared: 0, opt_in: false },
    Case { name: "triton_matmul", path: "parse-corpus/real/triton/triton_matmul.sm_80.ptx", kernel: "matmul_kernel", block: [128, 1, 1], dynamic_shared: 32768, opt_in: true },
];

fn translate_case(gpu: &Arc<Gpu>, case: &Case, backend: Backend) -> Program {
    let path = match std::env::var("PTXCROSS_BUILD_PTX") {
        Ok(p) => p.into(),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join(case.path),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // As the host translates for this device.
    let options = LowerOptions {
        kernel: Some(case.kernel.to_string()),
        block: Some(case.block),
        dynamic_shared_bytes: case.dynamic_shared,
        native_fma: gpu.native_fma_usable(backend),
        native_fma_guarded: gpu.fma_mode(backend) == ptxcross::runtime::FmaMode::Guarded,
        detect_cut_loops: gpu.cuts_long_loops(backend),
        flushed_f32: gpu.flushes_f32(backend),
        max_shared_bytes: Some(gpu.limits().max_compute_workgroup_storage_size),
        ..Default::default()
    };
    translate::build_program(&SourceFile::new(case.path.to_string(), text), &options, &[backend], true)
        .unwrap_or_else(|e| panic!("{} ({backend}): {}", case.name, e.render()))
}

/// `[create, dispatch]`: the module and pipeline, then what the first launch costs more than
/// a second one.
fn build_times(gpu: &Arc<Gpu>, case: &Case, program: &Program, backend: Backend) -> [Duration; 2] {
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context");
    let t = Instant::now();
    ctx.prepare(program, case.kernel, backend).unwrap_or_else(|e| panic!("{} ({backend}): {e}", case.name));
    let create = t.elapsed();
    let params = vec![0u8; program.kernel(case.kernel).expect("kernel").param_bytes as usize];
    let mut launch = || {
        let t = Instant::now();
        // Null pointers fault; the launch still compiles and runs the kernel.
        let _ = ctx.launch_packed(program, case.kernel, [1, 1, 1], &params, backend);
        t.elapsed()
    };
    let first = launch();
    let again = (0..2).map(|_| launch()).min().unwrap();
    [create, first.saturating_sub(again)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn code_size(program: &Program, backend: Backend) -> String {
    match backend {
        Backend::Spirv => format!("{} words", program.spirv().map_or(0, <[u32]>::len)),
        Backend::Wgsl => format!("{} bytes", program.wgsl().map_or(0, str::len)),
    }
}

/// Hand-edited code of `case` (see the module comment), with its backend and label.
fn variants(case: &Case, translated: &Program) -> Vec<(String, Backend, Program)> {
    ptxcross_tests::launch::hand_edited_variants("PTXCROSS_BUILD_VARIANTS", case.name, |_| translated.module().clone())
}

/// One line of the measurement: the case, its code's size, `what` it is, and its times.
fn report(case: &Case, backend: Backend, program: &Program, what: &str, [create, dispatch]: [Duration; 2]) {
    eprintln!(
        "{:<20} {:<5} {:>14}  {what}  create {:>9.1} ms  dispatch {:>9.1} ms  total {:>9.1} ms",
        case.name,
        backend.name(),
        code_size(program, backend),
        ms(create),
        ms(dispatch),
        ms(create + dispatch)
    );
}

#[test]
#[ignore = "a measurement of minutes; see the module comment"]
fn pipeline_build() {
    let Some(gpu) = gpu_or_skip() else { return };
    let picked: Option<Vec<String>> = std::env::var("PTXCROSS_BUILD_KERNELS").ok().map(|s| s.split(',').map(str::to_string).collect());
    let backends: Vec<Backend> = match std::env::var("PTXCROSS_BUILD_BACKENDS") {
        Ok(s) => s.split(',').map(|b| Backend::parse(b).unwrap_or_else(|| panic!("backend {b}"))).collect(),
        Err(_) => Backend::ALL.to_vec(),
    };
    let dump = std::env::var("PTXCROSS_BUILD_DUMP").ok();
    eprintln!("device: {}", gpu.describe());
    for case in CASES {
        let wanted = match &picked {
            Some(names) => names.iter().any(|n| n == case.name),
            None => !case.opt_in,
        };
        if !wanted {
            continue;
        }
        for &backend in &backends {
            let t = Instant::now();
            let program = translate_case(&gpu, case, backend);
            let translated = t.elapsed();
            if let Some(dir) = &dump {
                match backend {
                    Backend::Spirv => std::fs::write(Path::new(dir).join(format!("{}.spv", case.name)), ptxcross_tests::launch::bytes(program.spirv().unwrap())),
                    Backend::Wgsl => std::fs::write(Path::new(dir).join(format!("{}.wgsl", case.name)), program.wgsl().unwrap()),
                }
                .expect("dump");
            }
            let what = format!("translate {:>8.1} ms", ms(translated));
            report(case, backend, &program, &what, build_times(&gpu, case, &program, backend));
            for (label, b, variant) in variants(case, &program).into_iter().filter(|v| v.1 == backend) {
                report(case, b, &variant, &format!("variant {label}"), build_times(&gpu, case, &variant, b));
            }
        }
    }
}
