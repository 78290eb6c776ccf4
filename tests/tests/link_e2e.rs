//! Separate compilation end to end: the two translation units of `tests/link/src` (a kernel
//! that calls a function and reads a table defined in the other unit, and a private helper
//! whose name both units use), compiled by nvcc 13.5 `-rdc=true` and by clang-16 `-fgpu-rdc`
//! (`tests/link/regen.sh`, which also checks that NVIDIA's nvlink accepts each pair), linked by
//! `ptxcross_frontend::link`, then translated with validation and run on both backends. The
//! expected values come from a CPU implementation of the CUDA sources written here.

use ptxcross::Backend;
use ptxcross_frontend::{link::link_sources, SourceFile};
use ptxcross_tests::launch::{self, Launch};
use std::path::Path;

const N: usize = 300;
const BLOCK: u32 = 64;

fn read(name: &str) -> SourceFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/ptx").join(name);
    SourceFile::new(name, std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// kernel.cu and helper.cu on the CPU: `scale(x, i) = x * 2.5 + mix_helper(i)` (f32, no
/// contraction: nvcc keeps `x * 2.5f + float` as one fma.rn, so the reference uses `mul_add`),
/// plus the kernel unit's own `mix`, plus the table.
fn expected(input: &[f32]) -> Vec<f32> {
    const TABLE: [i32; 16] = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3];
    let mix_kernel = |x: i32| (x ^ 7).wrapping_mul(5);
    let mix_helper = |x: i32| x.wrapping_mul(3).wrapping_add(1);
    (0..N)
        .map(|i| {
            let i32_ = i as i32;
            let scaled = input[i].mul_add(2.5, mix_helper(i32_) as f32);
            scaled + mix_kernel(i32_) as f32 + TABLE[i % 16] as f32
        })
        .collect()
}

#[test]
fn separately_compiled_units_link_and_run() {
    let Some(gpu) = launch::gpu_or_skip() else { return };
    let input: Vec<f32> = (0..N).map(|i| (i as f32) * 0.37 - 41.0).collect();
    let want = expected(&input);
    for compiler in ["nvcc", "clang"] {
        let files = [read(&format!("kernel.{compiler}.ptx")), read(&format!("helper.{compiler}.ptx"))];
        let linked = link_sources(&files).unwrap_or_else(|e| panic!("{compiler}: link failed:\n{}", e.join("\n")));
        for backend in Backend::ALL {
            let run = Launch {
                ptx: &linked,
                kernel: "linked",
                block: [BLOCK, 1, 1],
                grid: [(N as u32).div_ceil(BLOCK), 1, 1],
                buffers: vec![
                    launch::bytes(&input.iter().map(|f| f.to_bits()).collect::<Vec<_>>()),
                    vec![0; N * 4],
                    (N as i32).to_le_bytes().to_vec(),
                ],
            };
            let Some(out) = launch::run_or_skip(&gpu, &run, backend).unwrap_or_else(|e| panic!("{compiler} {backend}: {e}")) else { continue };
            let got = launch::words(&out[1]);
            for i in 0..N {
                assert_eq!(got[i], want[i].to_bits(), "{compiler} {backend}: out[{i}] = {} expected {}", f32::from_bits(got[i]), want[i]);
            }
        }
    }
}

#[test]
fn one_unit_alone_is_refused_naming_the_missing_symbol() {
    let Some(_gpu) = launch::gpu_or_skip() else { return };
    let file = read("kernel.nvcc.ptx");
    let options = ptxcross_lower::LowerOptions { block: Some([BLOCK, 1, 1]), ..Default::default() };
    let err = match ptxcross::translate::build_program(&file, &options, &Backend::ALL, true) {
        Ok(_) => panic!("kernel.nvcc.ptx alone translated, though `_Z5scalefi` and `table` are defined elsewhere"),
        Err(e) => e.render(),
    };
    assert!(err.contains("kernel.nvcc.ptx:"), "the error names the place: {err}");
    assert!(err.contains("unresolved `.extern` variable `table`") && err.contains("ptxcross link"), "the error says what is missing and what to do: {err}");
    eprintln!("{err}");
}
