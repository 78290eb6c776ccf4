//! Triton's own PTX end to end: the vector add, row softmax and layer norm kernels that
//! Triton compiles (`tests/parse-corpus/real/src/triton_kernels.py`, committed output in
//! `tests/parse-corpus/real/triton/`, sm_80 and sm_90), run on both backends and compared
//! with a CPU reference of the algorithm (`triton_kernels.py`'s definitions), not with
//! ptxcross's own output.
//!
//! These are the reductions a compute framework emits: four warps of 32 lanes, a butterfly
//! `shfl.sync.bfly` tree per warp, the warps' partial results through dynamic shared memory
//! (`.extern .shared global_smem`) across `bar.sync`, masks for partial rows. The add is
//! bit-exact (one `add.f32` per element); softmax and layer norm use `ex2.approx.f32`,
//! `sqrt.approx.ftz.f32` and `div.full.f32`, whose bits PTX leaves to the implementation
//! within stated bounds, so they are checked within a tolerance a wrong reduction, mask or
//! shuffle cannot meet (a lost or doubled lane changes a sum by a whole element).

use std::path::Path;
use std::sync::Arc;

use ptxcross::{translate, Backend, Context, ContextOptions, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::gpu_or_skip;

/// Triton's launch shape for these kernels (`.reqntid 128`: num_warps = 4) and the dynamic
/// shared memory it asks for (one f32 per warp per reduction; generous here).
const BLOCK: [u32; 3] = [128, 1, 1];
const SHARED_BYTES: u32 = 1024;

fn triton_ptx(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("parse-corpus/real/triton").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn program(gpu: &Arc<Gpu>, file: &str, kernel: &str, backend: Backend) -> Program {
    let options = LowerOptions {
        kernel: Some(kernel.to_string()),
        block: Some(BLOCK),
        dynamic_shared_bytes: SHARED_BYTES,
        native_fma: gpu.native_fma_usable(backend),
        detect_cut_loops: gpu.cuts_long_loops(backend),
        ..Default::default()
    };
    translate::build_program(&SourceFile::new(file.to_string(), triton_ptx(file)), &options, &[backend], true)
        .unwrap_or_else(|e| panic!("{file} ({backend}): {}", e.render()))
}

/// Deterministic inputs in [lo, hi).
fn floats(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// An argument of the kernel's parameter list.
enum Arg {
    /// A buffer (its initial contents); the pointer is passed.
    Buf(Vec<u8>),
    /// Triton's trailing scratch pointers (global and profile scratch), unused by these kernels.
    Null,
    U32(u32),
    F32(f32),
}

/// Runs `kernel` on `grid` rows with `args`; returns each buffer's contents afterwards.
fn run(gpu: &Arc<Gpu>, program: &Program, kernel: &str, grid: u32, args: &[Arg], backend: Backend) -> Vec<Vec<u8>> {
    let heap: u64 = args.iter().map(|a| if let Arg::Buf(b) = a { (b.len() as u64).next_multiple_of(256) } else { 0 }).sum();
    let mut ctx = Context::new(ContextOptions { heap_bytes: heap + (1 << 16), timeout: None, gpu: Some(gpu.clone()) }).unwrap();
    let mut bufs = Vec::new();
    let mut bytes: Vec<Vec<u8>> = Vec::new();
    for a in args {
        bytes.push(match a {
            Arg::Buf(b) => {
                let p = ctx.alloc(b.len() as u64).unwrap();
                ctx.write(p, b).unwrap();
                bufs.push((p, b.len() as u64));
                p.to_le_bytes().to_vec()
            }
            Arg::Null => 0u64.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
        });
    }
    let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    ctx.launch(program, kernel, [grid, 1, 1], &refs, backend).unwrap_or_else(|e| panic!("{kernel} on {backend}: {e}"));
    bufs.iter().map(|&(p, n)| ctx.read(p, n).unwrap()).collect()
}

/// `|got - want| <= rel * |want| + abs` for every element, with the first few misses named.
fn assert_close(what: &str, got: &[f32], want: &[f64], rel: f64, abs: f64) {
    assert_eq!(got.len(), want.len());
    let off = |g: f32, w: f64| g.is_nan() || (g as f64 - w).abs() > rel * w.abs() + abs;
    let count = got.iter().zip(want).filter(|&(&g, &w)| off(g, w)).count();
    let first: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|&(_, (&g, &w))| off(g, w))
        .take(5)
        .map(|(i, (g, w))| format!("[{i}] got {g:e} ({:#010x}), want {w:e}", g.to_bits()))
        .collect();
    assert!(count == 0, "{what}: {count} elements off, first: {first:#?}");
}

const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// `out[i] = x[i] + y[i]` for `i < n`, 1024 elements per program (block of 128 threads, 8
/// each), a partial last program; elements past `n` stay untouched. Bit-exact.
#[test]
fn triton_vector_add_is_bit_exact_with_a_partial_last_block() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 5000usize;
    let len = 5120usize; // 5 programs; the last one masks 120 elements off
    let x = floats(len, 1, -1e3, 1e3);
    let y = floats(len, 2, -1e3, 1e3);
    let sentinel = vec![f32::from_bits(0x7fc0_dead); len];
    for arch in ARCHS {
        let file = format!("triton_add.{arch}.ptx");
        for backend in Backend::ALL {
            let p = program(&gpu, &file, "add_kernel", backend);
            let args = [Arg::Buf(to_bytes(&x)), Arg::Buf(to_bytes(&y)), Arg::Buf(to_bytes(&sentinel)), Arg::U32(n as u32), Arg::Null, Arg::Null];
            let out = from_bytes(&run(&gpu, &p, "add_kernel", 5, &args, backend)[2]);
            for i in 0..len {
                let want = if i < n { (x[i] + y[i]).to_bits() } else { sentinel[i].to_bits() };
                assert_eq!(out[i].to_bits(), want, "{file} on {backend}: out[{i}]");
            }
        }
    }
}

/// Row softmax with Triton's 1024-wide block: full rows, a partial row (masked lanes load
/// −inf and must not count), and rows packed with a stride equal to their length.
#[test]
fn triton_softmax_matches_the_definition_on_full_and_partial_rows() {
    let Some(gpu) = gpu_or_skip() else { return };
    for arch in ARCHS {
        let file = format!("triton_softmax.{arch}.ptx");
        for backend in Backend::ALL {
            let p = program(&gpu, &file, "softmax_kernel", backend);
            for (rows, cols, stride) in [(3usize, 1024usize, 1024usize), (4, 1000, 1000), (5, 37, 40)] {
                let input = floats(rows * stride, (cols * 7 + rows) as u64, -8.0, 8.0);
                let out0 = vec![0f32; rows * stride];
                let args = [
                    Arg::Buf(to_bytes(&out0)),
                    Arg::Buf(to_bytes(&input)),
                    Arg::U32(stride as u32),
                    Arg::U32(stride as u32),
                    Arg::U32(cols as u32),
                    Arg::Null,
                    Arg::Null,
                ];
                let out = from_bytes(&run(&gpu, &p, "softmax_kernel", rows as u32, &args, backend)[0]);
                for r in 0..rows {
                    let row = &input[r * stride..r * stride + cols];
                    let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                    let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
                    let sum: f64 = e.iter().sum();
                    let want: Vec<f64> = e.iter().map(|v| v / sum).collect();
                    let what = format!("{file} on {backend}, {cols} columns, row {r}");
                    assert_close(&what, &out[r * stride..r * stride + cols], &want, 1e-5, 0.0);
                    // Past the row's columns nothing is written.
                    assert!(out[r * stride + cols..(r + 1) * stride].iter().all(|&v| v == 0.0), "{what}: wrote past the row");
                }
            }
        }
    }
}

/// Layer norm over rows of up to 2048 (Triton's block): `(x - mean) / sqrt(var + eps) * w + b`,
/// full and partial rows.
#[test]
fn triton_layer_norm_matches_the_definition() {
    let Some(gpu) = gpu_or_skip() else { return };
    let eps = 1e-5f32;
    for arch in ARCHS {
        let file = format!("triton_layernorm.{arch}.ptx");
        for backend in Backend::ALL {
            let p = program(&gpu, &file, "layernorm_kernel", backend);
            for (rows, n) in [(2usize, 2048usize), (3, 1500), (2, 33)] {
                let stride = n;
                let x = floats(rows * stride, n as u64 + 11, -3.0, 5.0);
                let w = floats(n, 5, 0.5, 1.5);
                let b = floats(n, 6, -0.5, 0.5);
                let args = [
                    Arg::Buf(to_bytes(&x)),
                    Arg::Buf(vec![0u8; rows * stride * 4]),
                    Arg::Buf(to_bytes(&w)),
                    Arg::Buf(to_bytes(&b)),
                    Arg::U32(stride as u32),
                    Arg::U32(n as u32),
                    Arg::F32(eps),
                    Arg::Null,
                    Arg::Null,
                ];
                let y = from_bytes(&run(&gpu, &p, "layernorm_kernel", rows as u32, &args, backend)[1]);
                for r in 0..rows {
                    let row: Vec<f64> = x[r * stride..r * stride + n].iter().map(|&v| v as f64).collect();
                    let mean = row.iter().sum::<f64>() / n as f64;
                    let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
                    let rstd = 1.0 / (var + eps as f64).sqrt();
                    let want: Vec<f64> = (0..n).map(|i| (row[i] - mean) * rstd * w[i] as f64 + b[i] as f64).collect();
                    assert_close(&format!("{file} on {backend}, n {n}, row {r}"), &y[r * stride..r * stride + n], &want, 2e-5, 2e-5);
                }
            }
        }
    }
}
