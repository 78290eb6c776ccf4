//! Shared memory beyond the device's workgroup memory (lavapipe: 32 KiB, NVIDIA's Vulkan:
//! 48 KiB; CUDA kernels use up to 227 KiB): `lower` places such a kernel's shared memory in the
//! launch's scratch buffer, one slice per CTA of the dispatch
//! (`ptxcross_lower::local_scratch::shared_in_scratch`). End to end on both backends, checked
//! against a CPU computation of the kernels below: static (64 KiB) and dynamic (80 KiB)
//! shared arrays, every word written, read back by other threads after `bar.sync` (through
//! `ld.shared`, a generic address from `cvta.shared` and `ld.shared.v4`), shared atomics; an
//! access past the CTA's shared memory faults with `FAULT_SHARED_OUT_OF_RANGE` and leaves the
//! other CTAs' slices alone; a later launch reads zeros; a kernel that fits the device keeps
//! its workgroup array.

use ptxcross::runtime::Error;
use ptxcross::{translate, Backend, Context, ContextOptions, Gpu, Program};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};
use ptxcross_tests::launch::{gpu_or_skip, words};
use std::sync::Arc;

const BLOCK: u32 = 256;
const GRID: u32 = 24;

/// The kernel `name`: its shared array `sym` (declared by `decl`) of `nwords` words (a
/// parameter) gets the pattern of [`pattern`], then each thread sums other threads' words
/// (see [`expected`]), then atomically adds `ctaid + 1` to word `tid % 64`.
fn kernel(name: &str, decl: &str, sym: &str) -> String {
    format!(
        r#"
.visible .entry {name}(.param .u64 out, .param .u64 out2, .param .u32 nwords)
{{
    {decl}
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    ld.param.u32 %r3, [nwords];
    mov.u64 %rd1, {sym};
    mul.lo.u32 %r4, %r2, 0x9E3779B9;
    mov.u32 %r5, %r1;
W:
    setp.ge.u32 %p1, %r5, %r3;
    @%p1 bra WD;
    mad.lo.u32 %r6, %r5, 0x85EBCA6B, 0x3C6EF372;
    xor.b32 %r6, %r6, %r4;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.shared.u32 [%rd3], %r6;
    add.u32 %r5, %r5, 256;
    bra W;
WD:
    bar.sync 0;
    cvta.shared.u64 %rd10, %rd1;
    mov.u32 %r7, 0;
    mov.u32 %r5, %r1;
R:
    setp.ge.u32 %p1, %r5, %r3;
    @%p1 bra RD;
    mad.lo.u32 %r8, %r5, 7, 13;
    rem.u32 %r8, %r8, %r3;
    mul.wide.u32 %rd2, %r8, 4;
    add.u64 %rd3, %rd10, %rd2;
    ld.u32 %r9, [%rd3];
    mad.lo.u32 %r7, %r7, 31, %r9;
    add.u32 %r5, %r5, 256;
    bra R;
RD:
    mul.wide.u32 %rd2, %r1, 16;
    add.u64 %rd3, %rd1, %rd2;
    ld.shared.v4.u32 {{%r20, %r21, %r22, %r23}}, [%rd3];
    xor.b32 %r20, %r20, %r21;
    xor.b32 %r20, %r20, %r22;
    xor.b32 %r20, %r20, %r23;
    mad.lo.u32 %r7, %r7, 31, %r20;
    ld.param.u64 %rd4, [out];
    mad.lo.u32 %r10, %r2, 256, %r1;
    mul.wide.u32 %rd5, %r10, 4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r7;
    bar.sync 0;
    and.b32 %r11, %r1, 63;
    mul.wide.u32 %rd2, %r11, 4;
    add.u64 %rd3, %rd1, %rd2;
    add.u32 %r12, %r2, 1;
    atom.shared.add.u32 %r13, [%rd3], %r12;
    bar.sync 0;
    setp.lt.u32 %p2, %r1, 64;
    @!%p2 bra END;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.shared.u32 %r14, [%rd3];
    ld.param.u64 %rd7, [out2];
    mad.lo.u32 %r15, %r2, 64, %r1;
    mul.wide.u32 %rd8, %r15, 4;
    add.u64 %rd9, %rd7, %rd8;
    st.global.u32 [%rd9], %r14;
END:
    ret;
}}
"#
    )
}

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// Word `w` of CTA `c`'s shared memory after the first phase.
fn pattern(c: u32, w: u32) -> u32 {
    w.wrapping_mul(0x85EB_CA6B).wrapping_add(0x3C6E_F372) ^ c.wrapping_mul(0x9E37_79B9)
}

