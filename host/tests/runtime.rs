//! Runtime tests with hand-written kernels that follow `ptxcross_lower::abi` (no translator
//! involved): WGSL through wgpu, SPIR-V (assembled with spirv-as) through passthrough.
//!
//! They need a GPU adapter (lavapipe is enough). Without one they print why and pass, unless
//! `PTXCROSS_REQUIRE_GPU=1` (CI sets it) makes that a failure.

mod common;
use common::gpu;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use ptxcross::runtime::{Backend, Context, Error, Gpu, Program};
use ptxcross_lower::abi;
use ptxcross_lower::ir::{Block, Features, GlobalSegment, GlobalVar, Kernel, Module, ParamSlot};

const FILL_WGSL: &str = include_str!("data/fill.wgsl");


fn kernel(name: &str, workgroup_size: [u32; 3], params: &[(&str, u32, u32)]) -> Kernel {
    let slots: Vec<ParamSlot> = params
        .iter()
        .map(|&(n, offset, size)| ParamSlot {
            name: n.into(),
            offset,
            size,
            align: size,
        })
        .collect();
    let param_bytes = slots.iter().map(|s| s.offset + s.size).max().unwrap_or(0);
    Kernel {
        name: name.into(),
        entry_point: name.into(),
        workgroup_size,
        vars: Vec::new(),
        body: Block::new(),
        shared_words: 0,
        local_words: 0,
        local_placement: Default::default(),
        fault_site_var: None,
        fault_sites: Vec::new(),
        params: slots,
        param_bytes,
        features: Features::default(),
        functions: Vec::new(),
        printf: Vec::new(),
    }
}

fn fill_kernel() -> Kernel {
    kernel(
        "fill",
        [64, 1, 1],
        &[("out", 0, 8), ("n", 8, 4), ("value", 12, 4)],
    )
}

fn wgsl_program(globals: GlobalSegment) -> Program {
    let module = Module {
        kernels: vec![
            fill_kernel(),
            kernel("copy_globals", [4, 1, 1], &[("out", 0, 8)]),
        ],
        globals,
    };
    Program::new("fill.wgsl", module, None, Some(FILL_WGSL.to_string()))
}

fn spirv_program() -> Option<Program> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fill.spvasm");
    // One file per call: tests run in parallel threads of one process, and one removing the
    // file while another read it made this flaky.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("ptxcross-fill-{}-{n}.spv", std::process::id()));
    match Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
    {
        Ok(s) if s.success() => {}
        other => {
            eprintln!("skipping the SPIR-V part: spirv-as unavailable or failed ({other:?}); apt-get install -y spirv-tools");
            return None;
        }
    }
    let bytes = std::fs::read(&out).expect("spirv-as output");
    std::fs::remove_file(&out).ok();
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let module = Module {
        kernels: vec![fill_kernel()],
        globals: GlobalSegment::default(),
    };
    Some(Program::new("fill.spvasm", module, Some(words), None))
}

fn run_fill(ctx: &mut Context, program: &Program, backend: Backend) {
    let n = 1000u32;
    let out = ctx.alloc(n as u64 * 4).unwrap();
    let grid = [n.div_ceil(64), 1, 1];
    ctx.launch(
        program,
        "fill",
        grid,
        &[&out.to_le_bytes(), &n.to_le_bytes(), &7u32.to_le_bytes()],
        backend,
    )
    .unwrap();
    let bytes = ctx.read(out, n as u64 * 4).unwrap();
    for i in 0..n as usize {
        let v = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(v, 7 + i as u32, "{backend} element {i}");
    }
    // Launching again reuses the cached pipeline.
    ctx.launch(
        program,
        "fill",
        grid,
        &[
            &out.to_le_bytes(),
            &1u32.to_le_bytes(),
            &100u32.to_le_bytes(),
        ],
        backend,
    )
    .unwrap();
    assert_eq!(ctx.read(out, 8).unwrap(), [100, 0, 0, 0, 8, 0, 0, 0]);
    assert_eq!(ctx.fault_word().unwrap(), 0);
}

#[test]
fn wgsl_kernel_reads_params_and_writes_heap() {
    let Some(_) = gpu() else { return };
    let mut ctx = Context::with_heap(1 << 20).unwrap();
    run_fill(
        &mut ctx,
        &wgsl_program(GlobalSegment::default()),
        Backend::Wgsl,
    );
}

#[test]
fn spirv_passthrough_kernel_reads_params_and_writes_heap() {
    let Some(gpu) = gpu() else { return };
    let Some(program) = spirv_program() else {
        return;
    };
    let mut ctx = Context::with_heap(1 << 20).unwrap();
    if !gpu.features().contains(wgpu::Features::PASSTHROUGH_SHADERS) {
        let e = ctx
            .launch(
                &program,
                "fill",
                [1, 1, 1],
                &[&[0; 8], &[0; 4], &[0; 4]],
                Backend::Spirv,
            )
            .unwrap_err();
        assert!(matches!(e, Error::MissingFeature { .. }), "{e}");
        return;
    }
    run_fill(&mut ctx, &program, Backend::Spirv);
}

