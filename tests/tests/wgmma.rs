//! `wgmma.mma_async` with shared-memory matrix descriptors and with A in registers,
//! `wgmma.fence/commit_group/wait_group`, `fence.proxy.async` (`lower/src/inst/wgmma.rs`) and
//! `stmatrix` (`lower/src/inst/matrix.rs`) end to end, from CUDA kernels with inline PTX as
//! CUTLASS issues it, compiled by nvcc 13.5 for sm_90a (`tests/wgmma/src/wgmma.cu`, written by
//! `tests/wgmma/gen_cu.py`; `tests/wgmma/regen.sh`).
//!
//! The launch specs `tests/nvidia/wgmma/*.json` (written by `tests/wgmma/gen_specs.py`) hold
//! the inputs and the expected outputs, from a CPU matmul of small integers (exact in every
//! accumulation order) and, for `stmatrix`, Figure 82 of the ISA: nothing of ptxcross. Every
//! swizzle mode (none, 32, 64, 128 bytes) with K-major and MN-major A and B
//! (`imm-trans-a/b`), four k-steps whose descriptors advance through the tiles as CUTLASS's
//! do, f16 and bf16 inputs, f32 and f16 accumulators, `scale-d` 0 then 1, `imm-scale` -1,
//! N = 64 and 24. The same specs ran through NVIDIA's driver on an H100 (tests/nvidia/README.md).
//!
//! The suite runs each kernel on one backend, alternating (its pipeline build is most of the
//! time); `-- --ignored` runs every spec on both backends.

use std::path::{Path, PathBuf};

fn specs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("nvidia").join("wgmma");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/nvidia/wgmma")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    specs.sort();
    assert_eq!(specs.len(), 30, "wgmma specs in {}", dir.display());
    specs
}

fn run_all(backends: impl Fn(usize) -> &'static [&'static str]) {
    let Some((_, failed)) = ptxcross_tests::launch::run_specs(&specs(), backends) else { return };
    assert!(failed.is_empty(), "wgmma specs that failed (details above): {failed:#?}");
}

/// Each kernel on one backend, alternating along the kernels (its swizzle modes are launches
/// of one pipeline, which the driver builds once).
#[test]
fn wgmma_and_stmatrix_match_the_cpu_reference() {
    let kernels: Vec<String> = specs()
        .iter()
        .map(|p| ptxcross::spec::Spec::load(p).unwrap_or_else(|e| panic!("{e}")).kernel)
        .collect();
    let mut distinct = kernels.clone();
    distinct.dedup();
    let spirv: Vec<bool> = kernels.iter().map(|k| distinct.iter().position(|d| d == k).unwrap() % 2 == 0).collect();
    run_all(|i| if spirv[i] { &["spirv"] } else { &["wgsl"] });
}

/// `cargo test -p ptxcross-tests --test wgmma -- --ignored`
#[test]
#[ignore = "both backends: about twice the suite's time"]
fn wgmma_and_stmatrix_match_the_cpu_reference_on_both_backends() {
    run_all(|_| &["spirv", "wgsl"]);
}

mod simt_util;

/// The kernels whose lowering exchanges words across lanes (`stmatrix`'s row addresses, A in
/// registers) through the native warp lowering, subgroup operations simulated (what a device
/// with 32-wide subgroups runs), both backends, against the same specs.
#[test]
fn lane_exchanging_kernels_match_with_native_warps() {
    let Some(gpu) = simt_util::gpu() else { return };
    for name in ["stmatrix_x4", "stmatrix_x4_trans", "wgmma_rega_sw128"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("nvidia/wgmma").join(format!("{name}.json"));
        let spec = ptxcross::spec::Spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let ptx = std::fs::read_to_string(&spec.ptx).unwrap();
        let block = spec.block.expect("block");
        let program = simt_util::simulated_native_program_of(name, &ptx, block, &spec.kernel);
        for backend in ptxcross::Backend::ALL {
            let mut run = simt_util::Run::new(&gpu);
            let ptrs: Vec<_> = spec.buffers.iter().map(|b| (b.name.clone(), run.buffer(&b.bytes), b.bytes.len())).collect();
            let args: Vec<Vec<u8>> = spec
                .args
                .iter()
                .map(|a| match a {
                    ptxcross::spec::ArgSpec::Buffer { name, offset } => {
                        let p = ptrs.iter().find(|b| &b.0 == name).unwrap().1;
                        (p.0 + offset).to_le_bytes().to_vec()
                    }
                    ptxcross::spec::ArgSpec::Scalar { bytes, .. } => bytes.clone(),
                })
                .collect();
            let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            run.launch(&program, &spec.kernel, spec.grid, &refs, backend);
            for e in &spec.expect {
                let (_, p, len) = ptrs.iter().find(|b| b.0 == e.buffer).unwrap();
                let (bad, first) = ptxcross::spec::compare(e, &run.read(*p, *len), 4);
                let first: Vec<String> = first.iter().map(|m| format!("[{}] {} != {}", m.index, m.actual, m.expected)).collect();
                assert_eq!(bad, 0, "{name} on {backend} (native warps): {first:?}");
            }
        }
    }
}

/// The forms not translated are refused by name with their place, never guessed.
#[test]
fn untranslated_wgmma_forms_are_refused_by_name() {
    let cases = [
        ("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1;", "m64n8k8"),
        ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1;", "m64n8k32"),
        ("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r1}, %rd1, %rd2, 1;", "m64n8k32"),
        ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, 1, 1, 1, 0, 0;", ".sp"),
        ("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;", "m64n12k16"),
        ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;", "wgmma.mma_async"),
    ];
    for (line, named) in cases {
        let ptx = format!(
            ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n    .reg .b32 %r<4>;\n    .reg .f32 %f<5>;\n    .reg .b64 %rd<3>;\n    {line}\n    ret;\n}}\n"
        );
        let file = ptxcross_frontend::SourceFile::new("k.ptx".to_string(), ptx);
        let err = ptxcross::translate::frontend(&file, &ptxcross_lower::LowerOptions::default()).expect_err(line).render();
        assert!(err.contains("k.ptx:9:") && err.contains("not supported yet") && err.contains(named), "{line}: {err}");
    }
}