/// `out` (one word per thread) and `out2` (64 words per CTA) of [`kernel`] on `n` words.
fn expected(n: u32) -> (Vec<u32>, Vec<u32>) {
    let mut out = Vec::new();
    let mut out2 = Vec::new();
    for c in 0..GRID {
        for t in 0..BLOCK {
            let mut acc = 0u32;
            for w in (t..n).step_by(BLOCK as usize) {
                acc = acc.wrapping_mul(31).wrapping_add(pattern(c, w.wrapping_mul(7).wrapping_add(13) % n));
            }
            let v = (0..4).fold(0, |x, j| x ^ pattern(c, 4 * t + j));
            out.push(acc.wrapping_mul(31).wrapping_add(v));
        }
        for t in 0..64 {
            out2.push(pattern(c, t).wrapping_add((BLOCK / 64) * (c + 1)));
        }
    }
    (out, out2)
}

fn program(name: &str, ptx: &str, dynamic_shared_bytes: u32) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    let options = LowerOptions {
        block: Some([BLOCK, 1, 1]),
        dynamic_shared_bytes,
        ..ptxcross_tests::launch::device_options(&Backend::ALL)
    };
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

fn context(gpu: &Arc<Gpu>) -> Context {
    Context::new(ContextOptions { heap_bytes: 8 << 20, timeout: None, gpu: Some(gpu.clone()) }).expect("context")
}

/// Runs `kernel(out, out2, n)`; returns both outputs.
fn run(ctx: &mut Context, prog: &Program, kernel: &str, n: u32, backend: Backend) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let (a, b) = ((GRID * BLOCK * 4) as u64, (GRID * 64 * 4) as u64);
    let out = ctx.alloc(a)?;
    let out2 = ctx.alloc(b)?;
    ctx.write(out, &vec![0xEE; a as usize])?;
    ctx.write(out2, &vec![0xEE; b as usize])?;
    let r = ctx.launch(prog, kernel, [GRID, 1, 1], &[&out.to_le_bytes(), &out2.to_le_bytes(), &n.to_le_bytes()], backend);
    let got = (words(&ctx.read(out, a)?), words(&ctx.read(out2, b)?));
    ctx.free(out)?;
    ctx.free(out2)?;
    r.map(|()| got)
}

fn device_limit(gpu: &Gpu) -> u32 {
    gpu.limits().max_compute_workgroup_storage_size
}