#[test]
fn out_of_range_write_is_a_kernel_fault_and_is_cleared() {
    let Some(_) = gpu() else { return };
    let mut ctx = Context::with_heap(64 << 10).unwrap();
    let mut programs = vec![(wgsl_program(GlobalSegment::default()), Backend::Wgsl)];
    programs.extend(spirv_program().map(|p| (p, Backend::Spirv)));
    for (program, backend) in programs {
        let buf = ctx.alloc(256).unwrap();
        // 64 Ki threads starting at buf run past the end of the 64 KiB heap.
        let args: [&[u8]; 3] = [
            &buf.to_le_bytes(),
            &(64u32 << 10).to_le_bytes(),
            &1u32.to_le_bytes(),
        ];
        let e = ctx
            .launch(&program, "fill", [1024, 1, 1], &args, backend)
            .unwrap_err();
        match &e {
            Error::KernelFault {
                kernel,
                bits,
                faults,
                ..
            } => {
                assert_eq!(kernel, "fill");
                assert_eq!(*bits, abi::FAULT_GLOBAL_OUT_OF_RANGE);
                assert_eq!(faults, &["global memory access out of range"]);
            }
            other => panic!("{backend}: expected a kernel fault, got {other}"),
        }
        assert!(
            e.to_string().contains("global memory access out of range"),
            "{e}"
        );
        assert_eq!(ctx.fault_word().unwrap(), 0, "the fault word is cleared");
        // A null pointer faults too (high word 0 is not the heap).
        let args: [&[u8]; 3] = [
            &0u64.to_le_bytes(),
            &1u32.to_le_bytes(),
            &1u32.to_le_bytes(),
        ];
        assert!(matches!(
            ctx.launch(&program, "fill", [1, 1, 1], &args, backend),
            Err(Error::KernelFault { .. })
        ));
        // And the context still works.
        let args: [&[u8]; 3] = [&buf.to_le_bytes(), &2u32.to_le_bytes(), &5u32.to_le_bytes()];
        ctx.launch(&program, "fill", [1, 1, 1], &args, backend)
            .unwrap();
        assert_eq!(ctx.read(buf, 8).unwrap(), [5, 0, 0, 0, 6, 0, 0, 0]);
        ctx.free(buf).unwrap();
    }
}

#[test]
fn globals_segment_is_allocated_and_initialized_once() {
    let Some(_) = gpu() else { return };
    let mut ctx = Context::with_heap(1 << 20).unwrap();
    let init: Vec<u8> = (1..=16u8).collect();
    let program = wgsl_program(GlobalSegment {
        vars: vec![GlobalVar {
            name: "table".into(),
            offset: 0,
            size: 16,
        }],
        init: init.clone(),
        relocs: vec![],
        printf_region: None,
    });
    let out = ctx.alloc(16).unwrap();
    ctx.launch(
        &program,
        "copy_globals",
        [1, 1, 1],
        &[&out.to_le_bytes()],
        Backend::Wgsl,
    )
    .unwrap();
    assert_eq!(ctx.read(out, 16).unwrap(), init);
    let base = ctx.globals_base(&program).unwrap();
    assert!(
        base >= abi::HEAP_BASE + abi::HEAP_RESERVED_WORDS as u64 * 4 && base.is_multiple_of(256)
    );
    // The segment persists across launches (CUDA module globals semantics).
    ctx.write(ptxcross::DevicePtr(base), &[9, 9]).unwrap();
    ctx.launch(
        &program,
        "copy_globals",
        [1, 1, 1],
        &[&out.to_le_bytes()],
        Backend::Wgsl,
    )
    .unwrap();
    assert_eq!(&ctx.read(out, 4).unwrap(), &[9, 9, 3, 4]);
}

#[test]
fn memory_api_checks_pointers_and_handles_unaligned_copies() {
    let Some(_) = gpu() else { return };
    let mut ctx = Context::with_heap(1 << 20).unwrap();
    let a = ctx.alloc(10).unwrap();
    let b = ctx.alloc(4).unwrap();
    assert_eq!(a.0 % 256, 0);
    assert!(a.0 >= abi::HEAP_BASE + abi::HEAP_RESERVED_WORDS as u64 * 4);
    assert_eq!(
        ctx.read(a, 10).unwrap(),
        [0; 10],
        "allocations start zeroed"
    );
    ctx.write(b, &[0xaa; 4]).unwrap();
    ctx.write(a.offset(3), &[1, 2, 3, 4, 5]).unwrap();
    assert_eq!(ctx.read(a, 10).unwrap(), [0, 0, 0, 1, 2, 3, 4, 5, 0, 0]);
    assert_eq!(ctx.read(a.offset(5), 2).unwrap(), [3, 4]);
    assert_eq!(
        ctx.read(b, 4).unwrap(),
        [0xaa; 4],
        "neighbouring allocation untouched"
    );
    assert!(matches!(
        ctx.write(a.offset(8), &[0; 3]),
        Err(Error::InvalidPointer { .. })
    ));
    assert!(matches!(
        ctx.read(ptxcross::DevicePtr(16), 4),
        Err(Error::InvalidPointer { .. })
    ));
    assert!(matches!(ctx.alloc(1 << 30), Err(Error::OutOfMemory { .. })));
    ctx.free(a).unwrap();
    assert!(matches!(ctx.read(a, 1), Err(Error::InvalidPointer { .. })));
    assert!(ctx.free(a).is_err());
}

