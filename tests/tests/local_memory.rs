//! Local memory end to end: where it lives (a private array below
//! `local_scratch::DEFAULT_LOCAL_SCRATCH_BYTES`, a per-thread slice of the context's scratch
//! buffer above), what that costs at pipeline creation, and the scratch buffer's rules: slots
//! per block of a dispatch (grids split by the device's limits or by the scratch size), bounds
//! faults that change nothing, and isolation between contexts.
//!
//! The real-compiler kernels are `tests/localmem/src/local_array.cu` (nvcc 13.5,
//! `tests/localmem/regen.sh`): dynamically indexed arrays of 64 B to 8 KiB per thread, checked
//! against a CPU implementation of the CUDA source written here.
//!
//! Pipeline creation times, private arrays against scratch (minutes on lavapipe, ignored):
//! `MESA_SHADER_CACHE_DISABLE=true cargo test -p ptxcross-tests --test local_memory pipeline_build_times -- --ignored --nocapture`
//! (`PTXCROSS_LOCAL_KERNELS=local_1k,local_4k` and `PTXCROSS_LOCAL_PLACEMENT=private|scratch` pick
//! a subset).

use ptxcross::runtime::Error;
use ptxcross::{translate, Backend, Context, ContextOptions, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::ir::LocalPlacement;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::{bytes, gpu_or_skip, words};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

const BLOCK: u32 = 64;

fn nvcc_ptx() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("localmem/ptx/local_array.nvcc.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `scramble<WORDS>` of local_array.cu for one thread's input word.
fn scramble(words: usize, seed: u32) -> u32 {
    let n = words as u32;
    let mut a = vec![0u32; words];
    let mut x = seed;
    for e in a.iter_mut() {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
        *e = x;
    }
    let mut acc = 0u32;
    for j in 0..n {
        let v = a[(x.wrapping_add(j.wrapping_mul(7)) % n) as usize];
        a[(v % n) as usize] ^= j;
        acc = acc.wrapping_mul(31).wrapping_add(v);
        x ^= v >> 3;
    }
    for j in 0..n {
        acc = acc.wrapping_add(a[((acc ^ j) % n) as usize]);
    }
    acc
}

fn program(name: &str, ptx: &str, kernel: Option<&str>, block: [u32; 3], local_scratch_bytes: Option<u32>) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    let options =
        LowerOptions { block: Some(block), kernel: kernel.map(str::to_string), local_scratch_bytes, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

fn context(gpu: &Arc<Gpu>) -> Context {
    Context::new(ContextOptions { heap_bytes: 4 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context")
}

/// Runs `kernel(in, out, n)` of `program` on `grid` blocks; returns `out` (`out_words` words).
#[allow(clippy::too_many_arguments)]
fn run_in_out(
    ctx: &mut Context,
    program: &Program,
    kernel: &str,
    grid: [u32; 3],
    input: &[u32],
    out_words: usize,
    n: i32,
    backend: Backend,
) -> Result<Vec<u32>, Error> {
    let pin = ctx.alloc((input.len() * 4) as u64)?;
    ctx.write(pin, &bytes(input))?;
    let pout = ctx.alloc((out_words * 4) as u64)?;
    let args = [pin.to_le_bytes().to_vec(), pout.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    let r = ctx.launch(program, kernel, grid, &refs, backend);
    let out = ctx.read(pout, (out_words * 4) as u64).map(|b| words(&b));
    ctx.free(pin)?;
    ctx.free(pout)?;
    r.and(out)
}

fn inputs(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| (i ^ seed).wrapping_mul(0x9e37_79b9).rotate_left(7)).collect()
}

const KERNELS: [(&str, usize); 5] =
    [("local_64b", 16), ("local_256b", 64), ("local_1k", 256), ("local_4k", 1024), ("local_8k", 2048)];

/// nvcc's kernels with 64 B … 8 KiB of dynamically indexed local memory per thread, default
/// placement (private below the threshold, scratch above), on both backends: every output
/// equals the CPU reference; threads past `n` write nothing.
#[test]
fn nvcc_local_arrays_match_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = nvcc_ptx();
    let prog = program("local_array.nvcc.ptx", &ptx, None, [BLOCK, 1, 1], None);
    let grid = 3u32;
    let n = (grid * BLOCK) as usize - 17;
    let input = inputs(n, 5);
    for (kernel, words) in KERNELS {
        let k = prog.kernel(kernel).unwrap();
        let want_scratch = words * 4 >= ptxcross_lower::local_scratch::DEFAULT_LOCAL_SCRATCH_BYTES as usize;
        assert_eq!(k.local_placement == LocalPlacement::Scratch, want_scratch, "{kernel}: placement");
        let mut expect: Vec<u32> = input.iter().map(|&s| scramble(words, s)).collect();
        expect.resize(n + 17, 0); // threads past `n` write nothing
        for backend in Backend::ALL {
            let mut ctx = context(&gpu);
            let got = run_in_out(&mut ctx, &prog, kernel, [grid, 1, 1], &input, n + 17, n as i32, backend)
                .unwrap_or_else(|e| panic!("{kernel} on {backend}: {e}"));
            assert_eq!(got, expect, "{kernel} on {backend}");
        }
    }
}

/// Both placements of the same small kernels agree with the CPU (the private path at sizes
/// that normally go to scratch is covered by `pipeline_build_times`, which takes minutes).
#[test]
fn forced_scratch_and_forced_private_placements_agree() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = nvcc_ptx();
    let input = inputs(100, 9);
    for (kernel, words) in &KERNELS[..2] {
        let expect: Vec<u32> = input.iter().map(|&s| scramble(*words, s)).collect();
        for (bytes, placement) in [(Some(0), LocalPlacement::Scratch), (Some(u32::MAX), LocalPlacement::Private)] {
            let prog = program("local_array.nvcc.ptx", &ptx, Some(kernel), [BLOCK, 1, 1], bytes);
            assert_eq!(prog.kernel(kernel).unwrap().local_placement, placement);
            for backend in Backend::ALL {
                let mut ctx = context(&gpu);
                let got = run_in_out(&mut ctx, &prog, kernel, [2, 1, 1], &input, 100, 100, backend)
                    .unwrap_or_else(|e| panic!("{kernel} ({placement:?}) on {backend}: {e}"));
                assert_eq!(got, expect, "{kernel} ({placement:?}) on {backend}");
            }
        }
    }
}

/// A 3-D grid run as many small dispatches (forced caps): every dispatch reuses the slots of
/// the one before, so the slots are indexed by the block within its dispatch and consecutive
/// dispatches must not overlap; every thread's result is still its own.
#[test]
fn scratch_slots_are_reused_across_split_dispatches() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = nvcc_ptx();
    let prog = program("local_array.nvcc.ptx", &ptx, Some("local_1k"), [BLOCK, 1, 1], None);
    assert_eq!(prog.kernel("local_1k").unwrap().local_placement, LocalPlacement::Scratch);
    // The kernel indexes by %ctaid.x only; a grid in x split into dispatches of 2 blocks.
    let grid = 7u32;
    let n = (grid * BLOCK) as usize;
    let input = inputs(n, 77);
    let expect: Vec<u32> = input.iter().map(|&s| scramble(256, s)).collect();
    for backend in Backend::ALL {
        let mut ctx = context(&gpu);
        ctx.limit_dispatch_size(2, 2);
        let got = run_in_out(&mut ctx, &prog, "local_1k", [grid, 1, 1], &input, n, n as i32, backend)
            .unwrap_or_else(|e| panic!("on {backend}: {e}"));
        assert_eq!(got, expect, "on {backend}");
    }
}

/// Per thread of a 2-D grid: writes a pattern over its 64 KiB of local memory (every 16th word,
/// in a scrambled order), then reads part of it back. 256 threads × 64 KiB = 16 MiB per block,
/// so the scratch buffer (at most 256 MiB, and the device's binding limit) holds at most 16
/// blocks and the launch splits the 18-block grid by itself; slices of different threads and
/// of blocks that share a slot in successive dispatches must not mix.
const BIG_LOCAL: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry big_local(.param .u64 out)
{
    .local .align 4 .b8 buf[65536];
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ctaid.y;
    mov.u32 %r4, %nctaid.x;
    mad.lo.u32 %r5, %r3, %r4, %r2;        // linear block id
    mad.lo.u32 %r6, %r5, 256, %r1;        // global thread id g
    mov.u64 %rd1, buf;
    mov.u32 %r7, 0;                       // j
FILL:
    mul.lo.u32 %r8, %r7, 613;             // word (j * 613) mod 16384 (a permutation)
    and.b32 %r8, %r8, 16383;
    mul.wide.u32 %rd2, %r8, 4;
    add.u64 %rd3, %rd1, %rd2;
    add.u32 %r9, %r6, %r8;
    st.local.u32 [%rd3], %r9;             // word w holds g + w
    add.u32 %r7, %r7, 16;
    setp.lt.u32 %p, %r7, 16384;
    @%p bra FILL;
    mov.u32 %r7, 0;
    mov.u32 %r10, 0;
SUM:
    mul.lo.u32 %r8, %r7, 997;
    and.b32 %r8, %r8, 16383;
    mul.wide.u32 %rd2, %r8, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.local.u32 %r9, [%rd3];
    xor.b32 %r11, %r9, %r8;
    add.u32 %r10, %r10, %r11;
    add.u32 %r7, %r7, 64;
    setp.lt.u32 %p, %r7, 16384;
    @%p bra SUM;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r6, 4;
    add.u64 %rd4, %rd4, %rd5;
    st.global.u32 [%rd4], %r10;
    ret;
}
"#;

#[test]
fn large_local_memory_splits_the_grid_to_fit_the_scratch_buffer() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program("big_local.ptx", BIG_LOCAL, None, [256, 1, 1], None);
    let grid = [9u32, 2, 1];
    let threads = (grid[0] * grid[1] * 256) as usize;
    // Thread g sums (g + w) ^ w over the 256 words w = (j * 997) mod 16384, j = 0, 64, 128, …
    let expect: Vec<u32> = (0..threads as u32)
        .map(|g| (0..16384u32).step_by(64).map(|j| (j * 997) & 16383).fold(0u32, |acc, w| acc.wrapping_add((g + w) ^ w)))
        .collect();
    let per_block = 256u64 * 65536;
    let max = gpu.max_segment_bytes().min(ptxcross::runtime::SCRATCH_BUDGET_BYTES);
    assert!(max / per_block < 18, "the device's scratch holds all 18 blocks: the grid is not split ({max} bytes)");
    for backend in Backend::ALL {
        let mut ctx = context(&gpu);
        let out = ctx.alloc(threads as u64 * 4).unwrap();
        ctx.launch(&prog, "big_local", grid, &[&out.to_le_bytes()], backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let got = words(&ctx.read(out, threads as u64 * 4).unwrap());
        assert_eq!(got, expect, "{backend}");
    }
}

/// Local accesses outside the thread's slice (one word past its end, and far beyond) fault
/// with FAULT_LOCAL_OUT_OF_RANGE and change nothing: the neighbouring thread's slice keeps its
/// values, and the faulting load yields 0.
const OUT_OF_SLICE: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry out_of_slice(.param .u64 out, .param .u32 bad)
{
    .local .align 4 .b8 buf[1024];
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, buf;
    st.local.u32 [%rd1], %r1;             // word 0 = tid
    st.local.u32 [%rd1+1020], %r1;        // last word = tid
    bar.sync 0;
    ld.param.u32 %r2, [bad];              // byte offset of the bad access
    setp.eq.u32 %p, %r1, 0;
    cvt.u64.u32 %rd2, %r2;
    add.u64 %rd3, %rd1, %rd2;
    mov.u32 %r3, 0x5a5a5a5a;
    @%p st.local.u32 [%rd3], %r3;         // thread 0 only: out of its slice
    mov.u32 %r4, 7;
    @%p ld.local.u32 %r4, [%rd3];
    bar.sync 0;
    ld.local.u32 %r5, [%rd1];
    ld.local.u32 %r6, [%rd1+1020];
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r1, 12;
    add.u64 %rd4, %rd4, %rd5;
    st.global.u32 [%rd4], %r5;
    st.global.u32 [%rd4+4], %r6;
    st.global.u32 [%rd4+8], %r4;
    ret;
}
"#;

#[test]
fn local_accesses_outside_the_slice_fault_and_change_nothing() {
    let Some(gpu) = gpu_or_skip() else { return };
    let threads = 32u32;
    for (bytes, placement) in [(None, LocalPlacement::Scratch), (Some(u32::MAX), LocalPlacement::Private)] {
        let prog = program("out_of_slice.ptx", OUT_OF_SLICE, None, [threads, 1, 1], bytes);
        assert_eq!(prog.kernel("out_of_slice").unwrap().local_placement, placement);
        // One word past the slice (the next thread's word 0), and 16 MiB on.
        for bad in [1024u32, 1 << 24] {
            for backend in Backend::ALL {
                let mut ctx = context(&gpu);
                let out = ctx.alloc(threads as u64 * 12).unwrap();
                let r = ctx.launch(&prog, "out_of_slice", [2, 1, 1], &[&out.to_le_bytes(), &bad.to_le_bytes()], backend);
                let what = format!("{placement:?}, offset {bad}, {backend}");
                match r {
                    Err(Error::KernelFault { bits, .. }) => assert_eq!(bits, abi::FAULT_LOCAL_OUT_OF_RANGE, "{what}"),
                    other => panic!("{what}: expected a local-memory fault, got {other:?}"),
                }
                let got = words(&ctx.read(out, threads as u64 * 12).unwrap());
                for t in 0..threads {
                    let r = &got[t as usize * 3..][..3];
                    let load = if t == 0 { 0 } else { 7 };
                    assert_eq!(r, [t, t, load], "{what}: thread {t}");
                }
            }
        }
    }
}

/// One context's local memory never reaches another: a kernel of context A fills its local
/// memory with a secret, then a kernel of context B reads local memory it never wrote and must
/// see zeros (each context has its own scratch buffer, created zeroed).
const SECRET: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry write_secret()
{
    .local .align 4 .b8 buf[1024];
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    mov.u64 %rd1, buf;
    mov.u32 %r1, 0;
L:
    cvt.u64.u32 %rd2, %r1;
    add.u64 %rd3, %rd1, %rd2;
    or.b32 %r2, %r1, 0xCAFE0000;
    st.local.u32 [%rd3], %r2;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p, %r1, 1024;
    @%p bra L;
    ret;
}
.visible .entry read_unwritten(.param .u64 out)
{
    .local .align 4 .b8 buf[1024];
    .reg .b32 %r<5>;
    .reg .b64 %rd<6>;
    .reg .pred %p;
    mov.u64 %rd1, buf;
    mov.u32 %r1, 0;
    mov.u32 %r3, 0;
L:
    cvt.u64.u32 %rd2, %r1;
    add.u64 %rd3, %rd1, %rd2;
    ld.local.u32 %r2, [%rd3];
    or.b32 %r3, %r3, %r2;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p, %r1, 1024;
    @%p bra L;
    mov.u32 %r4, %tid.x;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r4, 4;
    add.u64 %rd4, %rd4, %rd5;
    st.global.u32 [%rd4], %r3;
    ret;
}
"#;

#[test]
fn scratch_memory_does_not_leak_between_contexts() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program("secret.ptx", SECRET, None, [64, 1, 1], None);
    assert!(prog.module().kernels.iter().all(|k| k.local_placement == LocalPlacement::Scratch));
    for backend in Backend::ALL {
        let mut a = context(&gpu);
        a.launch(&prog, "write_secret", [4, 1, 1], &[], backend).unwrap();
        let mut b = context(&gpu);
        let out = b.alloc(64 * 4).unwrap();
        b.launch(&prog, "read_unwritten", [4, 1, 1], &[&out.to_le_bytes()], backend).unwrap();
        let got = words(&b.read(out, 64 * 4).unwrap());
        assert!(got.iter().all(|&w| w == 0), "{backend}: context B read {:#x?}", &got[..4]);
    }
}

/// Pipeline creation time (first launch minus a second launch with the cached pipeline) of the
/// nvcc kernels, private arrays against scratch, both backends. Numbers for the README; only
/// prints (times depend on the machine). Minutes on lavapipe: ignored.
#[test]
#[ignore]
fn pipeline_build_times() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = nvcc_ptx();
    let input = inputs(64, 3);
    let only: Option<String> = std::env::var("PTXCROSS_LOCAL_KERNELS").ok();
    // Warm-up: the first launch of a process also probes the device.
    for backend in Backend::ALL {
        let prog = program("secret.ptx", SECRET, Some("write_secret"), [1, 1, 1], None);
        context(&gpu).launch(&prog, "write_secret", [1, 1, 1], &[], backend).expect("warm-up");
    }
    for (kernel, words) in KERNELS {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|k| k == kernel)) {
            continue;
        }
        for (bytes, placement) in [(Some(u32::MAX), "private"), (Some(0), "scratch")] {
            if std::env::var("PTXCROSS_LOCAL_PLACEMENT").is_ok_and(|p| p != placement) {
                continue;
            }
            for backend in Backend::ALL {
                // A fresh program each time: nothing cached.
                let prog = program("local_array.nvcc.ptx", &ptx, Some(kernel), [BLOCK, 1, 1], bytes);
                let mut ctx = context(&gpu);
                let t0 = Instant::now();
                let first = run_in_out(&mut ctx, &prog, kernel, [1, 1, 1], &input, 64, 64, backend);
                let t1 = Instant::now();
                let second = run_in_out(&mut ctx, &prog, kernel, [1, 1, 1], &input, 64, 64, backend);
                let t2 = Instant::now();
                let ok = first.as_ref().ok() == second.as_ref().ok()
                    && first.as_ref().is_ok_and(|v| v.iter().zip(&input).all(|(&g, &s)| g == scramble(words, s)));
                println!(
                    "{kernel:>10} {placement:>7} {backend:>6}: pipeline {:8.2} s (first launch {:.2} s, cached {:.3} s){}",
                    ((t1 - t0).saturating_sub(t2 - t1)).as_secs_f64(),
                    (t1 - t0).as_secs_f64(),
                    (t2 - t1).as_secs_f64(),
                    if ok { "" } else { "  WRONG RESULT" }
                );
            }
        }
    }
}