/// 64 KiB of static shared memory (more than any Vulkan device we run on offers a
/// workgroup), 24 CTAs: every output equals the CPU's; then a kernel that only reads its
/// shared memory sees zeros in the same context (the slices are reused, and zeroed first).
#[test]
fn static_shared_beyond_the_device_limit_matches_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 16384u32;
    let ptx = format!(
        "{HEADER}{}{}",
        kernel("big_static", &format!(".shared .align 16 .b8 smem[{}];", n * 4), "smem"),
        READ_ZERO
    );
    assert!(n * 4 > device_limit(&gpu), "the device's workgroup memory ({}) holds the test's array", device_limit(&gpu));
    let prog = program("big_static.ptx", &ptx, 0);
    let k = prog.kernel("big_static").unwrap();
    assert_eq!((k.shared_words, k.features.scratch_shared_words), (0, n), "placement");
    let (out, out2) = expected(n);
    for backend in Backend::ALL {
        let mut ctx = context(&gpu);
        let got = run(&mut ctx, &prog, "big_static", n, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(got.0 == out, "{backend}: out differs at {:?}", got.0.iter().zip(&out).position(|(a, b)| a != b));
        assert!(got.1 == out2, "{backend}: out2 differs at {:?}", got.1.iter().zip(&out2).position(|(a, b)| a != b));
        let zeros = run(&mut ctx, &prog, "read_zero", n, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(zeros.0.iter().all(|&x| x == 0), "{backend}: a later launch read non-zero shared memory");
    }
}

/// Each thread ORs the shared words it never wrote (all of them) into `out`.
const READ_ZERO: &str = r#"
.visible .entry read_zero(.param .u64 out, .param .u64 out2, .param .u32 nwords)
{
    .shared .align 16 .b8 zsmem[65536];
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r3, [nwords];
    mov.u64 %rd1, zsmem;
    mov.u32 %r7, 0;
    mov.u32 %r5, %r1;
L:
    setp.ge.u32 %p, %r5, %r3;
    @%p bra D;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.shared.u32 %r9, [%rd3];
    or.b32 %r7, %r7, %r9;
    add.u32 %r5, %r5, 256;
    bra L;
D:
    ld.param.u64 %rd4, [out];
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r10, %r2, 256, %r1;
    mul.wide.u32 %rd5, %r10, 4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r7;
    ret;
}
"#;

/// 80 KiB of dynamic shared memory (`.extern .shared`, the launch's size), as with
/// `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`.
#[test]
fn dynamic_shared_beyond_the_device_limit_matches_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 20480u32;
    let ptx = format!("{HEADER}{}", kernel("big_dynamic", ".extern .shared .align 16 .b8 dsmem[];", "dsmem"));
    let prog = program("big_dynamic.ptx", &ptx, n * 4);
    let k = prog.kernel("big_dynamic").unwrap();
    assert_eq!((k.shared_words, k.features.scratch_shared_words), (0, n), "placement");
    let (out, out2) = expected(n);
    for backend in Backend::ALL {
        let mut ctx = context(&gpu);
        let got = run(&mut ctx, &prog, "big_dynamic", n, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(got.0 == out, "{backend}: out differs at {:?}", got.0.iter().zip(&out).position(|(a, b)| a != b));
        assert!(got.1 == out2, "{backend}: out2 differs at {:?}", got.1.iter().zip(&out2).position(|(a, b)| a != b));
    }
}

/// The same kernel on 4 KiB keeps its workgroup array (the fallback only where needed).
#[test]
fn shared_that_fits_stays_in_workgroup_memory() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1024u32;
    let ptx = format!("{HEADER}{}", kernel("small", &format!(".shared .align 16 .b8 smem[{}];", n * 4), "smem"));
    let prog = program("small.ptx", &ptx, 0);
    let k = prog.kernel("small").unwrap();
    assert_eq!((k.shared_words, k.features.scratch_shared_words), (n, 0), "placement");
    let (out, out2) = expected(n);
    for backend in Backend::ALL {
        let mut ctx = context(&gpu);
        let got = run(&mut ctx, &prog, "small", n, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert!(got.0 == out && got.1 == out2, "{backend}");
    }
}

/// Every CTA fills its 64 KiB, then thread 0 stores and loads at byte offset `bad` of shared
/// memory (one word past the end: the next CTA's first word in the scratch buffer; and 16
/// MiB on), then every thread checks its CTA's words. The launch faults with
/// `FAULT_SHARED_OUT_OF_RANGE`, the bad load yields 0, and no other CTA's word changed (word 0
/// of the faulting CTA's own memory may: a bad store may write it, as in a workgroup array,
/// `ir::Stmt::StoreWord`; it is not checked).
const OUT_OF_RANGE: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry out_of_range(.param .u64 out, .param .u64 out2, .param .u32 bad)
{
    .shared .align 16 .b8 osmem[65536];
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, 16384;
    mov.u64 %rd1, osmem;
    mul.lo.u32 %r4, %r2, 0x9E3779B9;
    mov.u32 %r5, %r1;
W:
    setp.ge.u32 %p1, %r5, %r3;
    @%p1 bra WD;
    mad.lo.u32 %r6, %r5, 0x85EBCA6B, 0x3C6EF372;
    xor.b32 %r6, %r6, %r4;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.shared.u32 [%rd3], %r6;
    add.u32 %r5, %r5, 256;
    bra W;
WD:
    bar.sync 0;
    ld.param.u32 %r16, [bad];
    cvt.u64.u32 %rd11, %r16;
    add.u64 %rd12, %rd1, %rd11;
    setp.eq.u32 %p2, %r1, 0;
    mov.u32 %r17, 0x5a5a5a5a;
    @%p2 st.shared.u32 [%rd12], %r17;
    mov.u32 %r18, 7;
    @%p2 ld.shared.u32 %r18, [%rd12];
    bar.sync 0;
    mov.u32 %r7, 0;
    mov.u32 %r5, %r1;
C:
    setp.ge.u32 %p1, %r5, %r3;
    @%p1 bra CD;
    mad.lo.u32 %r6, %r5, 0x85EBCA6B, 0x3C6EF372;
    xor.b32 %r6, %r6, %r4;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.shared.u32 %r9, [%rd3];
    setp.ne.u32 %p3, %r9, %r6;
    setp.ne.and.u32 %p3, %r5, 0, %p3;
    selp.u32 %r10, 1, 0, %p3;
    add.u32 %r7, %r7, %r10;
    add.u32 %r5, %r5, 256;
    bra C;
CD:
    ld.param.u64 %rd4, [out];
    mad.lo.u32 %r10, %r2, 256, %r1;
    mul.wide.u32 %rd5, %r10, 4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r7;
    @!%p2 bra END;
    ld.param.u64 %rd7, [out2];
    mul.wide.u32 %rd8, %r2, 4;
    add.u64 %rd9, %rd7, %rd8;
    st.global.u32 [%rd9], %r18;
END:
    ret;
}
"#;

#[test]
fn shared_accesses_past_the_cta_fault_and_leave_other_ctas_alone() {
    let Some(gpu) = gpu_or_skip() else { return };
    let prog = program("out_of_range.ptx", OUT_OF_RANGE, 0);
    assert_eq!(prog.kernel("out_of_range").unwrap().features.scratch_shared_words, 16384, "placement");
    for bad in [65536u32, 1 << 24] {
        for backend in Backend::ALL {
            let mut ctx = context(&gpu);
            let (a, b) = ((GRID * BLOCK * 4) as u64, (GRID * 64 * 4) as u64);
            let out = ctx.alloc(a).unwrap();
            let out2 = ctx.alloc(b).unwrap();
            let r = ctx.launch(&prog, "out_of_range", [GRID, 1, 1], &[&out.to_le_bytes(), &out2.to_le_bytes(), &bad.to_le_bytes()], backend);
            let what = format!("offset {bad}, {backend}");
            match r {
                Err(Error::KernelFault { bits, .. }) => assert_eq!(bits, abi::FAULT_SHARED_OUT_OF_RANGE, "{what}"),
                other => panic!("{what}: expected a shared-memory fault, got {other:?}"),
            }
            let mismatches = words(&ctx.read(out, a).unwrap());
            assert!(mismatches.iter().all(|&m| m == 0), "{what}: a CTA's shared memory changed: {mismatches:?}");
            let loads = words(&ctx.read(out2, b).unwrap());
            assert!(loads[..GRID as usize].iter().all(|&v| v == 0), "{what}: the bad load did not yield 0: {:?}", &loads[..GRID as usize]);
        }
    }
}

/// What the fallback does not cover is refused by name at translation: 64-bit shared atomics
/// in a kernel whose shared memory exceeds the device's (its shared memory would be
/// doublewords, `shared64`), naming the kernel and both sizes. (No device needed.)
#[test]
fn shared_atomics64_beyond_the_limit_are_refused_by_name() {
    let ptx = format!(
        "{HEADER}{}",
        r#"
.visible .entry wide_atomics(.param .u64 out)
{
    .shared .align 8 .b8 wsmem[65536];
    .reg .b64 %rd<4>;
    mov.u64 %rd1, wsmem;
    atom.shared.add.u64 %rd2, [%rd1], 1;
    ld.param.u64 %rd3, [out];
    st.global.u64 [%rd3], %rd2;
    ret;
}
"#
    );
    let file = SourceFile::new("wide_atomics.ptx".to_string(), ptx);
    let mut options = LowerOptions { block: Some([64, 1, 1]), max_shared_bytes: Some(32768), ..LowerOptions::default() };
    let err = match translate::build_program(&file, &options, &Backend::ALL, true) {
        Ok(_) => panic!("translated"),
        Err(e) => e.render(),
    };
    assert!(err.contains("64-bit atomics on shared memory") && err.contains("65536") && err.contains("32768"), "{err}");
    assert!(err.contains("wide_atomics.ptx:5:"), "no site: {err}");
    // Where it fits, the same kernel translates.
    options.max_shared_bytes = Some(65536);
    translate::build_program(&file, &options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()));
}