#[test]
fn launch_checks_limits_arguments_and_names() {
    let Some(gpu) = gpu() else { return };
    let mut ctx = Context::with_heap(1 << 20).unwrap();
    let program = wgsl_program(GlobalSegment::default());
    let out = ctx.alloc(4).unwrap();
    let args: [&[u8]; 3] = [&out.to_le_bytes(), &1u32.to_le_bytes(), &1u32.to_le_bytes()];

    let e = ctx
        .launch(&program, "nope", [1, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(
        e.to_string().contains("no kernel `nope`") && e.to_string().contains("fill"),
        "{e}"
    );
    let e = ctx
        .launch(&program, "fill", [1, 1, 1], &args[..2], Backend::Wgsl)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("2 argument(s) given, the kernel has 3"),
        "{e}"
    );
    let e = ctx
        .launch(
            &program,
            "fill",
            [1, 1, 1],
            &[&args[0][..4], args[1], args[2]],
            Backend::Wgsl,
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("argument 0 has 4 byte(s), parameter `out` has 8"),
        "{e}"
    );
    let e = ctx
        .launch(&program, "fill", [0, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(matches!(e, Error::LimitExceeded { .. }), "{e}");
    // More than a dispatch allows is split (tests/grid.rs); beyond CUDA's limits is refused.
    let e = ctx
        .launch(&program, "fill", [1, 65_536, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(e.to_string().contains("CUDA's grid limit"), "{e}");
    let e = ctx
        .launch(&program, "fill", [1, 1, 1], &args, Backend::Spirv)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::MissingCode {
                backend: Backend::Spirv
            }
        ),
        "{e}"
    );

    // Kernel facts beyond the device: block too large, too much shared memory.
    let mut big = fill_kernel();
    big.workgroup_size = [gpu.limits().max_compute_invocations_per_workgroup + 1, 1, 1];
    let mut shared = fill_kernel();
    shared.name = "shared".into();
    shared.shared_words = gpu.limits().max_compute_workgroup_storage_size / 4 + 1;
    let p = Program::new(
        "x",
        Module {
            kernels: vec![big, shared],
            globals: Default::default(),
        },
        None,
        Some(String::new()),
    );
    let e = ctx
        .launch(&p, "fill", [1, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(
        e.to_string().contains("max_compute_workgroup_size_x")
            || e.to_string().contains("max_compute_invocations"),
        "{e}"
    );
    let e = ctx
        .launch(&p, "shared", [1, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(
        e.to_string().contains("max_compute_workgroup_storage_size"),
        "{e}"
    );

    // A broken shader is a typed error, not a panic.
    let bad = Program::new(
        "bad",
        Module {
            kernels: vec![fill_kernel()],
            globals: Default::default(),
        },
        None,
        Some("fn oops(".into()),
    );
    let e = ctx
        .launch(&bad, "fill", [1, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert!(matches!(e, Error::Pipeline { .. }), "{e}");

    // Heap larger than one binding.
    let e = Context::with_heap(gpu.max_heap_bytes() + 1024).unwrap_err();
    assert!(matches!(e, Error::HeapTooLarge { .. }), "{e}");
}

#[test]
fn missing_features_are_named() {
    let Some(_) = gpu() else { return };
    let options = ptxcross::runtime::GpuOptions {
        feature_mask: Some(wgpu::Features::empty()),
        ..Default::default()
    };
    let limited = Arc::new(Gpu::open(&options).unwrap());
    assert!(limited.features().is_empty());
    let mut ctx = Context::new(ptxcross::ContextOptions {
        heap_bytes: 1 << 20,
        gpu: Some(limited),
        ..Default::default()
    })
    .unwrap();
    let mut k = fill_kernel();
    k.features.int64 = true;
    let module = Module {
        kernels: vec![k],
        globals: GlobalSegment::default(),
    };
    let p = Program::new("x", module, Some(vec![0x0723_0203]), Some(FILL_WGSL.into()));
    let args: [&[u8]; 3] = [&[0; 8], &[0; 4], &[0; 4]];
    let e = ctx
        .launch(&p, "fill", [1, 1, 1], &args, Backend::Wgsl)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `fill` uses 64-bit integers but the adapter lacks SHADER_INT64"
    );
    let e = ctx
        .launch(&p, "fill", [1, 1, 1], &args, Backend::Spirv)
        .unwrap_err();
    assert!(e.to_string().contains("lacks PASSTHROUGH_SHADERS"), "{e}");
}
